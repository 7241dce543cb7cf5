"""The ``dlgo`` command line.

    dlgo games                      list the games and their options
    dlgo demo                       a random-vs-random game of each game, in the console
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Sequence

from dlgo.game import GameStateBase
from dlgo.games import GAMES, game_options, new_game


def describe_result(state: GameStateBase) -> str:
    """'B+3.5', 'X wins', 'draw', 'W wins by resignation'... for a finished game."""
    winner = state.winner()
    if state.last_move is not None and state.last_move.is_resign:
        return f"{winner.name} wins by resignation"
    if state.game_name == "go":
        from dlgo.scoring import compute_game_result

        return f"{compute_game_result(state)} ({winner.name if winner else 'nobody'} wins)"
    return "draw" if winner is None else f"{winner.name} wins"


def play_random_game(state: GameStateBase, rng: random.Random, delay: float = 0.0, out=None) -> GameStateBase:
    """Play ``state`` to the end with the random policy on both sides, printing
    the board after every move (to ``out``, default stdout); returns the final state."""
    out = out or sys.stdout
    print(state, file=out)
    ply = 0
    while not state.is_over():
        move = state.random_move(rng)
        ply += 1
        print(f"\nmove {ply}: {state.next_player.name} {state.format_move(move)}", file=out)
        state = state.apply_move(move)
        print(state, file=out)
        if delay:
            out.flush()
            time.sleep(delay)
    print(f"\nresult: {describe_result(state)} after {ply} moves", file=out)
    return state


def cmd_games(args: argparse.Namespace) -> int:
    for name, spec in GAMES.items():
        options = ", ".join(f"{k}={v!r}" for k, v in game_options(name).items()) or "-"
        print(f"{name:<10} {spec.description}\n{'':<10} options: {options}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    for name in args.games:
        options = {"size": args.size} if name == "go" else {}
        print(f"\n=== {name}: random vs random (seed {args.seed}) ===\n")
        play_random_game(new_game(name, **options), rng, args.delay)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dlgo", description="The dlgo game-AI comparison suite.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("games", help="list the games and their options")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("demo", help="a bot-vs-bot game of each game in the console")
    p.add_argument("--games", nargs="+", default=["tictactoe", "connect4", "go"], choices=list(GAMES),
                   help="which games to play (default: tictactoe connect4 go)")
    p.add_argument("--size", type=int, default=9, help="Go board size (default 9)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each move")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except ValueError as err:
        print(f"dlgo: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
