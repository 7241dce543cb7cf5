"""Game sessions of the web server: one game each, keyed by a random id.

A :class:`GameSession` holds the position, who plays each colour (a human, or
an engine: its spec, and the spec it plays with its networks pinned), the last
engine report and the session's engine process. Its :meth:`GameSession.view`
is everything a page draws: the board, the sides' names, the legal moves with
the points they play at, the move list, the result (with the winning line, or
Go's count: territory and score) and the search report as a heat map; its
:meth:`GameSession.pass_ending`, what a pass would end the game with. A game
starts from a game's spec or from an SGF record (:meth:`GameSession.start`),
and is saved whenever it changes (:mod:`dlgo.app.web.saved`), so that it
survives a restart of the server. The :class:`SessionStore` keeps at most ``max_sessions`` in memory, reads one
back from disk when a request names it, keeps their engine processes (a pool
of at most ``max_engines``), and closes those left idle for ``idle_seconds``
(:meth:`SessionStore.expire`, on the server's timer), on disk too. A bot of
a user's own (``dlgo serve --bots``) that fails during a game (it raises, runs out
of time, plays an illegal move, crashes) loses it by forfeit
(:meth:`GameSession.lose_by_forfeit`), said in the result. Nothing here knows HTTP.
"""
from __future__ import annotations

import logging
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable

from dlgo.app.web.bots import BotFolder
from dlgo.app.web.safety import HUMAN, Engine, FileRoots, Pins, browser_engine, browser_game, relative_paths
from dlgo.app.web.saved import SavedGames
from dlgo.app.web.workers import GRACE_SECONDS, START_SECONDS, EngineAnswer, EngineFailure, EngineJob, EnginePool, \
    EngineProcess, EngineTimeout, Setup, replay_actions
from dlgo.arena.bot_host import FAULT_WORDS, TIMEOUT, BotFault
from dlgo.core.errors import DlgoError, IllegalMoveError, RecordError
from dlgo.core.game import Ending, Outcome, State, pass_would_end_game
from dlgo.core.specs import split_spec
from dlgo.core.types import Move, Player
from dlgo.display.pictures import column_labels, star_points
from dlgo.formats.sgf import game_to_sgf, read_sgf, sgf_to_state
from engines import registry
from engines.bots import is_bot
from engines.names import BUILT_IN

log = logging.getLogger(__name__)

#: the engine that answers a hint when neither side is an engine
DEFAULT_HINT = "mcts:rounds=1000"
#: a bot's failure that is none of the faults its process names (:data:`dlgo.arena.bot_host.FAULTS`)
FAILURE = "failure"


class SessionError(DlgoError):
    """A request that does not fit the session's state now (not this side's turn,
    the game is over, the engine is busy): HTTP 409."""


class NoSuchSession(DlgoError):
    """An id that names no session, open or saved: HTTP 404."""

    @classmethod
    def named(cls, session_id: str, why: str = "it was closed, or left idle too long") -> NoSuchSession:
        """The plain answer for ``session_id``: no such game, why, and what to do."""
        return cls(f"no game with id {session_id[:64]!r}: {why}; start a new one")


class Busy(SessionError):
    """The session's engine is still thinking."""


class GameSession:
    """One game in the browser: :meth:`start` a new one, :meth:`restore` a saved one."""

    def __init__(self, state: State, players: dict[Player, Engine | None], hint: Engine, roots: FileRoots,
                 pins: Pins, *, seed: int, time_limit: float = 10.0, engine: EngineProcess | None = None,
                 saved: SavedGames | None = None, session_id: str | None = None, bots: BotFolder | None = None):
        self.id = session_id or secrets.token_urlsafe(12)
        self.state = state
        self.setup = Setup.of(state)  # the stones a game from SGF started from
        self.players = players
        self.hint_engine = hint
        self.seed = seed
        self.time_limit = time_limit
        self.roots = roots
        self.pins = pins
        self.bots = bots
        self.saved = saved
        #: the forfeit that ended the game, if a bot's fault ended it: the loser (``player``, its
        #: ``side`` as the game names it, its ``engine``), the ``ply`` it ended at, the ``fault`` and why
        self.forfeit: dict[str, Any] | None = None
        self.report: dict[str, Any] | None = None   # the last engine move's search, or a hint's
        self.hint: dict[str, Any] | None = None
        self.message = ""
        self.engine = engine if engine is not None else EngineProcess()  # its process: started on the first question
        self._kept: dict[str, tuple[State, Any]] = {}  # what a view worked out, by position (see _by_position)
        self._busy = threading.Lock()
        self.last_seen = time.monotonic()

    @classmethod
    def start(cls, state: State, black: str, white: str, roots: FileRoots, pins: Pins, *, seed: int | None = None,
              hint: str | None = None, **options: Any) -> GameSession:
        """A new game from ``state`` (a game's start, or a position reached by its
        moves: a game from SGF), its engines checked for it and their networks
        pinned (a :class:`~dlgo.core.errors.SpecError` for a spec a page may not
        play); ``options`` those of the constructor."""
        players: dict[Player, Engine | None] = {}
        bots = options.get("bots")
        for player, spec in ((Player.black, black), (Player.white, white)):
            text = spec.strip()
            players[player] = None if text.lower() == HUMAN else browser_engine(text, roots, state, pins, bots)
        engines_here = [e for e in players.values() if e]
        chosen = browser_engine(hint.strip(), roots, state, pins, bots) if hint and hint.strip() else \
            (engines_here[-1] if engines_here else Engine(DEFAULT_HINT, DEFAULT_HINT))
        return cls(state, players, chosen, roots, pins, seed=seed if seed is not None else secrets.randbelow(2 ** 31),
                   **options)

    @classmethod
    def restore(cls, record: dict[str, Any], roots: FileRoots, pins: Pins, **options: Any) -> GameSession:
        """The game :meth:`saved_game` wrote, at its last position (its engines as
        they were pinned, checked again); a :class:`~dlgo.core.errors.RecordError` saying why not."""
        try:
            setup = None if record["setup"] is None else Setup(tuple(record["setup"]["black"]),
                                                              tuple(record["setup"]["white"]), record["setup"]["first"])
            state = replay_actions(record["game"], (), setup=setup)
            browser_game(record["game"])  # a board the browser plays
            for action in record["moves"]:
                state = state.apply_move(Move.resign()) if action is None else state.apply_action(action)
            bots = options.get("bots")
            players = {p: None if record["players"][p.name] is None else
                       _engine(record["players"][p.name], state, bots) for p in Player}
            hint = _engine(record["hint"], state, bots)
            session = cls(state, players, hint, roots, pins, seed=int(record["seed"]), session_id=str(record["id"]),
                          **options)
            forfeit = record.get("forfeit")
            if forfeit is not None:
                session.forfeit = {key: str(forfeit[key]) for key in ("player", "side", "engine", "fault", "reason")}
                session.forfeit["ply"] = int(forfeit["ply"])
            return session
        except (KeyError, TypeError, ValueError, DlgoError) as err:  # a SpecError and an IllegalMoveError among them
            raise RecordError(f"its saved game does not replay ({type(err).__name__}: {err})") from None

    def saved_game(self) -> dict[str, Any]:
        """The game as :class:`~dlgo.app.web.saved.SavedGames` keeps it (JSON-ready)."""
        def engine(chosen: Engine | None) -> dict[str, Any] | None:
            return None if chosen is None else chosen._asdict()

        return {"id": self.id, "game": self.state.game.spec,
                "setup": None if self.setup is None else self.setup._asdict(),
                "players": {p.name: engine(e) for p, e in self.players.items()}, "hint": engine(self.hint_engine),
                "seed": self.seed, "moves": [move["action"] for move in _moves(list(self.state.history()))],
                "forfeit": self.forfeit}

    def save(self) -> None:
        """Write the game to disk (when the session has a place there). A disk that
        fails is said on the page, and the game goes on in memory."""
        if self.saved is None:
            return
        try:
            self.saved.save(self.id, self.saved_game())
        except OSError as err:
            log.warning("game %s not saved: %s", self.id, err)
            self.message = f"this game could not be saved ({err.strerror or err}); it goes on, but a restart loses it"

    # ------------------------------------------------------------ who plays
    def to_move(self) -> str | None:
        """The engine spec to move, None for a human (or a finished game)."""
        engine = None if self.state.is_over() else self.players[self.state.next_player]
        return None if engine is None else engine.spec

    def human_to_move(self) -> bool:
        return not self.state.is_over() and self.players[self.state.next_player] is None

    def side_to_move(self) -> str:
        """The side to move, as the game names it: ``red``."""
        return self.state.game.side_name(self.state.next_player)

    def notes(self) -> list[str]:
        """What the server changed of the engines chosen, a line each: an engine whose spec asks
        more seconds a move than the server's time limit, ``yellow (mcts:seconds=30): seconds
        cut to 10 (the server's limit)``."""
        chosen = [(self.state.game.side_name(p), e) for p, e in self.players.items() if e is not None]
        if self.hint_engine not in [e for _, e in chosen]:
            chosen.append(("hint", self.hint_engine))
        notes = []
        for who, engine in chosen:
            if is_bot(engine.played):
                continue  # a bot of a user's own: its limits are the server's --move-seconds, and the time limit
            seconds = registry.spec_parameters(engine.spec).get("seconds")
            if isinstance(seconds, (int, float)) and seconds > self.time_limit:
                notes.append(f"{who} ({engine.spec}): seconds cut to {self.time_limit:g} (the server's limit)")
        return notes

    # ------------------------------------------------------------ the human
    def play(self, text: str | None = None, action: int | None = None) -> None:
        """The human's move, as text (``C3``, ``pass``, ``resign``) or an action
        index; :class:`IllegalMoveError` with the reason if the rules forbid it."""
        self._check_free()
        if self.state.is_over():
            raise SessionError("the game is over")
        if not self.human_to_move():
            raise SessionError(f"it is {self.side_to_move()}'s turn, played by {self.to_move()}")
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
        self.save()

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
        if self.forfeit is not None and target.num_moves_played < int(self.forfeit["ply"]):
            self.forfeit = None
        self.message = "move taken back"
        self.save()

    # ------------------------------------------------------------ engines
    def engine_job(self, role: str) -> EngineJob:
        """The job asking the engine of ``role`` (``"black"``, ``"white"``, ``"hint"``) about this position."""
        engine = self.hint_engine if role == "hint" else self.players[Player[role]]
        assert engine is not None
        actions = tuple(self.state.move_to_index(m) for m in self.state.move_history())
        return EngineJob(role, engine.played, self.seed + (2 if role == "hint" else Player[role].value),
                         self.state.game.spec, actions, self.time_limit, engine.spec, self.setup,
                         self.bots.limits if self.bots is not None and is_bot(engine.played) else None)

    def start_engine_move(self) -> EngineJob:
        """Claim the session for the engine to move (:class:`SessionError` when a human is to move)."""
        if self.state.is_over():
            raise SessionError("the game is over")
        spec = self.to_move()
        if spec is None:
            raise SessionError(f"it is {self.side_to_move()}'s turn, played by a human")
        self._claim()
        return self.engine_job(self.state.next_player.name)

    def start_hint(self, spec: str | None = None) -> EngineJob:
        """Claim the session for a hint (by ``spec``, which becomes the session's
        hint engine, else by that); a refused request changes nothing."""
        if self.state.is_over():
            raise SessionError("the game is over")
        chosen = browser_engine(spec.strip(), self.roots, self.state, self.pins, self.bots) if spec and spec.strip() \
            else \
            self.hint_engine
        self._claim()
        self.hint_engine = chosen
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
                self.message = relative_paths(self._engine_of(job).explain(error)) if error else \
                    "the engine gave no answer"
                return
            state = self.state
            move = Move.resign() if answer.action is None else state.index_to_move(answer.action)
            report = {**answer.report, "engine": job.shown, "move": state.format_move(move), "action": answer.action,
                      "player": state.game.side_name(state.next_player), "ply": state.num_moves_played + 1}
            if job.role == "hint":
                self.hint = report
                self.message = f"hint from {job.shown}: {report['move']}"
            else:
                self.state = state.apply_move(move)
                self.report, self.hint = report, None
                self.message = ""
            self.save()
        finally:
            self._busy.release()

    def plays_bot(self, job: EngineJob) -> bool:
        """Whether ``job`` asks a bot of a user's own for a move of the game (not a hint)."""
        return job.role != "hint" and is_bot(job.spec)

    def bot_failed(self, job: EngineJob, error: EngineFailure | BotFault) -> None:
        """A bot of a user's own failed to answer ``job``: for a move of the game its side
        loses by forfeit (:meth:`lose_by_forfeit`); for a hint the message says why none
        came, and the game goes on. Frees the session."""
        if self.plays_bot(job):
            self.lose_by_forfeit(job, error)
        else:
            self.finish(job, None, f"no hint from {job.shown}: {self._explain(error)}")

    def _explain(self, error: EngineFailure | BotFault) -> str:
        """A bot's error as the page shows it: its file by its name, not where it lies."""
        return relative_paths(self.bots.explain(str(error)) if self.bots is not None else str(error))

    def lose_by_forfeit(self, job: EngineJob, error: EngineFailure | BotFault) -> None:
        """The bot that ``job`` asked for its move failed (``error``: it raised, ran out of
        time, played an illegal move, crashed, did not load): its side loses the game by
        forfeit, the reason in the result (``O (alice, raised an exception): ValueError: ...``,
        the fault in :data:`~dlgo.arena.bot_host.FAULT_WORDS`' words) and the message. Frees the session."""
        try:
            player = Player[job.role]
            side = self.state.game.side_name(player)
            why = self._explain(error)
            fault = TIMEOUT if isinstance(error, EngineTimeout) else \
                error.fault if isinstance(error, BotFault) else FAILURE  # a timeout: its engine process was killed
            reason = f"{side} ({job.shown}, {FAULT_WORDS.get(fault, 'failed')}): {why}"
            self.state = self.state.apply_move(Move.resign())  # over: no more moves, and undo takes it back
            self.forfeit = {"player": player.name, "side": side, "engine": job.shown, "fault": fault, "reason": reason,
                            "ply": self.state.num_moves_played}
            self.report = self.hint = None
            self.message = f"{side} ({job.shown}) loses by forfeit: {why}"
            self.save()
        finally:
            self._busy.release()

    def outcome(self) -> Outcome | None:
        """How the game ended (None while it goes on): a forfeit, or as its position says."""
        state, forfeit = self.state, self.forfeit
        if forfeit is not None and state.is_over() and state.num_moves_played == forfeit["ply"]:
            return state.game.outcome(Player[forfeit["player"]].other, Ending.FORFEIT)
        return state.outcome()

    def _engine_of(self, job: EngineJob) -> Engine:
        """The engine that ``job`` asked."""
        engine = self.hint_engine if job.role == "hint" else self.players[Player[job.role]]
        return engine if engine is not None else Engine(job.shown, job.spec)

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
        moves = _moves(history)
        legal = []
        if self.human_to_move():
            for action in state.legal_actions():
                point = state.action_point(action)
                legal.append({"action": action, "text": state.format_move(state.index_to_move(action)),
                              "row": point.row if point else None, "col": point.col if point else None})
        outcome = self.outcome()
        forfeit = self.forfeit if outcome is not None and outcome.ending is Ending.FORFEIT else None
        if forfeit is not None and moves:
            moves[-1] = {**moves[-1], "text": "forfeit"}
        stones = state.stone_array()
        last = state.last_move
        return {
            "id": self.id,
            "game": board_facts(state),
            "points": [self._point(state, a) for a in range(game.num_actions)],
            "swap_action": self._swap_action(state),
            "players": {game.side_name(p): engine.spec if engine else HUMAN for p, engine in self.players.items()},
            "hint_engine": self.hint_engine.spec,
            "seed": self.seed,
            "time_limit": self.time_limit,
            "board": stones.tolist(),      # [row - 1][col - 1]: 0 empty, 1 black, 2 white; row 1 at the bottom
            "next_player": None if state.is_over() else self.side_to_move(),
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
            "result": None if outcome is None else {
                "text": outcome.text, "winner": _winner(state, outcome),
                "describe": outcome.describe(game.side_names) if forfeit is None else
                f"{_winner(state, outcome)} wins by forfeit: {forfeit['reason']}",
                "forfeit": None if forfeit is None else {k: forfeit[k] for k in ("side", "engine", "fault", "reason")}},
            "winning_line": [[p.row, p.col] for p in state.winning_line() or []],
            "count": self._by_position("count", state, self._area_count),
            "report": self.report,
            "hint": self.hint,
            "busy": self.busy,
            "message": self.message,
            "notes": self.notes(),
        }

    def _by_position(self, name: str, state: State, work: Callable[[State], Any]) -> Any:
        """``work(state)``, kept for the position under ``name``: the count and
        what a pass would end with may estimate dead stones (playouts), once a position."""
        kept = self._kept.get(name)
        if kept is None or kept[0] is not state:
            kept = (state, work(state))
            self._kept[name] = kept
        return kept[1]

    def pass_ending(self) -> dict[str, Any] | None:
        """What a pass by the human to move would end the game with, as the page
        asks before it passes (None where a pass cannot end it, or no human is to
        move): ``at_once`` after the opponent's pass, else if the opponent passes
        back; the result's ``text``, ``winner`` and ``describe``. It may estimate
        dead stones (playouts, a fraction of a second): call it from a thread."""
        state = self.state
        if state.is_over() or self.players[state.next_player] is not None:
            return None
        return self._by_position("pass", state, self._pass_ending)

    @staticmethod
    def _pass_ending(state: State) -> dict[str, Any] | None:
        ending = pass_would_end_game(state)
        if ending is None:
            return None
        outcome = ending.outcome
        return {"at_once": ending.at_once, "text": outcome.text, "winner": _winner(state, outcome),
                "describe": outcome.describe(state.game.side_names)}

    @staticmethod
    def _area_count(state: State) -> dict[str, Any] | None:
        """The count of a finished game scored by area (None for any other): each
        point's owner (``owners[row - 1][col - 1]``: 0 nobody, 1 black, 2 white),
        the dead stones, and each side's stones, territory, komi and total."""
        count = state.area_count()
        if count is None:
            return None
        scores = {state.game.side_name(p): {"stones": count.stones[p], "territory": count.territory[p],
                                            "komi": count.komi_for(p), "total": count.total(p)} for p in Player}
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
        """Stones of each side taken off the board so far (those it started
        with and played, minus those left), by the game's names for the sides."""
        first, final = history[0].stone_array(), history[-1].stone_array()
        taken = {}
        for player, code in ((Player.black, 1), (Player.white, 2)):
            played = sum(1 for before, after in zip(history, history[1:])
                         if after.last_move is not None and after.last_move.is_play and before.next_player == player)
            left = int((first == code).sum()) + played - int((final == code).sum())
            taken[history[-1].game.side_name(player)] = max(0, left)
        return taken

    def record(self) -> tuple[str, str, str]:
        """The game's record: ``(file name, media type, text)``: SGF for games that
        have it, else the game spec, the players and the moves as typed."""
        state = self.state
        outcome = self.outcome()
        result = outcome.text if outcome is not None else ""
        black, white = (engine.spec if engine else HUMAN for engine in (self.players[p] for p in Player))
        name = f"dlgo-{state.game.name}-{self.id[:6]}"
        if state.game.has_sgf:
            return f"{name}.sgf", "application/x-go-sgf", game_to_sgf(state, black, white, result)
        first, second = state.game.side_names
        lines = [f"game: {state.game.spec}", f"{first}: {black}", f"{second}: {white}",
                 f"result: {result or 'unfinished'}", f"moves: {state.moves_text()}", ""]
        return f"{name}.txt", "text/plain", "\n".join(lines)

    def close(self) -> None:
        """Stop the session's engine process, without waiting for it."""
        self.engine.close()


def board_facts(state: State) -> dict[str, Any]:
    """What a page needs to know of the game of ``state``: its shape, style, what it can
    do, its sides' names (``{"black": "red", "white": "yellow"}``: the first and the second
    to move, as the requests may name them, and as the game does), coordinates, star points."""
    game = state.game
    square_go = game.board_style == "go" and game.num_rows == game.num_cols
    return {"spec": game.spec, "name": game.name, "rows": game.num_rows, "cols": game.num_cols,
            "style": game.board_style, "has_pass": game.has_pass, "has_sgf": game.has_sgf,
            "num_actions": game.num_actions, "sides": {p.name: game.side_name(p) for p in Player},
            "column_labels": column_labels(state), "star_points": star_points(game.num_rows) if square_go else []}


def _winner(state: State, outcome: Outcome) -> str:
    """The side that won, as the game names it (``red``), or ``draw``."""
    return "draw" if outcome.winner is None else state.game.side_name(outcome.winner)


def _moves(history: list[State]) -> list[dict[str, Any]]:
    """The moves of a game's states: the side that played each (as the game names it), the move as typed,
    and its action (None: a resignation)."""
    return [{"player": before.game.side_name(before.next_player), "text": before.format_move(after.last_move),
             "action": None if after.last_move.is_resign else before.move_to_index(after.last_move)}
            for before, after in zip(history, history[1:]) if after.last_move is not None]


def _engine(saved: dict[str, Any], state: State, bots: BotFolder | None = None) -> Engine:
    """A saved engine, its pinned spec checked again (its copies still there, the game theirs); a
    bot of a user's own found again by its name among ``bots`` (never by the file saved)."""
    spec, played = str(saved["spec"]), str(saved["played"])
    name = split_spec(spec)[0]
    if is_bot(played) or name not in BUILT_IN:
        if bots is None or not bots.offers(name):
            raise RecordError(f"it plays the bot {name[:64]!r}, which this server does not offer (dlgo serve --bots)")
        return Engine(spec, bots.played(spec))
    engine = Engine(spec, played, tuple(map(str, saved["pins"])))
    try:
        registry.check_engine(engine.played, state)
    except DlgoError as err:
        raise RecordError(engine.explain(str(err))) from None
    return engine


def _pinned(saved: dict[str, Any]) -> list[str]:
    """The folders of network copies a saved game's engines play (none for a file not as written)."""
    try:
        engines = [*saved["players"].values(), saved["hint"]]
        return [str(folder) for engine in engines if engine for folder in engine["pins"]]
    except (KeyError, TypeError, AttributeError):
        return []


def sgf_game(text: str) -> State:
    """The last position of the Go game in SGF ``text``, with its moves (from its
    set-up stones); a :class:`~dlgo.core.errors.DlgoError` for text that is not
    one, or a board larger than the browser plays."""
    record = read_sgf(text)
    browser_game(record.game)
    return sgf_to_state(record)


class SessionStore:
    """The open sessions, at most ``max_sessions`` in memory, and their engine
    processes (an :class:`~dlgo.app.web.workers.EnginePool` of at most
    ``max_engines``). Each game is saved in ``folder`` (``games/``, with the
    copies of the networks it plays in ``networks/``) and read back when a
    request names a session the store does not hold (after a restart). A session
    left idle for ``idle_seconds`` is closed by :meth:`expire`, which the server
    calls on a timer, and its saved game deleted. Closing never waits for an
    engine's process."""

    def __init__(self, roots: FileRoots, folder: Path, *, max_sessions: int = 32, idle_seconds: float = 3600.0,
                 time_limit: float = 10.0, grace: float = GRACE_SECONDS, start_seconds: float = START_SECONDS,
                 max_engines: int | None = None, bots: BotFolder | None = None):
        self.roots = roots
        self.bots = bots if bots is not None else BotFolder()
        self.folder = Path(folder)
        self.saved = SavedGames(self.folder / "games")
        self.pins = Pins(self.folder / "networks")
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self.time_limit = time_limit
        self.engines = EnginePool(max_engines, start_seconds=start_seconds, grace=grace)
        self._sessions: dict[str, GameSession] = {}
        self._lock = threading.Lock()

    def open(self, game: str | State, black: str, white: str, *, seed: int | None = None,
             hint: str | None = None) -> GameSession:
        """A new session of ``game``, a spec, or from a position with its moves (a
        game from SGF: :func:`sgf_game`), saved at once (a :class:`~dlgo.core.errors.SpecError`
        for a spec a page may not play; :class:`SessionError` when ``max_sessions`` are open;
        :class:`~dlgo.app.web.workers.EnginesBusy` for a game with an engine while every engine
        process is thinking). Blocks (it copies network files): call it from a thread."""
        state = browser_game(game) if isinstance(game, str) else game
        session = GameSession.start(state, black, white, self.roots, self.pins, seed=seed, hint=hint,
                                    **self._options())
        if any(session.players.values()):
            self.engines.check_room()
        self.expire()
        self._admit(session)
        session.save()
        return session

    def _options(self) -> dict[str, Any]:
        """What every session of the store is made with (beside its game)."""
        return {"time_limit": self.time_limit, "engine": self.engines.process(), "saved": self.saved, "bots": self.bots}

    def _admit(self, session: GameSession) -> GameSession:
        """Hold ``session`` in memory (the one already there under its id, if one is)."""
        with self._lock:
            there = self._sessions.get(session.id)
            if there is not None:
                return there
            if len(self._sessions) >= self.max_sessions:
                raise SessionError(f"{self.max_sessions} games are open, the most this server keeps; "
                                   "close one, or wait for one to be left idle")
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> GameSession:
        """The session ``session_id``, read back from disk if the store does not
        hold it (:class:`NoSuchSession` if there is none, or it cannot be read back)."""
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None:
            session = self._restore(session_id)
        session.last_seen = time.monotonic()
        self.saved.touch(session_id)
        return session

    def _restore(self, session_id: str) -> GameSession:
        """The saved game ``session_id``, in memory again."""
        try:
            saved = self.saved.load(session_id)
            if saved is None:
                raise NoSuchSession.named(session_id)
            if saved.get("id") != session_id:
                raise RecordError("its file names another game")
            session = GameSession.restore(saved, self.roots, self.pins, **self._options())
        except RecordError as err:
            raise NoSuchSession.named(session_id, f"it cannot be read back: {err}") from None
        admitted = self._admit(session)
        if admitted is not session:  # another request read it back first
            session.close()
        return admitted

    def close(self, session_id: str) -> None:
        """Close a session and delete its saved game; its engine process stops in the background
        (a question it is thinking about is answered :class:`~dlgo.app.web.workers.EngineClosed`)."""
        with self._lock:
            session = self._sessions.pop(session_id, None)
        try:
            path = self.saved.path(session_id)
        except RecordError:
            raise NoSuchSession.named(session_id) from None
        if session is None and not path.exists():
            raise NoSuchSession.named(session_id)
        self.saved.delete(session_id)
        if session is not None:
            session.close()

    def close_all(self) -> None:
        """Close every session in memory (the server stops): their games stay saved, to be read back."""
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            session.close()

    def expire(self) -> int:
        """Close the sessions left idle for ``idle_seconds`` (never one whose engine is
        thinking), deleting their saved games and those not read back for as long, and
        the network copies no saved game plays any more: how many sessions closed."""
        now = time.monotonic()
        with self._lock:
            idle = [key for key, session in self._sessions.items()
                    if now - session.last_seen > self.idle_seconds and not session.busy]
            expired = [self._sessions.pop(key) for key in idle]
            held = list(self._sessions.values())
        for session in expired:
            session.close()
        for session_id in idle + self.saved.stale(self.idle_seconds, besides=[s.id for s in held]):
            self.saved.delete(session_id)
        engines = [e for s in held for e in (*s.players.values(), s.hint_engine) if e is not None]
        named = [folder for e in engines for folder in e.pins]
        named += [folder for game in self.saved.all() for folder in _pinned(game)]
        self.pins.collect(named)
        return len(expired)

    def __len__(self) -> int:
        return len(self._sessions)
