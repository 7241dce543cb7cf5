"""Chapter 14, part 2: AlphaZero on Connect Four, in minutes instead of hours.

    python experiments/chapters/ch14b_alphazero_connect4.py            # about 15 minutes on 2 cores, resumable
    python experiments/chapters/ch14b_alphazero_connect4.py --iterations 24   # goes on from where it stopped
    python experiments/chapters/ch14b_alphazero_connect4.py --quick
    python experiments/chapters/ch14b_alphazero_connect4.py --preset full     # the full run: under 2 hours
    python experiments/chapters/ch14b_alphazero_connect4.py --preset recipe   # the recipe: about 7 hours
    python experiments/chapters/ch14b_alphazero_connect4.py --preset continued --workers 2   # 7 more hours

Trains a 5-block, 64-filter policy-value ResNet by batched self-play
(``engines.training.alphazero``; 128 self-play games of 100 simulations per
move each iteration; checkpoints and replay buffer in ``--work``, so a killed
run continues where it stopped). The value head learns from half the game's
result and half the root's search value.

Two runs (``--preset``). ``chapter`` (the default) plays the first 16
iterations (the baselines every fourth iteration, for a fuller learning
curve), then two matches at 200 simulations per move: the new network against
``mcts:rounds=300``, and against the network the suite ships
(``checkpoints/connect4.keras``, trained for eight hours by the recipe). It
writes the learning curve, both matches and pictures of the two networks'
policy, value and search in the same position to
``reports/ch14b_alphazero_connect4/``.

``full`` is the run that made ``connect4-full``, the suite's network until the
recipe's replaced it: 73 iterations, the most
that fit in two hours here (the learning rate steps down from 1e-3 to 3e-4 at
iteration 58 and to 9e-5 at 69; the fixed baselines every tenth iteration, the
previous network every iteration), then the claim that matters: the network
with 200 simulations per move against rollout MCTS with 1,000 rounds per move,
200 games, colours alternating. It writes ``history.csv``,
``learning_curve.png`` (losses, scores against the baselines, Elo per
iteration), the final match's ``games.csv`` and ``summary.md`` to
``reports/alphazero-connect4/`` (with ``--out``); ``--ship`` copies the final
network, e.g. to ``checkpoints/connect4-full.keras``.

``recipe`` is the same board with the recipe the small boards picked
(docs/alphazero.md, "The recipe"; the scaling lab's runs,
:func:`experiments.shared.connectn.training_config`) and the full run's network
shape: 16 simulations a move, AlphaZero.jl's temperature schedule with its
floor, random openings, repeated positions merged, heads of 32 filters, the
learning rate divided by 10 for the last third. Its published network is the
best on fixed references: the critical positions of six solved sets from 12
stones on (seed 2, the first 100 critical ones of 250 a set: solved before
the run starts, in ``--work``-references), never the sets it is judged on. It writes
``reports/alphazero-connect4-recipe/``; ``experiments/crosschecks/challenger.py``
then decided that its network replaces the shipped one: ``connect4`` is
``connect4-recipe``.

``continued`` trains the recipe's network on (``init``) with four times its
search, 64 simulations a self-play move, 256 games an iteration, the recipe's
last learning rate: better targets from a network that already plays well, as
AlphaZero.jl's 600 simulations give its own. It is published by the same
references and writes ``reports/alphazero-connect4-continued/``; the challenger
decides whether it ships.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pandas as pd

from dlgo.arena.tournament import play_games, schedule
from dlgo.data.solved import generate_positions
from engines.registry import ENGINES
from engines.training.alphazero_config import AlphaZeroConfig, pre_recipe_config
from experiments.shared import alphazero, chapters
from experiments.shared.connectn import Net, training_config

facts = alphazero.run_facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)

NAME = Path(__file__).stem
POSITION = "4 4 3 5"  # four moves in: the centre contested
RECIPE_ITERATIONS = 2400  # about 7 hours of 2 cores (10 s an iteration alone), within the 8 hours
#: the recipe run's fixed references: seed, positions solved a set (about half critical), critical ones a set
#: measured, fewest stones (each solvable in a second)
REFERENCE_SEED, REFERENCE_SOLVED, REFERENCE_PER_SET, REFERENCE_FROM = 2, 250, 100, 12


def full_config(seed: int = 0) -> AlphaZeroConfig:
    """The full run's settings (``connect4-full``'s)."""
    return pre_recipe_config(game="connect4", blocks=5, filters=64, learning_rate=1e-3, l2=1e-4,
                             learning_rate_drops=[58, 69], learning_rate_drop=0.3,
                             games=128, parallel=128, simulations=100, c=1.5, dirichlet_alpha=1.0,
                             dirichlet_epsilon=0.25, temperature_moves=8, buffer_games=2500, batch_size=256,
                             train_steps=150, eval_games=10, eval_simulations=50, previous_games=20,
                             baselines=["random", "mcts:rounds=1000"], baseline_every=10, search_value_weight=0.5,
                             seed=seed)


def config(seed: int = 0) -> AlphaZeroConfig:
    """The full run's settings, with the baselines played every fourth iteration."""
    return replace(full_config(seed), baseline_every=4)


def recipe_config(seed: int = 0) -> AlphaZeroConfig:
    """The recipe run's settings: the scaling lab's recipe on the full board with the full run's
    network shape, measured on the references every eighth iteration."""
    lab = training_config("connect4", Net(blocks=5, filters=64), seed, quick=False, iterations=RECIPE_ITERATIONS)
    return replace(lab, reference_positions=REFERENCE_PER_SET, reference_every=8)


#: the continued run: iterations (about 40 s each on 2 cores alone, within the 8 hours), its search per move
CONTINUED_ITERATIONS, CONTINUED_SIMULATIONS = 640, 64


def continued_config(seed: int = 0) -> AlphaZeroConfig:
    """The recipe's network trained on with four times its search: 64 simulations a self-play
    move, 256 games an iteration into a buffer of the 5,000 latest, the recipe run's last
    learning rate (1e-4, divided by 10 for the last third), the recipe's openings, temperature
    and references otherwise. Its value and policy targets come from a deeper search of a
    network that already plays well: what AlphaZero.jl buys with 600 simulations a move."""
    recipe = recipe_config(seed)
    return replace(recipe, init="checkpoints/connect4-recipe.keras", simulations=CONTINUED_SIMULATIONS,
                   games=256, buffer_games=5000, train_steps=100, learning_rate=1e-4,
                   learning_rate_drops=[2 * CONTINUED_ITERATIONS // 3 + 1], reference_every=4)


def solved_references(args: argparse.Namespace) -> dict[str, str]:
    """The recipe run's references, solved once into ``--work``-references (resumable; about ten
    minutes on 2 cores): its ``reference_file``. A quick run measures the suite's own sets."""
    if args.quick:
        return {}
    folder = Path(f"{args.work}-references")
    positions = generate_positions("connect4", folder, per_set=REFERENCE_SOLVED, seed=REFERENCE_SEED,
                                   begin_from=REFERENCE_FROM, workers=args.workers, progress=True)
    return {"reference_file": str(positions)}


def against_the_shipped_network(checkpoint: Path, out: Path, args: argparse.Namespace) -> list[str]:
    """A short match between this run's network and the shipped one, and pictures of both."""
    ours = f"alphazero:checkpoint={checkpoint},simulations={args.simulations}"
    shipped = f"alphazero:checkpoint=connect4,simulations={args.simulations}"
    games = 2 if args.quick else 10
    records = play_games(ENGINES, out / "vs-shipped", "connect4", schedule([ours, shipped], games, args.seed),
                         opening_plies=2, workers=args.workers)
    score, played = chapters.score_against(records, ours, shipped)
    lines = ["## Against the shipped network", "",
             f"This run's network against `checkpoints/connect4.keras` (the recipe's eight-hour run), both with "
             f"{args.simulations} simulations per move, {played} games with two random opening plies "
             f"(games in `vs-shipped/`): this run scores **{score:.0%}**.", "", "## What the networks see", ""]
    simulations = max(args.simulations, 8)
    lines += chapters.network_pictures(checkpoint, "connect4", POSITION, out, "ours", simulations,
                                       f"this run's network (iteration {args.iterations})")
    lines += chapters.network_pictures("connect4", "connect4", POSITION, out, "shipped", simulations,
                                       "the shipped network")
    return lines


def what_to_look_for(history: pd.DataFrame) -> str:
    """The closing paragraph, with this run's curve in it."""
    last = history.iloc[-1]
    minutes = history["seconds"].sum() / 60
    return "\n".join(textwrap.wrap(
        "Connect Four is where AlphaZero's learning shows in the Elo curve: each iteration plays the one before "
        f"it, and the differences add up, here to {last['elo']:+.0f} after {int(last['iteration'])} iterations "
        f"({minutes:.0f} minutes). The first iterations learn from games of almost random play. In the final match "
        "each of the network's simulations costs far more than a rollout of MCTS: is a learnt evaluation worth "
        "the many random games it replaces? Against the shipped network, trained for eight hours (see "
        "`reports/alphazero-connect4-recipe/`), compare the scores and the pictures: whose policy is sharper, and "
        "whose search more decided? Predict, then measure: run `--iterations 24` (the run resumes): how far does the "
        "score against the shipped network move, and the Elo curve?", 78, break_on_hyphens=False))


#: the full run, connect4-full's (reports/alphazero-connect4)
FULL = alphazero.Experiment(
    name="connect4", game="connect4", title="AlphaZero on Connect Four", config=full_config, iterations=73,
    script=__file__, opponent="mcts:rounds=1000", match_games=200, match_simulations=200, target=0.9,
    about="the full run that made connect4-full, against mcts:rounds=1000 (reports/alphazero-connect4)")

#: the chapter's run: the full run's first iterations, then the new network against MCTS and the shipped one
CHAPTER = alphazero.Experiment(
    name="connect4", game="connect4", title="Chapter 14, part 2: AlphaZero on Connect Four", config=config,
    iterations=16, script=__file__, opponent="mcts:rounds=300", match_games=20, match_simulations=200,
    extra=against_the_shipped_network, look_for=what_to_look_for, folder=NAME,
    about=f"the full run's first iterations, against mcts:rounds=300 and the shipped network (reports/{NAME})")

#: the recipe on the full board, the shipped network's run (reports/alphazero-connect4-recipe)
RECIPE = alphazero.Experiment(
    name="connect4", game="connect4", title="AlphaZero on Connect Four with the recipe", config=recipe_config,
    iterations=RECIPE_ITERATIONS, script=__file__, opponent="mcts:rounds=1000", match_games=200,
    match_simulations=200, target=0.9, prepare=solved_references, folder="alphazero-connect4-recipe",
    about="the small boards' recipe on the full board, published by solved references "
          "(reports/alphazero-connect4-recipe)")

#: the recipe's network trained on with a deeper search (reports/alphazero-connect4-continued)
CONTINUED = alphazero.Experiment(
    name="connect4", game="connect4", title="AlphaZero on Connect Four: the recipe's network, searched deeper",
    config=continued_config, iterations=CONTINUED_ITERATIONS, script=__file__, opponent="mcts:rounds=1000",
    match_games=200, match_simulations=200, target=0.9, prepare=solved_references,
    folder="alphazero-connect4-continued",
    about="the recipe's network trained on at 64 simulations a move, published by the same solved references "
          "(reports/alphazero-connect4-continued)")

PRESETS = {"chapter": CHAPTER, "full": FULL, "recipe": RECIPE, "continued": CONTINUED}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    return alphazero.run_alphazero(PRESETS, argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
