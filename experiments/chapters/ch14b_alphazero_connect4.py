"""Chapter 14, part 2: AlphaZero on Connect Four, in minutes instead of hours.

    python experiments/ch14b_alphazero_connect4.py            # about 25 minutes on 2 cores, resumable
    python experiments/ch14b_alphazero_connect4.py --iterations 24   # goes on from where it stopped
    python experiments/ch14b_alphazero_connect4.py --quick

The first iterations of ``alphazero_connect4.py`` (the same settings: a
5-block, 64-filter ResNet, 128 self-play games of 100 simulations per move each
iteration; only the baselines are played more often, every fourth iteration,
for a fuller learning curve), then two matches at 200 simulations per move:
the new network against ``mcts:rounds=300``, and against the network the suite
ships (``checkpoints/connect4.keras``, trained for two hours by the full run).
Writes the learning curve, both matches and pictures of the two networks'
policy, value and search in the same position to
``reports/ch14b_alphazero_connect4/``.
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pandas as pd

from dlgo.arena.tournament import play_games, schedule
from engines.training.alphazero_config import AlphaZeroConfig
from engines.registry import ENGINES
from experiments import common

NAME = Path(__file__).stem
POSITION = "4 4 3 5"  # four moves in: the centre contested


def against_the_shipped_network(checkpoint: Path, out: Path, args: argparse.Namespace) -> list[str]:
    """A short match between this run's network and the shipped one, and pictures of both."""
    ours = f"alphazero:checkpoint={checkpoint},simulations={args.simulations}"
    shipped = f"alphazero:checkpoint=connect4,simulations={args.simulations}"
    games = 2 if args.quick else 10
    records = play_games(ENGINES, out / "vs-shipped", "connect4", schedule([ours, shipped], games, args.seed),
                         opening_plies=2, workers=args.workers)
    score, played = common.score_against(records, ours, shipped)
    lines = ["## Against the shipped network", "",
             f"This run's network against `checkpoints/connect4.keras` (the full two-hour run), both with "
             f"{args.simulations} simulations per move, {played} games with two random opening plies "
             f"(games in `vs-shipped/`): this run scores **{score:.0%}**.", "", "## What the networks see", ""]
    simulations = max(args.simulations, 8)
    lines += common.network_pictures(checkpoint, "connect4", POSITION, out, "ours", simulations,
                                      f"this run's network (iteration {args.iterations})")
    lines += common.network_pictures("connect4", "connect4", POSITION, out, "shipped", simulations,
                                      "the shipped network")
    return lines


def config(seed: int = 0) -> AlphaZeroConfig:
    """The full run's settings, with the baselines played every fourth iteration."""
    return replace(common.connect4_config(seed), baseline_every=4)


def what_to_look_for(history: pd.DataFrame) -> str:
    """The closing paragraph, with this run's curve in it."""
    last = history.iloc[-1]
    minutes = history["seconds"].sum() / 60
    return "\n".join(textwrap.wrap(
        "Connect Four is where AlphaZero's learning shows in the Elo curve: each iteration plays the one before "
        f"it, and the differences add up, here to {last['elo']:+.0f} after {int(last['iteration'])} iterations "
        f"({minutes:.0f} minutes). The first iterations learn from games of almost random play. In the final match "
        "each of the network's simulations costs far more than a rollout of MCTS: is a learnt evaluation worth "
        "the many random games it replaces? Against the shipped network, trained for two hours (see "
        "`reports/alphazero-connect4/`), compare the scores and the pictures: whose policy is sharper, and whose "
        "search more decided? Predict, then measure: run `--iterations 24` (the run resumes): how far does the "
        "score against the shipped network move, and the Elo curve?", 78, break_on_hyphens=False))


EXPERIMENT = replace(common.ALPHAZERO_CONNECT4, title="Chapter 14, part 2: AlphaZero on Connect Four", iterations=16, config=config,
                     opponent="mcts:rounds=300", match_games=20, target=None, script=NAME, folder=NAME,
                     extra=against_the_shipped_network, look_for=what_to_look_for)


@common.script
def main(argv: list[str] | None = None) -> int:
    return common.run_alphazero(EXPERIMENT, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
