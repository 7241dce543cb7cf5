"""Grid boards: their points and cells, the board as text, and the coordinates
humans type. Every game on a grid shares these, and so do the generic defaults
of :class:`~dlgo.core.game.State`.

A board of ``R x C`` points numbers its cells row by row from the bottom left:
cell ``(row - 1) * C + (col - 1)`` is ``Point(row, col)``.

>>> print(render_grid(2, 3, lambda r, c: 1 if (r, c) == (1, 2) else 0, ["a", "b", "c"], Point(1, 2)))
2  . . .
1  .(X).
   a b c
>>> parse_letter_point("c2", 2, 3)
Point(row=2, col=3)
"""
from __future__ import annotations

import functools
from typing import Callable, Sequence

from dlgo.core.errors import IllegalMoveError
from dlgo.core.types import Move, Point

#: Stone symbols by colour (0 empty, 1 black, 2 white).
STONE_SYMBOLS = (".", "X", "O")

# Go skips the letter I (so it is never confused with J or 1).
GO_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
LETTER_COLUMNS = "abcdefghijklmnopqrstuvwxyz"


@functools.lru_cache(maxsize=None)
def grid_points(num_rows: int, num_cols: int) -> tuple[Point, ...]:
    """Every point of a board in row-major order (cell ``(r - 1) * cols + c - 1``)."""
    return tuple(Point(r, c) for r in range(1, num_rows + 1) for c in range(1, num_cols + 1))


@functools.lru_cache(maxsize=None)
def grid_plays(num_rows: int, num_cols: int) -> tuple[Move, ...]:
    """``Move.play`` of every point, by cell: states share these instead of building moves."""
    return tuple(Move.play(p) for p in grid_points(num_rows, num_cols))


def cell_of(point: Point, num_rows: int, num_cols: int) -> int:
    """The cell of ``point``; :class:`IllegalMoveError` if it is off the board."""
    if not (1 <= point[0] <= num_rows and 1 <= point[1] <= num_cols):
        raise IllegalMoveError(f"{tuple(point)} is off the {num_rows}x{num_cols} board")
    return (point[0] - 1) * num_cols + (point[1] - 1)


def go_column_label(col: int) -> str:
    """The letter of a 1-based Go column: A..H, J..Z."""
    return GO_COLUMNS[col - 1]


def letter_column_label(col: int) -> str:
    """The letter of a 1-based column in the small games: a, b, c, ..."""
    return LETTER_COLUMNS[col - 1]


def _parse_letter_number(text: str, letters: str, num_rows: int, num_cols: int, example: str) -> Point:
    word = text.strip()
    if len(word) < 2 or not word[0].isalpha() or not word[1:].isdigit():
        raise IllegalMoveError(f"can't read {text!r} as a point: type a column letter and a row number, like {example}")
    letter = word[0].upper() if letters.isupper() else word[0].lower()
    if letter not in letters[:num_cols]:
        valid = f"{letters[0]}-{letters[num_cols - 1]}"
        hint = " (there is no I in Go coordinates)" if letter in "Ii" and letters is GO_COLUMNS else ""
        raise IllegalMoveError(f"column {word[0]!r} is not on the board: columns are {valid}{hint}")
    row = int(word[1:])
    if not 1 <= row <= num_rows:
        raise IllegalMoveError(f"row {row} is not on the board: rows are 1-{num_rows}")
    return Point(row, letters.index(letter) + 1)


def parse_go_point(text: str, num_rows: int, num_cols: int) -> Point:
    """``'C3'`` (any case) to ``Point(3, 3)``; ``IllegalMoveError`` if malformed or off the board."""
    return _parse_letter_number(text, GO_COLUMNS, num_rows, num_cols, "C3")


def parse_letter_point(text: str, num_rows: int, num_cols: int) -> Point:
    """``'b2'`` (any case) to ``Point(2, 2)``, columns a, b, c, ... including i."""
    return _parse_letter_number(text, LETTER_COLUMNS, num_rows, num_cols, "b2")


def render_grid(num_rows: int, num_cols: int, color_at: Callable[[int, int], int],
                col_labels: Sequence[str], last: Point | None = None) -> str:
    """Draw a board top row first, row numbers on the left, column labels below,
    and the last move's stone in parentheses: ``. X(O). .``."""
    width = max(len(label) for label in col_labels)
    margin = len(str(num_rows))
    lines = []
    for row in range(num_rows, 0, -1):
        line = [" "] * (num_cols * (width + 1) + 1)
        for col in range(1, num_cols + 1):
            at = (col - 1) * (width + 1) + 1
            line[at + width - 1] = STONE_SYMBOLS[color_at(row, col)]
            if last is not None and last == (row, col):
                line[at - 1] = "("
                line[at + width] = ")"
        lines.append(f"{row:>{margin}} " + "".join(line).rstrip())
    footer = " ".join(label.rjust(width) for label in col_labels)
    lines.append(" " * (margin + 2) + footer)
    return "\n".join(lines)
