"""AlphaZero learns 7x7 Go from nothing, judged against GNU Go after every iteration.

    python experiments/headline/alphazero_go7.py             # 80 minutes on 2 cores, resumable
    python experiments/headline/alphazero_go7.py --quick     # seconds: tiny settings

No supervised start and no Go knowledge beyond the rules: a 4-block, 48-filter
policy-value ResNet plays 7x7 Go (area scoring, komi 8.5) against itself with
the economies that buy strength cheaply: Gumbel AlphaZero's search with 16
simulations a move (its improved policy as the target) and KataGo's auxiliary
targets (each point's final owner, the final score and the moves to the end:
far more to learn from a game than its result). After every other iteration,
and before the first, the network (50 simulations a move) plays GNU Go at
level 1, a fixed opponent, 20 games; the run publishes its best network by
that score, and the learning curve shows it iteration after iteration beside
the Elo against its own previous versions. Finally the published network with
200 simulations a move plays GNU Go level 1 in 40 games.
Writes ``history.csv``, ``learning_curve.png``, the final match's
``games.csv`` and ``summary.md`` to ``--out``.
"""
from __future__ import annotations

import sys

from engines.training.alphazero_config import AlphaZeroConfig, pre_recipe_config
from experiments.shared import alphazero, chapters

GAME = "go:size=7,komi=8.5"
OPPONENT = "gnugo:level=1"


def config(seed: int = 0) -> AlphaZeroConfig:
    """The run's settings."""
    return pre_recipe_config(game=GAME, blocks=4, filters=48, learning_rate=1e-3, l2=1e-4, games=64, parallel=64,
                             simulations=16, gumbel=16, auxiliary=["all"], buffer_games=1000, batch_size=128,
                             train_steps=100, eval_games=20, eval_simulations=50, previous_games=20,
                             baselines=[OPPONENT], baseline_every=2, publish="best", seed=seed)


EXPERIMENT = alphazero.Experiment(name="go7", game=GAME, title="AlphaZero on 7x7 Go from nothing, against GNU Go",
                                  config=config, iterations=40, script=__file__, opponent=OPPONENT, match_games=40,
                                  match_simulations=200, quick_opponent="random")


@chapters.script
def main(argv: list[str] | None = None) -> int:
    return alphazero.run_alphazero(EXPERIMENT, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
