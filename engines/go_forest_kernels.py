"""A batch of Go games' PUCT trees in flat arrays, compiled: AlphaZero's search for many Go games at once.

:class:`engines.forest.GoForest` drives these kernels; :class:`engines.puct.PUCTSearch`
over :class:`engines.puct.Node` objects is the readable reference, and the tests
hold the two to the same visits, simulation for simulation, on the same evaluations.

The nodes are the pool of :mod:`engines.forest_kernels` (:class:`~engines.forest_kernels.Forest`:
a node a row, an edge per sensible action, with its prior, visits, value and
child), searched by its PUCT choice (:func:`~engines.forest_kernels.puct_choice`:
``fpu``, forced playouts at a noised root) and backed up by its
:func:`~engines.forest_kernels.backup`. A node keeps no position: only who is
to move, and for a finished game its value. The positions live on Go's compiled
board (:mod:`dlgo.games.go.kernels`), one a game, the root's (:class:`Games`,
every game's board and superko set stacked a row a game, kept up to date move
by move); a descent copies its game's root board onto a scratch board and plays
the edges it follows there, adding each position's hash to the game's set of
positions (and taking them out again after: :func:`~dlgo.games.kernels.set_truncate`),
as :mod:`engines.mcts_kernels` replays a simulation. So a descent knows at its
leaf what the readable search's state knows:

* the edges of a new leaf, made at once (:func:`sensible_edges`): exactly
  ``GoState.sensible_actions()``, the legal plays (superko against the game's
  positions and the path's) that fill none of the mover's eyes, in point order,
  then pass if the opponent has just passed or nothing else is left;
* its planes, written straight into the network's batch
  (:func:`dlgo.encoders.go_kernels.encode_board`);
* a finished game: two passes in a row, scored by area with the komi
  (:func:`~dlgo.games.go.kernels.area_winner`), its value for the player to move.

The evaluator's priors are then renormalised over the leaf's edges with numpy's
pairwise sum (:func:`~engines.forest_kernels.pairwise_sum`), so the arithmetic is the reference's to the last bit.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dlgo.encoders.go_kernels import encode_board
from dlgo.games.go.kernels import (GoBoard, GoGeometry, area_winner, copy_into, is_eye, legal_plays, play, replay,
                                   side_key, words_for)
from dlgo.games.kernels import HashSet, inline, kernel, set_add, set_truncate
from engines.forest_kernels import EXPANDED, FINISHED, LEAF, Forest, backup, pairwise_sum, plant, puct_choice

__all__ = ["Games", "new_games", "regrown", "board_row", "set_root", "advance_root", "height", "prepare_roots",
           "descend_all", "expand_all"]


class Games(NamedTuple):
    """Every game's root position, a row a game (by its slot): its compiled board (the
    arrays of a :class:`~dlgo.games.go.kernels.GoBoard`, stacked), the positions of its
    game so far (a :class:`~dlgo.games.kernels.HashSet`'s arrays, stacked, side to move
    included), the colour to move and whether the last move was a pass."""

    color: np.ndarray  # int8[G, N]
    string: np.ndarray  # int32[G, N]
    next_stone: np.ndarray  # int32[G, N]
    last_stone: np.ndarray  # int32[G, N]
    size: np.ndarray  # int32[G, N]
    stones_hash: np.ndarray  # uint64[G, N]
    liberties: np.ndarray  # uint64[G, N, W]
    empties: np.ndarray  # int32[G, N]
    empty_slot: np.ndarray  # int32[G, N]
    counts: np.ndarray  # int64[G, 3]
    hash: np.ndarray  # uint64[G, 1]
    work: np.ndarray  # int32[G, 8 + 2N]
    seen_slots: np.ndarray  # uint64[G, S]: the superko sets, S a power of two
    seen_used: np.ndarray  # bool[G, S]
    seen_log: np.ndarray  # int64[G, S // 2]
    seen_size: np.ndarray  # int64[G]
    to_move: np.ndarray  # int8[G]: 1 black, 2 white
    passed: np.ndarray  # bool[G]: the root's last move was a pass (a pass there ends the game)


def new_games(rows: int, points: int, room: int) -> Games:
    """Rows for ``rows`` games on a board of ``points`` points, each with room for ``room`` positions."""
    capacity = 16
    while capacity < 2 * room:
        capacity *= 2
    n = points
    return Games(np.zeros((rows, n), np.int8), np.full((rows, n), -1, np.int32), np.full((rows, n), -1, np.int32),
                 np.full((rows, n), -1, np.int32), np.zeros((rows, n), np.int32), np.zeros((rows, n), np.uint64),
                 np.zeros((rows, n, words_for(n)), np.uint64), np.zeros((rows, n), np.int32),
                 np.zeros((rows, n), np.int32), np.zeros((rows, 3), np.int64), np.zeros((rows, 1), np.uint64),
                 np.zeros((rows, 8 + 2 * n), np.int32), np.zeros((rows, capacity), np.uint64),
                 np.zeros((rows, capacity), np.bool_), np.zeros((rows, capacity // 2), np.int64),
                 np.zeros(rows, np.int64), np.ones(rows, np.int8), np.zeros(rows, np.bool_))


def room(games: Games) -> int:
    """The positions each game's set may hold."""
    return int(games.seen_log.shape[1])


def regrown(games: Games, rows: int, positions: int) -> Games:
    """``games`` with ``rows`` rows (at least as many as it has) and room for ``positions``
    positions a game (at least what it has): the boards copied, the sets filled again."""
    old = len(games.to_move)
    bigger = new_games(rows, games.color.shape[1], max(positions, room(games)))
    for field in range(Games._fields.index("work") + 1):
        bigger[field][:old] = games[field][:old]
    bigger.to_move[:old] = games.to_move
    bigger.passed[:old] = games.passed
    refill(games, bigger, old)
    return bigger


@kernel
def refill(old: Games, new: Games, rows: int) -> None:
    """Add each of the first ``rows`` games' positions to its empty set in ``new``, in their order."""
    for g in range(rows):
        s = history(new, g)
        for i in range(old.seen_size[g]):
            set_add(s, old.seen_slots[g, old.seen_log[g, i]])


def board_row(games: Games, g: int) -> GoBoard:
    """Game ``g``'s board: views of its row."""
    return GoBoard(*(array[g] for array in games[:Games._fields.index("work") + 1]))


@inline
def board(games: Games, g: int) -> GoBoard:
    """:func:`board_row`, compiled."""
    return GoBoard(games.color[g], games.string[g], games.next_stone[g], games.last_stone[g], games.size[g],
                   games.stones_hash[g], games.liberties[g], games.empties[g], games.empty_slot[g], games.counts[g],
                   games.hash[g], games.work[g])


@inline
def history(games: Games, g: int) -> HashSet:
    """Game ``g``'s positions so far: views of its row."""
    return HashSet(games.seen_slots[g], games.seen_used[g], games.seen_log[g], games.seen_size[g:g + 1])


# --------------------------------------------------------------- roots
@kernel
def set_root(games: Games, g: int, geo: GoGeometry, first: GoBoard, colour: int, path: np.ndarray,
             passed: bool) -> None:
    """Game ``g`` at the position ``path`` reaches from the board ``first`` (``colour``
    to move there): its board, and its set holding every position on the way."""
    seen = history(games, g)
    for i in range(len(seen.used)):
        seen.used[i] = False
    seen.size[0] = 0
    b = board(games, g)
    copy_into(b, first)
    games.to_move[g] = replay(b, geo, colour, path, seen)
    games.passed[g] = passed


@kernel
def advance_root(games: Games, g: int, geo: GoGeometry, action: int) -> np.uint64:
    """Game ``g`` goes on by ``action`` (a point, or the pass index); returns the
    new position's hash, side to move included (``GoState.zobrist_hash``)."""
    b = board(games, g)
    c = games.to_move[g]
    n = len(b.color)
    if action < n:
        play(b, geo, action, c)
    c = 3 - c
    h = b.hash[0] ^ side_key(c)
    set_add(history(games, g), h)
    games.to_move[g] = c
    games.passed[g] = action == n
    return h


@kernel
def height(f: Forest, roots: np.ndarray, rows: np.ndarray, stack: np.ndarray, levels: np.ndarray) -> int:
    """The longest path from a root ``roots[g]`` (``g`` in ``rows``) to a node of its
    tree. ``stack`` and ``levels``: scratch of the pool's size."""
    most = 0
    for j in range(len(rows)):
        stack[0], levels[0] = roots[rows[j]], 0
        top = 1
        while top:
            top -= 1
            node, level = stack[top], levels[top]
            most = max(most, level)
            if f.status[node] != EXPANDED:
                continue
            for i in range(f.slots[node]):
                child = f.child[node, i]
                if child >= 0:
                    stack[top], levels[top] = child, level + 1
                    top += 1
    return most


# --------------------------------------------------------------- edges
@inline
def sensible_edges(f: Forest, node: int, b: GoBoard, geo: GoGeometry, c: int, seen: HashSet, passed: bool,
                   legal: np.ndarray) -> None:
    """Give ``node`` (position ``b``, ``c`` to move, ``seen`` the positions before;
    ``passed``: the opponent has just passed) an edge per sensible action, in
    ``GoState.sensible_actions()``'s order, unvisited; its priors come at :func:`expand`."""
    n = len(b.color)
    legal_plays(b, geo, c, seen, legal)
    k = 0
    for p in range(n):
        if legal[p] and not is_eye(b, geo, p, c):
            f.action[node, k] = p
            k += 1
    if k == 0 or passed:
        f.action[node, k] = n
        k += 1
    for i in range(k):
        f.visits[node, i] = 0
        f.total[node, i] = 0.0
        f.child[node, i] = -1
    f.slots[node] = k


@inline
def expand(f: Forest, node: int, priors: np.ndarray, value: float) -> None:
    """``node``'s edges get ``priors`` (over the action space) renormalised over
    them (:meth:`engines.puct.Node.expand`), and it keeps the evaluator's ``value``."""
    k = f.slots[node]
    row = f.prior[node]
    for i in range(k):
        row[i] = priors[f.action[node, i]]
    total = pairwise_sum(row, k)
    for i in range(k):
        row[i] = row[i] / total if total > 0 else 1.0 / k
    f.value[node] = value
    f.status[node] = EXPANDED


@kernel
def prepare_roots(f: Forest, games: Games, geo: GoGeometry, rows: np.ndarray, nodes: np.ndarray,
                  legal: np.ndarray, planes: np.ndarray, recipe: np.ndarray) -> None:
    """The edges of the unexpanded roots ``nodes`` (game ``rows[j]``'s), and their
    planes in ``planes[j]`` (``recipe``: :func:`dlgo.encoders.go_kernels.recipe_array`)."""
    for j in range(len(rows)):
        g = rows[j]
        b, seen, c = board(games, g), history(games, g), games.to_move[g]
        sensible_edges(f, nodes[j], b, geo, c, seen, games.passed[g], legal)
        encode_board(b, geo, c, seen, recipe, planes[j])


# -------------------------------------------------------------- search
@inline
def step(f: Forest, b: GoBoard, geo: GoGeometry, seen: HashSet, node: int, i: int, c: int, passed: bool,
         komi: float) -> tuple[int, int, bool]:
    """Follow edge ``i`` of ``node`` (``c`` to move, on ``b``; ``passed``: the move
    into it was a pass): its move played, the position added to ``seen``, the
    child made on first visit (two passes: a finished game, scored). Returns the
    child, the colour to move there and whether the move was a pass."""
    n = len(b.color)
    m = f.action[node, i]
    if m < n:
        play(b, geo, m, c)
    c = 3 - c
    set_add(seen, b.hash[0] ^ side_key(c))
    child = f.child[node, i]
    if child < 0:
        if m == n and passed:
            winner = area_winner(b, geo, komi)
            child = plant(f, 0, 0, c, 0, FINISHED, 0.0 if winner == 0 else 1.0 if winner == c else -1.0)
        else:
            child = plant(f, 0, 0, c, 0, LEAF, 0.0)
        f.child[node, i] = child
    return child, c, m == n


@kernel
def descend_all(f: Forest, games: Games, geo: GoGeometry, scratch: GoBoard, legal: np.ndarray, rows: np.ndarray,
                budgets: np.ndarray, done: int, roots: np.ndarray, noised: np.ndarray, c: float, fpu: float,
                use_fpu: bool, forced: float, komi: float, nodes: np.ndarray, slots: np.ndarray, depths: np.ndarray,
                leaves: np.ndarray, pending: np.ndarray, planes: np.ndarray, recipe: np.ndarray) -> int:
    """One descent in the tree of each game ``g = rows[j]`` whose budget is more than
    ``done`` (from ``roots[g]`` on a copy of its board; its path in row g of
    ``nodes``/``slots``, ``depths[g]`` long, to ``leaves[g]``), in ``rows``' order:
    a finished game's value backed up at once; a new leaf given its edges and
    encoded into ``planes``, its game put into ``pending``, in order. Returns how
    many wait for the evaluator. At most one new node a game."""
    waiting = 0
    for j in range(len(rows)):
        if budgets[j] <= done:
            continue
        g = rows[j]
        seen = history(games, g)
        mark = seen.size[0]
        copy_into(scratch, board(games, g))
        colour, passed = int(games.to_move[g]), games.passed[g]
        root, node, depth = roots[g], roots[g], 0
        path, edges = nodes[g], slots[g]
        if forced > 0 and noised[g] and f.status[root] == EXPANDED:
            i = puct_choice(f, root, c, fpu, use_fpu, True, forced)
            if i >= 0:  # a forced playout
                path[0], edges[0] = root, i
                depth = 1
                node, colour, passed = step(f, scratch, geo, seen, root, i, colour, passed, komi)
        while f.status[node] == EXPANDED:
            i = puct_choice(f, node, c, fpu, use_fpu, False, 0.0)
            path[depth], edges[depth] = node, i
            depth += 1
            node, colour, passed = step(f, scratch, geo, seen, node, i, colour, passed, komi)
        leaves[g], depths[g] = node, depth
        if f.status[node] == FINISHED:
            backup(f, path, edges, depth, node, f.terminal[node])
        else:
            sensible_edges(f, node, scratch, geo, colour, seen, passed, legal)
            encode_board(scratch, geo, colour, seen, recipe, planes[waiting])
            pending[waiting] = g
            waiting += 1
        set_truncate(seen, mark)
    return waiting


@kernel
def expand_all(f: Forest, pending: np.ndarray, count: int, nodes: np.ndarray, slots: np.ndarray, depths: np.ndarray,
               leaves: np.ndarray, priors: np.ndarray, values: np.ndarray) -> None:
    """The evaluator's answers (row j for the game ``pending[j]``): each leaf
    expanded, its value backed up its path (none for a root: depth 0)."""
    for j in range(count):
        g = pending[j]
        leaf = leaves[g]
        value = values[j]
        expand(f, leaf, priors[j], value)
        backup(f, nodes[g], slots[g], depths[g], leaf, value)
