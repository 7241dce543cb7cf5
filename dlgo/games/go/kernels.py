"""Go's board compiled: the rules of :mod:`dlgo.games.go.board` over flat numpy arrays.

:class:`~dlgo.games.go.board.Board` is the readable board and the reference;
this module is the same board for the hot loops (playouts, the Go engine's tree
search), compiled by numba. It follows the reference operation for operation,
so that the two play *the same games* from the same random numbers: the empty
points are kept in the same order (a play swaps the last one into its slot; a
capture appends the stones in their string's order), a string's stones are
listed in the same order (the largest friend first, then the other friends,
then the new stone), and a random play is drawn by the same rejection loop.

The layout, for a board of ``N`` points:

* ``color[p]``: 0 empty, 1 black, 2 white.
* Strings are linked lists: ``string[p]`` is the *root* of the string through
  ``p`` (its first stone; -1 on an empty point), ``next_stone[p]`` the next stone
  of the list (-1 at its end). At a root ``r``: ``last_stone[r]``, ``size[r]``,
  ``stones_hash[r]`` (the XOR of the stones' Zobrist keys) and ``liberties[r]``,
  a bitset of ``W = ceil(N / 64)`` words, so a string's liberties are counted by
  a few ``popcount`` instructions and joined by ``|``.
* ``empties`` lists the empty points and ``empty_slot[p]`` says where ``p`` is
  in it; ``counts = [number of empty points, stones captured by black, by white]``;
  ``hash[0]``: the board's Zobrist hash.

The fixed tables of a board size (neighbours, diagonals, eye tolerance, Zobrist
keys, the 8 points around each point for patterns) are a :class:`GoGeometry`.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from dlgo.core import zobrist
from dlgo.games.go.board import Board, Geometry, geometry
from dlgo.games.go.features import RING
from dlgo.games.kernels import (HashSet, below, inline, kernel, new_hash_set, njit, popcount, set_add, set_contains,
                                trailing_zeros)

__all__ = ["GoBoard", "GoGeometry", "board_arrays", "geometry_arrays", "play", "playout", "hash_after_play",
           "is_eye", "liberty_count", "select_random_play", "area_points", "area_winner", "replay"]

EMPTY, BLACK, WHITE = 0, 1, 2
WHITE_TO_MOVE = np.uint64(zobrist.WHITE_TO_MOVE)
ONE = np.uint64(1)
ZERO = np.uint64(0)


class GoGeometry(NamedTuple):
    """The fixed tables of one board size (-1 pads the rows of points near an edge)."""

    neighbors: np.ndarray  # int32[N, 4], in the reference's order
    diagonals: np.ndarray  # int32[N, 4]
    eye_tolerance: np.ndarray  # int32[N]: non-friendly diagonals an eye may have
    keys: np.ndarray  # uint64[3, N]: Zobrist keys per colour (row 0 unused)
    ring: np.ndarray  # int32[N, 8]: the 8 surrounding points in RING order
    rows: int
    cols: int


class GoBoard(NamedTuple):
    """A mutable compiled board (see the module's docstring)."""

    color: np.ndarray  # int8[N]
    string: np.ndarray  # int32[N]
    next_stone: np.ndarray  # int32[N]
    last_stone: np.ndarray  # int32[N], at roots
    size: np.ndarray  # int32[N], at roots
    stones_hash: np.ndarray  # uint64[N], at roots
    liberties: np.ndarray  # uint64[N, W], at roots
    empties: np.ndarray  # int32[N]
    empty_slot: np.ndarray  # int32[N]
    counts: np.ndarray  # int64[3]: empty points, captured by black, captured by white
    hash: np.ndarray  # uint64[1]
    work: np.ndarray  # int32[8 + 2N]: scratch (a play's friends and enemies; scoring's marks and stack)


@functools.lru_cache(maxsize=None)
def geometry_arrays(num_rows: int, num_cols: int) -> GoGeometry:
    """The :class:`GoGeometry` of a board size, built once from the reference's :class:`Geometry`."""
    geo: Geometry = geometry(num_rows, num_cols)
    n = geo.num_points
    neighbors = np.full((n, 4), -1, np.int32)
    diagonals = np.full((n, 4), -1, np.int32)
    ring = np.full((n, 8), -1, np.int32)
    for p in range(n):
        neighbors[p, :len(geo.neighbors[p])] = geo.neighbors[p]
        diagonals[p, :len(geo.diagonals[p])] = geo.diagonals[p]
        r, c = divmod(p, num_cols)
        for k, (dr, dc) in enumerate(RING):
            if 0 <= r + dr < num_rows and 0 <= c + dc < num_cols:
                ring[p, k] = (r + dr) * num_cols + c + dc
    keys = np.zeros((3, n), np.uint64)
    keys[1] = np.array(geo.keys[1], dtype=np.uint64)
    keys[2] = np.array(geo.keys[2], dtype=np.uint64)
    return GoGeometry(neighbors, diagonals, np.array(geo.eye_tolerance, np.int32), keys, ring, num_rows, num_cols)


def words_for(num_points: int) -> int:
    """Words of 64 bits in a liberty bitset."""
    return (num_points + 63) // 64


def board_arrays(board: Board) -> GoBoard:
    """The compiled twin of a reference :class:`Board`: same stones, strings (with
    their stones in the same order), empty points in the same order, hash and captures."""
    n = board.geometry.num_points
    out = GoBoard(np.array(board.color, np.int8), np.full(n, -1, np.int32), np.full(n, -1, np.int32),
                  np.full(n, -1, np.int32), np.zeros(n, np.int32), np.zeros(n, np.uint64),
                  np.zeros((n, words_for(n)), np.uint64), np.zeros(n, np.int32), np.zeros(n, np.int32),
                  np.array([len(board.empties), board.captures[1], board.captures[2]], np.int64),
                  np.array([board.hash], np.uint64), np.zeros(8 + 2 * n, np.int32))
    seen: set[int] = set()
    for s in board.string:
        if s is None or id(s) in seen:
            continue
        seen.add(id(s))
        root = s.stones[0]
        out.string[s.stones] = root
        out.next_stone[s.stones[:-1]] = s.stones[1:]
        out.last_stone[root] = s.stones[-1]
        out.size[root] = len(s.stones)
        out.stones_hash[root] = s.hash
        for q in s.liberties:
            out.liberties[root, q >> 6] |= np.uint64(1 << (q & 63))
    out.empties[:len(board.empties)] = board.empties
    for i, p in enumerate(board.empties):
        out.empty_slot[p] = i
    return out


@njit
def copy_board(b: GoBoard) -> GoBoard:
    """An independent copy."""
    return GoBoard(b.color.copy(), b.string.copy(), b.next_stone.copy(), b.last_stone.copy(), b.size.copy(),
                   b.stones_hash.copy(), b.liberties.copy(), b.empties.copy(), b.empty_slot.copy(),
                   b.counts.copy(), b.hash.copy(), b.work.copy())


@kernel
def copy_into(dst: GoBoard, src: GoBoard) -> None:
    """Make ``dst`` a copy of ``src`` (a board of the same size) without allocating."""
    for p in range(len(src.color)):
        dst.color[p] = src.color[p]
        dst.string[p] = src.string[p]
        dst.next_stone[p] = src.next_stone[p]
        dst.last_stone[p] = src.last_stone[p]
        dst.size[p] = src.size[p]
        dst.stones_hash[p] = src.stones_hash[p]
        dst.empties[p] = src.empties[p]
        dst.empty_slot[p] = src.empty_slot[p]
        for w in range(src.liberties.shape[1]):
            dst.liberties[p, w] = src.liberties[p, w]
    for i in range(3):
        dst.counts[i] = src.counts[i]
    dst.hash[0] = src.hash[0]


# ------------------------------------------------------------ liberties
@inline
def liberty_count(b: GoBoard, root: int) -> int:
    """The number of liberties of the string whose root is ``root``."""
    total = 0
    for w in range(b.liberties.shape[1]):
        total += popcount(b.liberties[root, w])
    return total


@inline
def first_liberty(b: GoBoard, root: int) -> int:
    """The lowest-numbered liberty of a string (-1 if it has none)."""
    for w in range(b.liberties.shape[1]):
        word = b.liberties[root, w]
        if word:
            return w * 64 + trailing_zeros(word)
    return -1


@inline
def has_liberty(b: GoBoard, root: int, q: int) -> bool:
    return (b.liberties[root, q >> 6] >> np.uint64(q & 63)) & ONE != ZERO


@inline
def add_liberty(b: GoBoard, root: int, q: int) -> None:
    b.liberties[root, q >> 6] |= ONE << np.uint64(q & 63)


@inline
def remove_liberty(b: GoBoard, root: int, q: int) -> None:
    b.liberties[root, q >> 6] &= ~(ONE << np.uint64(q & 63))


# ------------------------------------------------------------- the rules
@inline
def is_eye(b: GoBoard, g: GoGeometry, p: int, c: int) -> bool:
    """Is empty ``p`` an eye of colour ``c``: every neighbour ``c``'s, and every
    diagonal too on the edge, all but one in the middle (:meth:`Board.is_eye`)."""
    color = b.color
    if color[p] != EMPTY:
        return False
    for k in range(4):
        q = g.neighbors[p, k]
        if q < 0:
            break
        if color[q] != c:
            return False
    misses = g.eye_tolerance[p]
    for k in range(4):
        q = g.diagonals[p, k]
        if q < 0:
            break
        if color[q] != c:
            if misses == 0:
                return False
            misses -= 1
    return True


@inline
def hash_after_play(b: GoBoard, g: GoGeometry, p: int, c: int) -> tuple[bool, np.uint64]:
    """``(legal, hash)``: may ``c`` play at ``p`` (empty, not self-capture), and the
    board's hash after it (:meth:`Board.hash_after_play`)."""
    if b.color[p] != EMPTY:
        return False, ZERO
    h = b.hash[0] ^ g.keys[c, p]
    legal = False
    first = second = -1  # the strings captured so far (at most 3, so the third needs no memory)
    for k in range(4):
        q = g.neighbors[p, k]
        if q < 0:
            break
        cq = b.color[q]
        if cq == EMPTY:
            legal = True
        elif cq == c:
            if liberty_count(b, b.string[q]) > 1:
                legal = True
        else:
            r = b.string[q]
            if liberty_count(b, r) == 1:  # its last liberty is p: captured
                legal = True
                if r != first and r != second:
                    if first < 0:
                        first = r
                    else:
                        second = r
                    h ^= b.stones_hash[r]
    return legal, h


@inline
def play(b: GoBoard, g: GoGeometry, p: int, c: int) -> None:
    """Colour ``c`` plays at the empty point ``p`` (legality checked by the caller)
    and captures: :meth:`Board.play` step for step."""
    key = g.keys[c, p]
    # p leaves the empty points
    n = b.counts[0] - 1
    b.counts[0] = n
    last = b.empties[n]
    if last != p:
        i = b.empty_slot[p]
        b.empties[i] = last
        b.empty_slot[last] = i
    b.color[p] = c
    b.hash[0] ^= key
    # its friends and enemies, each string once, in neighbour order
    friends = b.work[0:4]
    enemies = b.work[4:8]
    friends[:] = -1
    enemies[:] = -1
    num_friends = num_enemies = 0
    for w in range(b.liberties.shape[1]):
        b.liberties[p, w] = ZERO  # row p holds the new stone's own liberties for now
    for k in range(4):
        q = g.neighbors[p, k]
        if q < 0:
            break
        cq = b.color[q]
        if cq == EMPTY:
            add_liberty(b, p, q)
        elif cq == c:
            r = b.string[q]
            if r != friends[0] and r != friends[1] and r != friends[2]:
                friends[num_friends] = r
                num_friends += 1
        else:
            r = b.string[q]
            if r != enemies[0] and r != enemies[1] and r != enemies[2]:
                enemies[num_enemies] = r
                num_enemies += 1
    if num_friends:
        _join(b, p, key, friends, num_friends)
    else:
        b.string[p] = p
        b.next_stone[p] = -1
        b.last_stone[p] = p
        b.size[p] = 1
        b.stones_hash[p] = key
    # the enemies lose the liberty p; those left with none are captured
    for i in range(num_enemies):
        r = enemies[i]
        remove_liberty(b, r, p)
        if liberty_count(b, r) == 0:
            _remove_string(b, g, r)


@inline
def _join(b: GoBoard, p: int, key: np.uint64, friends: np.ndarray, num_friends: int) -> None:
    """The new stone at ``p`` and its friends become one string: the largest friend
    (the first of equals) keeps its root and list; the others' stones follow it,
    then ``p`` (:meth:`Board._join`)."""
    base = friends[0]
    for i in range(1, num_friends):
        if b.size[friends[i]] > b.size[base]:
            base = friends[i]
    for i in range(num_friends):
        s = friends[i]
        if s == base:
            continue
        q = s
        while q >= 0:
            b.string[q] = base
            q = b.next_stone[q]
        b.next_stone[b.last_stone[base]] = s
        b.last_stone[base] = b.last_stone[s]
        b.size[base] += b.size[s]
        b.stones_hash[base] ^= b.stones_hash[s]
        for w in range(b.liberties.shape[1]):
            b.liberties[base, w] |= b.liberties[s, w]
    b.next_stone[b.last_stone[base]] = p
    b.next_stone[p] = -1
    b.last_stone[base] = p
    b.size[base] += 1
    b.stones_hash[base] ^= key
    b.string[p] = base
    for w in range(b.liberties.shape[1]):
        b.liberties[base, w] |= b.liberties[p, w]
    remove_liberty(b, base, p)


@inline
def _remove_string(b: GoBoard, g: GoGeometry, root: int) -> None:
    """Capture the string at ``root``: its points become empty (appended in the
    string's order) and liberties of the strings around them."""
    captured_color = b.color[root]
    q = root
    while q >= 0:
        b.color[q] = EMPTY
        b.string[q] = -1
        n = b.counts[0]
        b.empty_slot[q] = n
        b.empties[n] = q
        b.counts[0] = n + 1
        q = b.next_stone[q]
    b.hash[0] ^= b.stones_hash[root]
    b.counts[3 - captured_color] += b.size[root]
    q = root
    while q >= 0:
        for k in range(4):
            t = g.neighbors[q, k]
            if t < 0:
                break
            if b.string[t] >= 0:
                add_liberty(b, b.string[t], q)
        q = b.next_stone[q]


@inline
def own_liberties_after_play(b: GoBoard, g: GoGeometry, p: int, c: int) -> int:
    """How many liberties ``c``'s string through ``p`` would have if ``c`` played at
    empty ``p``, captures aside: its empty neighbours and its friends' liberties,
    ``p`` excluded, counted without playing."""
    count = 0
    for w in range(b.liberties.shape[1]):
        word = ZERO
        for k in range(4):
            q = g.neighbors[p, k]
            if q < 0:
                break
            cq = b.color[q]
            if cq == EMPTY:
                if q >> 6 == w:
                    word |= ONE << np.uint64(q & 63)
            elif cq == c:
                word |= b.liberties[b.string[q], w]
        if p >> 6 == w:
            word &= ~(ONE << np.uint64(p & 63))
        count += popcount(word)
    return count


@inline
def captures_at(b: GoBoard, g: GoGeometry, p: int, c: int) -> bool:
    """Would ``c`` at empty ``p`` capture: is an enemy string next to it in atari?"""
    for k in range(4):
        q = g.neighbors[p, k]
        if q < 0:
            break
        if b.color[q] != EMPTY and b.color[q] != c and liberty_count(b, b.string[q]) == 1:
            return True
    return False


@inline
def is_self_atari(b: GoBoard, g: GoGeometry, p: int, c: int) -> bool:
    """Would ``c`` at empty ``p`` leave its own string one liberty, capturing
    nothing? (:meth:`Board.is_self_atari`)"""
    return not captures_at(b, g, p, c) and own_liberties_after_play(b, g, p, c) <= 1


@inline
def select_random_play(b: GoBoard, g: GoGeometry, c: int, seen: HashSet, side_key: np.uint64, rng: np.ndarray,
                       careful: bool) -> int:
    """A uniformly random legal play for ``c`` that fills none of ``c``'s eyes (and
    with ``careful`` is no self-atari), or -1 to pass (:meth:`Board.select_random_play`).
    ``seen`` holds the positions that may not recur; ``side_key`` is the side-to-move
    part of the hash after the play."""
    empties = b.empties
    slot = b.empty_slot
    n = b.counts[0]
    while n:
        i = below(rng, n)
        p = empties[i]
        if not is_eye(b, g, p, c) and not (careful and is_self_atari(b, g, p, c)):
            legal, h = hash_after_play(b, g, p, c)
            if legal and not set_contains(seen, h ^ side_key):
                return p
        n -= 1  # rejected: swap it behind the candidates still to try
        q = empties[n]
        empties[i] = q
        empties[n] = p
        slot[q] = i
        slot[p] = n
    return -1


# -------------------------------------------------------------- scoring
@kernel
def area_points(b: GoBoard, g: GoGeometry) -> tuple[int, int]:
    """``(black, white)``: each side's stones plus the empty regions that touch
    only its colour (:func:`dlgo.games.go.scoring.area_score`)."""
    n = len(b.color)
    black = white = 0
    for p in range(n):
        if b.color[p] == BLACK:
            black += 1
        elif b.color[p] == WHITE:
            white += 1
    seen = b.work[8:8 + n]
    stack = b.work[8 + n:8 + 2 * n]
    seen[:] = 0
    for start in range(n):
        if b.color[start] != EMPTY or seen[start]:
            continue
        seen[start] = 1
        stack[0] = start
        top, size, border = 1, 0, 0
        while top:
            top -= 1
            p = stack[top]
            size += 1
            for k in range(4):
                q = g.neighbors[p, k]
                if q < 0:
                    break
                cq = b.color[q]
                if cq != EMPTY:
                    border |= cq
                elif not seen[q]:
                    seen[q] = 1
                    stack[top] = q
                    top += 1
        if border == BLACK:
            black += size
        elif border == WHITE:
            white += size
    return black, white


@kernel
def area_winner(b: GoBoard, g: GoGeometry, komi: float) -> int:
    """1 (black), 2 (white) or 0 (a draw) by area with ``komi`` for white."""
    black, white = area_points(b, g)
    if black > white + komi:
        return BLACK
    if black < white + komi:
        return WHITE
    return 0


@kernel
def point_owners(b: GoBoard, g: GoGeometry, owners: np.ndarray) -> None:
    """Who owns each point by area (:func:`dlgo.games.go.scoring.point_owners`):
    its stone's colour, or the one colour its empty region touches; 0 for dame."""
    n = len(b.color)
    seen = b.work[8:8 + n]
    stack = b.work[8 + n:8 + 2 * n]
    seen[:] = 0
    for p in range(n):
        owners[p] = b.color[p]
    for start in range(n):
        if b.color[start] != EMPTY or seen[start]:
            continue
        seen[start] = 1
        stack[0] = start
        top, size, border = 1, 0, 0
        while top:  # the region, gathered in stack[0:size]
            p = stack[size]
            size += 1
            top -= 1
            for k in range(4):
                q = g.neighbors[p, k]
                if q < 0:
                    break
                cq = b.color[q]
                if cq != EMPTY:
                    border |= cq
                elif not seen[q]:
                    seen[q] = 1
                    stack[size + top] = q
                    top += 1
        if border == BLACK or border == WHITE:
            for i in range(size):
                owners[stack[i]] = border


@inline
def side_key(c: int) -> np.uint64:
    """The side-to-move part of a state's hash when ``c`` is to move."""
    return WHITE_TO_MOVE if c == WHITE else ZERO


# ------------------------------------------------------------- playouts
@kernel
def replay(b: GoBoard, g: GoGeometry, first: int, path: np.ndarray, seen: HashSet) -> int:
    """Play the actions ``path`` (points; ``N`` = pass) on ``b``, ``first`` moving
    first, adding every state's hash (side to move included) to ``seen``, the
    start's too. Returns the colour to move after them."""
    n = len(b.color)
    c = first
    set_add(seen, b.hash[0] ^ side_key(c))
    for i in range(len(path)):
        p = path[i]
        if p < n:
            play(b, g, p, c)
        c = 3 - c
        set_add(seen, b.hash[0] ^ side_key(c))
    return c


@kernel
def random_playout(b: GoBoard, g: GoGeometry, c: int, passes: int, seen: HashSet, budget: int, rng: np.ndarray,
                   careful: bool, moves: np.ndarray) -> int:
    """Play on from ``b`` (``c`` to move, ``passes`` passes just made) with
    :func:`select_random_play` until two passes in a row or ``budget`` moves
    (:meth:`GoState.random_playout`). Each move (-1 for a pass) goes into
    ``moves`` if it has room; returns how many were played."""
    played = 0
    while passes < 2 and budget > 0:
        budget -= 1
        side = side_key(3 - c)  # the opponent moves next
        p = select_random_play(b, g, c, seen, side, rng, careful)
        if p < 0:
            passes += 1
        else:
            passes = 0
            play(b, g, p, c)
        set_add(seen, b.hash[0] ^ side)
        if played < len(moves):
            moves[played] = p
        played += 1
        c = 3 - c
    return played


@njit
def playout(root: GoBoard, g: GoGeometry, first: int, path: np.ndarray, passes: int, komi: float, budget: int,
            seed: int, careful: bool, moves: np.ndarray) -> tuple[int, int]:
    """A random playout of the game that starts at ``root`` (``first`` to move) and
    has reached its position by ``path``: ``(winner, moves played)``; winner 1, 2
    or 0 for a draw."""
    b = copy_board(root)
    rng = np.full(1, np.uint64(seed), np.uint64)
    seen = new_hash_set(len(path) + 1 + budget)
    c = replay(b, g, first, path, seen)
    played = random_playout(b, g, c, passes, seen, budget, rng, careful, moves)
    return area_winner(b, g, komi), played


@njit
def continued_owners(root: GoBoard, g: GoGeometry, first: int, path: np.ndarray, mover: int, budget: int,
                     seed: int) -> np.ndarray:
    """Each point's owner (1, 2, 0) after both players play on from the position
    ``path`` reaches, ``mover`` first, with the careful random policy (no
    self-atari) to two passes: :meth:`GoState.continued_board`, compiled."""
    b = copy_board(root)
    rng = np.full(1, np.uint64(seed), np.uint64)
    seen = new_hash_set(len(path) + 1 + budget)
    replay(b, g, first, path, seen)
    random_playout(b, g, mover, 0, seen, budget, rng, True, np.empty(0, np.int32))
    owners = np.zeros(len(b.color), np.int8)
    point_owners(b, g, owners)
    return owners


@njit
def position(root: GoBoard, g: GoGeometry, first: int, path: np.ndarray, room: int) -> tuple[GoBoard, HashSet, int]:
    """The board ``path`` reaches from ``root`` (``first`` to move), the set of
    the positions on the way (with ``room`` for as many more) and the colour to move."""
    b = copy_board(root)
    seen = new_hash_set(len(path) + 1 + room)
    c = replay(b, g, first, path, seen)
    return b, seen, c


@kernel
def legal_plays(b: GoBoard, g: GoGeometry, c: int, seen: HashSet, legal: np.ndarray) -> None:
    """``legal[p]``: may ``c`` play at ``p`` (empty, not self-capture, no repeated
    position)? :meth:`GoState.legal_actions`, but for the pass."""
    side = side_key(3 - c)
    for p in range(len(b.color)):
        ok, h = hash_after_play(b, g, p, c)
        legal[p] = ok and not set_contains(seen, h ^ side)
