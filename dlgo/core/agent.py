"""The one interface every engine implements, and the one report of its search.

The arena, the console and the GTP server talk to engines only through
:class:`Agent`; engines live in the ``engines`` package, above this one.
"""
from __future__ import annotations

import abc
import inspect
import math
import time
from typing import ClassVar, NamedTuple, Sequence

import numpy as np

from dlgo.core.errors import IllegalMoveError
from dlgo.core.game import Game, State
from dlgo.core.specs import split_spec
from dlgo.core.types import Move


class Compute(NamedTuple):
    """What an engine spent on one move: wall seconds and its own unit of work
    (``"nodes"`` for alpha-beta, ``"rounds"`` for MCTS, ``"evaluations"`` for
    neural engines)."""

    seconds: float
    amount: int
    unit: str


class SearchReport(NamedTuple):
    """What an engine found when it chose its last move. Every engine fills the
    fields it has; the others stay None (or empty). Immutable (a named tuple:
    cheap enough to make on every move of a random game).

    Arrays run over the game's action space (``state.num_actions``); values are
    for the player who was to move, from -1 (a sure loss) to +1 (a sure win).
    """

    #: the expected result of the position for the player to move
    value: float | None = None
    #: ``value`` is the exact game-theoretic value (a solved position)
    proven: bool = False
    #: per action: how often the search visited it (MCTS rounds, PUCT simulations)
    visits: np.ndarray | None = None
    #: per action: the search's mean value of playing it, for the player to move
    q: np.ndarray | None = None
    #: per action: the network's (or search's prior) move probabilities
    policy: np.ndarray | None = None
    #: the actions the search expects from here on, the chosen one first
    principal_variation: tuple[int, ...] = ()
    #: a depth-limited search's score in its own heuristic points (alpha-beta)
    score: float | None = None
    #: what the move cost
    compute: Compute = Compute(0.0, 0, "moves")


NO_REPORT = SearchReport()  # what an engine that describes nothing reports


class Decision(NamedTuple):
    """What :meth:`Agent.choose` returns: the move, the work it took in the engine's
    :attr:`~Agent.unit` (rounds, simulations, nodes, network evaluations; 1 for an engine
    whose unit is moves) and what the search found (:class:`SearchReport`, its compute left
    for :meth:`Agent.decide` to fill in). As OpenSpiel's ``step_with_policy`` and
    mctx's ``PolicyOutput`` return what a search decided, an engine hands its decision back
    rather than leaving it in attributes for the caller to find."""

    move: Move
    work: int
    report: SearchReport = NO_REPORT


class Agent(abc.ABC):
    """An engine: given a game state, choose a move.

    Subclasses implement :meth:`choose`, which returns a :class:`Decision`: the
    move, the units of work it took and, if the engine has one, a description of
    its search (a :class:`SearchReport` without its compute); :meth:`select_move`
    times the call and publishes :attr:`last_report`. Engines are built from spec
    strings by ``engines.create``, which also sets :attr:`spec`.
    """

    #: registry name, e.g. ``"mcts"``
    name: str = "agent"
    #: the unit of work counted in the report's compute
    unit: str = "moves"
    #: where the spec decides the unit (an instance sets its own :attr:`unit`): each unit it can be,
    #: with when, for the docs' table (``("simulations", "moves with bot=random")``); empty: :attr:`unit`
    units: ClassVar[tuple[str, ...]] = ()
    #: the heads the network each parameter names must have, for the engines that play networks
    #: (``{"model": ("policy",)}``; the checks and the page's lists of files ask it)
    network_heads: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: the spec parameters that set how much a move is searched (``("rounds", "seconds")``):
    #: an engine whose spec names none of them searches for a game clock's budget
    #: (:meth:`set_time_budget`); one whose spec names one keeps its own, capped by the clock
    budget_parameters: ClassVar[tuple[str, ...]] = ()
    #: for a name kept so that old specs keep their meaning: the engines it stands for (``mcts``:
    #: mcts-go on Go, uct elsewhere); empty for an engine that is one algorithm of its own
    alias_of: ClassVar[tuple[str, ...]] = ()
    #: parameters of this engine's old specs that now name another engine: ``{"gumbel": ("gumbel",
    #: "considered")}`` reads ``alphazero:gumbel=16`` as ``gumbel:considered=16`` (and ``gumbel=0`` as
    #: this engine); the registry resolves them before the engine is built
    moved_parameters: ClassVar[dict[str, tuple[str, str]]] = {}

    @classmethod
    def description(cls) -> str:
        """The first paragraph of the class's docstring in one line, its reST literals (two
        backquotes each side) written with one, as Markdown writes them: what ``dlgo engines``,
        the web page and the docs' tables show of an engine."""
        doc = inspect.getdoc(cls) or ""
        return " ".join(doc.split("\n\n")[0].split()).replace("``", "`")

    def __init__(self) -> None:
        self.spec: str = self.name
        self.last_report: SearchReport = SearchReport(compute=Compute(0.0, 0, self.unit))
        self.time_limit: float | None = None
        self.time_budget: float | None = None

    @property
    def last_compute(self) -> Compute:
        """What the last move cost: ``last_report.compute``."""
        return self.last_report.compute

    def decide(self, state: State) -> Decision:
        """The engine's decision in ``state`` (which must not be over): its move, the work it
        took and the search's report, the report's compute (wall seconds and work) filled in.
        Callers read what a move cost and found here; :attr:`last_report` keeps the same
        report for code that asks after :meth:`select_move` (the book's)."""
        if state.is_over():
            raise IllegalMoveError("the game is over: there is no move to select")
        start = time.perf_counter()
        move, work, r = self.choose(state)
        elapsed = time.perf_counter() - start
        # rebuilt field by field: the cheapest way to add the compute, paid on every move
        self.last_report = SearchReport(r.value, r.proven, r.visits, r.q, r.policy, r.principal_variation, r.score,
                                        Compute(elapsed, work, self.unit))
        return Decision(move, work, self.last_report)

    def select_move(self, state: State) -> Move:
        """The engine's move in ``state`` (which must not be over): :meth:`decide`'s move; its
        search is described in :attr:`last_report` afterwards."""
        return self.decide(state).move

    @abc.abstractmethod
    def choose(self, state: State) -> Decision:
        """Pick a move: the :class:`Decision` (the move, the work it took, the search's report)."""

    def new_game(self) -> None:
        """Forget anything kept from the previous game (trees, tables)."""

    @classmethod
    def prepare_batch(cls, agents: Sequence["Agent"], states: Sequence[State]) -> None:
        """Get ready for the next moves of many games at once, agent ``k`` to move in
        ``states[k]`` (all agents of this class): engines whose work batches well
        (one network call for many positions) do it here, and their next
        :meth:`select_move` on that state uses it. Engines that gain nothing ignore it."""

    def check_game(self, state: State) -> None:
        """A :class:`~dlgo.core.errors.DlgoError` if this engine cannot play the
        game of ``state`` (a network trained for another board size, a program
        that plays only Go)."""

    @classmethod
    def parameter_acts_on(cls, parameter: str, state: State) -> bool:
        """Does the spec parameter ``parameter`` act on this engine's play in the game of
        ``state``? Every one does, but where one game's search alone has it (``mcts``'s
        ``rave`` acts on Go only, and is an error on tic-tac-toe): a page offers those that do."""
        return True

    def engine_name(self, game: Game) -> str:
        """The name of the engine that plays ``game``: this one's (:attr:`name`), or for an
        alias the one it stands for there (:class:`engines.aliases.AliasAgent`)."""
        return self.name

    def native_game(self) -> Game | None:
        """The one game this engine was made for (a network's board, with the komi
        it learnt with), or None for an engine that plays any board: a front end
        free to choose (GTP before ``boardsize``) starts with it."""
        return None

    def set_time_limit(self, seconds: float | None) -> None:
        """Cap the wall time of each following move (a front end's limit, as the
        browser's; a game clock is :meth:`set_time_budget`); None lifts the cap.
        Searching engines stop at their own budget or at the cap, whichever comes
        first; the others are fast anyway."""
        self.time_limit = seconds if seconds is None else max(0.0, seconds)

    def set_time_budget(self, seconds: float | None) -> None:
        """A game clock's seconds for each following move (GTP's ``time_settings``
        and ``time_left``, less a safety margin); None: no clock. An engine whose
        spec leaves its budget free searches for this long (:meth:`move_budget`);
        one whose spec fixes it keeps it, stopped here as by :meth:`set_time_limit`."""
        self.time_budget = seconds if seconds is None else max(0.0, seconds)

    def spec_fixes_budget(self) -> bool:
        """Does the spec name one of :attr:`budget_parameters` (``mcts:rounds=500``
        does, ``mcts`` does not)? A spec holds just the parameters that were given."""
        _, given = split_spec(self.spec)
        return any(name in given for name in self.budget_parameters)

    def move_budget(self, work: int, seconds: float) -> tuple[int, float]:
        """The next move's budget, from the engine's own ``work`` (rounds,
        simulations, nodes; 0 = no limit) and ``seconds`` (0 = none): those, or no
        work limit and the clock's seconds when a clock set a budget and the spec
        fixes none. Searching engines hand the seconds to :meth:`deadline`."""
        if self.time_budget and self.budget_parameters and not self.spec_fixes_budget():
            return 0, self.time_budget
        return work, seconds

    def deadline(self, seconds: float = 0.0) -> float:
        """The ``time.perf_counter()`` value at which a search that starts now must
        stop: its own ``seconds`` budget (0 = none), the time limit or the clock's
        budget, the soonest."""
        limits = [s for s in (seconds, self.time_limit, self.time_budget) if s is not None and s > 0]
        return time.perf_counter() + min(limits) if limits else math.inf

    #: the longest a warm-up move may search: loading is what it is for, not the search
    WARM_UP_SECONDS: ClassVar[float] = 0.1

    def warm_up(self, state: State) -> None:
        """Pay this process's one-off costs (imports, compiled kernels loading, a
        network's first call) with an untimed move in ``state``, cut short at
        :data:`WARM_UP_SECONDS`. Called on a throwaway engine of a spec before
        the first timed move of that spec in a process
        (:func:`dlgo.arena.match.warm_up`), so those costs count in no move's
        seconds. Engines whose moves no time limit shortens override it, as do
        those whose start-up belongs to each engine (an external program:
        :meth:`start`, before the clock)."""
        self.set_time_limit(self.WARM_UP_SECONDS)
        self.select_move(state)

    def start(self) -> None:
        """Acquire now what the engine would otherwise acquire at its first move
        (an external program), so that a failure is an error before play begins."""

    def close(self) -> None:
        """Release what the engine holds outside Python (an external program)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"
