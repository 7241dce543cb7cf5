"""Go's rules as the compiled forest of PUCT trees plays them (:class:`engines.forest.GoForest`).

:meth:`GoGame.compiled_rules <dlgo.games.go.state.GoGame.compiled_rules>` returns a
:class:`GoRules`: the compiled board's tables for the board size
(:class:`~dlgo.games.go.kernels.GoGeometry`), the komi a finished game is scored
with, and how a :class:`~dlgo.games.go.state.GoState` is put on the compiled
board: as :mod:`dlgo.games.go.playouts` does, the compiled twin of its game's
first board (made once and kept) and the actions that lead from there to the
state, replayed compiled (:func:`dlgo.games.go.kernels.replay`), each position's
hash going into the game's superko set on the way.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from dlgo.core.game import State
from dlgo.games.go import kernels, playouts
from dlgo.games.go.kernels import GoBoard, GoGeometry

__all__ = ["GoRules"]


class GoRules:
    """Go on a ``num_rows x num_cols`` board with ``komi`` for white, as the compiled forest plays it."""

    family = "go"

    def __init__(self, num_rows: int, num_cols: int, komi: float):
        self.tables: GoGeometry = kernels.geometry_arrays(num_rows, num_cols)
        self.komi = float(komi)
        self.num_points = num_rows * num_cols

    def start(self, state: State) -> tuple[GoBoard, int, np.ndarray]:
        """The compiled board of the first position of ``state``'s game (shared: copy
        it before playing on it), the colour to move there, and the actions (points;
        the pass index for a pass) from there to ``state``."""
        first, path = playouts.game_path(cast(playouts.Position, state))
        return playouts.root_board(first), int(first.next_player), path

    def words(self, state: State) -> tuple[int, ...]:
        """``state`` as the kernels reach it: the colour to move at its game's first
        position, then the actions from there (replayed on that position's board)."""
        _, colour, path = self.start(state)
        return (colour, *path.tolist())
