"""A batch of PUCT search trees in flat arrays, compiled: AlphaZero's search for many games at once.

:class:`engines.forest.CompiledForest` drives these kernels; :class:`engines.puct.PUCTSearch`
over :class:`engines.puct.Node` objects is the readable reference, and the tests hold
the two to the same visits, simulation for simulation, on the same evaluations.

The trees of every game in flight share one pool of nodes (:class:`Forest`): a
node is a row of each array, its edges (one per sensible action, in the order
``state.sensible_actions()`` lists them) a row of the two-dimensional ones, so a
simulation allocates nothing but the one node it adds. The positions are the
k-in-a-row games' bitboards (:mod:`dlgo.games.kinarow_kernels`: Connect Four,
tic-tac-toe, any board of at most 63 cells): a node keeps both players'
stones, so stepping down the tree is two bit operations and a win test on the
windows through the cell just filled.

One step of the batch (:func:`descend_all`, then the network, then
:func:`expand_all`) is what the readable self-play loop does for each game: a
descent by the PUCT score

    Q(a) + c * P(a) * sqrt(sum N) / (1 + N(a))

(with ``fpu`` an unvisited edge's Q is the node's mean value minus ``fpu``;
KataGo's forced playouts at a noised root), a finished game's exact value
backed up at once, every other leaf encoded into the network's planes; then
each leaf expanded with the priors renormalised over its actions and its
value backed up, negated on the edges the other player chose. The sums are
numpy's pairwise sums (:func:`pairwise_sum`), so the arithmetic is the
reference's to the last bit.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from dlgo.games.kernels import inline, kernel
from dlgo.games.kinarow_kernels import LineTables

__all__ = ["Forest", "new_forest", "grown", "plant", "expand", "descend_all", "encode_leaves", "expand_all",
           "advance", "principal_line", "compact", "pairwise_sum", "LEAF", "EXPANDED", "FINISHED"]

LEAF, EXPANDED, FINISHED = 0, 1, 2  # a node's status: not yet expanded, expanded, a finished game


class Forest(NamedTuple):
    """The nodes of many games' trees. Edge statistics are from the view of the
    player to move at the node; node 0 onwards, ``size[0]`` in use."""

    black: np.ndarray  # int64[M]: black's stones, bit i for cell i
    white: np.ndarray  # int64[M]
    to_move: np.ndarray  # int8[M]: 1 black, 2 white
    stones: np.ndarray  # int16[M]: stones on the board
    status: np.ndarray  # int8[M]: LEAF, EXPANDED or FINISHED
    terminal: np.ndarray  # float64[M]: a finished game's value for the player to move (-1 lost, 0 drawn)
    value: np.ndarray  # float64[M]: the evaluator's value, kept at expansion
    slots: np.ndarray  # int16[M]: the node's edges
    action: np.ndarray  # int16[M, A]: each edge's action
    cell: np.ndarray  # int16[M, A]: the cell it fills
    prior: np.ndarray  # float64[M, A]: P, renormalised over the node's actions
    visits: np.ndarray  # int32[M, A]: N
    total: np.ndarray  # float64[M, A]: W, the sum of the values backed up through the edge
    child: np.ndarray  # int32[M, A]: the node it leads to, -1 until first visited
    size: np.ndarray  # int64[1]: nodes in use


def new_forest(capacity: int, actions: int) -> Forest:
    """An empty pool with room for ``capacity`` nodes of up to ``actions`` edges."""
    shape = (capacity, actions)
    return Forest(np.zeros(capacity, np.int64), np.zeros(capacity, np.int64), np.zeros(capacity, np.int8),
                  np.zeros(capacity, np.int16), np.zeros(capacity, np.int8), np.zeros(capacity),
                  np.zeros(capacity), np.zeros(capacity, np.int16), np.zeros(shape, np.int16),
                  np.zeros(shape, np.int16), np.zeros(shape), np.zeros(shape, np.int32), np.zeros(shape),
                  np.full(shape, -1, np.int32), np.zeros(1, np.int64))


def grown(forest: Forest, capacity: int) -> Forest:
    """``forest`` with room for ``capacity`` nodes, its nodes copied."""
    used = int(forest.size[0])
    bigger = new_forest(capacity, forest.action.shape[1])
    for old, new in zip(forest[:-1], bigger[:-1]):
        new[:used] = old[:used]
    bigger.size[0] = used
    return bigger


# ------------------------------------------------------------------ sums
@kernel  # called, not inlined: its halvings inlined at every use made numba's compile crawl
def pairwise_sum(a: np.ndarray, n: int) -> float:
    """``a[:n].sum()`` as numpy adds it up, bit for bit, so the same numbers give the
    same bits as the reference's ``np.sum``: eight partial sums, added pairwise, for
    up to 128 numbers; a longer run numpy splits in two halves (the first a multiple
    of 8) and adds their sums, each split so again while over 128. Three levels of
    halving reach 968 numbers, any Go board's actions up to 25x25's 626 (written
    out: numba caches no recursive function safely)."""
    if n < 8:
        s = 0.0
        for i in range(n):
            s += a[i]
        return s
    if n <= 128:
        return _block_sum(a, 0, n)
    half = _first_half(n)
    return _run_sum(a, 0, half) + _run_sum(a, half, n - half)


@inline
def _first_half(n: int) -> int:
    half = n // 2
    return half - half % 8


@kernel
def _run_sum(a: np.ndarray, start: int, n: int) -> float:
    """numpy's sum of the run of ``n`` (8 to 488) from ``start``: halved up to twice."""
    if n <= 128:
        return _block_sum(a, start, n)
    half = _first_half(n)
    return _halved_sum(a, start, half) + _halved_sum(a, start + half, n - half)


@inline
def _halved_sum(a: np.ndarray, start: int, n: int) -> float:
    """numpy's sum of the run of ``n`` (8 to 248) from ``start``: halved once at most."""
    if n <= 128:
        return _block_sum(a, start, n)
    half = _first_half(n)
    return _block_sum(a, start, half) + _block_sum(a, start + half, n - half)


@inline
def _block_sum(a: np.ndarray, start: int, n: int) -> float:
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = 8
    while i < n - n % 8:
        r0 += a[start + i]
        r1 += a[start + i + 1]
        r2 += a[start + i + 2]
        r3 += a[start + i + 3]
        r4 += a[start + i + 4]
        r5 += a[start + i + 5]
        r6 += a[start + i + 6]
        r7 += a[start + i + 7]
        i += 8
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        s += a[start + i]
        i += 1
    return s


# ----------------------------------------------------------------- nodes
@kernel
def plant(f: Forest, black: int, white: int, to_move: int, stones: int, status: int, terminal: float) -> int:
    """A new node for a position given whole (a game's root); returns its index."""
    n = f.size[0]
    f.size[0] = n + 1
    f.black[n] = black
    f.white[n] = white
    f.to_move[n] = to_move
    f.stones[n] = stones
    f.status[n] = status
    f.terminal[n] = terminal
    f.value[n] = 0.0
    f.slots[n] = 0
    return n


@inline
def new_child(f: Forest, t: LineTables, node: int, slot: int) -> int:
    """The node after edge ``slot`` of ``node`` (made, and linked, on first visit):
    the mover's stone on the edge's cell; finished if it completes a window or fills the board."""
    child = f.child[node, slot]
    if child >= 0:
        return child
    cell = f.cell[node, slot]
    mover = f.to_move[node]
    black, white = f.black[node], f.white[node]
    if mover == 1:
        black |= np.int64(1) << cell
        mine = black
    else:
        white |= np.int64(1) << cell
        mine = white
    stones = f.stones[node] + 1
    status, terminal = LEAF, 0.0
    for j in range(t.window_start[cell], t.window_start[cell + 1]):
        w = t.windows[j]
        if mine & w == w:
            status, terminal = FINISHED, -1.0  # the player to move there has lost
            break
    if status == LEAF and stones == len(t.above):
        status = FINISHED  # a full board: drawn
    child = plant(f, black, white, 3 - mover, stones, status, terminal)
    f.child[node, slot] = child
    return child


@kernel
def expand(f: Forest, t: LineTables, node: int, priors: np.ndarray, value: float) -> None:
    """Give ``node`` its edges, one per legal action in the reference's order
    (gravity: each column's lowest empty cell, the action its column; else each
    empty cell, the action the cell), with ``priors`` (over the action space)
    renormalised over them, and keep the evaluator's ``value``."""
    occupied = f.black[node] | f.white[node]
    k = 0
    if t.gravity:
        for col in range(t.cols):
            cell = col
            while cell >= 0 and (occupied >> cell) & 1:
                cell = t.above[cell]
            if cell >= 0:
                f.action[node, k] = col
                f.cell[node, k] = cell
                k += 1
    else:
        for cell in range(len(t.above)):
            if not (occupied >> cell) & 1:
                f.action[node, k] = cell
                f.cell[node, k] = cell
                k += 1
    row = f.prior[node]
    for i in range(k):
        row[i] = np.float64(priors[f.action[node, i]])
        f.visits[node, i] = 0
        f.total[node, i] = 0.0
        f.child[node, i] = -1
    total = pairwise_sum(row, k)
    for i in range(k):
        row[i] = row[i] / total if total > 0 else 1.0 / k
    f.slots[node] = k
    f.value[node] = value
    f.status[node] = EXPANDED


# ---------------------------------------------------------------- search
@inline
def puct_choice(f: Forest, node: int, c: float, fpu: float, use_fpu: bool, only_short: bool, forced: float) -> int:
    """The edge of highest PUCT score (the first of equals); with ``only_short``,
    among the visited edges short of their forced visits, ``sqrt(forced * P * sum N)``
    (-1 if there are none)."""
    k = f.slots[node]
    visits = 0.0
    for i in range(k):
        visits += f.visits[node, i]
    explore = c * math.sqrt(visits if visits > 1.0 else 1.0)
    unvisited_q = 0.0
    fpu_on = use_fpu and visits > 0
    if fpu_on:
        unvisited_q = pairwise_sum(f.total[node], k) / visits - fpu
    best, choice = -math.inf, -1
    for i in range(k):
        n = np.float64(f.visits[node, i])
        if only_short and not (n > 0 and n < math.sqrt(forced * f.prior[node, i] * visits)):
            continue
        q = f.total[node, i] / max(n, 1.0)
        if fpu_on and n == 0:
            q = unvisited_q
        score = q + explore * f.prior[node, i] / (n + 1.0)
        if score > best:
            best, choice = score, i
    return choice


@inline
def descend(f: Forest, t: LineTables, root: int, c: float, fpu: float, use_fpu: bool, forced: float,
            noised: bool, nodes: np.ndarray, slots: np.ndarray) -> tuple[int, int]:
    """Follow the PUCT scores from ``root`` to a node not yet expanded or a finished
    game, making the node it reaches; the path's nodes and edges go into ``nodes``
    and ``slots``. Returns ``(leaf, depth)``. A forced playout first, where asked."""
    node, depth = root, 0
    if forced > 0 and noised and f.status[root] == EXPANDED:
        i = puct_choice(f, root, c, fpu, use_fpu, True, forced)
        if i >= 0:
            nodes[0], slots[0] = root, i
            depth = 1
            node = new_child(f, t, root, i)
    while f.status[node] == EXPANDED:
        i = puct_choice(f, node, c, fpu, use_fpu, False, 0.0)
        nodes[depth], slots[depth] = node, i
        depth += 1
        node = new_child(f, t, node, i)
    return node, depth


@inline
def backup(f: Forest, nodes: np.ndarray, slots: np.ndarray, depth: int, leaf: int, value: float) -> None:
    """Add ``value`` (for the player to move at ``leaf``) to every edge of the path,
    negated on the edges the other player chose."""
    player = f.to_move[leaf]
    for d in range(depth):
        node, i = nodes[d], slots[d]
        f.visits[node, i] += 1
        f.total[node, i] += value if f.to_move[node] == player else -value


@kernel
def descend_all(f: Forest, t: LineTables, roots: np.ndarray, active: np.ndarray, noised: np.ndarray, c: float,
                fpu: float, use_fpu: bool, forced: float, nodes: np.ndarray, slots: np.ndarray,
                depths: np.ndarray, leaves: np.ndarray, pending: np.ndarray) -> int:
    """One descent in each ``active`` game's tree (``roots[g]``; its path in row g
    of ``nodes``/``slots``, ``depths[g]`` long, ending at ``leaves[g]``). A finished
    game's value is backed up at once; the games whose leaf needs the evaluator go
    into ``pending``, in order. Returns how many there are. At most one new node a game."""
    waiting = 0
    for g in range(len(roots)):
        if not active[g]:
            continue
        leaf, depth = descend(f, t, roots[g], c, fpu, use_fpu, forced, noised[g], nodes[g], slots[g])
        waiting = settle(f, g, leaf, depth, nodes, slots, depths, leaves, pending, waiting)
    return waiting


@inline
def settle(f: Forest, g: int, leaf: int, depth: int, nodes: np.ndarray, slots: np.ndarray, depths: np.ndarray,
           leaves: np.ndarray, pending: np.ndarray, waiting: int) -> int:
    """Game ``g``'s descent reached ``leaf`` at ``depth``: a finished game's value backed
    up at once, else the game queued in ``pending`` for the evaluator. Returns the queue's length."""
    leaves[g], depths[g] = leaf, depth
    if f.status[leaf] == FINISHED:
        backup(f, nodes[g], slots[g], depth, leaf, f.terminal[leaf])
        return waiting
    pending[waiting] = g
    return waiting + 1


@kernel
def encode_leaves(f: Forest, t: LineTables, nodes: np.ndarray, count: int, planes: np.ndarray,
                  recipe: np.ndarray) -> None:
    """The network's planes (``planes[j]``, rows x cols x planes) of the first
    ``count`` of ``nodes``: ``recipe`` = (the mover's stones' plane, the opponent's,
    the plane of ones when black is to move, when white is; -1: none)."""
    cols = t.cols
    for j in range(count):
        node = nodes[j]
        out = planes[j]
        out[:] = 0.0
        if f.to_move[node] == 1:
            mine, theirs, turn = f.black[node], f.white[node], recipe[2]
        else:
            mine, theirs, turn = f.white[node], f.black[node], recipe[3]
        for cell in range(len(t.above)):
            r, col = cell // cols, cell % cols
            if (mine >> cell) & 1 and recipe[0] >= 0:
                out[r, col, recipe[0]] = 1.0
            elif (theirs >> cell) & 1 and recipe[1] >= 0:
                out[r, col, recipe[1]] = 1.0
        if turn >= 0:
            out[:, :, turn] = 1.0


@kernel
def expand_all(f: Forest, t: LineTables, pending: np.ndarray, count: int, nodes: np.ndarray, slots: np.ndarray,
               depths: np.ndarray, leaves: np.ndarray, priors: np.ndarray, values: np.ndarray) -> None:
    """The evaluator's answers for the ``count`` pending games' leaves (row j for
    ``pending[j]``): each leaf expanded, its value backed up its path."""
    for j in range(count):
        g = pending[j]
        leaf = leaves[g]
        value = np.float64(values[j])
        expand(f, t, leaf, priors[j], value)
        backup(f, nodes[g], slots[g], depths[g], leaf, value)


@kernel
def advance(f: Forest, t: LineTables, root: int, slot: int) -> int:
    """The root after the edge ``slot`` is played: its child, kept with its statistics."""
    return new_child(f, t, root, slot)


@kernel
def principal_line(f: Forest, root: int, slot: int, line: np.ndarray) -> int:
    """The action of edge ``slot`` of ``root``, then the most visited edge's (the
    first of equals) at each node below, while the node has visits and room is
    left in ``line``; returns the line's length."""
    line[0] = f.action[root, slot]
    length = 1
    node = f.child[root, slot]
    while node >= 0 and f.status[node] == EXPANDED and length < len(line):
        best, most = -1, 0
        for i in range(f.slots[node]):
            if f.visits[node, i] > most:
                best, most = i, f.visits[node, i]
        if best < 0:
            break
        line[length] = f.action[node, best]
        length += 1
        node = f.child[node, best]
    return length


@kernel
def compact(f: Forest, roots: np.ndarray, moved: np.ndarray, stack: np.ndarray) -> None:
    """Keep only the trees under ``roots`` (renumbered in place, in their order;
    ``roots`` updated): mark what they reach, give the kept nodes consecutive
    numbers in their old order (a node never moves up, so one pass copies them),
    and point the edges at the new numbers. ``moved`` and ``stack``: scratch of the pool's size."""
    size = f.size[0]
    for i in range(size):
        moved[i] = -1
    for g in range(len(roots)):  # mark: moved[i] = 0 for every node a root reaches
        top = 0
        if roots[g] >= 0 and moved[roots[g]] < 0:
            stack[0] = roots[g]
            moved[roots[g]] = 0
            top = 1
        while top:
            top -= 1
            node = stack[top]
            for i in range(f.slots[node]):
                child = f.child[node, i]
                if child >= 0 and moved[child] < 0:
                    moved[child] = 0
                    stack[top] = child
                    top += 1
    kept = 0
    for i in range(size):
        if moved[i] == 0:
            moved[i] = kept
            kept += 1
        else:
            moved[i] = -1
    for i in range(size):
        j = moved[i]
        if j < 0:
            continue
        f.black[j], f.white[j], f.to_move[j], f.stones[j] = f.black[i], f.white[i], f.to_move[i], f.stones[i]
        f.status[j], f.terminal[j], f.value[j], f.slots[j] = f.status[i], f.terminal[i], f.value[i], f.slots[i]
        for s in range(f.slots[i]):
            f.action[j, s] = f.action[i, s]
            f.cell[j, s] = f.cell[i, s]
            f.prior[j, s] = f.prior[i, s]
            f.visits[j, s] = f.visits[i, s]
            f.total[j, s] = f.total[i, s]
            child = f.child[i, s]
            f.child[j, s] = moved[child] if child >= 0 else -1
    for g in range(len(roots)):
        if roots[g] >= 0:
            roots[g] = moved[roots[g]]
    f.size[0] = kept
