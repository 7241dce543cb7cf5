"""Chapter 14, part 1: AlphaZero learns tic-tac-toe from nothing but the rules.

    python experiments/ch14a_alphazero_tictactoe.py            # a few minutes on 2 cores, resumable
    python experiments/ch14a_alphazero_tictactoe.py --iterations 30   # goes on from where it stopped
    python experiments/ch14a_alphazero_tictactoe.py --quick

The run of ``alphazero_tictactoe.py`` (the same settings: a 2-block, 32-filter
ResNet, 64 self-play games of 50 simulations per move each iteration) with
the chapter's report in ``reports/ch14a_alphazero_tictactoe/``: the learning
curve, the check against every line of perfect play, and pictures of the
trained network's policy, value and search in a position where it must block.
Training data and checkpoints go to --work; a killed run resumes.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from experiments import common

NAME = Path(__file__).stem


def pictures(checkpoint: Path, out: Path, args: argparse.Namespace) -> list[str]:
    # X threatens a1-a2-a3: O must block at a2
    return ["## What the network sees", "",
            *common.network_pictures(checkpoint, "tictactoe", "a1 b2 a3", out, "block", max(args.simulations, 8))]


EXPERIMENT = replace(common.ALPHAZERO_TICTACTOE, title="Chapter 14, part 1: AlphaZero on tic-tac-toe", script=NAME, folder=NAME,
                     extra=pictures, look_for="""\
The network starts from random weights and sees nothing but the rules and its
own games. Watch the losses fall in the learning curve: the policy loss as the
network learns to predict what its own search will choose, the value loss as
it learns who wins from where. The Elo curve stays near 0 here because with 50
simulations even the untrained network finds tic-tac-toe's forced wins and
blocks: the check that matters is the perfect-play table, every line a perfect
opponent can choose, from both sides. In the pictures, compare the raw policy
with the search: the policy alone already points at the block; the search
confirms it and the value says the game is still level. Predict, then
measure: with `--simulations 4` (a tiny search) does the trained network still
never lose?""")


@common.script
def main(argv: list[str] | None = None) -> int:
    return common.run_alphazero(EXPERIMENT, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
