"""Board symmetries: the same position seen rotated or mirrored, with its
actions mapped along.

A square board has the 8 symmetries of the square, a rectangular one 4 (the
flips and the half turn); a game whose actions are columns (Connect Four) only
the left-right mirror, since gravity pins the bottom. Each :class:`Symmetry`
transforms a batch of ``channels_last`` planes and carries the permutation of
the action space that goes with it, built by transforming a grid of action
indices with the very same function, so planes and actions cannot disagree.
Every :class:`~dlgo.core.game.Game` lists its own (``game.symmetries()``).

>>> [s.name for s in grid_symmetries(3, 4, 12)]
['identity', 'rot180', 'flip_rows', 'flip_cols']
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

PlaneTransform = Callable[[np.ndarray], np.ndarray]  # (n, rows, cols, planes) -> same


class Symmetry(NamedTuple):
    name: str
    planes: PlaneTransform
    #: ``actions[i]`` is the index that action ``i`` becomes
    actions: np.ndarray


SQUARE: dict[str, PlaneTransform] = {
    "identity": lambda a: a,
    "rot90": lambda a: np.rot90(a, 1, axes=(1, 2)),
    "rot180": lambda a: np.rot90(a, 2, axes=(1, 2)),
    "rot270": lambda a: np.rot90(a, 3, axes=(1, 2)),
    "flip_rows": lambda a: np.flip(a, 1),
    "flip_cols": lambda a: np.flip(a, 2),
    "transpose": lambda a: np.swapaxes(a, 1, 2),
    "antitranspose": lambda a: np.rot90(np.swapaxes(a, 1, 2), 2, axes=(1, 2)),
}
RECTANGLE = ("identity", "rot180", "flip_rows", "flip_cols")


def cell_permutation(transform: PlaneTransform, rows: int, cols: int, num_actions: int) -> np.ndarray:
    """Where each cell's action index goes; the actions past the cells (pass, swap) stay."""
    grid = np.arange(rows * cols).reshape(1, rows, cols, 1)
    moved = transform(grid).reshape(-1)  # moved[j] = the old cell now at new cell j
    perm = np.arange(num_actions)
    perm[moved] = np.arange(rows * cols)
    return perm


def grid_symmetries(rows: int, cols: int, num_actions: int) -> list[Symmetry]:
    """The symmetries of a board whose first ``rows * cols`` actions are its
    cells in row-major order (Go, m,n,k games): 8 if square, else 4."""
    names = list(SQUARE) if rows == cols else list(RECTANGLE)
    return [Symmetry(name, SQUARE[name], cell_permutation(SQUARE[name], rows, cols, num_actions))
            for name in names]


def column_symmetries(cols: int, num_actions: int) -> list[Symmetry]:
    """The symmetries of a game whose first ``cols`` actions are columns (Connect-N):
    the identity and the left-right mirror."""
    mirror = np.arange(num_actions)
    mirror[:cols] = np.arange(cols)[::-1]
    return [Symmetry("identity", SQUARE["identity"], np.arange(num_actions)),
            Symmetry("flip_cols", SQUARE["flip_cols"], mirror)]


def identity_only(num_actions: int) -> list[Symmetry]:
    """For a game with no symmetry worth using."""
    return [Symmetry("identity", SQUARE["identity"], np.arange(num_actions))]
