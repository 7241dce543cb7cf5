"""The two players and the points of a board, shared by every game in the suite."""
from __future__ import annotations

import enum
from typing import NamedTuple


class Player(enum.IntEnum):
    """A side. Black moves first. The integer values (1, 2) double as stone colours
    in the flat board arrays, where 0 means an empty point."""

    black = 1
    white = 2

    @property
    def other(self) -> "Player":
        """The opponent."""
        return Player.white if self is Player.black else Player.black

    def __str__(self) -> str:  # "B" / "W", as in SGF and GTP
        return "B" if self is Player.black else "W"


class Point(NamedTuple):
    """A board point, 1-based. Row 1 is the bottom row as printed."""

    row: int
    col: int

    def neighbors(self) -> list["Point"]:
        """The four orthogonal neighbours (some may lie off the board)."""
        return [
            Point(self.row - 1, self.col),
            Point(self.row + 1, self.col),
            Point(self.row, self.col - 1),
            Point(self.row, self.col + 1),
        ]
