"""AlphaZero learns tic-tac-toe from scratch, then faces every perfect opponent.

    python experiments/alphazero_tictactoe.py             # about two minutes on 2 cores, resumable
    python experiments/alphazero_tictactoe.py --quick     # seconds: tiny settings

Trains a small policy-value ResNet by self-play (``engines.training.alphazero``;
data and checkpoints in ``--work``), then checks the claim that matters: with
search, the network never loses to perfect play, from either side. Perfect play
is every line an exact solver allows: at each opponent turn, every move that
keeps the game's value is tried, so the check covers all of them, not one
alpha-beta game. Writes ``history.csv``, ``learning_curve.png`` (losses,
scores against random and alpha-beta, Elo per iteration) and ``summary.md`` to
``--out``, and copies the final network to ``--ship`` if given.
"""
from __future__ import annotations

import sys

from experiments import common

EXPERIMENT = common.ALPHAZERO_TICTACTOE


@common.script
def main(argv: list[str] | None = None) -> int:
    return common.run_alphazero(EXPERIMENT, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
