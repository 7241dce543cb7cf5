"""The Connect-N solver compiled: :mod:`dlgo.games.connectn_solver` on machine words.

The same search, step for step, over the same bitboards in one unsigned 64-bit
word each (``current``, ``mask``): the same winning cells, non-losing moves,
move order (the most threatening first, then from the centre out), bounds and
null-window bisection. Two things differ, both for speed and neither for the
result: the transposition table is a fixed array of ``2**bits`` entries indexed
by a hash of the key, a new entry replacing an old one (the reference keeps
every entry in a dict), and the moves of each depth are sorted in a scratch row
rather than a new list. The tests check both give the same scores, and the same
node counts where the table never has to replace an entry.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dlgo.games.kernels import inline, kernel, popcount

__all__ = ["Board", "Table", "board_of", "new_table", "solve", "move_scores"]

ZERO = np.uint64(0)
ONE = np.uint64(1)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


class Board(NamedTuple):
    """A board's layout (see :class:`dlgo.games.connectn_solver.Shape`) and the search's scratch."""

    columns: int
    rows: int
    k: int
    stride: int
    bottom_row: np.uint64
    board: np.uint64
    column_masks: np.ndarray  # uint64[columns]
    bottoms: np.ndarray  # uint64[columns]
    tops: np.ndarray  # uint64[columns]
    order: np.ndarray  # int32[columns]: from the centre out
    sorted_moves: np.ndarray  # uint64[cells + 1, columns]: scratch, each depth's moves in order
    sorted_scores: np.ndarray  # int32[cells + 1, columns]


class Table(NamedTuple):
    """The transposition table: per slot a position's key and its stored upper bound (0: empty)."""

    keys: np.ndarray  # uint64[2**bits]
    values: np.ndarray  # int8[2**bits]: a bound's code, 0 for an empty slot (see negamax)
    shift: np.ndarray  # int64[1]: 64 - bits
    nodes: np.ndarray  # int64[1]: positions searched


def board_of(columns: int, rows: int, k: int, order: list[int]) -> Board:
    """The compiled layout of a ``columns`` x ``rows`` board, ``k`` in a row, explored in ``order``."""
    stride = rows + 1
    bottoms = np.array([1 << (c * stride) for c in range(columns)], np.uint64)
    bottom_row = sum(1 << (c * stride) for c in range(columns))
    return Board(columns, rows, k, stride, np.uint64(bottom_row), np.uint64(bottom_row * ((1 << rows) - 1)),
                 np.array([((1 << rows) - 1) << (c * stride) for c in range(columns)], np.uint64), bottoms,
                 np.array([1 << (rows - 1 + c * stride) for c in range(columns)], np.uint64),
                 np.array(order, np.int32), np.zeros((columns * rows + 1, columns), np.uint64),
                 np.zeros((columns * rows + 1, columns), np.int32))


def new_table(bits: int) -> Table:
    """An empty table of ``2**bits`` entries (9 bytes each)."""
    return Table(np.zeros(1 << bits, np.uint64), np.zeros(1 << bits, np.int8), np.array([64 - bits], np.int64),
                 np.zeros(1, np.int64))


# ------------------------------------------------------------- the board
@inline
def winning_cells(b: Board, stones: np.uint64, mask: np.uint64) -> np.uint64:
    """The empty cells where a stone completes ``k`` in a row for the owner of ``stones``."""
    found = ZERO
    for d in range(4):
        step = np.uint64(1 if d == 0 else b.stride - 1 if d == 1 else b.stride if d == 2 else b.stride + 1)
        for a in range(b.k):  # a own stones just before the cell, k - 1 - a just after
            run = ~ZERO
            for i in range(1, a + 1):
                run &= stones << (step * np.uint64(i))
            for i in range(1, b.k - a):
                run &= stones >> (step * np.uint64(i))
            found |= run
    return found & (b.board ^ mask)


@inline
def possible(b: Board, mask: np.uint64) -> np.uint64:
    return (mask + b.bottom_row) & b.board


@inline
def non_losing_moves(b: Board, current: np.uint64, mask: np.uint64) -> np.uint64:
    """:meth:`Position.non_losing_moves`."""
    moves = possible(b, mask)
    threats = winning_cells(b, current ^ mask, mask)
    forced = moves & threats
    if forced != ZERO:
        if forced & (forced - ONE) != ZERO:
            return ZERO
        moves = forced
    return moves & ~(threats >> ONE)


@inline
def slot(t: Table, key: np.uint64) -> int:
    return int((key * GOLDEN) >> np.uint64(t.shift[0]))


# ------------------------------------------------------------- the search
@kernel
def negamax(b: Board, t: Table, current: np.uint64, mask: np.uint64, moves: int, alpha: int, beta: int) -> int:
    """:meth:`Solver.negamax`: the score if it lies in ``(alpha, beta)``, else a bound on its side."""
    t.nodes[0] += 1
    cells = b.columns * b.rows
    candidates = non_losing_moves(b, current, mask)
    if candidates == ZERO:
        return -((cells - moves) // 2)
    if moves >= cells - 2:
        return 0
    lowest = -((cells - 2 - moves) // 2)
    if alpha < lowest:
        alpha = lowest
        if alpha >= beta:
            return alpha
    highest = (cells - 1 - moves) // 2
    if beta > highest:
        beta = highest
        if alpha >= beta:
            return beta
    lowest_score, highest_score = -(cells // 2), (cells + 1) // 2
    upper_codes = highest_score - lowest_score + 1  # codes 1..upper_codes: upper bounds; above: lower bounds
    key = current + mask
    i = slot(t, key)
    if t.keys[i] == key and t.values[i] != 0:
        code = int(t.values[i])
        if code > upper_codes:
            bound = code - upper_codes - 1 + lowest_score
            if alpha < bound:
                alpha = bound
                if alpha >= beta:
                    return alpha
        else:
            bound = code - 1 + lowest_score
            if beta > bound:
                beta = bound
                if alpha >= beta:
                    return beta
    n = order_moves(b, current, mask, candidates, moves)
    for j in range(n - 1, -1, -1):  # the best last: popped from the end, as the reference's sort gives them
        move = b.sorted_moves[moves, j]
        score = -negamax(b, t, current ^ mask, mask | move, moves + 1, -beta, -alpha)
        if score >= beta:
            t.keys[i] = key
            t.values[i] = score - lowest_score + upper_codes + 1
            return score
        if score > alpha:
            alpha = score
    t.keys[i] = key
    t.values[i] = alpha - lowest_score + 1
    return alpha


@inline
def order_moves(b: Board, current: np.uint64, mask: np.uint64, candidates: np.uint64, depth: int) -> int:
    """The non-losing moves into row ``depth`` of the scratch, sorted so that the
    last is the most threatening (ties: the earlier in the centre-out order)."""
    n = 0
    for i in range(b.columns - 1, -1, -1):  # added from the edges in: a tie keeps the later (more central) last
        move = candidates & b.column_masks[b.order[i]]
        if move == ZERO:
            continue
        score = popcount(winning_cells(b, current | move, mask))
        pos = n
        while pos > 0 and b.sorted_scores[depth, pos - 1] > score:
            b.sorted_moves[depth, pos] = b.sorted_moves[depth, pos - 1]
            b.sorted_scores[depth, pos] = b.sorted_scores[depth, pos - 1]
            pos -= 1
        b.sorted_moves[depth, pos] = move
        b.sorted_scores[depth, pos] = score
        n += 1
    return n


@kernel
def can_win_now(b: Board, current: np.uint64, mask: np.uint64) -> bool:
    return winning_cells(b, current, mask) & possible(b, mask) != ZERO


@kernel
def solve(b: Board, t: Table, current: np.uint64, mask: np.uint64, moves: int) -> int:
    """:meth:`Solver.solve`: the exact score, by null-window searches narrowing its range."""
    cells = b.columns * b.rows
    if can_win_now(b, current, mask):
        return (cells + 1 - moves) // 2
    low, high = -((cells - moves) // 2), (cells + 1 - moves) // 2
    while low < high:
        middle = low + (high - low) // 2
        if middle <= 0 and halved(low) < middle:
            middle = halved(low)
        elif middle >= 0 and halved(high) > middle:
            middle = halved(high)
        found = negamax(b, t, current, mask, moves, middle, middle + 1)
        if found <= middle:
            high = found
        else:
            low = found
    return low


@inline
def halved(score: int) -> int:
    return score // 2 if score >= 0 else -((-score) // 2)


@kernel
def move_scores(b: Board, t: Table, current: np.uint64, mask: np.uint64, moves: int, out: np.ndarray) -> None:
    """:meth:`Solver.move_scores`: ``out[column]`` for each playable column (others untouched)."""
    cells = b.columns * b.rows
    winning = winning_cells(b, current, mask) & possible(b, mask)
    for c in range(b.columns):
        if mask & b.tops[c] != ZERO:
            continue
        move = (mask + b.bottoms[c]) & b.column_masks[c]
        if winning & move != ZERO:
            out[c] = (cells + 1 - moves) // 2
        elif moves + 1 == cells:
            out[c] = 0
        else:
            out[c] = -solve(b, t, current ^ mask, mask | move, moves + 1)
