"""Exercise 1 (chapter 3): a Go board with strings, captures and Zobrist hashing.

Write the class ``Board`` below: where a stone goes, which string it joins,
which strings it captures, and the board's Zobrist hash. A *string* is a group
of stones of one colour joined through their neighbours (up, down, left,
right); its *liberties* are the empty points next to it. A stone that leaves an
opponent's string without liberties captures it: the string leaves the board.

Check your work with ``dlgo exercise check 1`` (it plays thousands of moves on
your board and on the library's, ``dlgo.goboard.Board``, and compares them).
The checks only play legal moves: you need not refuse occupied points or
self-capture.

Points are ``Point(row, col)``, from ``Point(1, 1)`` (bottom left) to
``Point(num_rows, num_cols)``; ``point.neighbors()`` lists the four points
around it, some of them off the board. Colours are ``Player.black`` and
``Player.white``; ``player.other`` is the opponent.
"""
from __future__ import annotations

from dataclasses import dataclass

from dlgo.core import zobrist
from dlgo.gotypes import Player, Point


@dataclass(frozen=True)
class GoString:
    """One string: its colour, its stones and its liberties (sets of points)."""

    color: Player
    stones: frozenset[Point]
    liberties: frozenset[Point]

    @property
    def num_liberties(self) -> int:
        return len(self.liberties)


def zobrist_key(player: Player, point: Point) -> int:
    """The random 64-bit number of a ``player`` stone at ``point`` (the
    library's table, so that your hashes can be compared with its own)."""
    return zobrist.POINT_KEYS[player][(point.row - 1) * zobrist.MAX_BOARD_SIZE + (point.col - 1)]


class Board:
    """A Go board of ``num_rows`` x ``num_cols`` points."""

    def __init__(self, num_rows: int, num_cols: int) -> None:
        self.num_rows = num_rows
        self.num_cols = num_cols
        # Your storage here: for example a dict from each occupied point to its
        # string, and the hash of the empty board (0).
        raise NotImplementedError("Board.__init__: set up the board's storage")

    def is_on_grid(self, point: Point) -> bool:
        """Is ``point`` on the board?"""
        return 1 <= point.row <= self.num_rows and 1 <= point.col <= self.num_cols

    def get(self, point: Point) -> Player | None:
        """The colour of the stone at ``point``, or None if it is empty."""
        raise NotImplementedError("Board.get")

    def get_go_string(self, point: Point) -> GoString | None:
        """The string through ``point``, or None if it is empty."""
        raise NotImplementedError("Board.get_go_string")

    def place_stone(self, player: Player, point: Point) -> None:
        """Put a ``player`` stone on the empty ``point``: it joins the strings of
        its colour next to it, takes a liberty from the opponent's strings next to
        it, and captures those left with none (their stones leave the board and
        give liberties back to the strings around them). Keep the hash up to date
        as you go: placing or removing a stone XORs its ``zobrist_key`` in."""
        raise NotImplementedError("Board.place_stone")

    def zobrist_hash(self) -> int:
        """The XOR of ``zobrist_key(colour, point)`` over the stones on the board
        (0 for an empty board), kept up to date by ``place_stone`` rather than
        recomputed here."""
        raise NotImplementedError("Board.zobrist_hash")
