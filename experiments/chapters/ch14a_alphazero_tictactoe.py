"""Chapter 14, part 1: AlphaZero learns tic-tac-toe from nothing but the rules.

    python experiments/chapters/ch14a_alphazero_tictactoe.py            # a few minutes on 2 cores, resumable
    python experiments/chapters/ch14a_alphazero_tictactoe.py --iterations 30   # goes on from where it stopped
    python experiments/chapters/ch14a_alphazero_tictactoe.py --quick
    python experiments/chapters/ch14a_alphazero_tictactoe.py --preset full     # the suite's own run and report

Trains a small policy-value ResNet by self-play (a 2-block, 32-filter ResNet,
64 self-play games of 50 simulations per move each iteration:
``engines.training.alphazero``; data and checkpoints in ``--work``, so a killed
run resumes), then checks the claim that matters: with search, the network
never loses to perfect play, from either side. Perfect play is every line an
exact solver allows: at each opponent turn, every move that keeps the game's
value is tried, so the check covers all of them, not one alpha-beta game.
Writes ``history.csv``, ``learning_curve.png`` (losses, scores against random
and alpha-beta, Elo per iteration) and ``summary.md`` to ``--out``, and copies
the final network to ``--ship`` if given.

Two runs of the same training (``--preset``): ``chapter`` (the default) writes
the chapter's report (``reports/ch14a_alphazero_tictactoe/``) with pictures of
the trained network's policy, value and search in a position where it must
block, and what to look for; ``full`` writes the suite's own report of the run
(``reports/alphazero-tictactoe/``), without them.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import sys
import textwrap
from typing import Any
from pathlib import Path

import pandas as pd

from dlgo.core.agent import Agent
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.games import new_game
from dlgo.games.solvers.brute_force import perfect_moves
from engines.registry import create
from engines.training.alphazero_config import AlphaZeroConfig, pre_recipe_config
from experiments.shared import alphazero, chapters

facts = alphazero.run_facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)

NAME = Path(__file__).stem


def config(seed: int = 0) -> AlphaZeroConfig:
    """The tic-tac-toe run's settings."""
    return pre_recipe_config(game="tictactoe", blocks=2, filters=32, games=64, parallel=64, simulations=50,
                             buffer_games=1000, batch_size=128, train_steps=100, eval_games=10,
                             eval_simulations=50, baselines=["random", "alphabeta"], learning_rate=2e-3, seed=seed)


def losses_against_perfect_play(agent: Agent, agent_side: Player) -> tuple[int, int]:
    """(games lost, games played) by ``agent`` against every perfect opponent line of tic-tac-toe."""
    lost = played = 0

    def walk(state: State) -> None:
        nonlocal lost, played
        if state.is_over():
            played += 1
            winner = state.winner()
            lost += winner is not None and winner != agent_side
            return
        if state.next_player == agent_side:
            agent.new_game()  # no tree carried between branches
            walk(state.apply_move(agent.select_move(state)))
        else:
            for move in perfect_moves(state):
                walk(state.apply_move(move))

    walk(new_game("tictactoe"))
    return lost, played


def check_perfect_play(agent_spec: str, simulations: int) -> tuple[list[str], list[str], dict[str, Any]]:
    """The agent against every perfect opponent line, from both sides (facts: ``perfect_play``,
    each side's lines and games lost)."""
    agent = create(agent_spec)
    game = new_game("tictactoe").game
    results = {game.side_name(side): losses_against_perfect_play(agent, side) for side in (Player.black, Player.white)}
    lines = ["## Against perfect play", "",
             f"With {simulations} simulations per move, against "
             "every line a perfect opponent can choose:", "",
             "| the network plays | games (perfect lines) | lost |", "|---|---:|---:|"]
    lines += [f"| {side} | {played} | {lost} |" for side, (lost, played) in results.items()]
    verdict = "never loses" if all(lost == 0 for lost, _ in results.values()) else "does lose"
    lines += ["", f"The trained network **{verdict}** to perfect play.", ""]
    console = [f"network as {side}: lost {lost} of {played} games against perfect play"
               for side, (lost, played) in results.items()]
    facts = {"perfect_play": [{"side": side, "lines": played, "lost": lost}
                              for side, (lost, played) in results.items()]}
    return lines, console, facts


def pictures(checkpoint: Path, out: Path, args: argparse.Namespace) -> list[str]:
    # X threatens a1-a2-a3: O must block at a2
    return ["## What the network sees", "",
            *chapters.network_pictures(checkpoint, "tictactoe", "a1 b2 a3", out, "block", max(args.simulations, 8))]


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


NOTE = ("With 50 simulations per move even the untrained network finds tic-tac-toe's "
        "forced wins and blocks, so from the first iterations nearly every game against the "
        "previous network and against alpha-beta is a draw: the Elo curve is noise around 0 "
        "(each step adds the error of a 20-game score), and the progress shows in the losses "
        "and in the perfect-play check above. Connect Four and 5x5 Go are where Elo climbs.")

#: the suite's run (reports/alphazero-tictactoe)
FULL = alphazero.Experiment(
    name="tictactoe", game="tictactoe", title="AlphaZero on tic-tac-toe", config=config, iterations=20,
    script=__file__, match_simulations=50, check=check_perfect_play, note=NOTE,
    about="the suite's run of the same training, its report in reports/alphazero-tictactoe")

#: the chapter's run: the same training, with the chapter's pictures and what to look for
CHAPTER = alphazero.Experiment(
    name="tictactoe", game="tictactoe", title="Chapter 14, part 1: AlphaZero on tic-tac-toe", config=config,
    iterations=20, script=__file__, match_simulations=50, check=check_perfect_play, note=NOTE, extra=pictures,
    look_for=what_to_look_for, folder=NAME,
    about=f"the chapter's run, with pictures of what the network sees (reports/{NAME})")

PRESETS = {"chapter": CHAPTER, "full": FULL}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    return alphazero.run_alphazero(PRESETS, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
