"""Which engine is stronger, and at what compute? A round-robin of engine ladders.

    python experiments/strength_per_compute.py                       # Connect Four, a few minutes
    python experiments/strength_per_compute.py --game tictactoe --depth-max 9
    python experiments/strength_per_compute.py --mcts-max 10000 --games-per-pair 20 --out runs/c4-big

Ladders: MCTS at 10, 32, 100, 316, ... rounds (x sqrt(10) steps up to
--mcts-max), alpha-beta at depth 1..--depth-max (no node cap), the shipped
AlphaZero network of the game (checkpoints/<game>.keras, for tic-tac-toe and
Connect Four) at --alphazero-simulations (0 = its raw policy), a supervised
move predictor if --predictor names one, and the random engine as the Elo
anchor (0). Every pair plays --games-per-pair games with
colours alternating and a few seeded random opening plies. Writes games.csv,
ratings.csv, crosstable.csv, strength_vs_compute.png, crosstable.png and
summary.md to --out. Rerunning the same command resumes: finished games are
never replayed.
"""
from __future__ import annotations

import sys

from experiments import common


@common.script
def main(argv: list[str] | None = None) -> int:
    parser = common.parser(__file__, __doc__, name="strength-per-compute")
    common.add_ladder_options(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.mcts_max, args.depth_max, args.alphazero_simulations, args.games_per_pair = 32, 2, [0], 2
    common.run_ladder(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
