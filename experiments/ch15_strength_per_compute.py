"""Capstone: every engine of the course in one round-robin. Which is strongest per unit of compute?

    python experiments/ch15_strength_per_compute.py           # Connect Four, about two minutes on 2 cores
    python experiments/ch15_strength_per_compute.py --game tictactoe --depth-max 9
    python experiments/ch15_strength_per_compute.py --quick

The engines of chapters 3 to 14 on the course's Elo scale (random = 0; the MCTS
and alpha-beta ladder held at its ratings in ``reports/calibration-connect4``,
``experiments/calibration.py``, the networks measured against it): MCTS at 10 to
1,000 rounds (chapter 4), alpha-beta at depth 1 to 4 (chapter 4), the move
predictor of chapters 6-8 (if ``ch06_07_train_predictor.py`` has trained it, or
--predictor PATH), the networks that learnt by playing in chapters 10-12 (``pg``,
``q`` and ``ac``, where their runs exist) and the shipped AlphaZero network
(chapter 14) with its raw policy and with 50 simulations. Every pair plays --games-per-pair games,
colours alternating after two seeded random opening plies; rerunning resumes.
Writes ``games.csv``, ``ratings.csv``, ``crosstable.csv``,
``strength_vs_compute.png``, ``crosstable.png`` and ``summary.md`` to --out.
"""
from __future__ import annotations

import sys
from pathlib import Path

from experiments import common
from experiments.common import CHAPTER_PREDICTOR as PRESET

#: the chapters whose networks learnt by playing (chapters 10-12), by method
LEARNERS = [("pg", "ch10_policy_gradient"), ("q", "ch11_q_learning"), ("ac", "ch12_actor_critic")]

LOOK_FOR = """## What to look for

The plot puts every engine at its cost (seconds per move, log scale) and its
strength, one line per family. Each family climbs as it spends more, but the
families sit at different heights. The AlphaZero network with 50 simulations
is on top. Its raw policy, a single network call per move, plays as well as
MCTS with a thousand rounds at a fraction of the time: a learnt evaluation is
worth many random playouts. Among the classic engines,
alpha-beta gets the most Elo per second on Connect Four, because its threat-counting
evaluation (``engines/evaluation.py``) knows what matters in this game. Odd and
even depths alternate in strength: the horizon falls after one side's move or
the other's. The move predictor sits low. It imitated a 300-round teacher
without any search, so the first blunder it cannot see loses the game. The
networks of chapters 10-12 cost the same single call per move; where they
land against the predictor says what self-play taught them that imitation did not.
Predict, then measure: where would `--mcts-max 3162` land, and which engine
would you pick at 0.01 s per move?"""


@common.script
def main(argv: list[str] | None = None) -> int:
    p = common.parser(__file__, __doc__)
    common.add_ladder_options(p, mcts_max=1000, depth_max=4)
    args = p.parse_args(argv)
    if args.quick:
        args.mcts_max, args.depth_max, args.games_per_pair, args.workers = 10, 1, 2, 1
        args.alphazero_simulations = [0]
    trained = common.predictor_model_path(args.quick)  # step 5's network (its --quick one with --quick)
    if args.predictor is None and args.game == PRESET.game and trained.exists():
        args.predictor = str(trained)
    if args.game == "connect4":  # the networks of chapters 10-12, where their runs exist
        for method, script in LEARNERS:
            network = Path(common.run_folders(script, args.quick)[1]) / "run" / "current.keras"
            if network.exists():
                args.engines.append(f"{method}:model={network}")
    common.run_ladder(args, intro=f"Reproduce: `{common.command(__file__, argv)}`", outro=LOOK_FOR, on_scale=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
