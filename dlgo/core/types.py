"""The players, the points of a board and the moves: shared by every game.

>>> Move.play(Point(3, 3))
Move.play(Point(row=3, col=3))
>>> Player.black.other
<Player.white: 2>
"""
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


class Move(NamedTuple):
    """One move as people and records name it: a play at a point, a pass, or a
    resignation.

    Build moves with :meth:`play`, :meth:`pass_turn` and :meth:`resign`. Moves are
    immutable, hashable and compare by value. Search works on int actions
    (``state.legal_actions()``); moves are for the edges: console, GTP, SGF, CSV.
    """

    point: Point | None = None
    is_pass: bool = False
    is_resign: bool = False

    @property
    def is_play(self) -> bool:
        return self.point is not None

    @classmethod
    def play(cls, point: Point | tuple[int, int]) -> "Move":
        """Place a stone at ``point`` (``Point(row, col)``, 1-based)."""
        return cls(point if type(point) is Point else Point(*point))

    @classmethod
    def pass_turn(cls) -> "Move":
        return PASS

    @classmethod
    def resign(cls) -> "Move":
        return RESIGN

    def __repr__(self) -> str:
        if self.point is not None:
            return f"Move.play({self.point!r})"
        return "Move.pass_turn()" if self.is_pass else "Move.resign()"


PASS = Move(None, True, False)
RESIGN = Move(None, False, True)
