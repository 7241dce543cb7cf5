"""Our engines and OpenSpiel's on one scale: a Connect Four round-robin.

    python experiments/crosschecks/vs_openspiel.py            # about 20 minutes on 2 cores
    python experiments/crosschecks/vs_openspiel.py --quick    # seconds

OpenSpiel's own ``MCTSBot`` (UCT with random rollouts and MCTS-Solver, the
``openspiel`` engine: OpenSpiel's C++ Connect Four driven from its Python
search) at ``--simulations`` joins our ladder: our MCTS at 10 to 1,000 rounds,
alpha-beta at depth 1 to 3, the shipped AlphaZero network at 50 simulations a
move, and random. Our ladder is held on the course's Connect Four scale (the
calibration run), so OpenSpiel's bots, the subjects, are measured against it
and rate on the same scale as every report of the suite. Writes ``games.csv``,
``ratings.csv``, ``crosstable.csv``, ``strength_vs_compute.png`` and
``summary.md``. Needs the ``openspiel`` extra.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys

from dlgo.arena.report import EngineRow, is_pinned
from dlgo.core.arguments import count
from experiments.shared import chapters, ladders

OPENSPIEL_SIMULATIONS = [100, 316, 1000]


def openspiel_specs(simulations: list[int]) -> list[str]:
    return [f"openspiel:bot=mcts,simulations={n}" for n in simulations]


def outro(rows: list[EngineRow]) -> str:
    """The closing paragraph from this run's ratings: each OpenSpiel budget beside our MCTS at the same count."""
    rated = {r.engine: r for r in rows}
    pairs = []
    for spec in sorted((e for e in rated if e.startswith("openspiel:")), key=lambda e: int(e.rsplit("=", 1)[1])):
        n = int(spec.rsplit("=", 1)[1])
        ours = rated.get(f"mcts:rounds={n}")
        theirs = rated[spec]
        text = (f"OpenSpiel's MCTS at {n:,} simulations rates {theirs.elo:,.0f} ({theirs.score:.1%} of its games) at "
                f"{theirs.seconds_per_move:.3f} s a move")
        if ours is not None:
            rated_as = "is pinned at" if is_pinned(ours) else "rates"  # the course's calibration holds it, or not
            text += (f"; ours at {n:,} rounds {rated_as} {ours.elo:,.0f} ({ours.score:.1%} of its games) at "
                     f"{ours.seconds_per_move:.3f} s")
        pairs.append(text)
    if not pairs:
        return ""
    return ("## What to look for\n\n" + ". ".join(pairs) + ". The two searches are the same algorithm (UCT, "
            "random rollouts, a solver for proven results), so at equal counts OpenSpiel's interval should hold our "
            "rating (ours is held at its calibration, theirs measured against it); the seconds say how fast each "
            "implementation is: OpenSpiel's rules run in C++, its search in Python, and ours is Python throughout (our "
            "rules on flat arrays and bitboards, our tree on "
            "numpy arrays). Where one rates lower at the same count, look at the exploration constants (OpenSpiel's "
            "c = 2 here, ours 1.4) and at how each picks its final move.\n")


@chapters.script
def main(argv: list[str] | None = None) -> int:
    parser = chapters.parser(__file__, __doc__, name="vs-openspiel")
    ladders.add_ladder_options(parser, mcts_max=1000, depth_max=3)
    parser.add_argument("--simulations", type=count("simulations"), nargs="+", default=OPENSPIEL_SIMULATIONS,
                        help=f"OpenSpiel's MCTS budgets (default {' '.join(map(str, OPENSPIEL_SIMULATIONS))})")
    parser.set_defaults(alphazero_simulations=[50], games_per_pair=20)
    args = parser.parse_args(argv)
    if args.quick:
        args.mcts_max, args.depth_max, args.alphazero_simulations, args.games_per_pair = 32, 1, [], 2
        args.simulations = [20]
    args.engines = [*openspiel_specs(args.simulations), *args.engines]
    ladders.run_ladder(args, intro=f"Reproduce: `{chapters.command(__file__, argv)}`", outro=outro, on_scale=True,
                       title="Our engines and OpenSpiel's on one scale")
    return 0


if __name__ == "__main__":
    sys.exit(main())
