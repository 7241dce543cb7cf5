"""Random games per second for every game: the README's performance table.

    python benchmarks/playouts.py                # about 2 s per row
    python benchmarks/playouts.py --seconds 10   # steadier figures

Two paths are timed for each game, and a third for Go:

* ``playout``: ``state.random_playout(rng)``, the fast path engines use for
  rollouts (Go: one mutable board, same rule code as ``GameState``);
* ``GameState``: ``state.apply_move(state.random_move(rng))`` until the end,
  the persistent API every engine and the arena use;
* ``rollout policy`` (Go): the same playout with its moves drawn from the fast
  rollout policy (``--rollout``, by default chapter 13's shipped
  ``go9-rollout``; ``none``: all weights 0, the same work with uniform moves).

The random policy is uniform over legal moves; in Go it never fills its own eye
and passes only when nothing else is left (the book's random bot).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Callable

import numpy as np

from dlgo.core.errors import ModelFileError
from dlgo.games import new_game
from dlgo.games.go.patterns import NUM_FEATURES, PatternPolicy
from engines.checkpoints import resolve_model_path
from engines.rollouts import read_rollout_policy
from markdown import DEFAULT_FOLDER, Table

# Targets from the foundation issue, measured on the 2-core reference machine; the
# rollout policy's, from AlphaGo's issue, "thousands of rollout moves per second".
TARGETS = {("go 9x9", "playout"): 700, ("go 19x19", "playout"): 60, ("connect4", "playout"): 15000,
           ("go 9x9", "rollout policy"): 20}

#: (label, game, options); Go's also time the rollout policy
CASES = [
    ("go 9x9", "go", {"size": 9}),
    ("go 19x19", "go", {"size": 19}),
    ("connect4", "connect4", {}),
    ("tictactoe", "tictactoe", {}),
    ("gomoku 15x15", "gomoku", {}),
]


def time_playouts(start, rng: random.Random, seconds: float, **policy) -> tuple[float, float]:
    """(games/s, mean moves per game) of ``random_playout`` from ``start`` (``policy=``: Go's rollout policy)."""
    moves: list = []
    sample = 100
    for _ in range(sample):
        start.random_playout(rng, moves, **policy)
    mean_length = len(moves) / sample
    games, t0 = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds:
        for _ in range(10):
            start.random_playout(rng, **policy)
        games += 10
    return games / elapsed, mean_length


def rollout_policy(name: str) -> PatternPolicy:
    """The rollout policy file (or shipped name) ``name``; ``none``: all weights 0
    (the same code path, uniform moves: what the rollout policy's features cost)."""
    if name == "none":
        return PatternPolicy(np.zeros(NUM_FEATURES))
    return read_rollout_policy(resolve_model_path(name, suffix=".npz"))


def time_gamestate(start, rng: random.Random, seconds: float, **_) -> tuple[float, float]:
    """(games/s, mean moves per game) of ``apply_move(random_move())`` to the end."""
    games = plies = 0
    t0 = time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds or games == 0:
        state = start
        while not state.is_over():
            state = state.apply_move(state.random_move(rng))
            plies += 1
        games += 1
    return games / elapsed, plies / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="timing per row (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rollout", default="go9-rollout",
                        help="Go rollout policy file or shipped name (default go9-rollout, chapter 13's; "
                             "none: all weights 0)")
    parser.add_argument("--out", default=f"{DEFAULT_FOLDER}/playouts.md", help="where the table is saved")
    args = parser.parse_args()

    try:
        policy = rollout_policy(args.rollout)
    except ModelFileError as err:
        sys.exit(f"playouts: {err}")
    table = Table(["game", "path", "games/s", "moves/game", "moves/s", "target"],
                  [False, False, True, True, True, False], f"one core, {args.seconds:g} s per row")
    for label, name, options in CASES:
        start = new_game(name, **options)
        paths: list[tuple[str, Callable[..., tuple[float, float]], dict]] = [
            ("playout", time_playouts, {}), ("GameState", time_gamestate, {})]
        if label.startswith("go "):
            paths.append(("rollout policy", time_playouts, {"policy": policy}))
        for path, timer, extra in paths:
            rate, length = timer(start, random.Random(args.seed), args.seconds, **extra)
            target = TARGETS.get((label, path))
            verdict = "" if target is None else f"≥ {target:,} {'met' if rate >= target else 'MISSED'}"
            table.row(label, path, f"{rate:,.0f}", f"{length:.0f}", f"{rate * length:,.0f}", verdict)
    table.save(args.out)


if __name__ == "__main__":
    main()
