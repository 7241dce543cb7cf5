"""AlphaGo Zero on 9x9 Go (the book's chapter 14 on Go): self-play from a supervised start, against GNU Go and AlphaGo.

    python experiments/headline/alphazero_go9.py      # hours on 2 cores, resumable; far less on a GPU
    python experiments/headline/alphazero_go9.py --preset gated --workers 2   # about 3 hours more
    python experiments/headline/alphazero_go9.py --quick

AlphaGo Zero learnt from nothing; on 2 cores, 9x9 Go from nothing is out of
reach in hours, so this run starts where AlphaGo did: a policy-value ResNet
(4 blocks of 64 filters) first learns GNU Go's moves and results from chapter
13's teacher games (``dlgo train-supervised --model resnet --target both``, from
``--teacher-games``, the committed ``reports/ch13_alphago/teacher-games.csv.gz``
by default), and self-play then improves it (``dlgo train-alphazero --init``)
with the recipe the solved boards picked (docs/alphazero.md, "The recipe") and
KataGo's auxiliary targets, whose heads join the start's tower fresh. Every
other iteration, and the start before the first, plays GNU Go level 10 (20
games, 50 simulations a move), and the run publishes its best network by that
fixed reference, so that self-play can never leave the published network
weaker than the start it came from (the first version of this run, gated only
on its own Elo, lost 25 points against GNU Go).
Finally the published network with ``--simulations`` per move plays GNU Go level 10, and
so do the supervised start (the same search, before any self-play) and, when
its networks are shipped, the ``alphago`` engine of chapter 13.
Writes ``history.csv``, ``learning_curve.png``, the matches' games and
``summary.md`` to ``--out``; the supervised start lives in ``--work``-supervised.

``--preset gated`` is the run that must improve on its start (the first one's
512 games moved it down): from the same supervised start, 64 games an
iteration for 48 iterations, the replay buffer's 800 places filled with the
teacher's games while self-play has played fewer (``teacher_games``), and a
gate (``publish="gate"``) that publishes a network only when an SPRT over
colour-swapped pairs says it beats the published one; GNU Go level 10 every
fourth iteration draws the learning curve, and the final match is 100 games.
Its folders are ``alphazero-go9-gated``; the supervised start is the first
run's.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from dlgo.arena.ratings import wilson_interval
from dlgo.core.arguments import count
from dlgo.data.generate import generate_games
from dlgo.storage.folders import claim_folders
from engines.checkpoints import complete_set
from engines.training.alphazero_config import AlphaZeroConfig
from engines.registry import ENGINES
from experiments.shared import alphazero, chapters, ladders, supervised

facts = alphazero.run_facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)

GAME = "go:size=9,komi=7.5"
TEACHER, TEACHER_GAMES, OPENING_PLIES = "gnugo:level=1", 20000, 4  # chapter 13's teacher run
OPPONENT, QUICK_OPPONENT = "gnugo:level=10", "random"  # the final match's, and with --quick
ITERATIONS = 16


def config(seed: int = 0) -> AlphaZeroConfig:
    """The self-play settings (the network's shape is the supervised start's, with the auxiliary
    heads added): the recipe (AlphaZeroConfig's defaults, the learning rate / 10 from two thirds
    of the run, no matches against the previous network), fine-tuning the start at a fifth of the
    recipe's learning rate, published by its best score against GNU Go (no margin: no published
    network scores below the start)."""
    return AlphaZeroConfig(game=GAME, learning_rate=2e-4, l2=1e-4, games=32, parallel=32, simulations=100,
                           c=1.5, dirichlet_alpha=0.15, dirichlet_epsilon=0.25, auxiliary=["all"], buffer_games=400,
                           batch_size=128, train_steps=100, learning_rate_drops=[2 * ITERATIONS // 3 + 1],
                           eval_games=20, eval_simulations=50, previous_games=0, baselines=[OPPONENT],
                           baseline_every=2, publish_margin=0.0, seed=seed)


#: the gated run: iterations (about 100 s each on 2 cores alone, 235 s with the gate of every other one)
GATED_ITERATIONS = 48
GATED_FOLDER = "alphazero-go9-gated"
#: the gated run's work folders (default, --quick) and the first run's, whose supervised start it shares
ANCHORED_FOLDER = "alphazero-go9-anchored"
SHARED_START = {folder + quick: "alphazero-go9" + quick for folder in (GATED_FOLDER, ANCHORED_FOLDER)
                for quick in ("", "-quick")}


def gated_config(seed: int = 0) -> AlphaZeroConfig:
    """The run that improves on its start: twice the games an iteration, the teacher's games
    (chapter 13's, committed) filling the buffer's places while self-play's are few, and a network
    published only when a sequential test (colour-swapped pairs, SPRT) says it beats the published
    one; GNU Go level 10 every fourth iteration, for the learning curve alone. The teacher's games
    are the supervised start's (:func:`gated_start`)."""
    return replace(config(seed), games=64, parallel=64, buffer_games=800, baseline_every=4,
                   learning_rate_drops=[2 * GATED_ITERATIONS // 3 + 1], publish="gate", gate_pairs=100,
                   gate_elo1=30.0, gate_every=2)


def anchored_config(seed: int = 0) -> AlphaZeroConfig:
    """The gated run with a value target that cannot learn self-play's few games by heart (what
    stopped the gated run, docs/alphazero.md): half of it the search's root value, 400 of the
    buffer's 2,000 places kept for the teacher's games however many self-play plays, and half
    the training batches an iteration."""
    return replace(gated_config(seed), search_value_weight=0.5, buffer_games=2000, teacher_keep=400, train_steps=50)


def supervised_folder(args: argparse.Namespace) -> Path:
    """Where the supervised start lives: beside the run's folder, one for both runs
    (``data/alphazero-go9-supervised``; with --work W, ``W-supervised``)."""
    work = Path(args.work)
    return work.with_name(SHARED_START.get(work.name, work.name) + "-supervised")


def options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--teacher-games", default=str(ladders.REPORTS / "ch13_alphago" / "teacher-games.csv.gz"),
                   help="chapter 13's teacher games (default: the committed ones)")
    p.add_argument("--supervised-epochs", type=count("steps", 0), default=4,
                   help="epochs of the supervised start (default 4)")


def supervised_start(args: argparse.Namespace) -> dict[str, Any]:
    """The policy-value network trained on GNU Go's games: the run's ``init``."""
    from engines.training.supervised import train_supervised  # loads TensorFlow

    folder = supervised_folder(args)
    claim_folders([str(folder)], args.script, fresh=False)  # marked as the script's: a pack of it is taken back
    games = folder / "games"
    if args.quick:  # a handful of random games: the pipeline, not the strength
        generate_games(ENGINES, games, GAME, "random", 6, seed=args.seed, opening_plies=0, workers=1, progress=False)
    else:
        supervised.start_from_games(games, Path(args.teacher_games))
        generate_games(ENGINES, games, GAME, TEACHER, TEACHER_GAMES, seed=args.seed, opening_plies=OPENING_PLIES,
                       workers=args.workers)
    network = folder / "network"
    print(f"supervised start: a ResNet on {games}'s moves and results -> {network}", flush=True)
    train_supervised(games, network, model="resnet", target="both", epochs=1 if args.quick else args.supervised_epochs,
                     batch_size=256, seed=args.seed, progress=not args.quick)
    return {"init": str(network / "model.keras")}


def gated_start(args: argparse.Namespace) -> dict[str, Any]:
    """The gated run's start: the supervised network, and the games it learnt from to fill the
    buffer (the committed ``--teacher-games``, named from the working folder as the run's other
    paths are; with --quick, the handful of random games its start learnt from)."""
    teacher = supervised_folder(args) / "games" / "games.csv" if args.quick else Path(args.teacher_games)
    return {**supervised_start(args), "teacher_games": os.path.relpath(teacher)}


def supervised_accuracy(args: argparse.Namespace) -> list[str]:
    """How well the supervised start learnt GNU Go's moves and results (its last epoch, held-out games)."""
    history = supervised_folder(args) / "network" / "history.csv"
    last = pd.read_csv(history).iloc[-1] if history.exists() else pd.Series(dtype=float)
    if "val_policy_accuracy" not in last:  # no held-out games (a --quick run's handful)
        return []
    return [f"**The supervised start** after {int(last['epoch'])} epoch(s) on the teacher's games: on held-out "
            f"games it names GNU Go's move {last['val_policy_accuracy']:.1%} of the time (top-5 "
            f"{last['val_policy_top5']:.1%}) and the winner {last['val_value_winner_accuracy']:.1%} of the time.", ""]


def others_against_gnugo(checkpoint: Path, out: Path, args: argparse.Namespace) -> list[str]:
    """The final network beside the supervised start (same search) and chapter 13's alphago, each against the
    final match's opponent, with what self-play changed."""
    start = supervised_folder(args) / "network" / "model.keras"
    engines = [("match", "the final network", f"alphazero:checkpoint={checkpoint},simulations={args.simulations}"),
               ("match-supervised", "the supervised start, before self-play",
                f"alphazero:checkpoint={start},simulations={args.simulations}")]
    if not args.quick and complete_set("go9"):
        engines.append(("match-alphago", "alphago (chapter 13)", ladders.BOOK_ALPHAGO))
    opponent = QUICK_OPPONENT if args.quick else OPPONENT
    lines = [*supervised_accuracy(args), "## The same opponent, other engines", "",
             "| engine | spec | score | 95% interval | games |", "|---|---|---:|---:|---:|"]
    intervals = []
    for folder, label, spec in engines:
        _, score = alphazero.final_match(GAME, spec, opponent, args, out / folder)  # the final network's: played
        low, high = wilson_interval(score, args.games)
        intervals.append((score, low, high))
        lines.append(f"| {label} | `{spec}` | {score:.1%} | {low:.0%} to {high:.0%} | {args.games} |")
    (final, final_low, final_high), (before, low, high) = intervals[:2]
    overlap = final_low <= high and low <= final_high
    change = (f"raised the network's score against `{opponent}` from {before:.1%} to {final:.1%}" if final > before
              else f"lowered the network's score against `{opponent}` from {before:.1%} to {final:.1%}"
              if final < before else f"left the network's score against `{opponent}` at {final:.1%}")
    lines += ["", f"Self-play {change} with the same search; with {args.games} games each, the two 95% intervals "
              + ("overlap: the change is within what chance alone gives." if overlap else
                 "do not overlap: the change is larger than chance alone gives.")]
    return lines + [""]


EXPERIMENT = alphazero.Experiment(
    name="go9", game=GAME, title="AlphaGo Zero on 9x9 Go, from a supervised start", config=config,
    iterations=ITERATIONS, script=__file__, opponent=OPPONENT, match_games=40, match_simulations=200,
    prepare=supervised_start, options=options, extra=others_against_gnugo, quick_opponent=QUICK_OPPONENT,
    quick_iterations=1, look_for="""\
- **The best of noisy measurements leans high.** Each iteration's score
  against GNU Go comes from 20 games (a standard error near 11 points); the
  published network is the one that scored best, so its 40-game match usually
  scores below its training measurement. Compare the final match with the
  supervised start's under the same search.
- **How much self-play a supervised start needs.** AlphaGo Zero played
  millions of games; a few hundred (32 an iteration) can move a network that
  imitates GNU Go either way, and the replay buffer of its first iterations
  holds only its own early games.
- **Search against policy.** `alphago` and the AlphaZero network use the same
  kind of search; compare their scores with their seconds a move and the
  networks' shapes.""")


#: the run that improves on its start: more games, the teacher's games in the buffer, a gate
GATED = replace(
    EXPERIMENT, title="AlphaGo Zero on 9x9 Go, from a supervised start, gated", config=gated_config,
    iterations=GATED_ITERATIONS, match_games=100, folder=GATED_FOLDER, prepare=gated_start,
    about="64 games an iteration, the teacher's games filling the buffer while self-play's are few, a network "
          "published only when an SPRT says it beats the published one (reports/alphazero-go9-gated)",
    look_for="""\
- **A gate keeps what self-play cannot prove.** The published network changes
  only when a sequential test, over colour-swapped pairs from seeded openings,
  says the new one is stronger; until then the start stays published, so the
  final match can be below the start only by chance.
- **The teacher's games leave as the network's own arrive.** The buffer's 800
  places hold GNU Go's games until self-play has played 800 of its own; the
  policy loss falls as the targets change from GNU Go's moves to the search's.
- **Compare the final match with the supervised start's under the same
  search**: the two intervals say whether self-play moved the network.""")

#: the gated run with a value target that does not overfit self-play's games
ANCHORED = replace(
    GATED, title="AlphaGo Zero on 9x9 Go, from a supervised start, gated, its value anchored",
    config=anchored_config, folder=ANCHORED_FOLDER,
    about="the gated run with half the value target the search's root value, 400 of the buffer's 2,000 places "
          "kept for the teacher's games and 50 batches an iteration (reports/alphazero-go9-anchored)",
    look_for="""\
- **The value loss.** The gated run's fell from 0.41 to 0.03 once self-play's
  games filled its buffer: its value head learnt their results by heart. Here
  half the target is the search's root value and 400 places keep GNU Go's
  games in every batch; a value loss that stays near the start's says the
  anchor holds.
- **The gate keeps what self-play cannot prove**, as in the gated run: the
  start stays published until an SPRT over colour-swapped pairs says a later
  network beats it.
- **Compare the final match with the supervised start's under the same
  search**: the two intervals say whether self-play moved the network.""")

PRESETS = {"first": replace(EXPERIMENT, about="the first run: 16 iterations of 32 games, published by its best "
                                               "score against GNU Go (reports/alphazero-go9)"),
           "gated": GATED, "anchored": ANCHORED}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    return alphazero.run_alphazero(PRESETS, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
