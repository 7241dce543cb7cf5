"""A student's answer to exercise 5."""
from __future__ import annotations

from typing import Any

import numpy as np

from dlgo.core.game import State
from dlgo.core.types import Move, Point


class OnePlaneEncoder:
    def __init__(self, size: int):
        self.size = size

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.size, self.size, 1)

    @property
    def num_moves(self) -> int:
        return self.size * self.size + 1

    def encode(self, state: State) -> np.ndarray:
        out = np.zeros(self.shape, np.float32)
        for row in range(1, self.size + 1):
            for col in range(1, self.size + 1):
                stone = state.board.get(Point(row, col))  # type: ignore[attr-defined]
                if stone is not None:
                    out[row - 1, col - 1, 0] = 1.0 if stone == state.next_player else -1.0
        return out

    def encode_move(self, move: Move) -> int:
        if move.is_pass or move.point is None:
            return self.size * self.size
        return (move.point.row - 1) * self.size + (move.point.col - 1)

    def decode_move_index(self, index: int) -> Move:
        if index == self.size * self.size:
            return Move.pass_turn()
        return Move.play(Point(index // self.size + 1, index % self.size + 1))


def train(network: Any, loss: Any, x: np.ndarray, targets: np.ndarray, *, epochs: int, batch_size: int,
          learning_rate: float, rng: np.random.Generator) -> list[float]:
    history = []
    for _ in range(epochs):
        order = rng.permutation(len(x))
        losses = []
        for start in range(0, len(x), batch_size):
            batch = order[start:start + batch_size]
            losses.append(loss.forward(network.forward(x[batch]), targets[batch]))
            network.backward(loss.backward())
            for parameter, gradient in network.parameters():
                parameter -= learning_rate * gradient
        history.append(float(np.mean(losses)))
    return history
