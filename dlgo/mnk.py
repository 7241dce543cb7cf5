"""Free-placement m,n,k games: an m-wide, n-high board, k in a row wins.

Tic-tac-toe is (3, 3, 3) and gomoku (free-style) is (15, 15, 5). A player may
place a stone on any empty cell; a full board with no line is a draw.
"""
from __future__ import annotations


import numpy as np

from dlgo.goboard import Move
from dlgo.kinarow import KInARowState, line_geometry
from dlgo.rendering import letter_column_label, parse_letter_point


class MNKGameState(KInARowState):
    """A position of an m,n,k game. Moves are typed like ``b2`` (column, row)."""

    __slots__ = ()

    @classmethod
    def new_game(cls, m: int = 3, n: int = 3, k: int = 3, pie_rule: bool = False) -> "MNKGameState":
        """An empty ``m`` (columns) x ``n`` (rows) board, ``k`` in a row to win."""
        return cls._initial(line_geometry(n, m, k), pie_rule)

    @property
    def game_name(self) -> str:  # type: ignore[override]
        g = self.geometry
        if (g.num_cols, g.num_rows, g.k) == (3, 3, 3):
            return "tictactoe"
        if (g.num_cols, g.num_rows, g.k) == (15, 15, 5):
            return "gomoku"
        return f"mnk({g.num_cols},{g.num_rows},{g.k})"

    def _legal_cells(self) -> list[int]:
        occupied = self.bits[1] | self.bits[2]
        return [c for c in range(self.geometry.num_cells) if not occupied >> c & 1]

    def _cell_of_play(self, move: Move) -> int:
        cell = self.geometry.index_of(move.point)
        if (self.bits[1] | self.bits[2]) >> cell & 1:
            raise ValueError(f"illegal move {self.format_move(move)}: the point is occupied")
        return cell

    @property
    def num_actions(self) -> int:
        """One action per cell (the pie-rule swap is the first stone's own cell)."""
        return self.geometry.num_cells

    def move_to_index(self, move: Move) -> int:
        if not move.is_play:
            raise ValueError(f"{move!r} has no action index in {self.game_name}")
        return self.geometry.index_of(move.point)

    def index_to_move(self, index: int) -> Move:
        if not 0 <= index < self.geometry.num_cells:
            raise ValueError(f"action index {index} out of range 0..{self.geometry.num_cells - 1}")
        return Move.play(self.geometry.points[index])

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        if not self.is_over():
            mask[self._legal_cells()] = True
            if self.swap_available():
                mask[self._first_stone_cell()] = True
        return mask

    def parse_move(self, text: str) -> Move:
        """``b2`` (column letter, row number from the bottom), ``swap`` or ``resign``."""
        move = self._parse_common(text)
        if move is not None:
            return move
        return Move.play(parse_letter_point(text, self.geometry.num_rows, self.geometry.num_cols))

    def format_move(self, move: Move) -> str:
        word = self._format_common(move)
        return word if word is not None else f"{letter_column_label(move.point.col)}{move.point.row}"

    def render(self) -> str:
        return self._render([letter_column_label(c) for c in range(1, self.geometry.num_cols + 1)])
