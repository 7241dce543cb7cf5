"""``dlgo games`` and ``dlgo engines``: what there is to play, and who plays it."""
from __future__ import annotations

import argparse

import engines
from dlgo.games import GAMES, game_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the games and their options")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("engines", help="list the engines, their parameters and defaults")
    p.set_defaults(func=cmd_engines)


def cmd_games(args: argparse.Namespace) -> int:
    for name, spec in GAMES.items():
        options = ", ".join(f"{k}={v!r}" for k, v in game_options(name).items()) or "-"
        print(f"{name:<10} {spec.description}\n{'':<10} options: {options}")
    return 0


def cmd_engines(args: argparse.Namespace) -> int:
    for name in engines.engine_names():
        print(f"{name:<10} {engines.engine_description(name)}")
        alias_of = engines.engine_class(name).alias_of
        if alias_of:  # its parameters are those of the engines it stands for
            print(f"{'':<12}an alias: the parameters of {' and '.join(alias_of)}")
            continue
        for p in engines.engine_parameters(name):
            kind = getattr(p.type, "__name__", str(p.type)).replace("NoneType", "None")
            print(f"{'':<12}{p.name}={p.default!r}  ({kind})")
        for old, (other, renamed) in engines.engine_class(name).moved_parameters.items():
            print(f"{'':<12}(old specs: {old}=N, N > 0, is the {other} engine with {renamed}=N)")
    print("\nspec syntax: name or name:key=value,key=value   e.g. mcts:rounds=800,c=1.4,seed=1")
    return 0
