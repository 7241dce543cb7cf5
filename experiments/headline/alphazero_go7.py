"""AlphaZero learns 7x7 Go from nothing, judged against GNU Go every few iterations.

    python experiments/headline/alphazero_go7.py             # 75 minutes on 2 cores, resumable
    python experiments/headline/alphazero_go7.py --quick     # seconds: tiny settings

No supervised start and no Go knowledge beyond the rules: a 4-block, 48-filter
policy-value ResNet plays 7x7 Go (area scoring, komi 8.5) against itself with
the recipe the solved boards picked (docs/alphazero.md, "The recipe": heads of
32 filters, repeated positions merged, AlphaZero.jl's temperature schedule
with its floor scaled to the board, the learning rate divided by 10 for the
last third, the compute spent on self-play rather than on matches against the
previous network) and the economies that buy strength cheaply: Gumbel
AlphaZero's search with 16 simulations a move (its improved policy as the
target) and KataGo's auxiliary targets (each point's final owner, the final
score and the moves to the end: far more to learn from a game than its
result). Every fourth iteration, and before the first, the network (50
simulations a move) plays GNU Go at level 1, a fixed opponent, 20 games; the
run publishes its best network by that score, and the learning curve shows
it. Random openings (the recipe's on the solved boards) stay off: half a Go
board of random stones is no game. Finally the published network with 200
simulations a move plays GNU Go level 1 in 40 games.
Writes ``history.csv``, ``learning_curve.png``, the final match's
``games.csv`` and ``summary.md`` to ``--out``.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys

from engines.training.alphazero_config import AlphaZeroConfig
from experiments.shared import alphazero, chapters

facts = alphazero.run_facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)

GAME = "go:size=7,komi=8.5"
OPPONENT = "gnugo:level=1"
ITERATIONS = 80


def config(seed: int = 0) -> AlphaZeroConfig:
    """The run's settings: the recipe (AlphaZeroConfig's defaults, the learning rate / 10 from
    two thirds of the run) with Gumbel search and the auxiliary targets, published by its best
    score against GNU Go (20 games resolve no finer than the best itself: no margin)."""
    return AlphaZeroConfig(game=GAME, blocks=4, filters=48, games=64, parallel=64, simulations=16, gumbel=16,
                           auxiliary=["all"], buffer_games=1000, batch_size=128, train_steps=100,
                           learning_rate_drops=[2 * ITERATIONS // 3 + 1], eval_games=20, eval_simulations=50,
                           previous_games=0, baselines=[OPPONENT], baseline_every=4, publish_margin=0.0, seed=seed)


EXPERIMENT = alphazero.Experiment(name="go7", game=GAME, title="AlphaZero on 7x7 Go from nothing, against GNU Go",
                                  config=config, iterations=ITERATIONS, script=__file__, opponent=OPPONENT,
                                  match_games=40, match_simulations=200, quick_opponent="random")


@chapters.script
def main(argv: list[str] | None = None) -> int:
    return alphazero.run_alphazero(EXPERIMENT, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
