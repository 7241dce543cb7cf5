"""Gumbel AlphaZero's search against PUCT with the same network: how many simulations does each need?

    python experiments/crosschecks/gumbel_search.py --out reports/gumbel-search-connect4   # the committed report
    python experiments/crosschecks/gumbel_search.py --network runs/az/checkpoint.keras
    python experiments/crosschecks/gumbel_search.py --quick

Danihelka et al. (ICLR 2022) claim that Gumbel AlphaZero's root search, with
its improved policy, improves on the network's policy even with very few
simulations, where PUCT with few simulations can make it worse. Here both
searches play with the same network (the shipped Connect Four network unless
``--network``) on the suite's solved position sets (``dlgo/data/positions/``:
a move is a mistake where it changes the game-theoretic result), at 4 to 200
simulations for Gumbel (16 root moves considered) and 16 to 800 for PUCT, and
then Gumbel with 16 simulations plays PUCT with 200 in a head-to-head match
(``--games``, colours alternating, two random opening plies so that the games
differ).

Writes ``mistakes.csv``, ``mistake_rates.csv``, ``mistakes_vs_compute.png``
(one line per search), ``match/games.csv`` and ``summary.md`` to --out;
rerunning resumes.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import sys

from dlgo.arena.mistakes import measure_mistakes, write_mistakes_summary
from dlgo.arena.ratings import wilson_interval
from dlgo.arena.tournament import play_games, schedule
from dlgo.core.arguments import count
from dlgo.formats.positions import first_of_each_set, read_positions
from engines.registry import ENGINES, check_engine
from experiments.shared import chapters, ladders

PUCT = [16, 50, 200, 800]
GUMBEL = [4, 8, 16, 32, 50, 200]
CONSIDERED = 16  # root moves Gumbel considers (Connect Four has 7: all of them)


def build_parser() -> argparse.ArgumentParser:
    p = chapters.parser(__file__, __doc__, name="gumbel-search-connect4")
    p.add_argument("--network", default="connect4", help="the policy-value network both searches use "
                                                         "(default: the shipped connect4)")
    p.add_argument("--per-set", type=count("positions"), default=None,
                   help="only the first N positions of each set (default all)")
    p.add_argument("--games", type=count("games", 2), default=200, help="games of the head-to-head match (default 200)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    return p


def spec(network: str, simulations: int, gumbel: int = 0) -> str:
    return f"alphazero:checkpoint={network},simulations={simulations}" + (f",gumbel={gumbel}" if gumbel else "")


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    path = ladders.connect4_sets()
    per_set, games = (2, 2) if args.quick else (args.per_set, args.games)
    puct, gumbel = ([2, 8], [2, 8]) if args.quick else (PUCT, GUMBEL)
    specs = [spec(args.network, n) for n in puct] + [spec(args.network, n, CONSIDERED) for n in gumbel]
    for engine in specs:
        check_engine(engine)
    chapters.take_folders(args)
    positions = first_of_each_set(read_positions(path), per_set)
    challenger, reference = spec(args.network, 16 if not args.quick else 8, CONSIDERED), spec(
        args.network, 200 if not args.quick else 8)
    records = play_games(ENGINES, f"{args.out}/match", "connect4", schedule([challenger, reference], games, args.seed),
                         opening_plies=2, workers=args.workers)
    score = sum(r.score_for(challenger) for r in records) / len(records)
    low, high = wilson_interval(score, len(records))
    wins = sum(r.score_for(challenger) == 1 for r in records)
    draws = sum(r.score_for(challenger) == 0.5 for r in records)
    verdicts = measure_mistakes(ENGINES, specs, positions, args.out, seed=args.seed, workers=args.workers)
    intro = (f"Reproduce: `{chapters.command(__file__, argv)}`\n\n"
             f"Both searches use `{args.network}`; Gumbel considers {CONSIDERED} root moves. {len(positions)} "
             f"positions ({sum(p.critical for p in positions)} critical) of `{path.name}`, each engine seeded "
             f"per position.\n\n## Head to head\n\n`{challenger}` against `{reference}`: {len(records)} games, "
             f"colours alternating, two random opening plies (`match/games.csv`): {wins} won, {draws} drawn, "
             f"{len(records) - wins - draws} lost, a score of **{score:.1%}** (95% interval {low:.1%} to "
             f"{high:.1%}).\n\n## On the solved positions")
    rows = write_mistakes_summary(args.out, verdicts, "Gumbel search against PUCT: connect4", intro)
    print(f"{challenger} against {reference}: {score:.1%} of {len(records)} games")
    for r in rows:
        print(f"{r.engine:<56} {r.critical_rate:6.1%} of {r.critical} critical  {r.seconds_per_move:.4f} s/move")
    print(f"\nreport: {args.out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
