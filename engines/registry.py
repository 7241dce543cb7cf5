"""Engines by name, built from spec strings shared by the CLI, tournaments and GTP.

A spec is ``name`` or ``name:key=value,key=value`` (see :mod:`dlgo.core.specs`).
Parameters, their types and defaults come from each engine's constructor, and
its description from the class docstring, so the registry never goes out of date.
Engine modules are imported on first use, so ``import engines`` stays cheap and
only the neural engines pay TensorFlow's start-up.

A spec may also name a bot of a user's own: a Python file (``alice.py``,
``alice.py:AliceBot:depth=3``) or an engine an installed package registers under the
entry-point group ``dlgo.engines``. Those play in processes of their own, under
limits (:mod:`engines.bots`); every function here takes them as it takes the suite's.
"""
from __future__ import annotations

import importlib
import inspect
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, NamedTuple

from dlgo.core.agent import Agent
from dlgo.core.errors import SpecError
from dlgo.core.game import Game, State
from dlgo.core.specs import bind, format_spec, split_spec
from engines import bots, checkpoints
from engines.bots import DEFAULT_LIMITS, BotLimits
from engines.names import BUILT_IN
from engines.neural.loading import metadata_only



class Parameter(NamedTuple):
    name: str
    type: Any
    default: Any


def engine_names() -> list[str]:
    """Every registered engine, e.g. ``['random', 'minimax', ...]``: the suite's own,
    then those installed packages register (:func:`engines.bots.entry_point_engines`)."""
    return [*BUILT_IN, *bots.entry_point_engines()]


def engine_class(name: str) -> type[Agent]:
    """The class behind the suite's engine ``name`` (its module is imported now); a bot of
    a user's own has none here (its code runs in its own process): :func:`engine_parameters`
    and :func:`engine_description` describe it."""
    if bots.is_bot(name):
        raise SpecError(f"{name!r} is a bot of your own: its class is loaded in a process of its own, not here")
    try:
        target = BUILT_IN[name]
    except KeyError:
        known = ", ".join(engine_names())
        raise SpecError(f"unknown engine {name!r}; the engines are: {known}; or give a bot's file, FILE.py") from None
    module, _, cls = target.partition(":")
    engine: type[Agent] = getattr(importlib.import_module(module), cls)
    return engine


def engine_parameters(name: str, limits: BotLimits = DEFAULT_LIMITS) -> list[Parameter]:
    """The parameters of engine ``name``, with their types and defaults (for a bot of a
    user's own, as text: ``Parameter("depth", "int", "3")``)."""
    if bots.is_bot(name):
        source, _ = bots.split_bot_spec(name)
        return [Parameter(*p) for p in bots.describe(source, limits)["parameters"]]
    cls = engine_class(name)
    hints = typing.get_type_hints(cls.__init__)
    return [Parameter(p.name, hints.get(p.name, str), p.default)
            for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]


def engine_description(name: str, limits: BotLimits = DEFAULT_LIMITS) -> str:
    """The engine's description (:meth:`~dlgo.core.agent.Agent.description`: its docstring's
    first paragraph): text that ``dlgo engines``, the web page and the docs' tables show alike."""
    if bots.is_bot(name):
        return str(bots.describe(bots.split_bot_spec(name)[0], limits)["doc"])
    return engine_class(name).description()


def resolve(name: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The engine a spec names, and its parameters: an old spec naming a parameter that moved to
    another engine (:attr:`~dlgo.core.agent.Agent.moved_parameters`) is that engine's, the parameter
    renamed, unless its value is 0 (``alphazero:gumbel=16`` is ``gumbel:considered=16``;
    ``alphazero:gumbel=0`` is ``alphazero``). The old engine's parameters the other one has not
    (``c`` for Gumbel search, which ignored it) are dropped, as they were ignored."""
    for parameter, (other, renamed) in engine_class(name).moved_parameters.items():
        if parameter in params:
            rest = {key: value for key, value in params.items() if key != parameter}
            try:
                zero = float(params[parameter]) == 0
            except (TypeError, ValueError):
                zero = False  # not a number: the other engine's check says so
            if zero:
                return name, rest
            theirs = {p.name for p in engine_parameters(other)}
            ignored = {p.name for p in engine_parameters(name)} - theirs
            return other, {**{k: v for k, v in rest.items() if k not in ignored}, renamed: params[parameter]}
    return name, params


def engine_on(spec: str, game: Game) -> str:
    """The name of the engine ``spec`` plays ``game`` with: its own, or for an alias
    (:mod:`engines.aliases`) the one it stands for there (``mcts`` on Go is ``mcts-go``)."""
    agent = create(spec)
    try:
        return agent.engine_name(game)
    finally:
        agent.close()


def check_spec(spec: str, limits: BotLimits = DEFAULT_LIMITS) -> str:
    """Check an engine spec without building the engine (no program started, no
    network loaded; a bot of a user's own is loaded in its process, under ``limits``): its
    name, parameter names and their types; returns it.
    Ranges are checked when the engine is built, or by :func:`check_engine`."""
    spec_parameters(spec, limits)
    return spec


def spec_parameters(spec: str, limits: BotLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The parameters ``spec`` gives its engine, typed: ``{"seconds": 30.0}`` for
    ``mcts:seconds=30`` (those it leaves out take their defaults); a :class:`SpecError`
    for a name or a value the engine does not take (a bot's, checked in its process, as text)."""
    if bots.is_bot(spec):
        source, given = bots.split_bot_spec(spec)
        return split_spec("bot:" + bots.bind_parameters(source, given, limits)["given"])[1]
    name, params = resolve(*split_spec(spec))
    return bind(engine_class(name).__init__, params, f"engine {name!r}")


def canonical_spec(spec: str, limits: BotLimits = DEFAULT_LIMITS) -> str:
    """One spelling of the engine ``spec`` names: its engine's name and the parameters
    it sets to other than their defaults, in the engine's order (``random:``,
    ``random:seed=`` and ``random`` are all ``random``); a :class:`SpecError` as
    :func:`check_spec` gives. A bot's is its file's absolute path and its class
    (:func:`engines.bots.canonical_bot_spec`)."""
    if bots.is_bot(spec):
        return bots.canonical_bot_spec(spec, limits)
    name, _ = resolve(*split_spec(spec))
    given = spec_parameters(spec)
    return format_spec(name, {p.name: given[p.name] for p in engine_parameters(name)
                              if p.name in given and given[p.name] != p.default})


def check_distinct(specs: Iterable[str], limits: BotLimits = DEFAULT_LIMITS) -> None:
    """A :class:`SpecError` if two of ``specs`` name one engine (:func:`canonical_spec`):
    a tournament would rate it against itself as two entries."""
    seen: dict[str, str] = {}
    for spec in specs:
        canonical = canonical_spec(spec, limits)
        if canonical in seen:
            raise SpecError(f"{seen[canonical]!r} and {spec!r} are one engine, {canonical}: give each engine once")
        seen[canonical] = spec


def check_engine(spec: str, state: State | None = None, limits: BotLimits = DEFAULT_LIMITS) -> str:
    """Check an engine spec fully, as building it would, in milliseconds: its
    parameters (names, types and ranges), the files it names (a network's
    metadata is read, not its weights: no TensorFlow) and, given ``state``, that
    it plays that game; no program is started (a bot of a user's own is loaded in its process,
    under ``limits``). Returns the spec."""
    with metadata_only():
        agent = create(spec, limits=limits)
    if isinstance(agent, bots.BotAgent) and agent.load_fault is not None:
        raise agent.load_fault
    try:
        if state is not None:
            agent.check_game(state)
    finally:
        agent.close()
    return spec


def create(spec: str, **overrides: Any) -> Agent:
    """Build an engine: ``create("mcts:rounds=800,c=1.4")`` or ``create("mcts", rounds=800)``;
    a bot of a user's own plays under the limits ``limits=BotLimits(...)`` gives."""
    limits = overrides.pop("limits", DEFAULT_LIMITS)  # the bots' alone: the suite's engines have none
    if bots.is_bot(spec):
        return bots.create_bot(spec, limits, **overrides)
    name, given = split_spec(spec)
    name, params = resolve(name, {**given, **overrides})
    cls = engine_class(name)
    kwargs = bind(cls.__init__, params, f"engine {name!r}")
    agent = cls(**kwargs)
    agent.spec = format_spec(name, kwargs)
    return agent


def create_seeded(spec: str, seed: int | None = None, limits: BotLimits = DEFAULT_LIMITS) -> Agent:
    """Like :func:`create`, giving ``seed`` to engines that take one unless the
    spec sets its own (so a whole match is reproducible from one number)."""
    if bots.is_bot(spec):
        return bots.create_bot(spec, limits, seed=seed)
    name, params = resolve(*split_spec(spec))
    takes_seed = any(p.name == "seed" for p in engine_parameters(name))
    if takes_seed and "seed" not in params and seed is not None:
        return create(spec, seed=seed)
    return create(spec)


@dataclass(frozen=True)
class EngineFactory:
    """The registry as the arena's agent factory (``dlgo.arena.match.AgentFactory``):
    tournaments, data generation and training are handed :data:`ENGINES`, or a factory
    with other ``limits`` for the bots of users' own."""

    limits: BotLimits = DEFAULT_LIMITS

    def create(self, spec: str, seed: int | None = None) -> Agent:
        return create_seeded(spec, seed, self.limits)

    def network_files(self, spec: str) -> list[Path]:
        """The files a spec plays with: a network's, or a bot's code (a tournament whose bot file
        changed plays that bot's games again, as it does a retrained network's)."""
        return bots.code_files(spec) if bots.is_bot(spec) else checkpoints.network_files(spec)


#: the factory to hand to the arena
ENGINES = EngineFactory()
