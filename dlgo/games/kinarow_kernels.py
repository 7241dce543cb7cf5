"""The k-in-a-row playouts compiled: :meth:`KInARowState._fast_playout` on machine words.

A board of at most 63 cells (Connect Four's 42, tic-tac-toe's 9) is two 64-bit
words, one per player, bit ``i`` for cell ``i`` (:func:`line_playout`); a larger
one (gomoku's 225) is two arrays of words (:func:`wide_line_playout`). A playout keeps the cells that
may be played now in a list; each move draws one, fills it, and in gravity
games puts the cell above in its place; the mover wins when some ``k``-cell
window through that cell is all theirs (the windows through each cell are
precomputed masks). It is the readable reference's loop, step for step, so from
the same SplitMix64 seed both play the same game.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from dlgo.games.kernels import below, entry_point, inline, kernel

__all__ = ["MAX_CELLS", "LineTables", "line_tables", "line_playout", "compiled_playout"]

#: the largest board a playout takes on one signed 64-bit word per player
MAX_CELLS = 63


class LineTables(NamedTuple):
    """One board shape's fixed tables (and a workspace)."""

    windows: np.ndarray  # int64[...]: the masks of the k-windows, grouped by cell (boards up to 63 cells)
    wide_windows: np.ndarray  # uint64[..., words]: the same masks in words (any board)
    window_start: np.ndarray  # int32[cells + 1]: cell i's windows are windows[window_start[i]:window_start[i + 1]]
    above: np.ndarray  # int32[cells]: the cell a filled cell makes playable (gravity), else -1
    candidates: np.ndarray  # int32[cells]: scratch, the cells that may be played
    rng: np.ndarray  # uint64[1]: scratch, the generator's state
    cols: int
    gravity: bool


def line_tables(windows_through: tuple[tuple[int, ...], ...], cols: int,
                above: tuple[int, ...] | None) -> LineTables:
    """The tables of a board: its windows through each cell, its width and, for a
    gravity game, the cell above each cell (-1 on the top row)."""
    cells = len(windows_through)
    start = np.zeros(cells + 1, np.int32)
    for cell, windows in enumerate(windows_through):
        start[cell + 1] = start[cell] + len(windows)
    masks = [w for windows in windows_through for w in windows]
    words = (cells + 63) // 64
    return LineTables(np.array(masks if cells <= MAX_CELLS else [], dtype=np.int64),
                      np.array([to_words(w, words) for w in masks], np.uint64).reshape(len(masks), words), start,
                      np.array(above if above is not None else [-1] * cells, np.int32),
                      np.zeros(cells, np.int32), np.zeros(1, np.uint64), cols, above is not None)


def to_words(bits: int, words: int) -> list[int]:
    """A bitboard as ``words`` 64-bit words, the lowest first."""
    return [(bits >> (64 * i)) & 0xFFFFFFFFFFFFFFFF for i in range(words)]


@inline
def first_candidates(t: LineTables, occupied_at: Any, occupied: Any) -> int:
    """Fill ``t.candidates`` with the cells the reference's ``_legal_cells`` lists,
    in its order (gravity: each column's lowest empty cell; else every empty
    cell); ``occupied_at(occupied, cell)`` says whether a cell is taken."""
    candidates = t.candidates
    n = 0
    if t.gravity:
        for col in range(t.cols):
            cell = col
            while cell >= 0 and occupied_at(occupied, cell):
                cell = t.above[cell]
            if cell >= 0:
                candidates[n] = cell
                n += 1
    else:
        for cell in range(len(t.above)):
            if not occupied_at(occupied, cell):
                candidates[n] = cell
                n += 1
    return n


@inline
def draw_cell(t: LineTables, n: int) -> tuple[int, int]:
    """``(cell, candidates left)``: a uniformly drawn candidate, replaced by the
    cell it makes playable or dropped (the reference's swap with the last)."""
    candidates = t.candidates
    i = below(t.rng, n)
    cell = candidates[i]
    if t.above[cell] >= 0:
        candidates[i] = t.above[cell]
    else:
        n -= 1
        candidates[i] = candidates[n]
    return cell, n


@inline
def bit_set(bits: int, cell: int) -> bool:
    return (bits >> cell) & 1 != 0


@kernel
def line_playout(t: LineTables, black: int, white: int, c: int, seed: int, moves: np.ndarray) -> tuple[int, int]:
    """Play uniformly random moves from the position ``black``/``white`` (bit
    boards), ``c`` to move, until a line of k or a full board: ``(winner, moves
    played)``, winner 1, 2 or 0 for a draw. Each cell played goes into ``moves``
    if it has room."""
    n = first_candidates(t, bit_set, black | white)
    t.rng[0] = np.uint64(seed)
    mine, theirs = (black, white) if c == 1 else (white, black)
    played = 0
    while n:
        cell, n = draw_cell(t, n)
        if played < len(moves):
            moves[played] = cell
        played += 1
        mine |= 1 << cell
        for j in range(t.window_start[cell], t.window_start[cell + 1]):
            w = t.windows[j]
            if mine & w == w:
                return c, played
        mine, theirs = theirs, mine
        c = 3 - c
    return 0, played


@inline
def word_bit_set(bits: np.ndarray, cell: int) -> bool:
    return (bits[cell >> 6] >> np.uint64(cell & 63)) & np.uint64(1) != np.uint64(0)


@kernel
def wide_line_playout(t: LineTables, bits: np.ndarray, c: int, seed: int, moves: np.ndarray) -> tuple[int, int]:
    """:func:`line_playout` on a board of any size: ``bits[1]`` and ``bits[2]``
    are the players' bitboards in words (row 0 is scratch, changed)."""
    words = bits.shape[1]
    for w in range(words):
        bits[0, w] = bits[1, w] | bits[2, w]
    n = first_candidates(t, word_bit_set, bits[0])
    t.rng[0] = np.uint64(seed)
    played = 0
    while n:
        cell, n = draw_cell(t, n)
        if played < len(moves):
            moves[played] = cell
        played += 1
        bits[c, cell >> 6] |= np.uint64(1) << np.uint64(cell & 63)
        for j in range(t.window_start[cell], t.window_start[cell + 1]):
            full = True
            for w in range(words):
                mask = t.wide_windows[j, w]
                full = full and bits[c, w] & mask == mask
            if full:
                return c, played
        c = 3 - c
    return 0, played


def compiled_playout(windows_through: tuple[tuple[int, ...], ...], cols: int,
                     above: tuple[int, ...] | None) -> tuple[Callable[..., tuple[int, int]], LineTables]:
    """``(playout, tables)`` for a board (see :func:`line_tables`), to call as
    ``playout(tables, black, white, c, seed, moves)`` with Python ints (``seed``
    below 2**63) and an int32 array for ``moves``: :func:`line_playout`'s machine
    code, called without type dispatch, or on a board of more than 63 cells a
    function that puts the bitboards in words for :func:`wide_line_playout`."""
    tables = line_tables(windows_through, cols, above)
    no_moves = np.empty(0, np.int32)
    if len(windows_through) <= MAX_CELLS:
        return entry_point(line_playout, tables, 0, 0, 1, 0, no_moves), tables
    words = tables.wide_windows.shape[1]
    wide = entry_point(wide_line_playout, tables, np.zeros((3, words), np.uint64), 1, 0, no_moves)

    def playout(tables: LineTables, black: int, white: int, c: int, seed: int,
                moves: np.ndarray) -> tuple[int, int]:
        bits = np.array([[0] * words, to_words(black, words), to_words(white, words)], np.uint64)
        return wide(tables, bits, c, seed, moves)

    return playout, tables
