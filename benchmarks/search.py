"""Search speed: MCTS rounds/s, alpha-beta nodes/s and AlphaGo's simulations in 2 s.

    python benchmarks/search.py            # a few seconds per row
    python benchmarks/search.py --moves 20 # longer, steadier

Each row lets one engine play both sides of a game for ``--moves`` moves (tree
reuse off, so every move is a full search) and divides the work it reports
(its decision's compute) by the wall time it took. On Go, ``mcts`` is the
compiled Go engine (RAVE, priors, heavy playouts: more work per round) and
``plain=true`` the readable UCT; ``alphago`` is the same compiled engine guided
by chapter 13's networks (simulations, the network's calls included), and with
``plain=true`` the book's PUCT search (network evaluations, one a simulation)
with its rollouts compiled, and again on the readable board (``reference
rollouts``) for what they cost before.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import contextlib
from typing import Iterator

from dlgo.arena.match import warm_up
from dlgo.core.arguments import count
from dlgo.games import new_game
from dlgo.games.go.patterns import PatternPolicy
from engines.registry import ENGINES, create
from markdown import DEFAULT_FOLDER, Table

# Targets from the engines issue, on the 2-core reference machine.
TARGETS = {("mcts", "connect4"): 4000, ("mcts (plain)", "go 9x9"): 400}
#: AlphaGo as chapter 13 ships it, 2 s a move
ALPHAGO = "alphago:checkpoint=go9,simulations=100000,seconds=2,reuse=false,seed=1"

CASES = [
    ("mcts", "tictactoe", "tictactoe", "mcts:rounds=2000,reuse=false,seed=1"),
    ("mcts", "connect4", "connect4", "mcts:rounds=5000,reuse=false,seed=1"),
    ("mcts (plain)", "go 9x9", "go:size=9", "mcts:rounds=1000,reuse=false,seed=1,plain=true"),
    ("mcts", "go 9x9", "go:size=9", "mcts:rounds=10000,reuse=false,seed=1"),
    ("mcts (plain)", "go 19x19", "go:size=19", "mcts:rounds=300,reuse=false,seed=1,plain=true"),
    ("mcts", "go 19x19", "go:size=19", "mcts:rounds=3000,reuse=false,seed=1"),
    ("alphago", "go 9x9", "go:size=9", ALPHAGO),
    ("alphago (plain)", "go 9x9", "go:size=9", f"{ALPHAGO},plain=true"),
    ("alphago (plain), reference rollouts", "go 9x9", "go:size=9", f"{ALPHAGO},plain=true"),
    ("alphabeta", "tictactoe", "tictactoe", "alphabeta:nodes=0"),
    ("alphabeta", "connect4", "connect4", "alphabeta:depth=7,nodes=0"),
    ("alphabeta", "go 9x9", "go:size=9", "alphabeta:depth=2,nodes=0"),
    ("minimax", "tictactoe", "tictactoe", "minimax"),
]


@contextlib.contextmanager
def reference_rollouts(on: bool) -> Iterator[None]:
    """While ``on``: the rollout policy plays its rollouts on the readable board
    (``compiled=False``), as before the compiled kernels."""
    playout = PatternPolicy.playout
    if on:
        PatternPolicy.playout = lambda self, state, rng: state.random_playout(rng, policy=self,  # type: ignore
                                                                                 compiled=False)
    try:
        yield
    finally:
        PatternPolicy.playout = playout  # type: ignore[method-assign]


def measure(spec: str, game: str, moves: int) -> tuple[float, str, int]:
    """(work per second, unit, moves measured) over the first ``moves`` moves (the
    process warmed up first: kernels and networks load outside the timed moves)."""
    state = new_game(game)
    warm_up(ENGINES, spec, state)
    agent = create(spec)
    work = seconds = 0.0
    played = 0
    while not state.is_over() and played < moves:
        move, _, report = agent.decide(state)
        work += report.compute.amount
        seconds += report.compute.seconds
        state = state.apply_move(move)
        played += 1
    return work / seconds, agent.unit, played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=count("plies"), default=6, help="moves measured per row (default 6)")
    parser.add_argument("--out", default=f"{DEFAULT_FOLDER}/search.md", help="where the table is saved")
    args = parser.parse_args()
    table = Table(["engine", "game", "spec", "speed", "target"], [False, False, False, True, False],
                  f"one core, the first {args.moves} moves of self-play")
    for family, label, game, spec in CASES:
        moves = 1 if family == "minimax" else args.moves  # minimax: the empty board alone is 549,945 nodes
        with reference_rollouts("reference" in family):
            rate, unit, played = measure(spec, game, moves)
        target = TARGETS.get((family, label))
        verdict = "" if target is None else f"≥ {target:,} {'met' if rate >= target else 'MISSED'}"
        table.row(family, label, f"`{spec}`", f"{rate:,.0f} {unit}/s", verdict)
    table.save(args.out)


if __name__ == "__main__":
    main()
