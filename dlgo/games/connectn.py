"""Gravity Connect-N: stones drop to the lowest empty cell of a column.

Connect Four is 7 columns x 6 rows, four in a row. A move is a play at its
landing cell (row 1 is the bottom); humans type the column number. The action
space is one action per column (plus one for the pie-rule swap when it is on).
"""
from __future__ import annotations

import functools

from dlgo.core import zobrist
from dlgo.core.errors import IllegalMoveError
from dlgo.core.errors import SpecError
from dlgo.core.game import ExactSolver, OpenSpielGame
from dlgo.core.symmetry import Symmetry, column_symmetries
from dlgo.core.types import Move, Player, Point
from dlgo.games.solvers import bitboard, opening_book
from dlgo.games.kinarow import KInARowGame, KInARowState


@functools.lru_cache(maxsize=None)
def _cells_above(num_rows: int, num_cols: int) -> tuple[int, ...]:
    n = num_rows * num_cols
    return tuple(cell + num_cols if cell + num_cols < n else -1 for cell in range(n))


class ConnectNGame(KInARowGame):
    """``columns`` x ``rows``, ``n`` in a row to win; stones fall."""

    board_style = "columns"
    side_names = ("red", "yellow")

    def __init__(self, columns: int = 7, rows: int = 6, n: int = 4, pie_rule: bool = False):
        super().__init__(rows, columns, n, pie_rule)
        self.num_actions = columns + (1 if pie_rule else 0)
        self.name = "connect4" if (columns, rows, n) == (7, 6, 4) else f"connectn({columns},{rows},{n})"
        self.spec = f"connectn:columns={columns},rows={rows},n={n}" + (",pie_rule=true" if pie_rule else "")

    def initial_state(self) -> "ConnectNGameState":
        return ConnectNGameState(self, (0, 0, 0), Player.black, None, None, zobrist.EMPTY_BOARD, None, 0)

    def symmetries(self) -> list[Symmetry]:
        return column_symmetries(self.num_cols, self.num_actions)

    def solver(self) -> ExactSolver | None:
        """The bitboard solver (:mod:`dlgo.games.solvers.bitboard`) for boards of
        ``columns x (rows + 1) <= 64`` bits, without the pie rule."""
        try:
            return bitboard.Solver(self, book=opening_book.shipped_book(self))
        except SpecError:
            return None

    def openspiel_game(self) -> OpenSpielGame | None:
        """Connect Four is OpenSpiel's ``connect_four``, with the same column actions."""
        if (self.num_cols, self.num_rows, self.k) != (7, 6, 4) or self.pie_rule:
            return None
        return OpenSpielGame("connect_four", tuple(range(self.num_actions)))


class ConnectNGameState(KInARowState):
    """A position of a Connect-N game."""

    __slots__ = ("heights",)

    game: ConnectNGame
    previous_state: "ConnectNGameState | None"

    def __init__(self, *args, heights: tuple[int, ...] | None = None):
        super().__init__(*args)
        if heights is None:  # derive from the previous state and the move
            prev = self.previous_state
            move = self.last_move
            if prev is None or move is None:
                heights = (0,) * self.geometry.num_cols
            elif move.is_resign:
                heights = prev.heights
            elif self._num_stones == 1 and prev._num_stones == 1:  # the pie-rule swap
                heights = prev.heights
            else:
                assert move.point is not None
                col = move.point.col - 1
                heights = prev.heights[:col] + (prev.heights[col] + 1,) + prev.heights[col + 1:]
        self.heights: tuple[int, ...] = heights

    @classmethod
    def new_game(cls, columns: int = 7, rows: int = 6, n: int = 4, pie_rule: bool = False) -> "ConnectNGameState":
        """An empty board of ``columns`` x ``rows``, ``n`` in a row to win."""
        return ConnectNGame(columns, rows, n, pie_rule).initial_state()

    def landing_point(self, column: int) -> Point:
        """Where a stone dropped in 1-based ``column`` lands; IllegalMoveError if full."""
        if not 1 <= column <= self.geometry.num_cols:
            raise IllegalMoveError(f"column {column} is not on the board: columns are 1-{self.geometry.num_cols}")
        h = self.heights[column - 1]
        if h == self.geometry.num_rows:
            raise IllegalMoveError(f"column {column} is full")
        return Point(h + 1, column)

    def _unlocks(self) -> tuple[int, ...]:
        """Filling a cell makes the cell above it playable (-1 on the top row)."""
        return _cells_above(self.geometry.num_rows, self.geometry.num_cols)

    def _legal_cells(self) -> list[int]:
        rows, cols = self.geometry.num_rows, self.geometry.num_cols
        return [h * cols + c for c, h in enumerate(self.heights) if h < rows]

    def _legal_actions_without_swap(self) -> list[int]:
        rows = self.geometry.num_rows
        return [c for c, h in enumerate(self.heights) if h < rows]

    def _cell_of_play(self, move: Move) -> int:
        assert move.point is not None
        cell = self.geometry.index_of(move.point)
        landing = self.landing_point(move.point.col)
        if move.point != landing:
            raise IllegalMoveError(f"illegal move {tuple(move.point)}: a stone in column {move.point.col} "
                                   f"lands on row {landing.row}")
        return cell

    def _cell_of_action(self, action: int) -> int:
        cols = self.geometry.num_cols
        if not 0 <= action < cols:
            raise IllegalMoveError(f"action index {action} out of range 0..{self.game.num_actions - 1}")
        h = self.heights[action]
        if h == self.geometry.num_rows:
            raise IllegalMoveError(f"column {action + 1} is full")
        return h * cols + action

    def _swap_action(self) -> int:
        return self.geometry.num_cols

    def move_to_index(self, move: Move) -> int:
        if move.point is None:
            raise IllegalMoveError(f"{move!r} has no action index in {self.game.name}")
        if self.swap_available() and move.point == self.geometry.points[self._first_stone_cell()]:
            return self.geometry.num_cols
        return move.point.col - 1

    def index_to_move(self, index: int) -> Move:
        cols = self.geometry.num_cols
        if self.game.pie_rule and index == cols:
            if not self.swap_available():
                raise IllegalMoveError("the swap action is not available now")
            return self.geometry.plays[self._first_stone_cell()]
        if not 0 <= index < cols:
            raise IllegalMoveError(f"action index {index} out of range 0..{self.game.num_actions - 1}")
        return Move.play(self.landing_point(index + 1))

    def action_point(self, action: int) -> Point | None:
        cols = self.geometry.num_cols
        if action == cols:
            return self.geometry.points[self._first_stone_cell()]
        height = self.heights[action]
        return self.geometry.points[height * cols + action] if height < self.geometry.num_rows else None  # full

    def parse_move(self, text: str) -> Move:
        """A column number (1 = leftmost), ``swap`` or ``resign``."""
        move = self._parse_common(text)
        if move is not None:
            return move
        word = text.strip()
        if not word.isdigit():
            raise IllegalMoveError(f"can't read {text!r}: type a column number 1-{self.geometry.num_cols}")
        return Move.play(self.landing_point(int(word)))

    def move_help(self) -> str:
        return f"a column number, 1 (left) to {self.geometry.num_cols}{self._swap_help()}"

    def format_move(self, move: Move) -> str:
        word = self._format_common(move)
        if word is not None or move.point is None:
            return word or "resign"
        return str(move.point.col)

    def render(self) -> str:
        return self._render([str(c) for c in range(1, self.geometry.num_cols + 1)])
