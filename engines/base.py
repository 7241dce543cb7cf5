"""The one interface every engine implements, and its compute report."""
from __future__ import annotations

import abc
import math
import time
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from dlgo.game import GameStateBase
    from dlgo.goboard import Move


class Compute(NamedTuple):
    """What an engine spent on one move: wall seconds and its own unit of work
    (``"nodes"`` for alpha-beta, ``"rounds"`` for MCTS, ``"evaluations"`` for
    neural engines)."""

    seconds: float
    amount: int
    unit: str


class EngineError(RuntimeError):
    """An engine could not give a move: an external program died, stopped
    answering or answered an error. Matches record the game as a forfeit."""


class Agent(abc.ABC):
    """An engine: given a game state, choose a move.

    Subclasses implement :meth:`choose` and set ``self._work`` to the units of
    work done; :meth:`select_move` times the call and records
    :attr:`last_compute`. Engines are built from spec strings by
    :func:`engines.create`, which also sets :attr:`spec`.
    """

    #: registry name, e.g. ``"mcts"``
    name: str = "agent"
    #: the unit of work counted in :attr:`last_compute`
    unit: str = "moves"

    def __init__(self) -> None:
        self.spec: str = self.name
        self.last_compute: Compute = Compute(0.0, 0, self.unit)
        self.time_limit: float | None = None
        self._work = 0

    def select_move(self, state: "GameStateBase") -> "Move":
        """The engine's move in ``state`` (which must not be over)."""
        if state.is_over():
            raise ValueError("the game is over: there is no move to select")
        self._work = 0
        start = time.perf_counter()
        move = self.choose(state)
        self.last_compute = Compute(time.perf_counter() - start, self._work, self.unit)
        return move

    @abc.abstractmethod
    def choose(self, state: "GameStateBase") -> "Move":
        """Pick a move; count the work done in ``self._work``."""

    def new_game(self) -> None:
        """Forget anything kept from the previous game (trees, tables)."""

    def check_game(self, state: "GameStateBase") -> None:
        """``ValueError`` if this engine cannot play the game of ``state`` (a
        network trained for another board size, a program that plays only Go)."""

    def set_time_limit(self, seconds: float | None) -> None:
        """Cap the wall time of each following move (a game clock, as in GTP's
        ``time_left``); None lifts the cap. Searching engines stop at their own
        budget or at the cap, whichever comes first; the others are fast anyway."""
        self.time_limit = seconds if seconds is None else max(0.0, seconds)

    def deadline(self, seconds: float = 0.0) -> float:
        """The ``time.perf_counter()`` value at which a search that starts now must
        stop: its own ``seconds`` budget (0 = none) or the time limit, the sooner."""
        limits = [s for s in (seconds, self.time_limit) if s is not None and s > 0]
        return time.perf_counter() + min(limits) if limits else math.inf

    def close(self) -> None:
        """Release what the engine holds outside Python (an external program)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"

