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
import textwrap
from dataclasses import replace
from pathlib import Path

import pandas as pd

from experiments import common

NAME = Path(__file__).stem


def pictures(checkpoint: Path, out: Path, args: argparse.Namespace) -> list[str]:
    # X threatens a1-a2-a3: O must block at a2
    return ["## What the network sees", "",
            *common.network_pictures(checkpoint, "tictactoe", "a1 b2 a3", out, "block", max(args.simulations, 8))]


def what_to_look_for(history: pd.DataFrame) -> str:
    """The closing paragraph, with the run's own curves in it."""
    first, last = history.iloc[0], history.iloc[-1]
    baselines = [c for c in history.columns if c.startswith("score_vs_") and c != "score_vs_previous"]
    scores = "; ".join(f"against {c.removeprefix('score_vs_')} {first[c]:.0%} at iteration 1, {last[c]:.0%} at "
                       f"{int(last['iteration'])}" for c in baselines)
    return "\n".join(textwrap.wrap(
        "The network starts from random weights and sees nothing but the rules and its own games. Watch the losses "
        f"fall in the learning curve: the policy loss (here from {first['policy_loss']:.2f} to "
        f"{last['policy_loss']:.2f}) as the network learns to predict what its own search will choose, the value loss "
        f"({first['value_loss']:.3f} to {last['value_loss']:.3f}) as it learns who wins from where. The Elo curve, "
        f"each network against the one before it, ends at {last['elo']:+.0f}; the baselines say less ({scores}): "
        "with its search even a young network finds tic-tac-toe's forced wins and blocks, and perfect alpha-beta "
        "draws every game it cannot win. The check that matters is the perfect-play table, every line a perfect "
        "opponent can choose, from both sides. In the pictures, compare the raw policy with the search: does the "
        "policy alone already point at the block, and what value does the search give the position? Predict, then "
        "measure: with `--simulations 4` (a tiny search) does the trained network still never lose?", 78,
        break_on_hyphens=False))


EXPERIMENT = replace(common.ALPHAZERO_TICTACTOE, title="Chapter 14, part 1: AlphaZero on tic-tac-toe", script=NAME,
                     folder=NAME, extra=pictures, look_for=what_to_look_for)


@common.script
def main(argv: list[str] | None = None) -> int:
    return common.run_alphazero(EXPERIMENT, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
