"""Any engine behind GTP: ``dlgo gtp --engine mcts:rounds=2000``.

:class:`GtpFrontend` keeps the game (board size, komi, handicap, the moves so
far) and answers one command line at a time with :meth:`GtpFrontend.handle`;
:meth:`GtpFrontend.serve` runs the loop on stdin/stdout for GoGui, Sabaki,
gtp2ogs or another engine's controller. A bad command never ends the session:
an unknown command, a malformed line, an illegal move or a board size the
engine cannot play gets a ``?`` response, and so does an engine that fails.

The moves come from the controller in any order of colours (GTP allows two
moves of one colour, e.g. to set up a position): as in GNU Go, the stone is
placed and the turn passes to the other colour, with no pass invented (so no
two passes end the game by accident); ``genmove`` for the side not to move
likewise. ``undo`` takes back one ``play`` or ``genmove``, handicap stones are
the starting position, and ``komi`` replays the game with the new value.

A clock (``time_settings``, ``time_left``) sets the engine's time for each move,
less a safety margin, as GNU Go and KataGo do: an engine whose spec gives no
budget (``mcts``, not ``mcts:rounds=2000``) searches for that long; one whose
spec gives one keeps it, stopped at the clock's time (:meth:`Agent.set_time_budget`).
"""
from __future__ import annotations

import datetime
import io
import logging
import math
import sys
from pathlib import Path
from typing import IO, Any, Callable

from dlgo import __version__
from dlgo.core.agent import Agent
from dlgo.core.errors import DlgoError
from dlgo.core.game import Ending
from dlgo.core.types import PASS, Move, Player, Point
from dlgo.storage.atomic import atomic_write
from dlgo.formats.sgf import game_to_sgf, read_sgf_file
from dlgo.games.go.handicap import fixed_handicap_points, free_handicap_points
from dlgo.games.go.deadstones import StoneStatus, score_with_dead_stones, status_of, stone_status
from dlgo.games.go.state import GoState, GoGame
from dlgo.gtp.protocol import (MAX_SIZE, GtpError, format_response, format_vertex, parse_color, parse_command,
                               parse_vertex)

log = logging.getLogger(__name__)

#: the board and komi of an engine that plays any size, until the controller sets them
DEFAULT_SIZE, DEFAULT_KOMI = 19, 7.5


class Clock:
    """GTP's time settings (``time_settings``: main time, then ``stones`` moves
    per byo-yomi period of ``byo_yomi`` seconds) and the time each side has left
    (``time_left``); :meth:`budget` turns them into seconds for the next move."""

    #: part of the estimate kept back for the controller's and the network's delays
    SAFETY = 0.8
    #: the least a move gets, however short the clock
    FLOOR = 0.05

    def __init__(self) -> None:
        self.main = 0.0
        self.byo_yomi = 0.0
        self.stones = 0
        self.active = False              # no limit until time_settings says so
        self.left: dict[Player, tuple[float, int]] = {}

    def settings(self, main: float, byo_yomi: float, stones: int) -> None:
        if main < 0 or byo_yomi < 0 or stones < 0:
            raise GtpError("time values must not be negative")
        self.main, self.byo_yomi, self.stones = main, byo_yomi, stones
        # byo-yomi time with no stones means no time limit (spec, section 6.3.3)
        self.active = not (byo_yomi > 0 and stones == 0)
        self.left = {}

    def budget(self, player: Player, moves_left: int) -> float | None:
        """Seconds for ``player``'s next move, or None without a clock."""
        if not self.active:
            return None
        time_left, stones = self.left.get(player, (self.main, 0))
        if stones > 0:  # in byo-yomi: this period's time over its stones
            return max(self.FLOOR, self.SAFETY * time_left / stones)
        period = self.byo_yomi / self.stones if self.stones else 0.0
        return max(self.FLOOR, self.SAFETY * (time_left / max(moves_left, 1) + period))


class GtpFrontend:
    """One engine, one GTP session. ``agent`` plays the moves; ``sgf_dir``, if
    given, receives each game as an SGF file, rewritten after every move."""

    def __init__(self, agent: Agent, size: int | None = None, komi: float | None = None,
                 sgf_dir: str | Path | None = None, name: str = "dlgo") -> None:
        self.agent = agent
        self.name = name
        native = agent.native_game()  # a network's own board and komi, where no size or komi is given
        native_go = native if isinstance(native, GoGame) and native.num_rows == native.num_cols else None
        self.size = size if size is not None else native_go.num_rows if native_go else DEFAULT_SIZE
        self.komi = komi if komi is not None else native_go.komi if native_go else DEFAULT_KOMI
        self.sgf_dir = Path(sgf_dir) if sgf_dir else None
        self.clock = Clock()
        self.handicap: list[Point] = []
        self.players: dict[Player, str] = {}  # colour -> engine spec, once the engine has moved for it
        self.moves: list[tuple[Player, Move]] = []  # per play/genmove: the colour and the move it played
        self.state = self._start()
        self.quit = False
        self._status_of: int | None = None  # the position whose stone status is kept
        self._stone_status: StoneStatus | None = None
        self._game_number = 0
        self._sgf_path: Path | None = None
        self.commands: dict[str, Callable[[list[str]], str]] = {
            name.removeprefix("cmd_").replace("__", "-"): getattr(self, name)
            for name in sorted(dir(self)) if name.startswith("cmd_")}
        agent.check_game(self.state)

    # ------------------------------------------------------------ the loop
    def handle(self, line: str | bytes) -> str | None:
        """The response to one command line (None for an empty or comment line);
        a line of bytes must be UTF-8, else it gets a ``?``."""
        text, decoded = _decode(line)
        try:
            command = parse_command(text)
        except GtpError as err:
            return format_response(None, str(err), ok=False)
        if command is None:
            return None
        if not decoded:
            return format_response(command.id, "not UTF-8 text", ok=False)
        handler = self.commands.get(command.name)
        if handler is None:
            return format_response(command.id, "unknown command", ok=False)
        try:
            return format_response(command.id, handler(command.args))
        except DlgoError as err:  # GtpError and every bad request: a "?" with the reason
            return format_response(command.id, str(err), ok=False)
        except Exception as err:  # the engine failed: say so, keep the session
            log.exception("%s failed", command.name)
            return format_response(command.id, f"internal error: {type(err).__name__}: {err}", ok=False)

    def serve(self, stdin: IO[Any] | None = None, stdout: IO[Any] | None = None) -> None:
        """Answer commands from ``stdin`` until ``quit`` or the end of input: by
        default the process's stdin and stdout as bytes, UTF-8 both ways (a line
        that is not UTF-8 gets a ``?`` and the session goes on); text streams work too."""
        source = stdin if stdin is not None else sys.stdin.buffer
        sink = stdout if stdout is not None else sys.stdout.buffer
        for line in source:
            response = self.handle(line)
            if response is not None:
                if isinstance(sink, io.TextIOBase):
                    sink.write(response)
                else:
                    sink.write(response.encode("utf-8", "replace"))
                sink.flush()
            if self.quit:
                break
        self.agent.close()

    # ---------------------------------------------------------- the game
    def _start(self) -> GoState:
        game = GoGame(self.size, self.size, self.komi)
        if not self.handicap:
            return game.initial_state()
        return GoState.with_handicap(self.size, self.handicap, self.komi, game=game)

    def _replay(self) -> None:
        state = self._start()
        for player, move in self.moves:
            state = state.with_turn(player).apply_move(move)
        self.state = state

    def _new_game(self) -> None:
        self.handicap, self.moves, self.players = [], [], {}
        self.state = self._start()
        self.agent.new_game()
        self._sgf_path = None

    def _record(self, player: Player, move: Move) -> None:
        """``player`` plays ``move`` now, whoever is to move: the turn is handed
        over with no pass put between (:meth:`GoState.with_turn`), as GNU Go does."""
        if self.state.is_over():
            raise GtpError("the game is over (two passes or a resignation); clear_board starts a new one")
        try:
            self.state = self.state.with_turn(player).apply_move(move)
        except DlgoError as err:  # GTP's answer starts "illegal move", once: Go's reasons say it themselves
            reason = str(err)
            raise GtpError(reason if reason.startswith("illegal move") else f"illegal move: {reason}") from None
        self.moves.append((player, move))
        self._write_sgf()

    def _write_sgf(self) -> None:
        if self.sgf_dir is None or not self.moves:
            return
        if self._sgf_path is None:
            self._game_number += 1
            stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            self.sgf_dir.mkdir(parents=True, exist_ok=True)
            self._sgf_path = self.sgf_dir / f"gtp-{stamp}-{self._game_number}.sgf"
        outcome = self.state.outcome()
        result = outcome.text if outcome is not None else ""
        with atomic_write(self._sgf_path) as handle:
            handle.write(game_to_sgf(self.state, black=self.players.get(Player.black, ""),
                                     white=self.players.get(Player.white, ""), result=result))

    def _moves_left(self) -> int:
        """A guess at the engine's moves still to come, for the clock."""
        empty = sum(1 for c in self.state.board.color if not c)
        return max(10, int(0.6 * empty) // 2)

    # ----------------------------------------------- administrative commands
    def cmd_protocol_version(self, args: list[str]) -> str:
        return "2"

    def cmd_name(self, args: list[str]) -> str:
        return self.name

    def cmd_version(self, args: list[str]) -> str:
        return f"{__version__} ({self.agent.spec})"

    def cmd_known_command(self, args: list[str]) -> str:
        _need(args, 1, "known_command NAME")
        return "true" if args[0] in self.commands else "false"

    def cmd_list_commands(self, args: list[str]) -> str:
        return "\n".join(sorted(self.commands))

    def cmd_quit(self, args: list[str]) -> str:
        self.quit = True
        return ""

    # -------------------------------------------------------- setting up
    def cmd_boardsize(self, args: list[str]) -> str:
        _need(args, 1, "boardsize SIZE")
        size = _integer(args[0], "board size")
        if not 2 <= size <= MAX_SIZE:
            raise GtpError("unacceptable size")
        try:
            self.agent.check_game(GoGame(size, size, self.komi).initial_state())
        except DlgoError as err:
            raise GtpError(f"unacceptable size: {err}") from None
        self.size = size
        self._new_game()
        return ""

    def cmd_clear_board(self, args: list[str]) -> str:
        self._new_game()
        return ""

    def cmd_komi(self, args: list[str]) -> str:
        _need(args, 1, "komi VALUE")
        try:
            komi = float(args[0])
        except ValueError:
            raise GtpError(f"komi not a float: {args[0]!r}") from None
        GoGame(self.size, self.size, komi)  # a komi the game refuses (NaN, 1e308) fails here, before it is kept
        self.komi = komi
        self._replay()
        return ""

    def cmd_fixed_handicap(self, args: list[str]) -> str:
        _need(args, 1, "fixed_handicap STONES")
        try:
            points = fixed_handicap_points(self.size, _integer(args[0], "number of stones"))
        except DlgoError as err:
            raise GtpError(str(err)) from None
        return self._place_handicap(points)

    def cmd_place_free_handicap(self, args: list[str]) -> str:
        _need(args, 1, "place_free_handicap STONES")
        stones = _integer(args[0], "number of stones")
        if not 2 <= stones < self.size * self.size:
            raise GtpError(f"invalid number of handicap stones {stones}")
        return self._place_handicap(free_handicap_points(self.size, stones))

    def cmd_set_free_handicap(self, args: list[str]) -> str:
        if len(args) < 2:
            raise GtpError("set_free_handicap needs at least two vertices")
        points = []
        for text in args:
            move = parse_vertex(text, self.size)
            if move.point is None:
                raise GtpError("a handicap stone cannot be a pass")
            if move.point in points:
                raise GtpError(f"{text} given twice")
            points.append(move.point)
        return self._place_handicap(points)

    def _place_handicap(self, points: list[Point]) -> str:
        if self.moves or self.handicap:
            raise GtpError("board not empty")
        if len(points) >= self.size * self.size:
            raise GtpError("too many handicap stones")
        self.handicap = list(points)
        try:
            self.state = self._start()
        except DlgoError as err:
            self.handicap = []
            self.state = self._start()
            raise GtpError(f"bad handicap: {err}") from None
        return " ".join(format_vertex(Move.play(p)) for p in points)

    def cmd_time_settings(self, args: list[str]) -> str:
        _need(args, 3, "time_settings MAIN BYO_YOMI STONES")
        self.clock.settings(_number(args[0], "main time"), _number(args[1], "byo-yomi time"),
                            _integer(args[2], "byo-yomi stones"))
        return ""

    def cmd_kgs__time_settings(self, args: list[str]) -> str:
        """KGS's extension, sent by gtp2ogs: none, absolute, byoyomi or canadian."""
        if not args:
            raise GtpError("kgs-time_settings needs a system: none, absolute, byoyomi or canadian")
        system = args[0].lower()
        if system == "none":
            self.clock.settings(0, 1, 0)
        elif system == "absolute" and len(args) == 2:
            self.clock.settings(_number(args[1], "main time"), 0, 0)
        elif system == "byoyomi" and len(args) == 4:  # main, period time, periods: one stone per period
            self.clock.settings(_number(args[1], "main time"), _number(args[2], "period time"), 1)
        elif system == "canadian" and len(args) == 4:
            self.clock.settings(_number(args[1], "main time"), _number(args[2], "byo-yomi time"),
                                _integer(args[3], "byo-yomi stones"))
        else:
            raise GtpError(f"cannot read kgs-time_settings {' '.join(args)}")
        return ""

    def cmd_time_left(self, args: list[str]) -> str:
        _need(args, 3, "time_left COLOR TIME STONES")
        player = parse_color(args[0])
        self.clock.left[player] = (_number(args[1], "time"), _integer(args[2], "stones"))
        return ""

    # --------------------------------------------------------------- play
    def cmd_play(self, args: list[str]) -> str:
        _need(args, 2, "play COLOR VERTEX")
        player = parse_color(args[0])
        move = parse_vertex(args[1], self.size)
        if self.state.is_over() and move.is_pass:
            return ""  # a pass after the game ended changes nothing
        self._record(player, move)
        return ""

    def cmd_genmove(self, args: list[str]) -> str:
        move = self._generate(args)
        if not self.state.is_over():  # after the game ended the answer is a pass, not played
            self._record(parse_color(args[0]), move)
        return format_vertex(move)

    def cmd_reg_genmove(self, args: list[str]) -> str:
        """The engine's move, not played (GoGui's regression tests)."""
        return format_vertex(self._generate(args))

    def _generate(self, args: list[str]) -> Move:
        _need(args, 1, "genmove COLOR")
        player = parse_color(args[0])
        if self.state.is_over():
            return PASS
        state = self.state.with_turn(player)
        self.agent.set_time_budget(self.clock.budget(player, self._moves_left()))
        move = self.agent.select_move(state)
        self.players[player] = self.agent.spec
        if not move.is_resign:
            try:
                state.apply_move(move)
            except DlgoError as err:
                raise GtpError(f"the engine chose an illegal move {format_vertex(move)}: {err}") from None
        return move

    def cmd_undo(self, args: list[str]) -> str:
        if not self.moves:
            raise GtpError("cannot undo")
        self.moves.pop()
        self._replay()
        self.agent.new_game()  # its kept tree may be of the future
        self._write_sgf()
        return ""

    # --------------------------------------------------------- information
    def cmd_showboard(self, args: list[str]) -> str:
        state = self.state
        return (f"\n{state.render()}\nkomi {self.komi:g}, {state.next_player.name} to move, "
                f"{len(self.moves)} moves played")

    def cmd_final_score(self, args: list[str]) -> str:
        """Area score with the dead stones removed (estimated from ownership, as
        GNU Go and the servers do: :mod:`dlgo.games.go.deadstones`), or ``W+R``
        after a resignation."""
        outcome = self.state.outcome()
        if outcome is not None and outcome.ending is not Ending.SCORE:
            return outcome.text
        return str(score_with_dead_stones(self.state, status=self._status()))

    def cmd_final_status_list(self, args: list[str]) -> str:
        """``final_status_list alive|dead|seki``: the strings of that status, one
        string a line, as GNU Go answers."""
        _need(args, 1, "final_status_list alive|dead|seki")
        wanted = args[0].lower()
        if wanted not in ("alive", "dead", "seki"):
            raise GtpError("final_status_list alive|dead|seki")
        status = self._status()
        board = self.state.board
        strings = {board.get_go_string(p) for p in board.geometry.points if board.get(p) is not None}
        lines = sorted(" ".join(format_vertex(Move.play(p)) for p in sorted(s.stones))
                       for s in strings if s is not None and status_of(min(s.stones), status) == wanted)
        return "\n" + "\n".join(lines) if lines else ""

    def _status(self) -> StoneStatus:
        """The stone status of the current position, estimated once per position
        (seeded by it: the same answer every time)."""
        if self._stone_status is None or self._status_of != self.state.zobrist_hash():
            self._stone_status = stone_status(self.state, seed=self.state.zobrist_hash())
            self._status_of = self.state.zobrist_hash()
        return self._stone_status

    def cmd_loadsgf(self, args: list[str]) -> str:
        """``loadsgf FILE [MOVE]``: the position before move MOVE (default: the end)."""
        if not args:
            raise GtpError("loadsgf FILE [MOVE_NUMBER]")
        try:
            record = read_sgf_file(args[0])
        except (OSError, DlgoError) as err:
            raise GtpError(f"cannot load file: {err}") from None
        if not 2 <= record.size <= MAX_SIZE or record.setup[Player.white]:
            raise GtpError("cannot load file: board size or set-up not supported")
        try:
            self.agent.check_game(GoGame(record.size, record.size, record.komi).initial_state())
        except DlgoError as err:
            raise GtpError(f"cannot load file: {err}") from None
        moves = record.moves
        if len(args) > 1:
            moves = moves[:max(0, _integer(args[1], "move number") - 1)]
        self.size, self.komi = record.size, record.komi
        self._new_game()
        self.handicap = list(record.setup[Player.black])
        self.state = self._start()
        try:
            for player, move in moves:
                self._record(player, move)
        except GtpError as err:
            raise GtpError(f"cannot load file: {err}") from None
        return ""


def _decode(line: str | bytes) -> tuple[str, bool]:
    """The line as text, and whether it was text or UTF-8 (other bytes become U+FFFD)."""
    if isinstance(line, str):
        return line, True
    try:
        return line.decode("utf-8"), True
    except UnicodeDecodeError:
        return line.decode("utf-8", "replace"), False


def _need(args: list[str], count: int, usage: str) -> None:
    if len(args) < count:
        raise GtpError(f"syntax error: {usage}")


def _integer(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GtpError(f"{what} not an integer: {text!r}") from None


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GtpError(f"{what} not a number: {text!r}") from None
    if not math.isfinite(value):
        raise GtpError(f"{what} must be finite")
    return value
