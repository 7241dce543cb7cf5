"""Board symmetries for data augmentation: the same position seen rotated or
mirrored, with its moves mapped along.

Go and tic-tac-toe (square boards) have the 8 symmetries of the square;
a rectangular m,n,k board has 4 (the flips and the half turn); Connect Four
only the left-right mirror (gravity pins the bottom). Each :class:`Symmetry`
transforms a batch of ``channels_last`` planes and carries the permutation of
the action space that goes with it, built by transforming a grid of action
indices with the very same function, so planes and moves cannot disagree.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from dlgo.game import GameStateBase

PlaneTransform = Callable[[np.ndarray], np.ndarray]  # (n, rows, cols, planes) -> same


class Symmetry(NamedTuple):
    name: str
    planes: PlaneTransform
    #: ``actions[i]`` is the index that action ``i`` becomes
    actions: np.ndarray


_SQUARE: dict[str, PlaneTransform] = {
    "identity": lambda a: a,
    "rot90": lambda a: np.rot90(a, 1, axes=(1, 2)),
    "rot180": lambda a: np.rot90(a, 2, axes=(1, 2)),
    "rot270": lambda a: np.rot90(a, 3, axes=(1, 2)),
    "flip_rows": lambda a: np.flip(a, 1),
    "flip_cols": lambda a: np.flip(a, 2),
    "transpose": lambda a: np.swapaxes(a, 1, 2),
    "antitranspose": lambda a: np.rot90(np.swapaxes(a, 1, 2), 2, axes=(1, 2)),
}
_RECTANGLE = ("identity", "rot180", "flip_rows", "flip_cols")


def _cell_permutation(transform: PlaneTransform, rows: int, cols: int, num_actions: int) -> np.ndarray:
    """Where each cell's action index goes; the extra actions (pass, swap) stay."""
    grid = np.arange(rows * cols).reshape(1, rows, cols, 1)
    moved = transform(grid).reshape(-1)  # moved[j] = the old cell now at new cell j
    perm = np.arange(num_actions)
    perm[moved] = np.arange(rows * cols)
    return perm


def symmetries(state: GameStateBase) -> list[Symmetry]:
    """The symmetries of ``state``'s game, identity first."""
    from dlgo.connectn import ConnectNGameState

    rows, cols, n = state.board.num_rows, state.board.num_cols, state.num_actions
    if isinstance(state, ConnectNGameState):  # actions are columns
        mirror = np.arange(n)
        mirror[:cols] = np.arange(cols)[::-1]
        return [Symmetry("identity", _SQUARE["identity"], np.arange(n)),
                Symmetry("flip_cols", _SQUARE["flip_cols"], mirror)]
    names = list(_SQUARE) if rows == cols else list(_RECTANGLE)
    return [Symmetry(name, _SQUARE[name], _cell_permutation(_SQUARE[name], rows, cols, n)) for name in names]


def augment_batch(features: np.ndarray, labels: np.ndarray, syms: list[Symmetry],
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Each example under a random symmetry of ``syms`` (labels are action indices)."""
    choice = rng.integers(len(syms), size=len(labels))
    features, labels = features.copy(), labels.copy()
    for k, sym in enumerate(syms):
        if k == 0:
            continue
        picked = choice == k
        if picked.any():
            features[picked] = sym.planes(features[picked])
            labels[picked] = sym.actions[labels[picked]]
    return features, labels
