"""Go: moves, a fast board, and the immutable game state.

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
  :class:`GameState` pays one cheap copy per move, and a random playout mutates a
  single board, running the *same* rule code (``hash_after_play`` and ``play``).

The rules: stones with no liberties are captured; self-capture is illegal;
situational superko (no play may recreate an earlier position with the same
player to move) is enforced with the Zobrist hashes of the game's history; the
game ends after two consecutive passes or a resignation and is scored by area.
"""
from __future__ import annotations

import functools
import random
from typing import Iterator, NamedTuple, Sequence

import numpy as np

from dlgo import zobrist
from dlgo.game import GameStateBase
from dlgo.gotypes import Player, Point
from dlgo.rendering import go_column_label, parse_go_point, render_grid

__all__ = ["Move", "Board", "GameState", "GoString", "Geometry", "is_point_an_eye"]

EMPTY, BLACK, WHITE = 0, 1, 2
MIN_SIZE, MAX_SIZE = 2, zobrist.MAX_BOARD_SIZE


class Move(NamedTuple):
    """One action: a play at a point, a pass, or a resignation.

    Build moves with :meth:`play`, :meth:`pass_turn` and :meth:`resign`. Moves are
    immutable, hashable and compare by value. Every game in the suite uses them.
    """

    point: Point | None = None
    is_pass: bool = False
    is_resign: bool = False

    @property
    def is_play(self) -> bool:
        return self.point is not None

    @classmethod
    def play(cls, point: Point) -> "Move":
        """Place a stone at ``point`` (``Point(row, col)``, 1-based)."""
        return cls(point if type(point) is Point else Point(*point))

    @classmethod
    def pass_turn(cls) -> "Move":
        return _PASS

    @classmethod
    def resign(cls) -> "Move":
        return _RESIGN

    def __repr__(self) -> str:
        if self.point is not None:
            return f"Move.play({self.point!r})"
        return "Move.pass_turn()" if self.is_pass else "Move.resign()"


_PASS = Move(None, True, False)
_RESIGN = Move(None, False, True)


class Geometry:
    """Everything about a board size that never changes: point indices, neighbour
    and diagonal tables, Zobrist keys. One instance per size, shared by all boards."""

    def __init__(self, num_rows: int, num_cols: int):
        self.num_rows = num_rows
        self.num_cols = num_cols
        self.num_points = n = num_rows * num_cols
        self.points: tuple[Point, ...] = tuple(
            Point(r, c) for r in range(1, num_rows + 1) for c in range(1, num_cols + 1)
        )
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
        """Flat index of ``point``; ``ValueError`` if it is off the board."""
        if not self.is_on_grid(point):
            raise ValueError(f"{tuple(point)} is off the {self.num_rows}x{self.num_cols} board")
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
    path used by :class:`GameState` and by random playouts.
    """

    __slots__ = ("num_rows", "num_cols", "geometry", "color", "string", "empties", "empty_slot",
                 "hash", "captures", "_token")

    def __init__(self, num_rows: int, num_cols: int | None = None):
        num_cols = num_rows if num_cols is None else num_cols
        if not (MIN_SIZE <= num_rows <= MAX_SIZE and MIN_SIZE <= num_cols <= MAX_SIZE):
            raise ValueError(
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
        stones and hand-built positions). ``ValueError`` if occupied or self-capture."""
        p = self.geometry.index_of(point)
        if self.color[p] != EMPTY:
            raise ValueError(f"{tuple(point)} is occupied")
        if self.hash_after_play(p, int(player)) < 0:
            raise ValueError(f"{tuple(point)} would be self-capture")
        self.play(p, int(player))

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
        string = self.string
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
        The caller has checked legality (see :meth:`hash_after_play`)."""
        color = self.color
        string = self.string
        token = self._token
        key = self.geometry.keys[c][p]
        # p is no longer empty
        slot = self.empty_slot
        empties = self.empties
        last = empties.pop()
        if last != p:
            i = slot[p]
            empties[i] = last
            slot[last] = i
        color[p] = c
        self.hash ^= key

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

        if not friends:
            string[p] = GoString(c, [p], liberties, key, token)
        else:
            # Merge into the largest neighbouring string: relabel only the smaller ones.
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

        for s in enemies:
            if s.owner is not token:
                s = self._own(s)
            s.liberties.discard(p)
            if not s.liberties:
                self._remove_string(s)

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

    def select_random_play(self, c: int, forbidden: set[int] | frozenset[int], side_key: int,
                           rand) -> int:
        """The book's random policy, fast: a uniformly random legal play for ``c``
        that does not fill ``c``'s own eye, or -1 if there is none (pass).

        ``forbidden`` holds the state hashes that may not recur (superko) and
        ``side_key`` is the side-to-move part of the hash after this play;
        ``rand`` is a ``random.Random().random`` bound method."""
        empties = self.empties
        slot = self.empty_slot
        n = len(empties)
        while n:
            i = int(rand() * n)
            p = empties[i]
            if not self.is_eye(p, c):
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

    __hash__ = None  # mutable

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


class GameState(GameStateBase):
    """An immutable Go position with its history: the board, the player to move,
    the previous state and the move that led here.

    >>> s = GameState.new_game(9).apply_move(Move.play(Point(3, 3)))
    >>> s.next_player
    <Player.white: 2>
    """

    __slots__ = ("board", "next_player", "previous_state", "last_move", "komi", "_hash", "_seen")
    game_name = "go"

    def __init__(self, board: Board, next_player: Player, previous: "GameState | None",
                 move: Move | None, komi: float = 7.5, _seen: frozenset[int] | None = None):
        self.board = board
        self.next_player = Player(next_player)
        self.previous_state = previous
        self.last_move = move
        self.komi = komi
        self._hash = board.hash ^ side_key(self.next_player)
        # Hashes of every state in this game so far, this one included (superko).
        self._seen = (_seen if _seen is not None else frozenset()) | {self._hash}

    @classmethod
    def new_game(cls, board_size: int | tuple[int, int], komi: float = 7.5) -> "GameState":
        """An empty board (``board_size`` an int or ``(rows, cols)``), black to move."""
        rows, cols = (board_size, board_size) if isinstance(board_size, int) else board_size
        return cls(Board(rows, cols), Player.black, None, None, komi)

    @classmethod
    def from_board(cls, board: Board, next_player: Player = Player.black, komi: float = 7.5) -> "GameState":
        """A game that starts from a set-up position (e.g. handicap stones)."""
        return cls(board.copy(), next_player, None, None, komi)

    @classmethod
    def with_handicap(cls, size: int, points: Sequence[Point], komi: float = 0.5) -> "GameState":
        """A handicap game: black stones on ``points``, white to move."""
        board = Board(size, size)
        for point in points:
            board.place_stone(Player.black, point)
        return cls.from_board(board, Player.white, komi)

    # ------------------------------------------------------------------ moves
    def _check_play(self, move: Move) -> tuple[int, int]:
        """Flat index of a play and the hash of the state after it; ``ValueError``
        naming the rule it breaks."""
        board = self.board
        p = board.geometry.index_of(move.point)
        c = int(self.next_player)
        if board.color[p]:
            raise ValueError(f"illegal move {self.format_move(move)}: the point is occupied")
        h = board.hash_after_play(p, c)
        if h < 0:
            raise ValueError(f"illegal move {self.format_move(move)}: self-capture")
        h ^= side_key(3 - c)
        if h in self._seen:
            prev = self.previous_state
            if prev is not None and prev._hash == h:
                raise ValueError(f"illegal move {self.format_move(move)}: ko (retake it after a move elsewhere)")
            raise ValueError(f"illegal move {self.format_move(move)}: superko (it repeats an earlier position)")
        return p, h

    def apply_move(self, move: Move) -> "GameState":
        """The state after ``move``; this state is left unchanged. ``ValueError``
        for an illegal move, with the reason (occupied, self-capture, ko)."""
        if self.is_over():
            raise ValueError("the game is over")
        if move.is_play:
            p, _ = self._check_play(move)
            board = self.board.copy()
            board.play(p, int(self.next_player))
        else:
            board = self.board  # a pass or resign leaves the stones as they are
        return GameState(board, self.next_player.other, self, move, self.komi, self._seen)

    def is_valid_move(self, move: Move) -> bool:
        if self.is_over():
            return False
        if not move.is_play:
            return True
        try:
            self._check_play(move)
        except ValueError:
            return False
        return True

    def _legal_play_indices(self) -> Iterator[int]:
        board = self.board
        color = board.color
        c = int(self.next_player)
        side = side_key(3 - c)
        seen = self._seen
        hash_after_play = board.hash_after_play
        for p in range(board.geometry.num_points):
            if not color[p]:
                h = hash_after_play(p, c)
                if h >= 0 and (h ^ side) not in seen:
                    yield p

    def ko_points(self) -> list[int]:
        """Flat indices of the empty points where a play is forbidden only by
        (super)ko: it would capture or have liberties, but repeats a position."""
        board = self.board
        c = int(self.next_player)
        side = side_key(3 - c)
        color, hash_after_play, seen = board.color, board.hash_after_play, self._seen
        return [p for p in range(board.geometry.num_points)
                if not color[p] and (h := hash_after_play(p, c)) >= 0 and (h ^ side) in seen]

    def legal_moves(self) -> list[Move]:
        """Every legal play, in board order, then pass. Resign is always allowed
        but not listed. Empty once the game is over."""
        if self.is_over():
            return []
        points = self.board.geometry.points
        return [Move.play(points[p]) for p in self._legal_play_indices()] + [Move.pass_turn()]

    def sensible_moves(self) -> list[Move]:
        """Legal plays that do not fill the mover's own eye, then pass if the
        opponent has just passed (so a won game can be ended) or if no such play
        is left. Search trees and the neural agents choose among these."""
        if self.is_over():
            return []
        board, c = self.board, int(self.next_player)
        points = board.geometry.points
        moves = [Move.play(points[p]) for p in self._legal_play_indices() if not board.is_eye(p, c)]
        if not moves or (self.last_move is not None and self.last_move.is_pass):
            moves.append(Move.pass_turn())
        return moves

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        if not self.is_over():
            mask[list(self._legal_play_indices())] = True
            mask[-1] = True  # pass
        return mask

    def random_move(self, rng: random.Random) -> Move:
        """The book's random bot: a uniformly random legal play that does not fill
        the mover's own eye; pass only when no such play is left. Same policy and
        code as the playouts (:meth:`Board.select_random_play`), on a scratch copy."""
        if self.is_over():
            raise ValueError("the game is over")
        c = int(self.next_player)
        p = self.board.copy().select_random_play(c, self._seen, side_key(3 - c), rng.random)
        return Move.pass_turn() if p < 0 else Move.play(self.board.geometry.points[p])

    # ----------------------------------------------------------------- result
    def is_over(self) -> bool:
        """Two passes in a row, or a resignation."""
        move = self.last_move
        if move is None or move.is_play:
            return False
        if move.is_resign:
            return True
        second_last = self.previous_state.last_move
        return second_last is not None and second_last.is_pass

    def winner(self) -> Player | None:
        """The winner of a finished game (area scoring), None if unfinished or a draw."""
        if not self.is_over():
            return None
        if self.last_move.is_resign:
            return self.next_player  # the other player resigned
        from dlgo.scoring import compute_game_result

        return compute_game_result(self).winner

    def zobrist_hash(self) -> int:
        """Hash of the stones and the player to move, updated incrementally."""
        return self._hash

    # ----------------------------------------------------------- action space
    @property
    def num_actions(self) -> int:
        """One action per point, plus pass (the last index)."""
        return self.board.geometry.num_points + 1

    def move_to_index(self, move: Move) -> int:
        if move.is_play:
            return self.board.geometry.index_of(move.point)
        if move.is_pass:
            return self.board.geometry.num_points
        raise ValueError("resign has no action index")

    def index_to_move(self, index: int) -> Move:
        n = self.board.geometry.num_points
        if index == n:
            return Move.pass_turn()
        if not 0 <= index < n:
            raise ValueError(f"action index {index} out of range 0..{n}")
        return Move.play(self.board.geometry.points[index])

    # ------------------------------------------------------------- human I/O
    def parse_move(self, text: str) -> Move:
        """``C3`` (columns A-Z without I, rows from 1 at the bottom), ``pass`` or ``resign``."""
        word = text.strip().lower()
        if word == "pass":
            return Move.pass_turn()
        if word == "resign":
            return Move.resign()
        return Move.play(parse_go_point(text, self.board.num_rows, self.board.num_cols))

    def format_move(self, move: Move) -> str:
        if move.is_pass:
            return "pass"
        if move.is_resign:
            return "resign"
        return f"{go_column_label(move.point.col)}{move.point.row}"

    def render(self) -> str:
        board = self.board
        last = self.last_move.point if self.last_move is not None and self.last_move.is_play else None
        color = board.color
        cols = board.num_cols
        return render_grid(
            board.num_rows, cols,
            lambda r, c: color[(r - 1) * cols + c - 1],
            [go_column_label(c) for c in range(1, cols + 1)],
            last,
        )

    # --------------------------------------------------------------- playouts
    def random_playout(self, rng: random.Random, moves: list[Move] | None = None,
                       max_moves: int | None = None) -> Player | None:
        """Finish the game with the book's random policy (uniform over legal plays
        that do not fill one's own eye; pass when none is left) on a private
        mutable board, and return the winner by area scoring.

        The playout follows exactly the rules of :meth:`apply_move` (same code);
        if ``moves`` is a list, the moves played are appended to it. ``max_moves``
        (default 10 x points) is a safety cap: the position is scored when reached."""
        if self.is_over():
            return self.winner()
        from dlgo.scoring import area_winner

        board = self.board.copy()
        seen = set(self._seen)
        c = int(self.next_player)
        passes = 1 if self.last_move is not None and self.last_move.is_pass else 0
        rand = rng.random
        select = board.select_random_play
        play = board.play
        points = board.geometry.points
        budget = 10 * board.geometry.num_points if max_moves is None else max_moves
        while passes < 2 and budget > 0:
            budget -= 1
            side = zobrist.WHITE_TO_MOVE if c == BLACK else 0  # the opponent moves next
            p = select(c, seen, side, rand)
            if p < 0:
                passes += 1
            else:
                passes = 0
                play(p, c)
            seen.add(board.hash ^ side)
            if moves is not None:
                moves.append(Move.pass_turn() if p < 0 else Move.play(points[p]))
            c = 3 - c
        return area_winner(board, self.komi)

    def __repr__(self) -> str:
        return f"<go GameState {self.board.num_rows}x{self.board.num_cols}, {self.next_player.name} to move>"
