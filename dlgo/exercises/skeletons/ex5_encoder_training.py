"""Exercise 5 (chapters 6-7): an encoder for Go positions and a training loop.

Two parts. ``dlgo exercise check 5`` compares your encoder with the library's
``oneplane`` encoder on positions of random games, and your training loop with
the library's (``engines.neural.numpy_network.train``) on the same network, data
and seed.

**The encoder** (the book's one-plane encoder): a position becomes an array of
shape ``(size, size, 1)``: +1 where the player to move has a stone, -1 where the
opponent has one, 0 on empty points; entry ``[row - 1, col - 1, 0]`` is
``Point(row, col)``. Moves become indices: point ``(row, col)`` is
``(row - 1) * size + (col - 1)``, and a pass is ``size * size``.

**The training loop** (mini-batch gradient descent): for each epoch, shuffle
the examples with ``order = rng.permutation(len(x))``, then for each batch of
``batch_size`` of them in that order: forward pass, loss, backward pass, and a
step of each parameter against its gradient. The network has ``forward(x)``,
``backward(grad)`` and ``parameters()`` (pairs of an array and its gradient);
the loss has ``forward(outputs, targets)`` and ``backward()``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dlgo.core.game import State
from dlgo.core.types import Move, Point


class OnePlaneEncoder:
    """Go positions of a ``size`` x ``size`` board as one plane."""

    def __init__(self, size: int):
        self.size = size

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.size, self.size, 1)

    @property
    def num_moves(self) -> int:
        """Every point, and the pass."""
        return self.size * self.size + 1

    def encode(self, state: State) -> np.ndarray:
        """The position as a float32 array of ``shape``, from the view of the
        player to move (``state.next_player``; ``state.board.get(point)`` is the
        stone at a point, or None)."""
        raise NotImplementedError("OnePlaneEncoder.encode")

    def encode_move(self, move: Move) -> int:
        """The index of ``move`` (``move.is_pass``, or ``move.point``)."""
        raise NotImplementedError("OnePlaneEncoder.encode_move")

    def decode_move_index(self, index: int) -> Move:
        """The move of an index: ``Move.play(Point(row, col))``, or ``Move.pass_turn()``."""
        raise NotImplementedError("OnePlaneEncoder.decode_move_index")


def train(network: Any, loss: Any, x: np.ndarray, targets: np.ndarray, *, epochs: int, batch_size: int,
          learning_rate: float, rng: np.random.Generator) -> list[float]:
    """Train ``network`` in place; return each epoch's mean batch loss."""
    raise NotImplementedError("train")


_ = Point  # for decode_move_index
