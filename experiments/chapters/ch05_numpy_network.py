"""Chapter 5: a neural network from scratch in numpy. Can it learn perfect tic-tac-toe moves?

    python experiments/chapters/ch05_numpy_network.py              # under a minute
    python experiments/chapters/ch05_numpy_network.py --hidden 128 --learning-rate 0.2
    python experiments/chapters/ch05_numpy_network.py --game go:size=5   # 5x5 Go, MCTS's moves as labels: minutes
    python experiments/chapters/ch05_numpy_network.py --quick

Every tic-tac-toe position a game can reach (and that is not over) is labelled
with its perfect moves, found by the exact solver: the moves that keep the game's
value. The network (``engines/neural/numpy_network.py``: dense layers, tanh,
softmax with cross-entropy, backpropagation and mini-batch SGD, all in numpy)
sees the board as 27 numbers (the mover's stones, the opponent's, who moves) and
learns to put its probability on the perfect moves. A fifth of the positions are
held out. The same network with the same initial weights is trained in Keras on
the same batches, to show that the two follow the same curve. On another game
(``--game go:size=5``) no solver knows the perfect moves: positions of random
games are labelled with the move ``--teacher`` (MCTS) chooses there instead.
Writes ``history.csv``, ``learning_curve.png`` and ``summary.md`` to --out.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import random
import sys
import textwrap
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd

from dlgo.core.arguments import count
from dlgo.core.game import State
from dlgo.encoders import get_encoder_by_name
from dlgo.storage.atomic import atomic_write
from dlgo.display.plotting import plot_learning_curve
from dlgo.display.progress import progress_bar
from dlgo.games import new_game
from dlgo.games.solvers.brute_force import perfect_actions
from engines.neural.numpy_network import (SGD, Dense, Layer, Network, ReLU, Sigmoid, SoftmaxCrossEntropy, Tanh,
                                          train)
from engines.registry import create_seeded
from experiments.shared import chapters

SOLVED = "tictactoe"  # the game the exact solver labels

#: the hidden layer's activation, by the name Keras gives it too
ACTIVATIONS: dict[str, Callable[[], Layer]] = {"tanh": Tanh, "relu": ReLU, "sigmoid": Sigmoid}


def positions() -> list[State]:
    """Every position of tic-tac-toe that play can reach and that is not over, once each."""
    seen: dict[int, State] = {}
    stack = [new_game("tictactoe")]
    while stack:
        state = stack.pop()
        if state.is_over() or state.zobrist_hash() in seen:
            continue
        seen[state.zobrist_hash()] = state
        stack.extend(state.apply_action(a) for a in state.legal_actions())
    return list(seen.values())


def random_positions(game: str, count: int, seed: int) -> list[State]:
    """``count`` positions of random games of ``game``, one at a random move of each game, none over."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        states = [new_game(game)]
        while not states[-1].is_over():
            states.append(states[-1].apply_move(rng.choice(states[-1].legal_moves())))
        found.append(rng.choice(states[:-1]))
    return found


def dataset(states: list[State], teacher: str | None = None, seed: int = 0
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(inputs, targets, legal masks): the board as numbers (the mover's stones,
    the opponent's, who moves), and the perfect moves sharing the target
    probability equally, or the move the engine ``teacher`` chooses."""
    game = states[0].game.spec
    encoder = get_encoder_by_name("planes", game)
    actions = states[0].num_actions
    x = np.stack([encoder.encode(s).reshape(-1) for s in states]).astype(np.float32)
    targets = np.zeros((len(states), actions), dtype=np.float32)
    for row, state in enumerate(progress_bar(states, desc="labels", unit="position", disable=teacher is None)):
        if teacher is None:
            best = perfect_actions(state)
        else:
            best = [state.move_to_index(create_seeded(teacher, seed + row).select_move(state))]
        targets[row, best] = 1.0 / len(best)
    legal = np.stack([s.legal_action_mask()[:actions] for s in states])
    return x, targets, legal


def perfect_share(net: Network, x: np.ndarray, targets: np.ndarray, legal: np.ndarray) -> float:
    """How often the network's most likely legal move is a labelled move (a perfect one, or the teacher's)."""
    scores = np.where(legal, net.predict(x), -np.inf)
    choice = scores.argmax(axis=1)
    return float((targets[np.arange(len(x)), choice] > 0).mean())


def keras_losses(weights: list[np.ndarray], x: np.ndarray, targets: np.ndarray, hidden: int, activation: str,
                 epochs: int, batch_size: int, learning_rate: float) -> list[float]:
    """The same network, from the same weights, trained in Keras on the same batches."""
    from engines.neural.backend import keras  # loads TensorFlow: for this comparison only

    model = keras.Sequential([keras.Input((x.shape[1],)), keras.layers.Dense(hidden, activation=activation),
                              keras.layers.Dense(targets.shape[1])])
    model.set_weights([w.astype(np.float32) for w in weights])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=learning_rate),
                  loss=keras.losses.CategoricalCrossentropy(from_logits=True))
    return model.fit(x, targets, epochs=epochs, batch_size=batch_size, shuffle=False, verbose=0).history["loss"]


class Labelled(NamedTuple):
    """The positions as numbers, their labels and legal moves, and which rows are
    trained on (``train``) and which held out (``test``)."""

    x: np.ndarray
    targets: np.ndarray
    legal: np.ndarray
    train: np.ndarray
    test: np.ndarray


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    chapters.take_folders(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    solved = args.game == SOLVED
    data = label_positions(args, rng)
    history = train_both(args, data, rng)
    with atomic_write(out / "history.csv") as handle:
        history.to_csv(handle, index=False)
    chance = float(((data.targets > 0).sum(axis=1) / data.legal.sum(axis=1))[data.test].mean())
    labels = "perfect moves" if solved else f"`{args.teacher}`'s moves"
    label = "perfect" if solved else f"the move `{args.teacher}` chose"
    inputs, actions = data.x.shape[1], data.targets.shape[1]
    plot_learning_curve(history, out / "learning_curve.png", losses=("loss", "keras_loss", "val_loss"),
                        scores=("accuracy", "val_accuracy"), score_label=f"share of {labels.strip('`')}",
                        title=f"numpy network {inputs}-{args.hidden}-{actions} ({args.activation}) on "
                              f"{args.game}'s {labels.strip('`')}",
                        baselines={"a random legal move": chance})
    body = summary_body(args, data, history, chance, label)
    look_for = what_to_look_for(history, chance, label, inputs, game_tactics(args.game))
    summary = chapters.write_summary(out, "Chapter 5: a neural network from scratch", chapters.command(__file__, argv),
                                     body, look_for)
    print(history.tail(3).to_string(index=False))
    print(f"report: {summary}")
    return 0


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked (``--quick``: tiny settings)."""
    p = chapters.parser(__file__, __doc__)
    p.add_argument("--hidden", type=count("units"), default=64, help="hidden units (default 64)")
    p.add_argument("--epochs", type=count("steps"), default=150,
                   help="passes over the training positions (default 150)")
    p.add_argument("--batch-size", type=count("positions"), default=32, help="positions per gradient step (default 32)")
    p.add_argument("--learning-rate", type=float, default=0.1, help="SGD step (default 0.1)")
    p.add_argument("--activation", choices=sorted(ACTIVATIONS), default="tanh",
                   help="the hidden layer's activation (default tanh)")
    p.add_argument("--game", default=SOLVED, help=f"the game (default {SOLVED}, labelled by the exact solver; "
                                                   "another, e.g. go:size=5, by --teacher)")
    p.add_argument("--teacher", default="mcts:rounds=300", help="labels another game's positions (default "
                                                                "mcts:rounds=300)")
    p.add_argument("--positions", type=count("positions"), default=3000, help="another game's positions (default 3000)")
    args = p.parse_args(argv)
    if args.quick:
        args.hidden, args.epochs, args.positions, args.teacher = 16, 3, 40, "mcts:rounds=20"
    args.teacher = chapters.course_spec(args.teacher, args.game)
    if min(args.hidden, args.epochs, args.batch_size) < 1 or not args.learning_rate > 0:
        p.error("--hidden, --epochs and --batch-size must be at least 1, --learning-rate above 0")
    return args


def label_positions(args: argparse.Namespace, rng: np.random.Generator) -> Labelled:
    """Tic-tac-toe's every position with its perfect moves, or another game's
    random positions with the teacher's move; a fifth of them held out."""
    solved = args.game == SOLVED
    states = positions() if solved else random_positions(args.game, args.positions, args.seed)
    x, targets, legal = dataset(states, None if solved else args.teacher, args.seed)
    order = rng.permutation(len(states))  # shuffled once: numpy and Keras then see the same batches
    split = len(order) * 4 // 5
    return Labelled(x, targets, legal, order[:split], order[split:])


def train_both(args: argparse.Namespace, data: Labelled, rng: np.random.Generator) -> pd.DataFrame:
    """The numpy network trained epoch by epoch (loss and the share of labelled
    moves it picks, on both sets), then the same network from the same weights
    in Keras on the same batches (``keras_loss``). Returns the history."""
    inputs, actions = data.x.shape[1], data.targets.shape[1]
    net = Network([Dense(inputs, args.hidden, rng), ACTIVATIONS[args.activation](), Dense(args.hidden, actions, rng)])
    initial = [w.copy() for w, _ in net.parameters()]
    optimizer, loss = SGD(args.learning_rate), SoftmaxCrossEntropy()
    x, targets, legal, train_rows, test_rows = data
    rows = []
    for epoch in range(1, args.epochs + 1):
        row = train(net, loss, x[train_rows], targets[train_rows], epochs=1, batch_size=args.batch_size,
                    optimizer=optimizer, shuffle=False, validation=(x[test_rows], targets[test_rows]))[0]
        rows.append({**row, "epoch": epoch,
                     "accuracy": perfect_share(net, x[train_rows], targets[train_rows], legal[train_rows]),
                     "val_accuracy": perfect_share(net, x[test_rows], targets[test_rows], legal[test_rows])})
    history = pd.DataFrame(rows)
    history["keras_loss"] = keras_losses(initial, x[train_rows], targets[train_rows], args.hidden, args.activation,
                                         args.epochs, args.batch_size, args.learning_rate)
    return history


def summary_body(args: argparse.Namespace, data: Labelled, history: pd.DataFrame, chance: float, label: str
                 ) -> list[str]:
    """The summary's results: the data, the network, its accuracy against chance, numpy against Keras."""
    solved = args.game == SOLVED
    inputs, actions = data.x.shape[1], data.targets.shape[1]
    last = history.iloc[-1]
    gap = float((history["loss"] - history["keras_loss"]).abs().max())
    spread = data.targets[data.train]
    floor = float(-(spread * np.log(np.where(spread > 0, spread, 1.0))).sum(axis=1).mean())
    source = ("labelled with its perfect moves by the exact solver" if solved else
              f"from random {args.game} games, labelled with the move `{args.teacher}` chooses there")
    return [f"{len(data.x):,} positions ({len(data.train):,} to train on, {len(data.test):,} held out), each "
            f"{source}. A {inputs}-{args.hidden}-{actions} network ({args.activation}, softmax), {args.epochs} epochs "
            f"of SGD (learning rate {args.learning_rate:g}, batches of {args.batch_size}), all in numpy.", "",
            f"| on held-out positions | the most likely move is {label} |", "|---|---:|",
            f"| the trained network | {last['val_accuracy']:.1%} |",
            f"| a random legal move | {chance:.1%} |", "",
            f"On the training positions: {last['accuracy']:.1%}. The training loss ends at {last['loss']:.3f}"
            + (f"; it cannot reach 0, because where several moves are perfect the target shares its probability "
               f"among them: the lowest loss possible here is {floor:.3f}." if solved else ".")
            + " The same network from the same weights in Keras, on "
            f"the same batches: its loss never differs from ours by more than {gap:.1e} (float32 against float64).",
            "", "![learning curve](learning_curve.png)"]


def game_tactics(game: str) -> str:
    """The tactics a position of ``game`` turns on, in words: Go's captures and
    ladders, a line game's forks and blocks."""
    return "a capture, a ladder" if new_game(game).game.board_style == "go" else "a fork, a block"


def what_to_look_for(history: pd.DataFrame, chance: float, label: str, inputs: int, tactics: str) -> str:
    """The closing paragraph, with this run's curves and the game's ``tactics`` in it."""
    first, last = history.iloc[0], history.iloc[-1]
    gap = float((history["loss"] - history["keras_loss"]).abs().max())
    falls = "falls" if last["loss"] < first["loss"] else "does not fall"
    fitting = ("the gap between the training and held-out figures is over-fitting"
               if last["accuracy"] > last["val_accuracy"] + 0.02 else
               "the training and held-out figures are still close: no over-fitting yet")
    return "\n".join(textwrap.wrap(
        f"The loss {falls} from {first['loss']:.3f} to {last['loss']:.3f} over {len(history)} epochs, and the "
        f"Keras curve lies on top of the numpy one (never more than {gap:.1e} apart): the few lines of "
        "`Dense.backward` and `SoftmaxCrossEntropy.backward` are what a deep-learning library computes, without "
        f"the speed. On held-out positions the network's favourite move is {label} {last['val_accuracy']:.0%} of "
        f"the time, against {chance:.0%} for a random legal move; on the positions it trained on, "
        f"{last['accuracy']:.0%}. It has to generalise from positions it has seen to ones it has not, and the "
        f"board has tactics ({tactics}) that {inputs} numbers and one hidden layer grasp only in "
        f"part: {fitting}. Predict, then measure: with `--hidden 8`, and with `--hidden 256`, which way does "
        "each curve move?", 78, break_on_hyphens=False))


if __name__ == "__main__":
    sys.exit(main())
