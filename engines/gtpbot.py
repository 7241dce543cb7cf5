"""Any GTP program as an engine: ``gtp:cmd="/usr/games/gnugo --mode gtp --level 10"``.

The program keeps its own board, brought up to date before every move
(:meth:`dlgo.gtp.client.GtpClient.sync`), so it can join tournaments, console
games and even sit behind our own GTP front end. If it dies, stops answering
or answers with an error, :class:`~dlgo.core.errors.EngineError` says which and why;
a tournament records the game as lost by forfeit instead of hanging.
"""
from __future__ import annotations

import sys

from dlgo.core.agent import Agent, Decision
from dlgo.core.errors import EngineError, SpecError
from dlgo.core.game import State
from dlgo.core.specs import require_seconds
from dlgo.games.go.state import GoState, GoGame
from dlgo.gtp.client import GNUGO, GNUGO_MAX_LEVEL, GNUGO_RULES, GtpClient, GtpConnectionError
from dlgo.gtp.protocol import GtpError


class GTPAgent(Agent):
    """An external Go program spoken to over GTP (GNU Go, Pachi, KataGo, ...)."""

    name = "gtp"
    unit = "moves"

    def __init__(self, cmd: str = "", timeout: float = 60.0):
        """``cmd``: the program's command line (quote it in a spec:
        ``gtp:cmd="/usr/games/gnugo --mode gtp --level 1"``); ``timeout``: the
        longest wait in seconds for one answer."""
        super().__init__()
        if not cmd:
            raise SpecError('gtp needs cmd="PROGRAM --ARGS", e.g. gtp:cmd="/usr/games/gnugo --mode gtp"')
        require_seconds(timeout, f"{self.name}: timeout", positive=True)
        self.cmd = cmd
        self.timeout = timeout
        self._client: GtpClient | None = None

    @property
    def client(self) -> GtpClient:
        """The running program (started on first use, restarted if it was closed)."""
        if self._client is None:
            try:
                self._client = GtpClient(self.cmd, timeout=self.timeout)
            except GtpConnectionError as err:
                raise EngineError(str(err)) from None
        return self._client

    def start(self) -> None:
        self.client  # starts the program, or raises EngineError

    def warm_up(self, state: State) -> None:
        """Nothing: each engine starts its own program, in :meth:`start`, before its clock."""

    def check_game(self, state: State) -> None:
        if not isinstance(state.game, GoGame):  # GTP speaks Go only
            raise SpecError(f"gtp engines play Go, not {state.game.name}")

    def choose(self, state: State) -> Decision:
        self.check_game(state)
        assert isinstance(state, GoState)
        try:
            move = self.client.genmove(state)
        except GtpConnectionError as err:
            self.close()
            raise EngineError(str(err)) from None
        except GtpError as err:  # a "?" answer, e.g. to one of the moves sent
            self.close()
            raise EngineError(f"{self.cmd} answered an error: {err}") from None
        if not move.is_resign and not state.is_valid_move(move):
            self.close()
            raise EngineError(f"{self.cmd} played {state.format_move(move)}, illegal here "
                              "(its rules may differ: positional superko, suicide)")
        return Decision(move, 1)

    def send(self, command: str, state: GoState | None = None) -> str:
        """Any GTP command (``final_score``, ``showboard``), on ``state``'s position if given."""
        try:
            if state is not None:
                self.client.sync(state)
            return self.client.send(command)
        except GtpConnectionError as err:
            self.close()
            raise EngineError(str(err)) from None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __del__(self) -> None:
        if sys.is_finalizing():  # the interpreter is going: the program goes with it
            return
        try:
            self.close()
        except Exception:
            pass


class GnuGoAgent(GTPAgent):
    """GNU Go 3.8 over GTP, under our rules: area scoring (``--chinese-rules``),
    situational superko, and every dead stone captured before it passes, so the
    board scores as it stands. Debian package ``gnugo``."""

    name = "gnugo"

    def __init__(self, level: int = 10, seed: int | None = None, path: str = GNUGO, timeout: float = 60.0):
        """``level``: 0 (fastest, weakest) to 10 (GNU Go's default); ``seed``: its
        random seed (moves vary between games); ``path``: the gnugo binary."""
        if not 0 <= level <= GNUGO_MAX_LEVEL:
            raise SpecError(f"gnugo levels are 0..{GNUGO_MAX_LEVEL}, got {level}")
        cmd = f"{path} {GNUGO_RULES} --level {level}" + (f" --seed {seed}" if seed is not None else "")
        super().__init__(cmd=cmd, timeout=timeout)
