"""``dlgo games`` and ``dlgo engines``: what there is to play, and who plays it."""
from __future__ import annotations

import argparse
from pathlib import Path

import engines
from dlgo.core.errors import EngineError
from dlgo.core.specs import split_spec
from dlgo.games import GAMES, game_options
from dlgo.app.cli.shared import add_bot_limit_options, bot_limits
from engines.bots import DEFAULT_LIMITS, BotLimits, describe, is_bot, split_bot_spec


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the games and their options")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("engines", help="list the engines, their parameters and defaults")
    p.add_argument("engine", nargs="?", default=None,
                   help="just this engine: a name, or a bot of your own (FILE.py, FILE.py:Class), whose "
                        "class, description and parameters are read in a process of its own")
    add_bot_limit_options(p)
    p.set_defaults(func=cmd_engines)


def cmd_games(args: argparse.Namespace) -> int:
    for name, spec in GAMES.items():
        options = ", ".join(f"{k}={v!r}" for k, v in game_options(name).items()) or "-"
        print(f"{name:<10} {spec.description}\n{'':<10} options: {options}")
    return 0


def cmd_engines(args: argparse.Namespace) -> int:
    if args.engine is not None:
        if is_bot(args.engine):
            print_bot(args.engine, bot_limits(args))
        else:
            print_engine(split_spec(args.engine)[0])
        return 0
    for name in engines.engine_names():
        if is_bot(name):  # an installed package's: one that does not load is said so, and the list goes on
            try:
                print_bot(name, bot_limits(args))
            except EngineError as error:
                print(f"{name:<10} (from an installed package) does not load: {error}")
        else:
            print_engine(name)
    print("\nspec syntax: name or name:key=value,key=value   e.g. mcts:rounds=800,c=1.4,seed=1")
    print("a bot of your own: FILE.py, FILE.py:Class, FILE.py:key=value   (dlgo bot new GAME FILE.py writes one)")
    return 0


def print_engine(name: str) -> None:
    """One of the suite's engines: its description and parameters (a :class:`SpecError` for no engine)."""
    print(f"{name:<10} {engines.engine_description(name)}")
    alias_of = engines.engine_class(name).alias_of
    if alias_of:  # its parameters are those of the engines it stands for
        print(f"{'':<12}an alias: the parameters of {' and '.join(alias_of)}")
        return
    for p in engines.engine_parameters(name):
        kind = getattr(p.type, "__name__", str(p.type)).replace("NoneType", "None")
        print(f"{'':<12}{p.name}={p.default!r}  ({kind})")
    for old, (other, renamed) in engines.engine_class(name).moved_parameters.items():
        print(f"{'':<12}(old specs: {old}=N, N > 0, is the {other} engine with {renamed}=N)")


def print_bot(spec: str, limits: BotLimits = DEFAULT_LIMITS) -> None:
    """A bot of a user's own (a file, or an installed package's engine): where it is, its class,
    description and parameters, read in a process of its own (a :class:`BotFault` if it does not load)."""
    source, _ = split_bot_spec(spec)
    about = describe(source, limits)
    where = f"{source.label}:{about['class']}" if source.file else f"{source.label} ({source.module}:{about['class']})"
    print(f"{where}  {about['doc'] or '(no docstring)'}")
    if about["name"] not in ("agent", Path(source.label).stem):
        print(f"{'':<12}name in reports: {about['name']}")
    print(f"{'':<12}work counted in {about['unit']}")
    if not about["parameters"]:
        print(f"{'':<12}no parameters")
    for name, kind, default in about["parameters"]:
        print(f"{'':<12}{name}={default}  ({kind})" if default else f"{'':<12}{name}  ({kind}, to be given)")
