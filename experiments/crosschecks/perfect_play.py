"""How close to perfect play each engine family comes: mistakes on the solved Connect Four sets.

    python experiments/crosschecks/perfect_play.py --out reports/perfect-play-connect4   # the committed report
    python experiments/crosschecks/perfect_play.py --engines mcts:rounds=10000 alphazero:checkpoint=NEW.keras
    python experiments/crosschecks/perfect_play.py --quick

Connect Four is solved, so a move can be judged against perfect play rather
than against another engine: on each of the suite's 1,020 solved positions
(``dlgo/data/positions/connect-7x6-4.csv``, made by ``dlgo positions``, in
Pascal Pons' six sets: the beginning, middle or end of the game by the stones
played, easy to hard by how far the result lies) every engine plays one move, and the move is a mistake
where it changes the game-theoretic result. The engines: the shipped AlphaZero
network at 0, 50, 200 and 800 simulations (the targets the next networks are
trained against), the strongest MCTS and alpha-beta of the course's ladder, the
random engine and the perfect player. ``--engines`` adds any engine spec: a new
network is measured on the same page.

Writes ``mistakes.csv``, ``mistake_rates.csv``, ``mistakes_vs_compute.png`` and
``summary.md`` to --out; rerunning resumes (and adds engines).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import sys
import textwrap

from dlgo.arena.mistakes import MistakeRate, measure_mistakes, mistake_rates, write_mistakes_summary
from dlgo.core.arguments import count
from dlgo.formats.positions import first_of_each_set, read_positions
from engines.registry import ENGINES, check_engine
from experiments.shared import chapters, ladders

#: the shipped network's targets (0: its raw policy)
SIMULATIONS = [0, 50, 200, 800]
#: the classic engines: the ladder's strongest and its floor, and the yardstick
CLASSIC = ["random", "mcts:rounds=1000", "mcts:rounds=3162", "alphabeta:depth=5,nodes=0",
           "alphabeta:depth=7,nodes=0", "solver"]


def build_parser() -> argparse.ArgumentParser:
    p = chapters.parser(__file__, __doc__, name="perfect-play-connect4")
    p.add_argument("--engines", nargs="*", default=[], help="more engine specs to measure")
    p.add_argument("--per-set", type=count("positions"), default=None,
                   help="only the first N positions of each set (default all)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    return p


def specs_of(args: argparse.Namespace) -> list[str]:
    specs = [f"alphazero:checkpoint=connect4,simulations={n}" for n in SIMULATIONS] + CLASSIC
    return specs + [s for s in args.engines if s not in specs]


def best_of_each_family(rows: list[MistakeRate]) -> str:
    """The closing section: each family at its fewest critical mistakes, and the hardest set."""
    overall = [r for r in rows if r.group == "all"]
    best: dict[str, MistakeRate] = {}
    for r in overall:
        if r.family not in best or r.critical_rate < best[r.family].critical_rate:
            best[r.family] = r
    text = " ".join(f"`{r.engine}` errs in {r.critical_rate:.1%} of the critical positions "
                    f"({r.critical_low:.1%} to {r.critical_high:.1%}) at {r.seconds_per_move:.3f} s a move."
                    for r in sorted(best.values(), key=lambda r: r.critical_rate))
    hardest = {}
    for r in overall:
        if r.critical_mistakes:  # an engine that errs somewhere: where most?
            sets = sorted((s for s in rows if s.engine == r.engine and s.group != "all" and s.critical),
                          key=lambda s: -s.critical_rate)
            if len(sets) == 1 or sets[0].critical_rate > sets[1].critical_rate:  # one set, not a tie
                hardest[r.engine] = sets[0]
    names = {s.group for s in hardest.values()}
    if len(names) == 1 and len(hardest) == sum(bool(r.critical_mistakes) for r in overall):
        rates = sorted(s.critical_rate for s in hardest.values())
        text += (f" `{names.pop()}` is the hardest set for every engine that errs: {rates[0]:.0%} to "
                 f"{rates[-1]:.0%} of its critical positions.")
    return "## How close each family comes\n\n" + "\n".join(textwrap.wrap(
        "At its best here: " + text + " Per set: the table below.", 78, break_on_hyphens=False))


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    path = ladders.connect4_sets()
    per_set = 2 if args.quick else args.per_set
    positions = first_of_each_set(read_positions(path), per_set)
    quick = ["random", "alphazero:checkpoint=connect4,simulations=0", "alphabeta:depth=2"]
    specs = quick + [s for s in args.engines if s not in quick] if args.quick else specs_of(args)
    for spec in specs:
        check_engine(spec)
    chapters.take_folders(args)
    print(f"{len(specs)} engines on {len(positions)} positions ({sum(p.critical for p in positions)} critical)",
          flush=True)
    verdicts = measure_mistakes(ENGINES, specs, positions, args.out, seed=args.seed, workers=args.workers)
    rows = mistake_rates(verdicts, by_set=True)
    intro = (f"Reproduce: `{chapters.command(__file__, argv)}`\n\n{len(positions)} positions "
             f"({sum(p.critical for p in positions)} critical) of `{path.name}`, each engine seeded per "
             "position. The shipped network's rows are the targets the next AlphaZero runs are measured "
             "against.\n\n" + best_of_each_family(rows))
    for r in write_mistakes_summary(args.out, verdicts, "Distance from perfect play: connect4", intro):
        print(f"{r.engine:<44} {r.critical_rate:6.1%} of {r.critical} critical ({r.rate:5.1%} of all)  "
              f"{r.seconds_per_move:.4f} s/move")
    print(f"\nreport: {args.out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
