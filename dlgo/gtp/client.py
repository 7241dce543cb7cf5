"""Driving an external GTP program (GNU Go, Pachi, KataGo) from Python.

:class:`GtpClient` starts the program, sends one command at a time and reads
its response with a timeout, so a program that dies, hangs or answers garbage
raises :class:`GtpConnectionError` with the end of its stderr instead of
hanging the caller. A ``?`` answer raises :class:`~dlgo.gtp.protocol.GtpError`.
:meth:`GtpClient.sync` brings the program's board to one of our Go states,
sending only the moves it has not seen.
"""
from __future__ import annotations

import queue
import shlex
import subprocess
import tempfile
import threading

from dlgo.core.errors import DlgoError
from dlgo.core.types import RESIGN, Move, Player, Point
from dlgo.games.go.state import GoState
from dlgo.gtp.protocol import GtpError, format_vertex, parse_vertex

GNUGO = "/usr/games/gnugo"
#: GNU Go's options for our rules: area scoring, situational superko, and all dead
#: stones captured before it passes (so the final board scores as it stands)
GNUGO_RULES = "--mode gtp --chinese-rules --situational-superko --capture-all-dead"
#: GNU Go's strongest level (its default); 0 is the fastest, weakest
GNUGO_MAX_LEVEL = 10


class GtpConnectionError(RuntimeError):
    """The program died, did not answer in time, or did not speak GTP."""


class GtpClient:
    """One running GTP program. ``command`` is its command line (a string split
    like a shell would, or a list); ``timeout`` is the longest wait for one answer."""

    def __init__(self, command: str | list[str], timeout: float = 60.0) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise DlgoError("empty GTP command line")
        self.timeout = timeout
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            self.process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=self._stderr, text=True, bufsize=1)
        except OSError as err:
            self._stderr.close()
            raise GtpConnectionError(f"cannot start {self.argv[0]!r}: {err}") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self._stdin, self._stdout = self.process.stdin, self.process.stdout
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._board: tuple[object, ...] | None = None  # (size, komi, set-up) the program holds
        self._sent: list[tuple[Player, Move]] = []  # the moves it has been sent since, with their colours
        self._hung = False

    def _read(self) -> None:
        try:
            for line in self._stdout:
                self._lines.put(line)
        except (ValueError, OSError):  # the pipe was closed under it (close() after a hang)
            pass
        self._lines.put(None)  # end of output: the program has exited

    def __repr__(self) -> str:
        return f"<GtpClient {' '.join(self.argv)}>"

    # ----------------------------------------------------------- commands
    def send(self, command: str) -> str:
        """Send one command; its answer's text (``?`` answers raise GtpError)."""
        if self.process.poll() is not None:
            raise self._died()
        try:
            self._stdin.write(command.strip() + "\n")
            self._stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None
        lines: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=self.timeout)
            except queue.Empty:
                self._hung = True
                raise GtpConnectionError(f"{self.argv[0]} gave no answer to {command!r} in {self.timeout:g} s") \
                    from None
            if line is None:
                raise self._died(command)
            line = line.rstrip("\r\n")
            if not lines and not line.strip():
                continue  # blank lines between responses
            if not lines and line[:1] not in ("=", "?"):
                raise GtpConnectionError(f"{self.argv[0]} answered {command!r} with {line!r}, not GTP")
            if lines and not line.strip():
                break
            lines.append(line)
        head, _, first = lines[0].partition(" ")
        text = "\n".join([first.strip(), *lines[1:]]).strip()
        if head.startswith("?"):
            raise GtpError(text or "error")
        return text

    def _died(self, command: str = "") -> GtpConnectionError:
        """Why the program is gone: what it printed that was not GTP (however soon it exited
        after, on however busy a machine), else its exit code and its last words on stderr."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        during = f" during {command!r}" if command else ""
        self._reader.join(timeout=5)  # its output is read to the end
        printed = [line.strip() for line in self._unread() if line.strip()]
        if printed and printed[0][:1] not in ("=", "?"):
            return GtpConnectionError(f"{self.argv[0]} printed {printed[0]!r}, not GTP, and exited{during} "
                                      f"(exit code {code})")
        self._stderr.seek(0)
        tail = self._stderr.read().decode(errors="replace").strip().splitlines()[-5:]
        said = (": " + " | ".join(tail)) if tail else ""
        return GtpConnectionError(f"{self.argv[0]} exited{during} (exit code {code}){said}")

    def _unread(self) -> list[str]:
        """The lines the program printed that no command has read yet."""
        lines: list[str] = []
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return lines
            if line is not None:
                lines.append(line)

    def close(self) -> None:
        """Ask the program to quit, then make sure it has."""
        if self.process.poll() is None and self._hung:
            self.process.kill()  # it did not answer before: it will not answer quit either
            self.process.wait()
        if self.process.poll() is None:
            try:
                self._stdin.write("quit\n")
                self._stdin.flush()
                self.process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=1)  # the program is gone: its output ends at once
        for stream in (self._stdin, self._stdout):
            try:
                stream.close()
            except OSError:
                pass
        self._stderr.close()

    def __enter__(self) -> "GtpClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---------------------------------------------------------- positions
    def sync(self, state: GoState) -> None:
        """Make the program's game the one that led to ``state``: a fresh board
        with the same size, komi and set-up stones when anything differs, then
        the moves it has not been sent yet."""
        states = list(state.history())
        start = states[0]
        assert isinstance(start, GoState)
        board = start.board
        size = board.num_rows
        if size != board.num_cols:
            raise DlgoError("GTP programs play square boards only")
        setup = tuple((p, board.get(p)) for p in _points(size) if board.get(p) is not None)
        key = (size, state.game.komi, setup, start.next_player)
        # each move with the colour that played it (two of one colour where a turn was handed over)
        plays = [(before.next_player, move) for before, after in zip(states, states[1:])
                 if (move := after.last_move) is not None]
        if key != self._board or plays[:len(self._sent)] != self._sent:
            self.send(f"boardsize {size}")
            self.send("clear_board")
            self.send(f"komi {state.game.komi:g}")
            black = [p for p, owner in setup if owner == Player.black]
            if black and len(black) == len(setup) and start.next_player == Player.white:
                self.send("set_free_handicap " + " ".join(format_vertex(Move.play(p)) for p in black))
            else:
                for point, owner in setup:
                    self.send(f"play {owner} {format_vertex(Move.play(point))}")
            self._board, self._sent = key, []
        for player, move in plays[len(self._sent):]:
            if move.is_resign:
                break
            self.send(f"play {player} {format_vertex(move)}")
            self._sent.append((player, move))

    def genmove(self, state: GoState) -> Move:
        """The program's move in ``state`` (it is played on the program's board)."""
        self.sync(state)
        answer = self.send(f"genmove {state.next_player}")
        if answer.lower() == "resign":
            return RESIGN
        try:
            move = parse_vertex(answer, state.board.num_rows)
        except GtpError:
            raise GtpConnectionError(f"{self.argv[0]} answered genmove with {answer!r}, not a move") from None
        self._sent.append((state.next_player, move))
        return move


def _points(size: int) -> list[Point]:
    return [Point(r, c) for r in range(1, size + 1) for c in range(1, size + 1)]
