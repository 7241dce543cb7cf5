"""A Connect Four solver: the exact score of a position and of each of its moves.

The readable reference of :mod:`dlgo.games.solvers.bitboard_kernels`, after
Pascal Pons' "Solving Connect 4: how to build a perfect AI" (2019) and the
techniques of Victor Allis' thesis, "A knowledge-based approach of
Connect-Four" (1988), on any gravity board of ``columns x (rows + 1) <= 64``
bits and any ``k`` in a row (Connect Four: 7 x 6, 4).

* **Score.** Both players play perfectly, winning as soon and losing as late
  as they can. A position's score is 0 for a draw; positive when the player to
  move wins: 1 if they win with their last stone, 2 with their second last, and
  so on; negative when they lose, likewise. On ``N`` cells, winning with the
  move now, the ``(moves + 1)``-th stone of the game, scores ``(N + 1 - moves) // 2``.
* **Bitboards** (Pons, part 6). Column ``c``, row ``r`` (from the bottom) is bit
  ``c * (rows + 1) + r``; each column has one spare bit on top, so that shifts
  never carry a stone from one column into the next. A position is two words:
  ``mask``, every stone, and ``current``, the stones of the player to move. A
  stone drops into column ``c`` at ``(mask + bottom(c)) & column(c)``; playing it
  is ``current ^= mask; mask |= move`` (the sides swap). ``current + mask`` is a
  unique key of the position.
* **Winning cells** (:func:`winning_cells`): the empty cells that would complete
  ``k`` in a row for a player, all at once by shifts in the four directions.
* **Negamax with alpha-beta pruning** (Knuth & Moore 1975), **exploring the
  centre columns first** (Allis: they take part in the most lines), **non-losing
  moves only** (a move below an opponent's winning cell, or any move but the one
  that blocks an immediate threat, loses at once; two threats lose outright),
  and **move ordering by threats**: the moves that create the most winning cells
  first (Pons, part 10).
* **A transposition table** (Pons, part 7; lower bounds after his final
  solver): the bound a search proved for a position, by its key (an upper bound
  when every move was tried, a lower bound when one move cut the search off), so
  that a position reached by another order of the same moves is not searched again.
* **Null-window search and iterative deepening** (Pons, parts 8 and 9): rather
  than one search for the exact score, a sequence of searches with the window
  ``(s, s + 1)``, each saying only whether the score is above ``s``, narrows the
  score's range by bisection, trying the small scores near 0 (draws and late
  results, the cheap ones to prove) first.
* **An opening book** (Pons, part 12; Allis' program knew its openings too):
  the positions nearest the empty board cost the most to search, so their
  exact scores are worked out once and kept (:class:`Book`,
  :mod:`dlgo.games.solvers.opening_book`), one entry per position and its mirror
  image; the positions before the book's last ply are scored from their
  children in it.

>>> from dlgo.games import new_game
>>> state = new_game("connectn:columns=4,rows=4,n=3")
>>> Solver(state.game, compiled=False).score(state)  # the first player wins with their 5th stone of 8
4
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.core.errors import SpecError

if TYPE_CHECKING:
    from dlgo.core.game import State
    from dlgo.games.kinarow import KInARowGame


@dataclass(frozen=True)
class Shape:
    """A board's bit layout: ``columns`` x ``rows``, ``k`` in a row, a spare bit per column."""

    columns: int
    rows: int
    k: int

    @property
    def cells(self) -> int:
        return self.columns * self.rows

    @property
    def stride(self) -> int:
        """Bits per column: the rows and one spare."""
        return self.rows + 1

    def bottom(self, column: int) -> int:
        return 1 << (column * self.stride)

    def top(self, column: int) -> int:
        return 1 << (self.rows - 1 + column * self.stride)

    def column(self, column: int) -> int:
        return ((1 << self.rows) - 1) << (column * self.stride)

    @property
    def bottom_row(self) -> int:
        return sum(self.bottom(c) for c in range(self.columns))

    @property
    def board(self) -> int:
        return self.bottom_row * ((1 << self.rows) - 1)

    def mirrored(self, key: int) -> int:
        """A key (or any bitboard) with its columns in reverse order: the mirror image."""
        column = (1 << self.stride) - 1
        return sum(((key >> (c * self.stride)) & column) << ((self.columns - 1 - c) * self.stride)
                   for c in range(self.columns))

    def order(self) -> list[int]:
        """The columns from the centre out (left of centre first on an even board)."""
        middle = self.columns // 2
        return sorted(range(self.columns), key=lambda c: (abs(2 * c - (self.columns - 1)), c != middle, c))


def shape_of(game: "KInARowGame") -> Shape:
    """The solver's layout of a Connect-N game; :class:`SpecError` for a board it cannot hold."""
    shape = Shape(game.num_cols, game.num_rows, game.k)
    if game.pie_rule:
        raise SpecError("the Connect-N solver plays without the pie rule")
    if shape.columns * shape.stride > 64:
        raise SpecError(f"the Connect-N solver holds boards of columns x (rows + 1) <= 64 bits, "
                        f"not {shape.columns} x {shape.rows}")
    return shape


def winning_cells(shape: Shape, stones: int, mask: int) -> int:
    """The empty cells where a stone of the player whose ``stones`` these are
    completes ``k`` in a row: for each direction (vertical, horizontal, both
    diagonals) a cell wins when ``a`` own stones lead up to it and ``k - 1 - a``
    follow it, for some ``a``."""
    found = 0
    for step in (1, shape.stride, shape.stride - 1, shape.stride + 1):
        before, after = [-1], [-1]  # before[a]: the cells with a own stones just before them in this direction
        for a in range(1, shape.k):
            before.append(before[-1] & (stones << (step * a)))
            after.append(after[-1] & (stones >> (step * a)))
        for a in range(shape.k):
            found |= before[a] & after[shape.k - 1 - a]
    return found & (shape.board ^ mask)


def popcount(bits: int) -> int:
    return bin(bits).count("1")


def halved(score: int) -> int:
    """Half a score, rounded towards 0 (as C divides)."""
    return score // 2 if score >= 0 else -(-score // 2)


@dataclass
class Position:
    """A position in the solver's bitboards: the stones of the player to move, every stone, the count."""

    shape: Shape
    current: int
    mask: int
    moves: int

    @classmethod
    def of(cls, shape: Shape, state: "State") -> "Position":
        """A game state's position in the solver's layout."""
        stones = state.stone_array()  # row 0 at the bottom: 0 empty, else the player's value
        mine, mask = 0, 0
        for row, column in zip(*np.nonzero(stones)):
            bit = 1 << (int(column) * shape.stride + int(row))
            mask |= bit
            if stones[row, column] == state.next_player.value:
                mine |= bit
        return cls(shape, mine, mask, popcount(mask))

    def key(self) -> int:
        return self.current + self.mask

    def book_key(self) -> int:
        """The key of this position or of its mirror image, whichever is smaller:
        one key for both, as they have the same score."""
        return min(self.key(), self.shape.mirrored(self.key()))

    @classmethod
    def after(cls, shape: Shape, columns: str) -> "Position":
        """The position after the moves in ``columns``, Pons' notation: a digit per
        stone, its column counted from 1 (``"44"``: both players in column 4; boards
        of up to 9 columns)."""
        position = cls(shape, 0, 0, 0)
        for digit in columns:
            column = int(digit) - 1
            if not 0 <= column < shape.columns or not position.can_play(column):
                raise ValueError(f"{columns!r}: no stone can go into column {digit}")
            position = position.played(position.move_in(column))
        return position

    def possible(self) -> int:
        """The cell each column would take next (none for a full column)."""
        return (self.mask + self.shape.bottom_row) & self.shape.board

    def can_play(self, column: int) -> bool:
        return not self.mask & self.shape.top(column)

    def move_in(self, column: int) -> int:
        return (self.mask + self.shape.bottom(column)) & self.shape.column(column)

    def played(self, move: int) -> "Position":
        """The position after the stone ``move`` (one bit), the other player to move."""
        return Position(self.shape, self.current ^ self.mask, self.mask | move, self.moves + 1)

    def winning(self) -> int:
        return winning_cells(self.shape, self.current, self.mask)

    def opponent_winning(self) -> int:
        return winning_cells(self.shape, self.current ^ self.mask, self.mask)

    def can_win_now(self) -> bool:
        return bool(self.winning() & self.possible())

    def is_winning_move(self, column: int) -> bool:
        return bool(self.winning() & self.possible() & self.shape.column(column))

    def non_losing_moves(self) -> int:
        """The moves that do not lose at once (assuming the player to move cannot
        win now): the one that blocks the opponent's only immediate threat, else
        every move not directly below an opponent's winning cell; none with two threats."""
        possible = self.possible()
        threats = self.opponent_winning()
        forced = possible & threats
        if forced:
            if forced & (forced - 1):
                return 0
            possible = forced
        return possible & ~(threats >> 1)

    def move_score(self, move: int) -> int:
        """How many winning cells the move gives its player: the ordering heuristic."""
        return popcount(winning_cells(self.shape, self.current | move, self.mask))


@dataclass(frozen=True)
class Book:
    """Exact scores of every position of a game's first ``plies`` plies, by
    :meth:`Position.book_key` (see :mod:`dlgo.games.solvers.opening_book`)."""

    plies: int
    scores: dict[int, int]

    def get(self, position: Position) -> int | None:
        return self.scores.get(position.book_key()) if position.moves <= self.plies else None


#: the compiled table's size: 2**23 entries, 75 MB (Pons' has 2**24, of 5 bytes each)
TABLE_BITS = 23


@dataclass
class Solver:
    """Exact scores of one Connect-N game's positions, compiled (the default) or by
    the readable search below (``compiled=False``); the transposition table
    persists between calls, so positions of one game solve faster in turn."""

    game: "KInARowGame"  # a Connect-N game (stones fall)
    compiled: bool = True
    table_bits: int = TABLE_BITS
    table: dict[int, tuple[int, bool]] = field(default_factory=dict)  # the reference's: key -> (bound, is lower)
    nodes: int = 0
    book: Book | None = None  # exact scores of the first plies, looked up rather than searched

    def __post_init__(self) -> None:
        self.shape = shape_of(self.game)
        self.order = self.shape.order()  # sorted once: every node explores in it
        self._compiled: Any = None  # (the kernels module, its Board, its Table), made on first use

    def position(self, state: "State") -> Position:
        """An unfinished state of this solver's game in its layout."""
        if state.game != self.game:
            raise ValueError(f"a solver of {self.game.name} cannot solve a position of {state.game.name}")
        if state.is_over():
            raise ValueError("a finished game has nothing to solve")
        return Position.of(self.shape, state)

    def score(self, state: "State") -> int:
        """The position's exact score for the player to move (see the module)."""
        return self.exact(self.position(state))

    def clear(self) -> None:
        """Forget every stored bound, so the next position is searched from scratch. The
        compiled table is made here if it was not yet, and every page of it written, so
        that a timed search pays no first-touch page faults (as Pons' ``reset`` does)."""
        self.table.clear()
        if self.compiled:
            _, _, table = self._kernels()
            table.keys.fill(0)
            table.values.fill(0)

    def move_scores(self, state: "State") -> dict[int, int]:
        """Each legal action's exact score for the player making it."""
        position = self.position(state)
        if self.compiled and not self.in_book(position.moves + 1):
            kernels, board, table = self._kernels()
            out = np.full(self.shape.columns, np.iinfo(np.int32).min, np.int32)
            before = int(table.nodes[0])
            kernels.move_scores(board, table, np.uint64(position.current), np.uint64(position.mask),
                                position.moves, out)
            self.nodes += int(table.nodes[0]) - before
            return {c: int(v) for c, v in enumerate(out) if v != np.iinfo(np.int32).min}
        return self.child_scores(position)

    def child_scores(self, position: Position) -> dict[int, int]:
        """Each playable column's exact score for the player to move, one child at a time."""
        scores = {}
        for column in range(self.shape.columns):
            if position.can_play(column):
                if position.is_winning_move(column):
                    scores[column] = (self.shape.cells + 1 - position.moves) // 2
                elif position.moves + 1 == self.shape.cells:
                    scores[column] = 0  # the last cell, and no win: a draw
                else:
                    scores[column] = -self.exact(position.played(position.move_in(column)))
        return scores

    def in_book(self, moves: int) -> bool:
        return self.book is not None and moves <= self.book.plies

    def exact(self, position: Position) -> int:
        """The exact score of an unfinished position: from the book where it has
        it (or, before the book's last ply, from its children's), else searched."""
        if self.book is not None and position.moves <= self.book.plies:
            known = self.book.get(position)
            if known is not None:
                return known
            if position.moves < self.book.plies:
                return max(self.child_scores(position).values())
        return self.search(position)

    def search(self, position: Position) -> int:
        """The exact score by search alone, compiled or readable (no book)."""
        if not self.compiled:
            return self.solve(position)
        kernels, board, table = self._kernels()
        before = int(table.nodes[0])
        score = int(kernels.solve(board, table, np.uint64(position.current), np.uint64(position.mask),
                                  position.moves))
        self.nodes += int(table.nodes[0]) - before
        return score

    def solve(self, position: Position) -> int:
        """The exact score by null-window searches narrowing its range."""
        cells = self.shape.cells
        if position.can_win_now():
            return (cells + 1 - position.moves) // 2
        low, high = -((cells - position.moves) // 2), (cells + 1 - position.moves) // 2
        while low < high:
            middle = low + (high - low) // 2
            if middle <= 0 and halved(low) < middle:  # the scores near 0 first: they are proven fastest
                middle = halved(low)
            elif middle >= 0 and halved(high) > middle:
                middle = halved(high)
            found = self.negamax(position, middle, middle + 1)
            if found <= middle:
                high = found
            else:
                low = found
        return low

    def negamax(self, position: Position, alpha: int, beta: int) -> int:
        """The score if it lies in ``(alpha, beta)``, else a bound on the side it
        falls (``<= alpha`` or ``>= beta``); the player to move cannot win at once."""
        self.nodes += 1
        cells = self.shape.cells
        moves = position.non_losing_moves()
        if not moves:
            return -((cells - position.moves) // 2)
        if position.moves >= cells - 2:
            return 0  # neither player can win with the last two stones
        lowest = -((cells - 2 - position.moves) // 2)  # the opponent cannot win with their next stone
        if alpha < lowest:
            alpha = lowest
            if alpha >= beta:
                return alpha
        highest = (cells - 1 - position.moves) // 2  # we cannot win with this stone
        if beta > highest:
            beta = highest
            if alpha >= beta:
                return beta
        key = position.key()
        if key in self.table:
            bound, is_lower = self.table[key]
            if is_lower and alpha < bound:
                alpha = bound
                if alpha >= beta:
                    return alpha
            elif not is_lower and beta > bound:
                beta = bound
                if alpha >= beta:
                    return beta
        for move in self.ordered(position, moves):
            score = -self.negamax(position.played(move), -beta, -alpha)
            if score >= beta:
                self.table[key] = (score, True)  # a cut-off: the score is at least this
                return score
            if score > alpha:
                alpha = score
        self.table[key] = (alpha, False)  # every move tried: the score is at most this
        return alpha

    def _kernels(self) -> tuple[Any, Any, Any]:
        if self._compiled is None:
            import dlgo.games.solvers.bitboard_kernels as kernels  # numba: loaded where it runs

            shape = self.shape
            self._compiled = (kernels, kernels.board_of(shape.columns, shape.rows, shape.k, self.order),
                              kernels.new_table(self.table_bits))
        return self._compiled

    def ordered(self, position: Position, moves: int) -> list[int]:
        """The non-losing moves, the most threatening first, then the centre's."""
        candidates = [position.move_in(column) & moves for column in self.order]
        return sorted((m for m in candidates if m), key=lambda m: -position.move_score(m))
