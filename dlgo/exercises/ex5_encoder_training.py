"""Exercise 5 (chapters 6-7): the one-plane encoder and a training loop,
checked against the library's ``oneplane`` encoder and numpy training loop."""
from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import numpy as np

from dlgo.core.game import State
from dlgo.core.types import Move
from dlgo.encoders import get_encoder_by_name
from dlgo.exercises.checking import Check, Exercise, expect
from dlgo.games import new_game
from engines.neural import numpy_network as library


def positions(size: int, count: int, seed: int) -> list[State]:
    """States of random games of ``size`` x ``size`` Go (black and white to move)."""
    rng = random.Random(seed)
    state, found = new_game(f"go:size={size}"), list[State]()
    while len(found) < count:
        if state.is_over():
            state = new_game(f"go:size={size}")
        state = state.apply_move(rng.choice(state.legal_moves()))
        found.append(state)
    return found


def encodes_positions(module: Any) -> None:
    for size in (5, 9):
        ours, theirs = module.OnePlaneEncoder(size), get_encoder_by_name("oneplane", f"go:size={size}")
        for state in positions(size, 60, seed=size):
            got, expected = np.asarray(ours.encode(state)), theirs.encode(state)
            expect(got.shape == expected.shape, f"encode gives shape {got.shape}; expected {expected.shape}")
            if not np.array_equal(got, expected):
                diff = np.argwhere(got != expected)[0]
                raise AssertionError(
                    f"{size}x{size}, {state.next_player.name} to move, after {state.moves_text()[-40:]}: at row "
                    f"{diff[0] + 1}, column {diff[1] + 1} your encoding has {got[tuple(diff)]}, expected "
                    f"{expected[tuple(diff)]}")


def encodes_moves(module: Any) -> None:
    for size in (5, 9):
        ours, theirs = module.OnePlaneEncoder(size), get_encoder_by_name("oneplane", f"go:size={size}")
        for index in range(size * size + 1):
            move = theirs.decode_move_index(index)
            got = ours.encode_move(move)
            expect(got == index, f"{size}x{size}: encode_move({move}) is {got}; expected {index}")
            back = ours.decode_move_index(index)
            expect(back == move, f"{size}x{size}: decode_move_index({index}) is {back}; expected {move}")
        expect(ours.num_moves == size * size + 1, "num_moves counts every point and the pass")
    expect(module.OnePlaneEncoder(9).encode_move(Move.pass_turn()) == 81, "a pass is index size * size")


def _network(rng: np.random.Generator) -> Any:
    return library.Network([library.Dense(4, 6, rng), library.Sigmoid(), library.Dense(6, 3, rng)])


def _data(rng: np.random.Generator, n: int = 60) -> tuple[np.ndarray, np.ndarray]:
    x = rng.normal(size=(n, 4))
    labels = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0.5).astype(int)
    return x, np.eye(3)[labels]


def _same_training(module: Any, batch_size: int) -> None:
    x, targets = _data(np.random.default_rng(10))
    ours_net, theirs_net = _network(np.random.default_rng(11)), _network(np.random.default_rng(11))
    losses = module.train(ours_net, library.SoftmaxCrossEntropy(), x, targets, epochs=5, batch_size=batch_size,
                          learning_rate=0.3, rng=np.random.default_rng(12))
    history = library.train(theirs_net, library.SoftmaxCrossEntropy(), x, targets, epochs=5, batch_size=batch_size,
                            optimizer=library.SGD(0.3), rng=np.random.default_rng(12))
    expected = [row["loss"] for row in history]
    expect(len(losses) == 5, f"train returned {len(losses)} losses for 5 epochs")
    expect(np.allclose(losses, expected, atol=1e-9),
           f"batch size {batch_size}: your epoch losses {np.round(losses, 6).tolist()}; the library's "
           f"{np.round(expected, 6).tolist()}")
    for (mine, _), (theirs, _) in zip(ours_net.parameters(), theirs_net.parameters()):
        expect(np.allclose(mine, theirs, atol=1e-9), "the trained weights differ from the library's")


def whole_batches(module: Any) -> None:
    _same_training(module, batch_size=60)


def mini_batches(module: Any) -> None:
    _same_training(module, batch_size=8)


def learns(module: Any) -> None:
    x, targets = _data(np.random.default_rng(20), n=300)
    network = _network(np.random.default_rng(21))
    losses = module.train(network, library.SoftmaxCrossEntropy(), x, targets, epochs=60, batch_size=16,
                          learning_rate=0.5, rng=np.random.default_rng(22))
    accuracy = float((network.forward(x).argmax(axis=1) == targets.argmax(axis=1)).mean())
    expect(losses[-1] < losses[0] / 2, f"the loss went from {losses[0]:.3f} to {losses[-1]:.3f} in 60 epochs")
    expect(accuracy > 0.9, f"after 60 epochs the network is right on {accuracy:.0%} of an easy training set")


class _Encoder:
    """The library's one-plane encoder with the skeleton's constructor."""

    def __init__(self, size: int):
        self._encoder = get_encoder_by_name("oneplane", f"go:size={size}")
        self.shape, self.num_moves = self._encoder.shape, self._encoder.num_moves

    def encode(self, state: State) -> np.ndarray:
        return self._encoder.encode(state)

    def encode_move(self, move: Move) -> int:
        return self._encoder.encode_move(move)

    def decode_move_index(self, index: int) -> Move:
        return self._encoder.decode_move_index(index)


def _library_train(network: Any, loss: Any, x: np.ndarray, targets: np.ndarray, *, epochs: int, batch_size: int,
                   learning_rate: float, rng: np.random.Generator) -> list[float]:
    history = library.train(network, loss, x, targets, epochs=epochs, batch_size=batch_size,
                            optimizer=library.SGD(learning_rate), rng=rng)
    return [row["loss"] for row in history]


EXERCISE = Exercise(
    number=5, chapter="6-7", title="an encoder and a training loop", file="ex5_encoder_training.py",
    step="step 5, with ch06_07_train_predictor.py",
    writes=["OnePlaneEncoder.encode", "encode_move", "decode_move_index", "train"],
    reference=lambda: SimpleNamespace(OnePlaneEncoder=_Encoder, train=_library_train),
    checks=[
        Check("the encoder: positions", encodes_positions, [
            "one plane, a number per point: whose stones are +1, and where does row 1 go?",
            "points are 1-based, arrays 0-based; the stones of the player to move are +1, the opponent's -1",
            "row r, column c of the board is array[r - 1, c - 1, 0]; +1 for the player to move's stones"]),
        Check("the encoder: moves", encodes_moves, [
            "number the points row by row, then give the pass the next number",
            "index = (row - 1) * size + (col - 1); the pass is size * size; decode undoes encode"]),
        Check("training: whole batches", whole_batches, [
            "one step per batch: forward, the loss, backward, then move each parameter",
            "the loss's backward gives the gradient of the network's output; the network's backward fills each "
            "parameter's gradient; step against the gradient, scaled by the learning rate",
            "per batch: outputs = network.forward(xb); loss.forward(outputs, tb); "
            "network.backward(loss.backward()); then parameter -= learning_rate * gradient for each pair"]),
        Check("training: mini-batches in shuffled order", mini_batches, [
            "the check replays your rng: when, and how often, do you shuffle?",
            "shuffle once per epoch with order = rng.permutation(len(x)) and take batches of that order; "
            "an epoch's loss is the mean of its batches' losses"]),
        Check("training learns", learns, ["see the two checks before"]),
    ],
)
