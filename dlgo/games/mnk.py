"""Free-placement m,n,k games: an m-wide, n-high board, k in a row wins.

Tic-tac-toe is (3, 3, 3) and gomoku (free-style) is (15, 15, 5). A player may
place a stone on any empty cell; a full board with no line is a draw. Actions
are cells (row-major); the pie rule's swap is the first stone's own cell.
"""
from __future__ import annotations

from dlgo.core import zobrist
from dlgo.core.errors import IllegalMoveError
from dlgo.core.game import ExactSolver, OpenSpielGame
from dlgo.core.grid import letter_column_label
from dlgo.core.symmetry import Symmetry, grid_symmetries
from dlgo.core.types import Move, Player, Point
from dlgo.games.kinarow import KInARowGame, KInARowState
from dlgo.games.solvers.brute_force import BruteForceSolver

#: the most cells a board may have for the brute-force solver (tic-tac-toe has 9)
SOLVABLE_CELLS = 12


class MNKGame(KInARowGame):
    """An ``m`` (columns) x ``n`` (rows) board, ``k`` in a row to win."""

    board_style = "grid"
    side_names = ("X", "O")

    def __init__(self, m: int = 3, n: int = 3, k: int = 3, pie_rule: bool = False):
        super().__init__(n, m, k, pie_rule)
        self.num_actions = self.geometry.num_cells  # the swap is the first stone's own cell
        self.name = {(3, 3, 3): "tictactoe", (15, 15, 5): "gomoku"}.get((m, n, k), f"mnk({m},{n},{k})")
        self.spec = f"mnk:m={m},n={n},k={k}" + (",pie_rule=true" if pie_rule else "")

    def initial_state(self) -> "MNKGameState":
        return MNKGameState(self, (0, 0, 0), Player.black, None, None, zobrist.EMPTY_BOARD, None, 0)

    def symmetries(self) -> list[Symmetry]:
        return grid_symmetries(self.num_rows, self.num_cols, self.num_actions)

    def solver(self) -> ExactSolver | None:
        """Brute force for boards of at most :data:`SOLVABLE_CELLS` cells, without the pie rule."""
        if self.pie_rule or self.geometry.num_cells > SOLVABLE_CELLS:
            return None
        return BruteForceSolver(self)

    def openspiel_game(self) -> OpenSpielGame | None:
        """Tic-tac-toe is OpenSpiel's ``tic_tac_toe``, whose cells are numbered from the top row."""
        if (self.num_cols, self.num_rows, self.k) != (3, 3, 3) or self.pie_rule:
            return None
        cols = self.num_cols
        return OpenSpielGame("tic_tac_toe", tuple((self.num_rows - 1 - a // cols) * cols + a % cols
                                                  for a in range(self.num_actions)))


class MNKGameState(KInARowState):
    """A position of an m,n,k game. Moves are typed like ``b2`` (column, row)."""

    __slots__ = ()

    game: MNKGame

    @classmethod
    def new_game(cls, m: int = 3, n: int = 3, k: int = 3, pie_rule: bool = False) -> "MNKGameState":
        """An empty ``m`` (columns) x ``n`` (rows) board, ``k`` in a row to win."""
        return MNKGame(m, n, k, pie_rule).initial_state()

    def _legal_cells(self) -> list[int]:
        occupied = self.bits[1] | self.bits[2]
        return [c for c in range(self.geometry.num_cells) if not occupied >> c & 1]

    def _cell_of_play(self, move: Move) -> int:
        assert move.point is not None
        cell = self.geometry.index_of(move.point)
        if (self.bits[1] | self.bits[2]) >> cell & 1:
            raise IllegalMoveError(f"illegal move {self.format_move(move)}: the point is occupied")
        return cell

    def _cell_of_action(self, action: int) -> int:
        if not 0 <= action < self.geometry.num_cells:
            raise IllegalMoveError(f"action index {action} out of range 0..{self.geometry.num_cells - 1}")
        return self._cell_of_play(self.geometry.plays[action])

    def _swap_action(self) -> int:
        return self._first_stone_cell()

    def move_to_index(self, move: Move) -> int:
        if move.point is None:
            raise IllegalMoveError(f"{move!r} has no action index in {self.game.name}")
        return self.geometry.index_of(move.point)

    def index_to_move(self, index: int) -> Move:
        if not 0 <= index < self.geometry.num_cells:
            raise IllegalMoveError(f"action index {index} out of range 0..{self.geometry.num_cells - 1}")
        return self.geometry.plays[index]

    def action_point(self, action: int) -> Point | None:
        return self.geometry.points[action]

    # The notation is the grid's (State's defaults: ``b2``, column letter and row
    # number from the bottom), with the pie rule's ``swap``.
    def parse_move(self, text: str) -> Move:
        """``b2`` (column letter, row number from the bottom), ``swap`` or ``resign``."""
        move = self._parse_common(text)
        return super().parse_move(text) if move is None else move

    def move_help(self) -> str:
        return super().move_help() + self._swap_help()

    def format_move(self, move: Move) -> str:
        word = self._format_common(move)
        return super().format_move(move) if word is None else word

    def render(self) -> str:
        return self._render([letter_column_label(c) for c in range(1, self.geometry.num_cols + 1)])
