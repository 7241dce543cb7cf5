"""AlphaZero learns 5x5 Go from scratch: Elo rising across iterations.

    python experiments/headline/alphazero_go5.py             # about 40 minutes on 2 cores, resumable
    python experiments/headline/alphazero_go5.py --quick     # seconds: tiny settings

Trains a 3-block, 32-filter policy-value ResNet on 5x5 Go (area scoring, komi
7.5) by batched self-play with the 8 board symmetries
(``engines.training.alphazero``; checkpoints and replay buffer in
``--work``, so a killed run continues where it stopped). Every iteration plays
the one before it, and the Elo differences add up to a curve from the
untrained network; scores against random and rollout MCTS are fixed anchors.
Finally the network with 200 simulations per move plays ``mcts:rounds=1000``.
Writes ``history.csv``, ``learning_curve.png``, the final match's
``games.csv`` and ``summary.md`` to ``--out``.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys

from engines.training.alphazero_config import AlphaZeroConfig, pre_recipe_config
from experiments.shared import alphazero, chapters

facts = alphazero.run_facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)


def config(seed: int = 0) -> AlphaZeroConfig:
    """The run's settings."""
    return pre_recipe_config(game="go:size=5", blocks=3, filters=32, learning_rate=1e-3, l2=1e-4,
                             games=64, parallel=64, simulations=50, c=1.5, dirichlet_alpha=0.5,
                             dirichlet_epsilon=0.25, temperature_moves=6, buffer_games=1000, batch_size=128,
                             train_steps=80, eval_games=10, eval_simulations=25, previous_games=40,
                             baselines=["random", "mcts:rounds=100"], seed=seed)


EXPERIMENT = alphazero.Experiment(name="go5", game="go:size=5", title="AlphaZero on 5x5 Go", config=config,
                                  iterations=30, script=__file__, opponent="mcts:rounds=1000", match_games=40,
                                  match_simulations=200)


@chapters.script
def main(argv: list[str] | None = None) -> int:
    return alphazero.run_alphazero(EXPERIMENT, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
