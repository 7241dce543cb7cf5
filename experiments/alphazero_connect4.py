"""AlphaZero learns Connect Four from scratch, then plays MCTS with 1,000 rounds.

    python experiments/alphazero_connect4.py             # under 2 hours on 2 cores, resumable
    python experiments/alphazero_connect4.py --quick     # seconds: tiny settings

Trains a 5-block, 64-filter policy-value ResNet by batched self-play
(``engines.neural.alphazero_training``; checkpoints and replay buffer in
``--work``, so a killed run continues where it stopped) for 73 iterations, the
most that fit in two hours here: the learning rate steps down from 1e-3 to
3e-4 at iteration 58 and to 9e-5 at 69, the value head learns from half the
game's result and half the root's search value, and the fixed baselines are
played every tenth iteration (the previous network every iteration). Then it
plays the claim that matters: the network with 200 simulations per move
against rollout MCTS with 1,000 rounds per move, 200 games, colours
alternating. Writes ``history.csv``, ``learning_curve.png`` (losses, scores
against the baselines, Elo per iteration), the final match's ``games.csv``
and ``summary.md`` to ``--out``; copies the final network to ``--ship`` if
given.
"""
from __future__ import annotations

import sys

from engines.neural.alphazero_config import AlphaZeroConfig
from experiments.alphazero import Experiment, run


def config(seed: int = 0) -> AlphaZeroConfig:
    """The run's settings."""
    return AlphaZeroConfig(game="connect4", blocks=5, filters=64, learning_rate=1e-3, l2=1e-4,
                           learning_rate_drops=[58, 69], learning_rate_drop=0.3,
                           games=128, parallel=128, simulations=100, c=1.5, dirichlet_alpha=1.0,
                           dirichlet_epsilon=0.25, temperature_moves=8, buffer_games=2500, batch_size=256,
                           train_steps=150, eval_games=10, eval_simulations=50, previous_games=20,
                           baselines=["random", "mcts:rounds=1000"], baseline_every=10, search_value_weight=0.5,
                           seed=seed)


EXPERIMENT = Experiment(name="connect4", game="connect4",
                        title="AlphaZero on Connect Four", config=config, iterations=73,
                        opponent="mcts:rounds=1000", match_games=200, match_simulations=200, target=0.9)


def main(argv: list[str] | None = None) -> int:
    return run(EXPERIMENT, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
