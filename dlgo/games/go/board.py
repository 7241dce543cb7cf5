"""Go's board: a flat array of points, strings with their liberties, Zobrist hashing.

Layout, for speed in pure Python:

* A board of ``R x C`` points is a flat list indexed by ``(row - 1) * C + (col - 1)``;
  ``color[i]`` is 0 (empty), 1 (black) or 2 (white). Neighbour and diagonal index
  tuples are precomputed once per board size (:class:`Geometry`).
* Each point holds a reference to its :class:`GoString` (a maximal group of
  connected stones) with its stones, its liberty set and the XOR of its stones'
  Zobrist keys, all kept up to date incrementally.
* :class:`Board` is mutable: :meth:`Board.play` changes it in place. ``copy()``
  copies only the flat arrays; strings are shared copy-on-write (a board mutates
  a string only if it owns it, otherwise it clones it first). So the persistent
  :class:`~dlgo.games.go.state.GoState` pays one cheap copy per move, and a
  random playout mutates a single board, running the *same* rule code
  (``hash_after_play`` and ``play``).

The rules on the board: stones with no liberties are captured and self-capture
is illegal. Ko, superko, passes and the end of the game belong to the state.
"""
from __future__ import annotations

import functools
from typing import Callable, Container, NamedTuple

from dlgo.core import zobrist
from dlgo.core.errors import IllegalMoveError, SpecError
from dlgo.core.grid import go_column_label, grid_plays, grid_points, render_grid
from dlgo.core.types import Move, Player, Point

__all__ = ["Board", "Geometry", "GoString", "StringInfo", "geometry", "is_point_an_eye", "side_key"]

EMPTY, BLACK, WHITE = 0, 1, 2
MIN_SIZE, MAX_SIZE = 2, zobrist.MAX_BOARD_SIZE


class Geometry:
    """Everything about a board size that never changes: point indices, neighbour
    and diagonal tables, Zobrist keys. One instance per size, shared by all boards."""

    def __init__(self, num_rows: int, num_cols: int):
        self.num_rows = num_rows
        self.num_cols = num_cols
        self.num_points = n = num_rows * num_cols
        self.points: tuple[Point, ...] = grid_points(num_rows, num_cols)
        #: ``Move.play`` of each point, built once: states and searches share them
        self.plays: tuple[Move, ...] = grid_plays(num_rows, num_cols)
        on = self.is_on_grid
        idx = self.index_of_unchecked
        self.neighbors: tuple[tuple[int, ...], ...] = tuple(
            tuple(idx(q) for q in p.neighbors() if on(q)) for p in self.points
        )
        diagonals = []
        for p in self.points:
            corners = [Point(p.row + dr, p.col + dc) for dr in (-1, 1) for dc in (-1, 1)]
            diagonals.append(tuple(idx(q) for q in corners if on(q)))
        self.diagonals: tuple[tuple[int, ...], ...] = tuple(diagonals)
        # An eye may have one non-friendly diagonal in the middle of the board, none on the edge.
        self.eye_tolerance: tuple[int, ...] = tuple(1 if len(d) == 4 else 0 for d in diagonals)
        self.keys = zobrist.keys_for_grid(num_rows, num_cols)
        assert len(self.keys[1]) == n

    def is_on_grid(self, point: Point) -> bool:
        return 1 <= point[0] <= self.num_rows and 1 <= point[1] <= self.num_cols

    def index_of_unchecked(self, point: Point) -> int:
        return (point[0] - 1) * self.num_cols + (point[1] - 1)

    def index_of(self, point: Point) -> int:
        """Flat index of ``point``; :class:`IllegalMoveError` if it is off the board."""
        if not self.is_on_grid(point):
            raise IllegalMoveError(f"{tuple(point)} is off the {self.num_rows}x{self.num_cols} board")
        return (point[0] - 1) * self.num_cols + (point[1] - 1)


@functools.lru_cache(maxsize=None)
def geometry(num_rows: int, num_cols: int) -> Geometry:
    """The shared :class:`Geometry` of a board size."""
    return Geometry(num_rows, num_cols)


class GoString:
    """A chain of connected stones of one colour (flat indices) and its liberties.

    ``owner`` is the token of the only board allowed to mutate it in place; any
    other board holding it clones it before a change (copy-on-write)."""

    __slots__ = ("color", "stones", "liberties", "hash", "owner")

    def __init__(self, color: int, stones: list[int], liberties: set[int], hash_: int, owner: object):
        self.color = color
        self.stones = stones
        self.liberties = liberties
        self.hash = hash_  # XOR of the Zobrist keys of the stones
        self.owner = owner

    @property
    def num_liberties(self) -> int:
        return len(self.liberties)


class StringInfo(NamedTuple):
    """A read-only view of one string, in points, for the public API."""

    color: Player
    stones: frozenset[Point]
    liberties: frozenset[Point]

    @property
    def num_liberties(self) -> int:
        return len(self.liberties)


class Board:
    """A mutable Go board with incremental strings, liberties and Zobrist hash.

    The point API (``get``, ``place_stone``, ``get_go_string``) is for people and
    tests; the index API (``play``, ``hash_after_play``, ``is_eye``) is the hot
    path used by :class:`GoState` and by random playouts.
    """

    __slots__ = ("num_rows", "num_cols", "geometry", "color", "string", "empties", "empty_slot",
                 "hash", "captures", "_token")

    def __init__(self, num_rows: int, num_cols: int | None = None):
        num_cols = num_rows if num_cols is None else num_cols
        if not (MIN_SIZE <= num_rows <= MAX_SIZE and MIN_SIZE <= num_cols <= MAX_SIZE):
            raise SpecError(
                f"board size must be between {MIN_SIZE} and {MAX_SIZE} on each side, got {num_rows}x{num_cols}"
            )
        self.num_rows = num_rows
        self.num_cols = num_cols
        self.geometry = geo = geometry(num_rows, num_cols)
        n = geo.num_points
        self.color: list[int] = [EMPTY] * n
        self.string: list[GoString | None] = [None] * n
        self.empties: list[int] = list(range(n))  # the empty points, in no particular order
        self.empty_slot: list[int] = list(range(n))  # position of each empty point in `empties`
        self.hash: int = zobrist.EMPTY_BOARD
        self.captures: list[int] = [0, 0, 0]  # stones captured by black (1) and by white (2)
        self._token = object()

    # ----------------------------------------------------------------- copying
    def copy(self) -> "Board":
        """An independent copy, O(points): strings are shared copy-on-write."""
        other = Board.__new__(Board)
        other.num_rows = self.num_rows
        other.num_cols = self.num_cols
        other.geometry = self.geometry
        other.color = self.color[:]
        other.string = self.string[:]
        other.empties = self.empties[:]
        other.empty_slot = self.empty_slot[:]
        other.hash = self.hash
        other.captures = self.captures[:]
        other._token = object()
        self._token = object()  # from now on neither board may mutate the shared strings
        return other

    def _own(self, s: GoString) -> GoString:
        """Return a version of string ``s`` that this board may mutate."""
        if s.owner is self._token:
            return s
        t = GoString(s.color, s.stones[:], set(s.liberties), s.hash, self._token)
        string = self.string
        for p in t.stones:
            string[p] = t
        return t

    # --------------------------------------------------------------- point API
    def is_on_grid(self, point: Point) -> bool:
        return self.geometry.is_on_grid(point)

    def get(self, point: Point) -> Player | None:
        """The colour of the stone at ``point``, or None if it is empty."""
        c = self.color[self.geometry.index_of(point)]
        return Player(c) if c else None

    def get_go_string(self, point: Point) -> StringInfo | None:
        """The string through ``point`` (stones and liberties as points), or None."""
        s = self.string[self.geometry.index_of(point)]
        if s is None:
            return None
        pts = self.geometry.points
        return StringInfo(Player(s.color), frozenset(pts[i] for i in s.stones),
                          frozenset(pts[i] for i in s.liberties))

    def place_stone(self, player: Player, point: Point) -> None:
        """Put a stone on the board in place, capturing as in play (for set-up
        stones and hand-built positions). :class:`IllegalMoveError` if occupied or self-capture."""
        p = self.geometry.index_of(point)
        if self.color[p] != EMPTY:
            raise IllegalMoveError(f"{tuple(point)} is occupied")
        if self.hash_after_play(p, int(player)) < 0:
            raise IllegalMoveError(f"{tuple(point)} would be self-capture")
        self.play(p, int(player))

    def render(self, last: Point | None = None) -> str:
        """The board as text: the top row first, Go's column letters (no I) below,
        the stone at ``last`` in parentheses."""
        color, cols = self.color, self.num_cols
        return render_grid(self.num_rows, cols, lambda r, c: color[(r - 1) * cols + c - 1],
                           [go_column_label(c) for c in range(1, cols + 1)], last)

    def zobrist_hash(self) -> int:
        """Hash of the stones on the board (the side to move is not included)."""
        return self.hash

    def recompute_hash(self) -> int:
        """The hash from scratch (for tests of the incremental update)."""
        keys = self.geometry.keys
        h = zobrist.EMPTY_BOARD
        for p, c in enumerate(self.color):
            if c:
                h ^= keys[c][p]
        return h

    # ---------------------------------------------------------- index hot path
    def is_eye(self, p: int, c: int) -> bool:
        """Is empty point ``p`` an eye of colour ``c``? All neighbours are ``c``'s,
        and so are all diagonals on the edge, or all but one in the middle."""
        color = self.color
        if color[p]:
            return False
        for q in self.geometry.neighbors[p]:
            if color[q] != c:
                return False
        misses = self.geometry.eye_tolerance[p]
        for q in self.geometry.diagonals[p]:
            if color[q] != c:
                if not misses:
                    return False
                misses -= 1
        return True

    def hash_after_play(self, p: int, c: int) -> int:
        """The board hash after colour ``c`` plays at ``p``, or -1 if the play is
        illegal here because ``p`` is occupied or the play is self-capture."""
        color = self.color
        if color[p]:
            return -1
        string: list[GoString] = self.string  # type: ignore[assignment]  # a stone's point has a string
        h = self.hash ^ self.geometry.keys[c][p]
        legal = False
        captured: list[GoString] | None = None
        for q in self.geometry.neighbors[p]:
            cq = color[q]
            if cq == EMPTY:
                legal = True
            elif cq == c:
                if len(string[q].liberties) > 1:
                    legal = True
            else:
                s = string[q]
                if len(s.liberties) == 1:  # its last liberty is p: captured
                    legal = True
                    if captured is None:
                        captured = [s]
                        h ^= s.hash
                    elif s not in captured:
                        captured.append(s)
                        h ^= s.hash
        return h if legal else -1

    def play(self, p: int, c: int) -> None:
        """Place a stone of colour ``c`` at the empty point ``p`` and capture.
        The caller has checked legality (see :meth:`hash_after_play`).

        In three steps: ``p`` leaves the empty points; the stone joins the
        strings of its own colour next to it (:meth:`_join`), or starts one;
        each enemy string next to it loses the liberty ``p`` and is captured if
        it has none left (:meth:`_remove_string`)."""
        color = self.color
        string: list[GoString] = self.string  # type: ignore[assignment]  # a stone's point has a string
        token = self._token
        key = self.geometry.keys[c][p]
        # p leaves the empty points
        slot = self.empty_slot
        empties = self.empties
        last = empties.pop()
        if last != p:
            i = slot[p]
            empties[i] = last
            slot[last] = i
        color[p] = c
        self.hash ^= key

        # the stone joins its friends' strings, or starts its own
        liberties = set()
        friends: list[GoString] = []
        enemies: list[GoString] = []
        for q in self.geometry.neighbors[p]:
            cq = color[q]
            if cq == EMPTY:
                liberties.add(q)
            elif cq == c:
                s = string[q]
                if s not in friends:
                    friends.append(s)
            else:
                s = string[q]
                if s not in enemies:
                    enemies.append(s)
        if friends:
            self._join(p, key, friends, liberties)
        else:
            string[p] = GoString(c, [p], liberties, key, token)

        # its enemies lose a liberty, and those left with none are captured
        for s in enemies:
            if s.owner is not token:
                s = self._own(s)
            s.liberties.discard(p)
            if not s.liberties:
                self._remove_string(s)

    def _join(self, p: int, key: int, friends: list[GoString], liberties: set[int]) -> None:
        """The new stone at ``p`` (Zobrist ``key``, empty neighbours ``liberties``)
        and the ``friends``, its own colour's strings next to it, become one
        string: the largest of them grows, and only the smaller ones' stones are
        relabelled."""
        string: list[GoString] = self.string  # type: ignore[assignment]  # a stone's point has a string
        base = friends[0]
        for s in friends:
            if len(s.stones) > len(base.stones):
                base = s
        merged = self._own(base)
        stones = merged.stones
        libs = merged.liberties
        for s in friends:
            if s is not base:
                for q in s.stones:
                    string[q] = merged
                stones.extend(s.stones)
                libs |= s.liberties
                merged.hash ^= s.hash
        stones.append(p)
        libs |= liberties
        libs.discard(p)
        merged.hash ^= key
        string[p] = merged

    def _remove_string(self, s: GoString) -> None:
        """Capture string ``s``: empty its points and give them back as liberties."""
        color = self.color
        string = self.string
        empties = self.empties
        slot = self.empty_slot
        token = self._token
        neighbors = self.geometry.neighbors
        stones = s.stones
        for p in stones:
            color[p] = EMPTY
            string[p] = None
            slot[p] = len(empties)
            empties.append(p)
        self.hash ^= s.hash
        self.captures[3 - s.color] += len(stones)
        for p in stones:
            for q in neighbors[p]:
                t = string[q]
                if t is not None:  # a stone of the capturing colour
                    if t.owner is not token:
                        t = self._own(t)
                    t.liberties.add(p)

    def is_self_atari(self, p: int, c: int) -> bool:
        """Would colour ``c`` playing at empty ``p`` leave its own string with one
        liberty, capturing nothing?"""
        color = self.color
        string: list[GoString] = self.string  # type: ignore[assignment]  # a stone's point has a string
        liberties: set[int] = set()
        for q in self.geometry.neighbors[p]:
            cq = color[q]
            if cq == EMPTY:
                liberties.add(q)
            elif cq == c:
                liberties |= string[q].liberties
            elif len(string[q].liberties) == 1:
                return False  # it captures
        liberties.discard(p)
        return len(liberties) <= 1

    def select_random_play(self, c: int, forbidden: Container[int], side_key: int,
                           rand: Callable[[], float], careful: bool = False) -> int:
        """The book's random policy, fast: a uniformly random legal play for ``c``
        that does not fill ``c``'s own eye, or -1 if there is none (pass).
        ``careful`` also refuses self-atari (see :meth:`is_self_atari`).

        ``forbidden`` holds the state hashes that may not recur (superko) and
        ``side_key`` is the side-to-move part of the hash after this play;
        ``rand`` is a ``random.Random().random`` bound method."""
        empties = self.empties
        slot = self.empty_slot
        n = len(empties)
        while n:
            i = int(rand() * n)
            p = empties[i]
            if not self.is_eye(p, c) and not (careful and self.is_self_atari(p, c)):
                h = self.hash_after_play(p, c)
                if h >= 0 and (h ^ side_key) not in forbidden:
                    return p
            # Rejected: swap it behind the candidates still to try.
            n -= 1
            q = empties[n]
            empties[i] = q
            empties[n] = p
            slot[q] = i
            slot[p] = n
        return -1

    # --------------------------------------------------------------- equality
    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Board) and self.num_rows == other.num_rows
                and self.num_cols == other.num_cols and self.color == other.color)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Board({self.num_rows}, {self.num_cols}, hash={self.hash:#018x})"


def is_point_an_eye(board: Board, point: Point, player: Player) -> bool:
    """True if ``point`` is an empty point surrounded by ``player``'s stones whose
    diagonals are also ``player``'s (all of them on the edge, three of four in the
    middle): filling it could only hurt ``player``."""
    return board.is_eye(board.geometry.index_of(point), int(player))


def side_key(player: int) -> int:
    """The side-to-move component of a state hash."""
    return zobrist.WHITE_TO_MOVE if player == WHITE else 0


