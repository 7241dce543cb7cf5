"""Game sessions of the web server: one game each, keyed by a random id.

A :class:`GameSession` holds the position, who plays each colour (a human, or
an engine spec), the last engine report and the session's engine process. Its
:meth:`GameSession.view` is everything a page draws: the board, the sides'
names, the legal moves with the points they play at, the move list, the result
(with the winning line, or Go's count: territory and score) and the search
report as a heat map. The :class:`SessionStore` keeps at most ``max_sessions``
and their engine processes (a pool of at most ``max_engines``), and closes
those left idle for ``idle_seconds`` (:meth:`SessionStore.expire`, on the
server's timer). Nothing here knows HTTP.
"""
from __future__ import annotations

import secrets
import threading
import time
from typing import Any

from dlgo.app.web.safety import HUMAN, FileRoots, browser_engine, browser_game, relative_paths
from dlgo.app.web.workers import GRACE_SECONDS, START_SECONDS, EngineAnswer, EngineJob, EnginePool, EngineProcess
from dlgo.core.errors import DlgoError, IllegalMoveError
from dlgo.core.game import State
from dlgo.core.types import Move, Player
from dlgo.formats.pictures import column_labels, star_points
from dlgo.formats.sgf import game_to_sgf

#: the engine that answers a hint when neither side is an engine
DEFAULT_HINT = "mcts:rounds=1000"


class SessionError(DlgoError):
    """A request that does not fit the session's state now (not this side's turn,
    the game is over, the engine is busy): HTTP 409."""


class NoSuchSession(DlgoError):
    """An id that names no open session: HTTP 404."""


class Busy(SessionError):
    """The session's engine is still thinking."""


class GameSession:
    """One game in the browser."""

    def __init__(self, game: str, black: str, white: str, roots: FileRoots, *, seed: int | None = None,
                 hint: str | None = None, time_limit: float = 10.0, engine: EngineProcess | None = None):
        self.id = secrets.token_urlsafe(12)
        self.state: State = browser_game(game)
        self.players: dict[Player, str | None] = {}
        for player, spec in ((Player.black, black), (Player.white, white)):
            text = spec.strip()
            self.players[player] = None if text.lower() == HUMAN else browser_engine(text, roots, self.state)
        engines_here = [s for s in self.players.values() if s]
        self.hint_spec = browser_engine(hint.strip(), roots, self.state) if hint and hint.strip() else \
            (engines_here[-1] if engines_here else DEFAULT_HINT)
        self.seed = seed if seed is not None else secrets.randbelow(2 ** 31)
        self.time_limit = time_limit
        self.roots = roots
        self.report: dict[str, Any] | None = None   # the last engine move's search, or a hint's
        self.hint: dict[str, Any] | None = None
        self.message = ""
        self.engine = engine if engine is not None else EngineProcess()  # its process: started on the first question
        self._counted: tuple[State, dict[str, Any] | None] | None = None  # the last view's count, by position
        self._busy = threading.Lock()
        self.last_seen = time.monotonic()

    # ------------------------------------------------------------ who plays
    def to_move(self) -> str | None:
        """The engine spec to move, None for a human (or a finished game)."""
        return None if self.state.is_over() else self.players[self.state.next_player]

    def human_to_move(self) -> bool:
        return not self.state.is_over() and self.players[self.state.next_player] is None

    # ------------------------------------------------------------ the human
    def play(self, text: str | None = None, action: int | None = None) -> None:
        """The human's move, as text (``C3``, ``pass``, ``resign``) or an action
        index; :class:`IllegalMoveError` with the reason if the rules forbid it."""
        self._check_free()
        if self.state.is_over():
            raise SessionError("the game is over")
        if not self.human_to_move():
            raise SessionError(f"it is {self.state.next_player.name}'s turn, played by {self.to_move()}")
        if (text is None) == (action is None):
            raise IllegalMoveError("give the move as text or as an action, one of them")
        state = self.state
        if action is not None:
            if not 0 <= action < state.num_actions:
                raise IllegalMoveError(f"action {action} is outside the game's 0..{state.num_actions - 1}")
            if action not in state.legal_actions():
                raise IllegalMoveError(self._why_illegal(state, action))
            move = state.index_to_move(action)
        else:
            assert text is not None
            move = state.parse_move(text)
        self.state = state.apply_move(move)
        self.message = ""
        self.hint = None

    @staticmethod
    def _why_illegal(state: State, action: int) -> str:
        """The rules' own reason an action is illegal here."""
        try:
            state.apply_action(action)
        except DlgoError as err:
            return str(err)
        return f"{state.format_move(state.index_to_move(action))} is not legal here"

    def undo(self) -> None:
        """Take back to the last human turn before this one (the human's last move
        and the engine's reply); with no human playing, one move."""
        self._check_free()
        humans = {p for p, spec in self.players.items() if spec is None}
        target = self.state.previous_state
        while target is not None and humans and target.next_player not in humans:
            target = target.previous_state
        if target is None:
            raise SessionError("there is no move to take back")
        self.state = target
        self.report = self.hint = None
        self.message = "move taken back"

    # ------------------------------------------------------------ engines
    def engine_job(self, role: str) -> EngineJob:
        """The job asking the engine of ``role`` (``"black"``, ``"white"``, ``"hint"``) about this position."""
        spec = self.hint_spec if role == "hint" else self.players[Player[role]]
        assert spec is not None
        actions = tuple(self.state.move_to_index(m) for m in self.state.move_history())
        return EngineJob(role, spec, self.seed + (2 if role == "hint" else Player[role].value),
                         self.state.game.spec, actions, self.time_limit)

    def start_engine_move(self) -> EngineJob:
        """Claim the session for the engine to move (:class:`SessionError` when a human is to move)."""
        if self.state.is_over():
            raise SessionError("the game is over")
        spec = self.to_move()
        if spec is None:
            raise SessionError(f"it is {self.state.next_player.name}'s turn, played by a human")
        self._claim()
        return self.engine_job(self.state.next_player.name)

    def start_hint(self, spec: str | None = None) -> EngineJob:
        """Claim the session for a hint (by ``spec``, which becomes the session's
        hint engine, else by that); a refused request changes nothing."""
        if self.state.is_over():
            raise SessionError("the game is over")
        chosen = browser_engine(spec.strip(), self.roots, self.state) if spec and spec.strip() else self.hint_spec
        self._claim()
        self.hint_spec = chosen
        return self.engine_job("hint")

    def ask(self, job: EngineJob) -> EngineAnswer:
        """The engine's answer (blocking: the server calls it from a thread); the errors of
        :meth:`~dlgo.app.web.workers.EngineProcess.ask` (it failed, ran out of time, the session
        was closed meanwhile, no engine process is free)."""
        return self.engine.ask(job)

    def finish(self, job: EngineJob, answer: EngineAnswer | None, error: str | None = None) -> None:
        """Apply an engine's answer to ``job`` (an engine move, or a hint), or show ``error``; frees the session."""
        try:
            if error is not None or answer is None:
                self.message = relative_paths(error) if error else "the engine gave no answer"
                return
            state = self.state
            move = Move.resign() if answer.action is None else state.index_to_move(answer.action)
            report = {**answer.report, "engine": job.spec, "move": state.format_move(move), "action": answer.action,
                      "player": state.next_player.name, "ply": state.num_moves_played + 1}
            if job.role == "hint":
                self.hint = report
                self.message = f"hint from {job.spec}: {report['move']}"
            else:
                self.state = state.apply_move(move)
                self.report, self.hint = report, None
                self.message = ""
        finally:
            self._busy.release()

    def _claim(self) -> None:
        if not self._busy.acquire(blocking=False):
            raise Busy("the engine is still thinking; wait for its move")

    def _check_free(self) -> None:
        if self._busy.locked():
            raise Busy("the engine is still thinking; wait for its move")

    @property
    def busy(self) -> bool:
        return self._busy.locked()

    # ------------------------------------------------------------ pages
    def view(self) -> dict[str, Any]:
        """Everything the page draws, as JSON-ready data."""
        state, game = self.state, self.state.game
        history = list(state.history())
        moves = [{"player": before.next_player.name, "text": before.format_move(after.last_move),
                  "action": None if after.last_move.is_resign else before.move_to_index(after.last_move)}
                 for before, after in zip(history, history[1:]) if after.last_move is not None]
        legal = []
        if self.human_to_move():
            for action in state.legal_actions():
                point = state.action_point(action)
                legal.append({"action": action, "text": state.format_move(state.index_to_move(action)),
                              "row": point.row if point else None, "col": point.col if point else None})
        outcome = state.outcome()
        stones = state.stone_array()
        last = state.last_move
        return {
            "id": self.id,
            "game": self._game_facts(state),
            "points": [self._point(state, a) for a in range(game.num_actions)],
            "swap_action": self._swap_action(state),
            "players": {p.name: spec or HUMAN for p, spec in self.players.items()},
            "hint_engine": self.hint_spec,
            "seed": self.seed,
            "time_limit": self.time_limit,
            "board": stones.tolist(),      # [row - 1][col - 1]: 0 empty, 1 black, 2 white; row 1 at the bottom
            "next_player": None if state.is_over() else state.next_player.name,
            "human_to_move": self.human_to_move(),
            "legal": legal,
            "last_move": None if last is None else {"text": moves[-1]["text"] if moves else "",
                                                     "row": last.point.row if last.point else None,
                                                     "col": last.point.col if last.point else None,
                                                     "pass": last.is_pass, "resign": last.is_resign},
            "passes_end_game": bool(game.has_pass and last is not None and last.is_pass),
            "moves": moves,
            "captures": self._captures(history),
            "over": state.is_over(),
            "result": None if outcome is None else {"text": outcome.text, "describe": outcome.describe(game.side_names),
                                                    "winner": outcome.winner_name},
            "winning_line": [[p.row, p.col] for p in state.winning_line() or []],
            "count": self._count(state),
            "report": self.report,
            "hint": self.hint,
            "busy": self.busy,
            "message": self.message,
        }

    @staticmethod
    def _game_facts(state: State) -> dict[str, Any]:
        """What the page needs to know of the game: its shape, style, what it can
        do, its sides' names (``{"black": "red", "white": "yellow"}``), coordinates, star points."""
        game = state.game
        square_go = game.board_style == "go" and game.num_rows == game.num_cols
        return {"spec": game.spec, "name": game.name, "rows": game.num_rows, "cols": game.num_cols,
                "style": game.board_style, "has_pass": game.has_pass, "has_sgf": game.has_sgf,
                "num_actions": game.num_actions, "sides": {p.name: game.side_name(p) for p in Player},
                "column_labels": column_labels(state), "star_points": star_points(game.num_rows) if square_go else []}

    def _count(self, state: State) -> dict[str, Any] | None:
        """The count of a finished game scored by area (None for any other): each
        point's owner (``owners[row - 1][col - 1]``: 0 nobody, 1 black, 2 white),
        the dead stones, and each side's stones, territory, komi and total. Kept
        for the position: estimating dead stones runs playouts, once a game."""
        if self._counted is None or self._counted[0] is not state:
            self._counted = (state, self._area_count(state))
        return self._counted[1]

    @staticmethod
    def _area_count(state: State) -> dict[str, Any] | None:
        count = state.area_count()
        if count is None:
            return None
        scores = {p.name: {"stones": count.stones[p], "territory": count.territory[p], "komi": count.komi_for(p),
                           "total": count.total(p)} for p in Player}
        return {"owners": count.owners.tolist(), "dead": [[p.row, p.col] for p in sorted(count.dead)], **scores}

    @staticmethod
    def _point(state: State, action: int) -> list[int] | None:
        """``[row, col]`` where ``action`` plays now (None: a pass, a full column)."""
        point = state.action_point(action) if action != state.game.pass_action else None
        return None if point is None else [point.row, point.col]

    def _swap_action(self, state: State) -> int | None:
        """The pie rule's action when the human to move may take it (None otherwise)."""
        if not self.human_to_move() or not state.swap_available():
            return None
        return state.move_to_index(state.parse_move("swap"))

    @staticmethod
    def _captures(history: list[State]) -> dict[str, int]:
        """Stones of each colour taken off the board so far (plays minus stones left)."""
        final = history[-1].stone_array()
        taken = {}
        for player, code in ((Player.black, 1), (Player.white, 2)):
            played = sum(1 for before, after in zip(history, history[1:])
                         if after.last_move is not None and after.last_move.is_play and before.next_player == player)
            taken[player.name] = max(0, played - int((final == code).sum()))
        return taken

    def record(self) -> tuple[str, str, str]:
        """The game's record: ``(file name, media type, text)``: SGF for games that
        have it, else the game spec, the players and the moves as typed."""
        state = self.state
        outcome = state.outcome()
        result = outcome.text if outcome is not None else ""
        black, white = (self.players[p] or HUMAN for p in (Player.black, Player.white))
        name = f"dlgo-{state.game.name}-{self.id[:6]}"
        if state.game.has_sgf:
            return f"{name}.sgf", "application/x-go-sgf", game_to_sgf(state, black, white, result)
        lines = [f"game: {state.game.spec}", f"black: {black}", f"white: {white}",
                 f"result: {result or 'unfinished'}", f"moves: {state.moves_text()}", ""]
        return f"{name}.txt", "text/plain", "\n".join(lines)

    def close(self) -> None:
        """Stop the session's engine process, without waiting for it."""
        self.engine.close()


class SessionStore:
    """The open sessions, at most ``max_sessions``, and their engine processes (an
    :class:`~dlgo.app.web.workers.EnginePool` of at most ``max_engines``). A
    session left idle for ``idle_seconds`` is closed by :meth:`expire`, which the
    server calls on a timer. Closing never waits for an engine's process."""

    def __init__(self, roots: FileRoots, *, max_sessions: int = 32, idle_seconds: float = 3600.0,
                 time_limit: float = 10.0, grace: float = GRACE_SECONDS, start_seconds: float = START_SECONDS,
                 max_engines: int | None = None):
        self.roots = roots
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self.time_limit = time_limit
        self.engines = EnginePool(max_engines, start_seconds=start_seconds, grace=grace)
        self._sessions: dict[str, GameSession] = {}
        self._lock = threading.Lock()

    def open(self, game: str, black: str, white: str, *, seed: int | None = None,
             hint: str | None = None) -> GameSession:
        """A new session (a :class:`~dlgo.core.errors.SpecError` for a spec a page may not play;
        :class:`SessionError` when ``max_sessions`` are open; :class:`~dlgo.app.web.workers.EnginesBusy` for a game with an
        engine while every engine process is thinking)."""
        session = GameSession(game, black, white, self.roots, seed=seed, hint=hint, time_limit=self.time_limit,
                              engine=self.engines.process())
        if any(session.players.values()):
            self.engines.check_room()
        self.expire()
        with self._lock:
            if len(self._sessions) >= self.max_sessions:
                raise SessionError(f"{self.max_sessions} games are open, the most this server keeps; "
                                   "close one, or wait for one to be left idle")
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> GameSession:
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None:
            raise NoSuchSession(f"no game {session_id!r} (it was closed, or left idle too long)")
        session.last_seen = time.monotonic()
        return session

    def close(self, session_id: str) -> None:
        """Close a session; its engine process stops in the background (a question it is thinking
        about is answered :class:`~dlgo.app.web.workers.EngineClosed`)."""
        with self._lock:
            session = self._sessions.pop(session_id, None)
        if session is None:
            raise NoSuchSession(f"no game {session_id!r}")
        session.close()

    def close_all(self) -> None:
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            session.close()

    def expire(self) -> int:
        """Close the sessions left idle for ``idle_seconds`` (never one whose engine is thinking): how many."""
        now = time.monotonic()
        with self._lock:
            idle = [key for key, session in self._sessions.items()
                    if now - session.last_seen > self.idle_seconds and not session.busy]
            expired = [self._sessions.pop(key) for key in idle]
        for session in expired:
            session.close()
        return len(expired)

    def __len__(self) -> int:
        return len(self._sessions)
