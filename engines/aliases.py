"""Names kept so that old specs keep their meaning, each standing for the engine that plays a game.

Before the searches had names of their own, ``mcts`` was UCT on every game but
Go and Go's compiled search on Go, and ``alphago`` the book's PUCT search but with
Go networks, which the compiled Go search guided. Each of those searches is now an
engine of its own, one algorithm to a class (``uct``, ``mcts-go``, ``alphago-puct``,
``alphago-go``); the old names are aliases, resolved here and nowhere else.

An alias is an :class:`AliasAgent`: its constructor takes the parameters of every
engine it stands for (so an old spec binds as it did), builds those engines
(so a bad value is an error at once, as it was), and hands each call to the
one for the game at hand (:meth:`AliasAgent.engine_for`, which asks
:meth:`~AliasAgent.engine_name`). It holds no search of its own. ``alphago``
knows its engine when it is built, from its networks' game; ``mcts`` when it
first sees a position.
"""
from __future__ import annotations

import abc
import inspect
from typing import Any, ClassVar, Mapping

from dlgo.core.agent import Agent, Decision
from dlgo.core.errors import SpecError
from dlgo.core.game import Game, State
from dlgo.core.specs import require
from dlgo.games.go.state import GoGame
from engines.alphago import (GUIDE_AFTER, NETWORK_HEADS, PRIOR_NET, AlphaGoGoAgent, AlphaGoPUCTAgent,
                             check_guidance, policy_game)
from engines.mcts import GoMCTSAgent, UCTAgent, check_budget, check_go_settings
from engines.puct import check_search_settings


class AliasAgent(Agent):
    """An old engine name: the engines it stands for (:attr:`alias_of`), built from its
    spec, and the rule that picks one for a game (:meth:`engine_name`)."""

    def __init__(self, engines: Mapping[str, Agent]):
        super().__init__()
        self.engines = dict(engines)  # by name: those the spec can play

    @abc.abstractmethod
    def engine_name(self, game: Game) -> str:
        """The name of the engine that plays ``game`` for this alias (a :class:`SpecError`
        where the spec's parameters do not act there)."""

    def engine_for(self, state: State) -> Agent:
        """The engine that plays ``state``'s game, handed the alias's spec and time limits
        (which decide its budget) as they stand now."""
        engine = self.engines[self.engine_name(state.game)]
        engine.spec, engine.time_limit, engine.time_budget = self.spec, self.time_limit, self.time_budget
        self.unit = engine.unit  # the decision's work is counted in that engine's unit
        return engine

    def check_game(self, state: State) -> None:
        self.engine_for(state).check_game(state)

    def choose(self, state: State) -> Decision:
        return self.engine_for(state).choose(state)

    def new_game(self) -> None:
        for engine in self.engines.values():
            engine.new_game()

    def native_game(self) -> Game | None:
        games = {engine.native_game() for engine in self.engines.values()}
        return games.pop() if len(games) == 1 else None

    def close(self) -> None:
        for engine in self.engines.values():
            engine.close()


def own_parameters(engine: type[Agent], given: dict[str, Any]) -> dict[str, Any]:
    """Those of ``given`` that ``engine``'s constructor takes, a None (the alias's "the
    engine's own default") left out."""
    taken = inspect.signature(engine.__init__).parameters
    return {name: value for name, value in given.items() if name in taken and value is not None}


def default_of(engine: type[Agent], name: str) -> Any:
    """``engine``'s own default for its parameter ``name``, read from its constructor."""
    return inspect.signature(engine.__init__).parameters[name].default


def changed_from_defaults(engine: type[Agent], given: dict[str, Any], names: tuple[str, ...]) -> list[str]:
    """The ``names`` that ``given`` sets to other than ``engine``'s own defaults."""
    return [name for name in names if given[name] != default_of(engine, name)]


#: the parameters of ``mcts`` that act on Go's search alone
GO_ONLY = ("rave", "rave_equiv", "priors", "expand", "manage", "patterns")


class MCTSAgent(AliasAgent):
    """The game's Monte Carlo tree search, by the suite's first name for it: mcts-go on Go, uct on every other game and
    on Go with plain=true. Takes the parameters of both; those of Go's search alone are an error wherever uct plays.

    ``mcts`` specs written before the two searches had names of their own keep
    their meaning. ``c`` and ``resign`` default to each search's own (1.4 and 0
    for ``uct``, 0 and 0.1 for ``mcts-go``)."""

    name = "mcts"
    alias_of = ("mcts-go", "uct")
    unit = "rounds"
    budget_parameters = ("rounds", "seconds")

    def __init__(self, rounds: int | None = None, seconds: float = 0.0, c: float | None = None,
                 seed: int | None = None, reuse: bool = True, resign: float | None = None, rollout: str = "",
                 plain: bool = False, rave: bool = True, rave_equiv: float = 3500.0, priors: bool = True,
                 expand: int = 8, manage: bool = True, patterns: str = ""):
        """``plain``: uct on Go too; the others: those of ``uct`` and ``mcts-go``."""
        given = {"rounds": rounds, "seconds": seconds, "c": c, "seed": seed, "reuse": reuse, "resign": resign,
                 "rollout": rollout, "rave": rave, "rave_equiv": rave_equiv, "priors": priors, "expand": expand,
                 "manage": manage, "patterns": patterns}
        uct_c, uct_resign = (default_of(UCTAgent, n) if v is None else v for n, v in (("c", c), ("resign", resign)))
        check_budget(self.name, rounds, seconds, uct_c, uct_resign)  # named for the alias, as they were
        check_go_settings(self.name, rave_equiv, expand)
        uct = UCTAgent(**own_parameters(UCTAgent, given))
        go = None if plain else GoMCTSAgent(**own_parameters(GoMCTSAgent, given))
        super().__init__({"uct": uct} if go is None else {"uct": uct, "mcts-go": go})
        self.plain = plain
        self._go_only = changed_from_defaults(GoMCTSAgent, given, GO_ONLY)

    @classmethod
    def parameter_acts_on(cls, parameter: str, state: State) -> bool:
        return parameter not in GO_ONLY or isinstance(state.game, GoGame)

    def engine_name(self, game: Game) -> str:
        if not self.plain and isinstance(game, GoGame):
            return "mcts-go"
        if self._go_only:
            raise SpecError(f"mcts on {game.name}{' with plain=true' if self.plain else ''} is uct, which has "
                            f"no {', '.join(self._go_only)}: they act on Go's search alone")
        return "uct"


class AlphaGoAgent(AliasAgent):
    """AlphaGo, by the suite's first name for it: alphago-go with Go networks, alphago-puct with any other game's (and
    with plain=true). Takes the parameters of both.

    ``alphago`` specs written before the two searches had names of their own
    keep their meaning: the networks' game picks the search when it is built."""

    name = "alphago"
    alias_of: ClassVar[tuple[str, ...]] = ("alphago-go", "alphago-puct")
    network_heads = NETWORK_HEADS
    budget_parameters = ("simulations", "seconds")

    def __init__(self, checkpoint: str = "", policy: str = "", value: str = "", rollout: str = "",
                 simulations: int | None = None, lam: float | None = None, c: float = 2.0, seconds: float = 0.0,
                 temperature: float = 0.0, seed: int | None = None, reuse: bool = True, fpu: float | None = None,
                 batch: int = 8, plain: bool = False, guide: int = GUIDE_AFTER, prior: float = PRIOR_NET,
                 patterns: str = ""):
        """``plain``: alphago-puct with Go networks too; the others: those of ``alphago-puct``
        and ``alphago-go``, ``lam`` each one's own unless given (0.5 and 1)."""
        given = {"checkpoint": checkpoint, "policy": policy, "value": value, "rollout": rollout,
                 "simulations": simulations, "lam": lam, "c": c, "seconds": seconds, "temperature": temperature,
                 "seed": seed, "reuse": reuse, "fpu": fpu, "batch": batch, "guide": guide, "prior": prior,
                 "patterns": patterns}
        require(lam is None or 0 <= lam <= 1, f"alphago: lam is the rollouts' share in [0, 1], got {lam}")
        check_guidance(guide, prior)  # every search's settings are checked, as they were when one class held both
        check_search_settings(self.name, simulations or 0, c, temperature, fpu, seconds, batch)
        guided = not plain and isinstance(policy_game(checkpoint, policy, self.name), GoGame)
        engine = AlphaGoGoAgent if guided else AlphaGoPUCTAgent
        if not guided and patterns:
            raise SpecError(f"{self.name}: patterns give the compiled Go search its priors; the PUCT search "
                            "(plain=true, or a network of another game) takes its priors from the policy network")
        chosen = engine(**own_parameters(engine, given))
        super().__init__({engine.name: chosen})
        self.unit = chosen.unit
        self.plain = plain

    def engine_name(self, game: Game) -> str:
        return next(iter(self.engines))
