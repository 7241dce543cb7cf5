"""Gravity Connect-N: stones drop to the lowest empty cell of a column.

Connect Four is 7 columns x 6 rows, four in a row. A move is a play at its
landing cell (row 1 is the bottom); humans type the column number. The action
space is one action per column (plus one for the pie-rule swap when it is on).
"""
from __future__ import annotations

import functools

import numpy as np

from dlgo.goboard import Move
from dlgo.gotypes import Point
from dlgo.kinarow import KInARowState, line_geometry


@functools.lru_cache(maxsize=None)
def _cells_above(num_rows: int, num_cols: int) -> tuple[int, ...]:
    n = num_rows * num_cols
    return tuple(cell + num_cols if cell + num_cols < n else -1 for cell in range(n))


class ConnectNGameState(KInARowState):
    """A position of a Connect-N game."""

    __slots__ = ("heights",)

    def __init__(self, *args, heights: tuple[int, ...] | None = None):
        super().__init__(*args)
        if heights is None:  # derive from the previous state and the move
            prev = self.previous_state
            if prev is None:
                heights = (0,) * self.geometry.num_cols
            elif self.last_move.is_resign:
                heights = prev.heights
            elif self._num_stones == 1 and prev._num_stones == 1:  # the pie-rule swap
                heights = prev.heights
            else:
                col = self.last_move.point.col - 1
                heights = prev.heights[:col] + (prev.heights[col] + 1,) + prev.heights[col + 1:]
        self.heights: tuple[int, ...] = heights

    @classmethod
    def new_game(cls, columns: int = 7, rows: int = 6, n: int = 4, pie_rule: bool = False) -> "ConnectNGameState":
        """An empty board of ``columns`` x ``rows``, ``n`` in a row to win."""
        return cls._initial(line_geometry(rows, columns, n), pie_rule)

    @property
    def game_name(self) -> str:  # type: ignore[override]
        g = self.geometry
        if (g.num_cols, g.num_rows, g.k) == (7, 6, 4):
            return "connect4"
        return f"connectn({g.num_cols},{g.num_rows},{g.k})"

    def landing_point(self, column: int) -> Point:
        """Where a stone dropped in 1-based ``column`` lands; ``ValueError`` if full."""
        if not 1 <= column <= self.geometry.num_cols:
            raise ValueError(f"column {column} is not on the board: columns are 1-{self.geometry.num_cols}")
        h = self.heights[column - 1]
        if h == self.geometry.num_rows:
            raise ValueError(f"column {column} is full")
        return Point(h + 1, column)

    def _unlocks(self) -> tuple[int, ...]:
        """Filling a cell makes the cell above it playable (-1 on the top row)."""
        return _cells_above(self.geometry.num_rows, self.geometry.num_cols)

    def _legal_cells(self) -> list[int]:
        rows, cols = self.geometry.num_rows, self.geometry.num_cols
        return [h * cols + c for c, h in enumerate(self.heights) if h < rows]

    def _cell_of_play(self, move: Move) -> int:
        cell = self.geometry.index_of(move.point)
        landing = self.landing_point(move.point.col)
        if move.point != landing:
            raise ValueError(f"illegal move {tuple(move.point)}: a stone in column {move.point.col} "
                             f"lands on row {landing.row}")
        return cell

    @property
    def num_actions(self) -> int:
        """One action per column, plus the swap (last index) with the pie rule."""
        return self.geometry.num_cols + (1 if self.pie_rule else 0)

    def move_to_index(self, move: Move) -> int:
        if not move.is_play:
            raise ValueError(f"{move!r} has no action index in {self.game_name}")
        if self.swap_available() and move.point == self.geometry.points[self._first_stone_cell()]:
            return self.geometry.num_cols
        return move.point.col - 1

    def index_to_move(self, index: int) -> Move:
        cols = self.geometry.num_cols
        if self.pie_rule and index == cols:
            if not self.swap_available():
                raise ValueError("the swap action is not available now")
            return Move.play(self.geometry.points[self._first_stone_cell()])
        if not 0 <= index < cols:
            raise ValueError(f"action index {index} out of range 0..{self.num_actions - 1}")
        return Move.play(self.landing_point(index + 1))

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        if not self.is_over():
            rows = self.geometry.num_rows
            mask[: self.geometry.num_cols] = [h < rows for h in self.heights]
            if self.swap_available():
                mask[-1] = True
        return mask

    def parse_move(self, text: str) -> Move:
        """A column number (1 = leftmost), ``swap`` or ``resign``."""
        move = self._parse_common(text)
        if move is not None:
            return move
        word = text.strip()
        if not word.isdigit():
            raise ValueError(f"can't read {text!r}: type a column number 1-{self.geometry.num_cols}")
        return Move.play(self.landing_point(int(word)))

    def format_move(self, move: Move) -> str:
        word = self._format_common(move)
        return word if word is not None else str(move.point.col)

    def render(self) -> str:
        return self._render([str(c) for c in range(1, self.geometry.num_cols + 1)])
