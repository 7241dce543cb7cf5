"""The Connect Four solver's speed: seconds to score every move of a position.

    python benchmarks/solver.py                 # 10 positions at each stone count, a few minutes
    python benchmarks/solver.py --positions 30  # steadier figures

For positions after 8, 10, 12, 16 and 24 stones (seeded play that avoids losing
at once, as in the solved sets), ``Solver.move_scores``, compiled, one core, a
fresh transposition table for each position (no help from the one before): the
mean and the slowest, in seconds and nodes, against the targets (12 stones: every
position in 2 s; 8 stones: in 60 s). Then the empty board, from the shipped
opening book. Pons' C++ solver takes about 0.6 s for the seven moves of a
position at 10 to 19 plies, without its book.
"""
from __future__ import annotations

import argparse
import random
import time

from dlgo.data.solved import bitboard_solver, candidate
from dlgo.games import new_game
from markdown import DEFAULT_FOLDER, Table

#: stone count -> the slowest position's target in seconds (the solver's issue)
TARGETS = {12: 2.0, 8: 60.0}
STONES = [24, 16, 12, 10, 8]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10, help="positions per stone count (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=f"{DEFAULT_FOLDER}/solver.md", help="where the table is saved")
    args = parser.parse_args()
    table = Table(["stones", "positions", "mean s", "slowest s", "mean nodes", "nodes/s", "target"],
                  [True, True, True, True, True, True, False],
                  "one core, every move of each position scored, a fresh table each")
    rng = random.Random(args.seed)
    warm = next(s for k in range(100) if (s := candidate("connect4", args.seed, k, 30)) is not None)
    bitboard_solver("connect4", 10).move_scores(warm)  # the kernels loaded before the clock starts
    for stones in STONES:
        times, nodes = [], []
        while len(times) < args.positions:
            state = candidate("connect4", args.seed, rng.randrange(10**9), stones)
            if state is None:
                continue
            solver = bitboard_solver("connect4")
            started = time.perf_counter()
            solver.move_scores(state)
            times.append(time.perf_counter() - started)
            nodes.append(solver.nodes)
        target = TARGETS.get(stones)
        verdict = "" if target is None else f"≤ {target:g} s {'met' if max(times) <= target else 'MISSED'}"
        table.row(str(stones), str(len(times)), f"{sum(times) / len(times):.3f}", f"{max(times):.3f}",
                  f"{sum(nodes) / len(nodes):,.0f}", f"{sum(nodes) / sum(times):,.0f}", verdict)
    start = new_game("connect4")
    solver = bitboard_solver("connect4", book=True)
    if solver.book is not None:  # without the book, the empty board is hours of search
        started = time.perf_counter()
        scores = solver.move_scores(start)
        seconds = time.perf_counter() - started
        table.row("0 (book)", "1", f"{seconds:.3f}", f"{seconds:.3f}", "-", "-",
                  "scores " + " ".join(f"{scores[c]:+d}" for c in sorted(scores)))
    table.save(args.out)


if __name__ == "__main__":
    main()
