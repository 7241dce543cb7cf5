"""Random games per second for every game: the README's performance table.

    python benchmarks/playouts.py                # about 2 s per row
    python benchmarks/playouts.py --seconds 10   # steadier figures

Each game's paths, side by side in one run:

* ``playout``: ``state.random_playout(rng)``, the fast path engines use for
  rollouts, on the compiled kernels (numba; Go: the compiled board,
  :mod:`dlgo.games.go.kernels`; Connect Four and m,n,k: bitboards);
* ``playout, reference``: the same games on the readable reference
  (``compiled=False``: Go's :class:`Board` in pure Python), the path the
  compiled one is tested against move for move;
* ``GameState``: ``state.apply_move(state.random_move(rng))`` until the end,
  the persistent API every engine and the arena use;
* ``rollout policy`` (Go), compiled and reference: the playout with its moves
  drawn from the fast rollout policy (``--rollout``, by default chapter 13's
  shipped ``go9-rollout``; ``none``: all weights 0, uniform moves);
* ``OpenSpiel (C++)``: OpenSpiel's own game, uniformly random legal actions from
  Python until the end (its Go passes and fills eyes at random, so its games are
  shorter; compare moves/s too), when ``open_spiel`` is installed.

The random policy is uniform over legal moves; in Go it never fills its own eye
and passes only when nothing else is left (the book's random bot).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import random
import sys
import time
from typing import Any, Callable

import numpy as np

from dlgo.core.errors import ModelFileError
from dlgo.games import new_game
from dlgo.games.go.patterns import NUM_FEATURES, PatternPolicy
from engines.checkpoints import resolve_model_path
from engines.rollouts import read_rollout_policy
from markdown import DEFAULT_FOLDER, Table

# Targets, measured on the 2-core reference machine: from the foundation issue (the
# reference paths), AlphaGo's issue ("thousands of rollout moves per second") and
# the compiled kernels' issue.
TARGETS = {("go 9x9", "playout"): 30000, ("go 19x19", "playout"): 5000, ("connect4", "playout"): 500000,
           ("go 9x9", "rollout policy"): 10000, ("go 9x9", "playout, reference"): 700,
           ("go 19x19", "playout, reference"): 60, ("connect4", "playout, reference"): 15000,
           ("go 9x9", "rollout policy, reference"): 20}

#: (label, game, options); Go's also time the rollout policy
CASES = [
    ("go 9x9", "go", {"size": 9}),
    ("go 19x19", "go", {"size": 19}),
    ("connect4", "connect4", {}),
    ("tictactoe", "tictactoe", {}),
    ("gomoku 15x15", "gomoku", {}),
]


def time_playouts(start: Any, rng: random.Random, seconds: float, **options: Any) -> tuple[float, float]:
    """(games/s, mean moves per game) of ``random_playout`` from ``start`` (``options``:
    Go's ``policy=``, ``compiled=False`` for the reference)."""
    moves: list = []
    sample = 100
    for _ in range(sample):
        start.random_playout(rng, moves, **options)
    mean_length = len(moves) / sample
    games, t0 = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds:
        for _ in range(10):
            start.random_playout(rng, **options)
        games += 10
    return games / elapsed, mean_length


def time_openspiel(start: Any, rng: random.Random, seconds: float) -> tuple[float, float] | None:
    """(games/s, mean moves per game) of uniformly random games in OpenSpiel's C++
    implementation of the game, or None without open_spiel or a counterpart."""
    counterpart = start.game.openspiel_game()
    try:
        import pyspiel
    except ImportError:
        return None
    if counterpart is None:
        return None
    game = pyspiel.load_game(counterpart.name)
    choice = rng.choice
    games = plies = 0
    t0 = time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds or games == 0:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            plies += 1
        games += 1
    return games / elapsed, plies / games


def rollout_policy(name: str) -> PatternPolicy:
    """The rollout policy file (or shipped name) ``name``; ``none``: all weights 0
    (the same code path, uniform moves: what the rollout policy's features cost)."""
    if name == "none":
        return PatternPolicy(np.zeros(NUM_FEATURES))
    return read_rollout_policy(resolve_model_path(name, suffix=".npz"))


def time_gamestate(start: Any, rng: random.Random, seconds: float) -> tuple[float, float]:
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
        start.random_playout(random.Random(0))  # load the compiled kernels before the clock starts
        paths: list[tuple[str, Callable[..., tuple[float, float] | None], dict]] = [
            ("playout", time_playouts, {}), ("playout, reference", time_playouts, {"compiled": False})]
        if label.startswith("go "):
            paths += [("rollout policy", time_playouts, {"policy": policy}),
                      ("rollout policy, reference", time_playouts, {"policy": policy, "compiled": False})]
        paths += [("GameState", time_gamestate, {}), ("OpenSpiel (C++)", time_openspiel, {})]
        for path, timer, extra in paths:
            measured = timer(start, random.Random(args.seed), args.seconds, **extra)
            if measured is None:
                continue
            rate, length = measured
            target = TARGETS.get((label, path))
            verdict = "" if target is None else f"≥ {target:,} {'met' if rate >= target else 'MISSED'}"
            table.row(label, path, f"{rate:,.0f}", f"{length:.0f}", f"{rate * length:,.0f}", verdict)
    table.save(args.out)


if __name__ == "__main__":
    main()
