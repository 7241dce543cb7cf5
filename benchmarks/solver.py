"""The Connect Four solver's speed: seconds to score every move of a position.

    python benchmarks/solver.py                 # 10 positions at each stone count, a few minutes
    python benchmarks/solver.py --positions 30  # steadier figures
    python benchmarks/solver.py --pons ~/connect4  # beside Pons' C++ solver, built from its source

For positions after 8, 10, 12, 16 and 24 stones (seeded play that avoids losing
at once, as in the solved sets), ``Solver.move_scores``, compiled, one core, a
fresh transposition table for each position (no help from the one before; cleared
before the clock starts, as Pons' solver clears its own): the
mean and the slowest, in milliseconds and nodes, against the targets (12 stones: every
position in 2 s; 8 stones: in 60 s). Then the empty board, from the shipped
opening book.

``--pons DIR`` names a checkout of Pascal Pons' solver
(https://github.com/PascalPons/connect4, the one the suite's follows): the
benchmark builds it with a small driver of its own (``g++ -O3``, as its Makefile
does) that times ``Solver::analyze`` (every move's score, as here) on the same
positions, with its table cleared before each and without its opening book, and
checks that both give the same scores. Its columns: Pons' mean milliseconds, its
nodes a second and the time ratio (ours over Pons'; at 24 stones a position takes
microseconds, and the ratio measures Python's call into the compiled search).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dlgo.core.arguments import count
from dlgo.data.solved import bitboard_solver, candidate
from dlgo.games import new_game
from markdown import DEFAULT_FOLDER, Table

#: stone count -> the slowest position's target in seconds (the solver's issue)
TARGETS = {12: 2.0, 8: 60.0}
STONES = [24, 16, 12, 10, 8]

FULL_COLUMN = -1000  # Pons' score of a column that cannot be played

#: Pons' solver on positions read one a line (the columns played, from 1): each position's
#: seven scores (-1000 for a full column), nodes searched and microseconds, the table cleared first
PONS_DRIVER = """
#include "Solver.hpp"
#include <chrono>
#include <iostream>
using namespace GameSolver::Connect4;
int main() {
  Solver solver;
  std::string line;
  while (std::getline(std::cin, line)) {
    Position P;
    if (P.play(line) != line.size()) { std::cout << "invalid" << std::endl; continue; }
    solver.reset();
    auto start = std::chrono::steady_clock::now();
    std::vector<int> scores = solver.analyze(P, false);
    auto elapsed = std::chrono::steady_clock::now() - start;
    for (int score : scores) std::cout << score << " ";
    std::cout << solver.getNodeCount() << " "
              << std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count() << std::endl;
  }
}
"""


def build_pons(source: Path, folder: Path) -> Path:
    """Pons' solver from ``source`` with the timing driver, compiled into ``folder``."""
    if not (source / "Solver.cpp").exists():
        sys.exit(f"error: --pons {source}: no Solver.cpp there (a checkout of github.com/PascalPons/connect4)")
    driver = folder / "driver.cpp"
    driver.write_text(PONS_DRIVER)
    binary = folder / "pons"
    try:
        built = subprocess.run(["g++", "--std=c++11", "-O3", "-DNDEBUG", f"-I{source}", "-o", str(binary),
                                str(driver), str(source / "Solver.cpp")], capture_output=True, text=True)
    except FileNotFoundError:
        sys.exit("error: --pons needs g++ (apt-get install -y g++)")
    if built.returncode != 0:
        sys.exit(f"error: building Pons' solver failed: {(built.stderr.strip().splitlines() or ['?'])[-1]}")
    return binary


def pons_times(binary: Path, positions: list[str], ours: list[dict[int, int]]) -> tuple[list[float], list[int]]:
    """Pons' seconds and nodes for each position (one process, its table cleared before each);
    exits where a score differs from ours."""
    lines = subprocess.run([str(binary)], input="".join(p + "\n" for p in positions), capture_output=True,
                           text=True).stdout.splitlines()
    if len(lines) != len(positions):
        sys.exit(f"error: Pons' solver answered {len(lines)} of {len(positions)} positions")
    times, nodes = [], []
    for position, line, scores in zip(positions, lines, ours):
        fields = [int(field) for field in line.split()] if line != "invalid" else []
        theirs = {column: score for column, score in enumerate(fields[:7]) if score != FULL_COLUMN}
        if len(fields) != 9 or theirs != scores:
            sys.exit(f"error: Pons' solver answers {position} with {line!r}; ours scores {scores}")
        nodes.append(fields[7])
        times.append(fields[8] / 1e6)
    return times, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=count("positions"), default=10,
                        help="positions per stone count (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pons", type=Path, default=None, metavar="DIR",
                        help="a checkout of Pons' C++ solver, timed beside ours on the same positions")
    parser.add_argument("--out", default=f"{DEFAULT_FOLDER}/solver.md", help="where the table is saved")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        pons = build_pons(args.pons.expanduser(), Path(folder)) if args.pons else None
        measure(args, pons)


def measure(args: argparse.Namespace, pons: Path | None) -> None:
    header = ["stones", "positions", "mean ms", "slowest ms", "mean nodes", "nodes/s"]
    if pons is not None:
        header += ["Pons mean ms", "Pons nodes/s", "ours / Pons"]
    table = Table(header + ["target"], [True] * len(header) + [False],
                  "one core, every move of each position scored, a fresh table each")
    rng = random.Random(args.seed)
    warm = next(s for k in range(100) if (s := candidate("connect4", args.seed, k, 30)) is not None)
    solver = bitboard_solver("connect4")
    solver.move_scores(warm)  # the kernels loaded before the clock starts
    for stones in STONES:
        times: list[float] = []
        nodes: list[int] = []
        moves: list[str] = []
        scores: list[dict[int, int]] = []
        while len(times) < args.positions:
            state = candidate("connect4", args.seed, rng.randrange(10**9), stones)
            if state is None:
                continue
            solver.clear()  # a fresh table, its memory already touched (as Pons' reset leaves his)
            before, started = solver.nodes, time.perf_counter()
            scores.append(solver.move_scores(state))
            times.append(time.perf_counter() - started)
            nodes.append(solver.nodes - before)
            moves.append("".join(state.format_move(m) for m in state.move_history()))
        target = TARGETS.get(stones)
        verdict = "" if target is None else f"≤ {target:g} s {'met' if max(times) <= target else 'MISSED'}"
        cells = [str(stones), str(len(times)), f"{1000 * sum(times) / len(times):,.1f}", f"{1000 * max(times):,.1f}",
                 f"{sum(nodes) / len(nodes):,.0f}", f"{sum(nodes) / sum(times):,.0f}"]
        if pons is not None:
            their_times, their_nodes = pons_times(pons, moves, scores)
            cells += [f"{1000 * sum(their_times) / len(their_times):,.1f}",
                      f"{sum(their_nodes) / max(sum(their_times), 1e-6):,.0f}",
                      f"{sum(times) / max(sum(their_times), 1e-6):.2f}"]
        table.row(*cells, verdict)
    start = new_game("connect4")
    booked = bitboard_solver("connect4", book=True)
    if booked.book is not None:  # without the book, the empty board is hours of search
        started = time.perf_counter()
        book_scores = booked.move_scores(start)
        seconds = time.perf_counter() - started
        milliseconds = f"{1000 * seconds:,.1f}"
        table.row("0 (book)", "1", milliseconds, milliseconds, "-", "-", *(["-"] * 3 if pons else []),
                  "scores " + " ".join(f"{book_scores[c]:+d}" for c in sorted(book_scores)))
    table.save(args.out)


if __name__ == "__main__":
    main()
