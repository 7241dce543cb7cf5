"""AlphaZero learns Connect Four from scratch, then plays MCTS with 1,000 rounds.

    python experiments/alphazero_connect4.py             # under 2 hours on 2 cores, resumable
    python experiments/alphazero_connect4.py --quick     # seconds: tiny settings

Trains a 5-block, 64-filter policy-value ResNet by batched self-play
(``engines.training.alphazero``; checkpoints and replay buffer in
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

from experiments import common

EXPERIMENT = common.ALPHAZERO_CONNECT4


@common.script
def main(argv: list[str] | None = None) -> int:
    return common.run_alphazero(EXPERIMENT, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
