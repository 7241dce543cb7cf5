"""The Go engine's tree search, compiled: MCTS as Go programs play it.

The search of :mod:`engines.go_search`, over the compiled board of
:mod:`dlgo.games.go.kernels`. One simulation walks down the tree from the root,
choosing at each node the child of highest *urgency*, plays its moves on a
scratch board, expands a leaf once it has been reached ``expand`` times, plays
the game out (with the fast rollout policy's moves, or uniformly random ones)
and backs the winner up the path, and up the AMAF statistics of every sibling
whose move the winner's side played later in the simulation.

* **RAVE** (Gelly & Silver, "Combining online and offline knowledge in UCT",
  ICML 2007; "Monte-Carlo tree search and rapid action value estimation in
  computer Go", AIJ 2011): a move's *all-moves-as-first* value, from every
  simulation through its parent in which its player played it at any later
  time, is biased but arrives many times faster than its own. The urgency
  blends the two, ``beta * amaf + (1 - beta) * value``, with Silver's minimum-MSE
  schedule ``beta = n_amaf / (n_amaf + n + n * n_amaf / rave_equiv)``
  (Michi's form: the real value takes over once ``n`` nears ``rave_equiv``).
* **Priors** (Coulom, "Computing Elo ratings of move patterns in the game of
  Go", 2007; Gelly & Silver 2007; Michi): a new child starts with virtual
  simulations: ``prior_even`` at 50% for every move, and more, won or lost, from
  what Go knowledge says of it: the rollout policy's probability (its 3x3
  pattern and tactical features: capture, escape, atari, self-atari), captures,
  closeness to the last move along strings (common-fate-graph distance), and
  the lines of an empty area (the first two lose, the third wins). They make
  the first visits go to sensible moves, which RAVE then sorts. With move
  patterns (Coulom's Bradley-Terry ratings of :mod:`dlgo.games.go.move_features`,
  ``ws.log_gamma``), their probability of each move takes the rollout policy's
  place in the first of these priors.
* The urgency has an optional UCB exploration term ``c * sqrt(ln N / n)``; with
  priors and RAVE the suite's default is none (Michi's, Pachi's).
* **A network's guidance** (AlphaGo's asynchronous policy and value networks,
  Silver et al. 2016; Pachi's network priors, Baudis): a node reached
  ``guide_after`` times goes into a queue with its position's planes, written
  from the board (:func:`dlgo.encoders.go_kernels.encode_board`). Between
  short compiled chunks the caller asks a policy (and value) network about the
  whole queue in one batch, and :func:`apply_guidance` gives each child
  ``prior_net * sqrt(p)`` virtual wins for the policy's probability ``p`` of its
  move (Pachi's form) and keeps the value network's estimate of the node. From
  then on a simulation through it counts, in every node of its path above the
  deepest such node, AlphaGo's mix ``(1 - lam) * v + lam * z`` of that estimate
  ``v`` and the playout's result ``z`` (``value_share`` is ``1 - lam``). Tree and
  playouts never wait for the network.

The tree lives in flat arrays (:class:`Tree`): a node's children are one block
of consecutive nodes (``first_child``, ``num_children``), so no allocation
happens while searching. Passing is a child only when the opponent has just
passed or nothing else is left; two passes end the game and the leaf is scored
as the board stands.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from dlgo.encoders.go_kernels import encode_board
from dlgo.games.go.features import CAPTURE_1, CAPTURE_2, CAPTURE_MORE, SELF_ATARI
from dlgo.games.go.kernels import (EMPTY, GoBoard, GoGeometry, area_winner, copy_into, hash_after_play, is_eye, play,
                                   random_playout, side_key)
from dlgo.games.go.move_feature_kernels import team_logit, team_of_features
from dlgo.games.go.move_features import GROUPS
from dlgo.games.go.pattern_kernels import PolicyTables, policy_features, policy_playout
from dlgo.games.kernels import HashSet, below, inline, kernel, set_add, set_contains, set_truncate

__all__ = ["Tree", "Settings", "Workspace", "new_tree", "new_workspace", "expand", "simulate", "compact",
           "ask_network", "apply_guidance"]

#: the deepest a simulation's tree part may go (a longer line stops expanding)
MAX_DEPTH = 1024


class Tree(NamedTuple):
    """The search tree in flat arrays; node 0 is where it was started. A node's
    statistics are from the view of the player who moved *into* it."""

    first_child: np.ndarray  # int32[M]: its first child, -1 for a leaf
    num_children: np.ndarray  # int32[M]
    move: np.ndarray  # int32[M]: the point played into it, N for a pass
    visits: np.ndarray  # float64[M]: simulations through it
    wins: np.ndarray  # float64[M]: of them, won by its mover (a draw: a half)
    prior_visits: np.ndarray  # float64[M]: virtual simulations from Go knowledge
    prior_wins: np.ndarray  # float64[M]
    amaf_visits: np.ndarray  # float64[M]: simulations through its parent that played its move later
    amaf_wins: np.ndarray  # float64[M]
    guided: np.ndarray  # int8[M]: 0, or the network has been asked about it (1) and has answered (2)
    net_value: np.ndarray  # float64[M]: the value network's win rate for its mover, 0..1 (-1: none)
    size: np.ndarray  # int64[1]: nodes in use


class Settings(NamedTuple):
    """The search's switches and constants (see :class:`engines.go_search.GoSearch`)."""

    rave_equiv: float  # 0: no RAVE
    c: float  # UCB exploration; 0: none
    expand: int  # simulations through a leaf before it is expanded
    heavy: bool  # rollout policy playouts (else uniformly random)
    komi: float
    budget: int  # the most moves a playout plays
    prior_even: float  # virtual simulations at 50% for every child
    prior_policy: float  # times sqrt(the rollout policy's probability), won; 0: none of the priors below
    prior_capture_one: float
    prior_capture_many: float
    prior_self_atari: float  # lost
    prior_cfg1: float  # won, for a move at common-fate-graph distance 1, 2, 3 from the last move
    prior_cfg2: float
    prior_cfg3: float
    prior_empty_area: float  # lost on the first two lines of an empty area, won on the third
    guide_after: int  # simulations through a node before the network is asked about it; 0: no network
    prior_net: float  # times sqrt(the policy network's probability), won
    value_share: float  # the value network's share of a simulation's result (AlphaGo's 1 - lambda); 0: none


class Workspace(NamedTuple):
    """Scratch arrays of one search (a simulation's board, its line of moves)."""

    board: GoBoard
    seen: HashSet  # the game's positions, then the simulation's
    path: np.ndarray  # int32[MAX_DEPTH + 1]: the nodes of the simulation's walk
    moves: np.ndarray  # int32[MAX_DEPTH + budget]: every move of the simulation (N: pass)
    playout: np.ndarray  # int32[budget]: the playout's moves (-1: pass)
    first_color: np.ndarray  # int8[N]: who first played each point (AMAF), filled backwards
    logits: np.ndarray  # float64[N + 1]: scratch for the priors
    distance: np.ndarray  # int32[N]: common-fate-graph distance to the last move
    queue: np.ndarray  # int32[N]
    rng: np.ndarray  # uint64[1]
    asking: np.ndarray  # int32[Q]: the nodes waiting for the network
    asking_planes: np.ndarray  # float32[Q, rows, cols, planes]: their positions, encoded
    asking_size: np.ndarray  # int64[1]
    recipe: np.ndarray  # int32[5]: how the network's encoder reads a position (go_kernels.recipe_array)
    log_gamma: np.ndarray  # float64[NUM_LEVELS]: move patterns' log strengths for the priors (empty: none)
    team: np.ndarray  # int32[len(GROUPS)]: scratch, one move's levels


def new_tree(capacity: int) -> Tree:
    """An empty tree with room for ``capacity`` nodes: one root (node 0), a leaf."""
    def zeros() -> np.ndarray:
        return np.zeros(capacity)

    return Tree(np.full(capacity, -1, np.int32), np.zeros(capacity, np.int32), np.zeros(capacity, np.int32),
                zeros(), zeros(), zeros(), zeros(), zeros(), zeros(), np.zeros(capacity, np.int8),
                np.full(capacity, -1.0), np.ones(1, np.int64))


def grown(tree: Tree, capacity: int) -> Tree:
    """``tree`` with room for ``capacity`` nodes (its nodes copied)."""
    def grow(array: np.ndarray, fill: float) -> np.ndarray:
        bigger = np.full(capacity, fill, array.dtype)
        bigger[:len(array)] = array
        return bigger

    return Tree(grow(tree.first_child, -1), grow(tree.num_children, 0), grow(tree.move, 0), grow(tree.visits, 0),
                grow(tree.wins, 0), grow(tree.prior_visits, 0), grow(tree.prior_wins, 0), grow(tree.amaf_visits, 0),
                grow(tree.amaf_wins, 0), grow(tree.guided, 0), grow(tree.net_value, -1), tree.size.copy())


def new_workspace(board: GoBoard, seen: HashSet, budget: int, seed: int, recipe: np.ndarray | None = None,
                  shape: tuple[int, int, int] = (0, 0, 0), room: int = 0,
                  log_gamma: np.ndarray | None = None) -> Workspace:
    """A search's scratch arrays; with a network, ``recipe`` and ``shape`` (rows,
    columns, planes) say how its encoder reads a position, and ``room`` how many
    nodes may wait for it; with move patterns, ``log_gamma`` their log strengths."""
    n = len(board.color)
    return Workspace(board, seen, np.zeros(MAX_DEPTH + 1, np.int32), np.zeros(MAX_DEPTH + budget, np.int32),
                     np.zeros(budget, np.int32), np.zeros(n, np.int8), np.zeros(n + 1), np.zeros(n, np.int32),
                     np.zeros(n, np.int32), np.array([seed], np.uint64), np.zeros(room, np.int32),
                     np.zeros((room, *shape), np.float32), np.zeros(1, np.int64),
                     np.zeros(5, np.int32) if recipe is None else recipe,
                     np.zeros(0) if log_gamma is None else np.asarray(log_gamma, np.float64),
                     np.zeros(len(GROUPS), np.int32))


# ------------------------------------------------------------- expansion
@kernel
def expand(tree: Tree, node: int, b: GoBoard, g: GoGeometry, t: PolicyTables, s: Settings, ws: Workspace, c: int,
           passed: bool, last: int, before: int) -> bool:
    """Give ``node`` (position ``b``, ``c`` to move; ``passed``: the opponent just
    passed; ``last``, ``before``: the points of the last two moves, -1 for a pass or
    none) a child for every legal
    move that fills no eye of ``c``'s, and pass if the opponent passed or nothing
    else is left; set their priors. False (and the node stays a leaf) when the
    tree is full."""
    n = len(b.color)
    start = tree.size[0]
    if start + n + 1 > len(tree.move):
        return False
    side = side_key(3 - c)
    k = 0
    for p in range(n):
        if b.color[p] != EMPTY or is_eye(b, g, p, c):
            continue
        legal, h = hash_after_play(b, g, p, c)
        if legal and not set_contains(ws.seen, h ^ side):
            tree.move[start + k] = p
            k += 1
    if k == 0 or passed:
        tree.move[start + k] = n
        k += 1
    for i in range(start, start + k):
        tree.first_child[i] = -1
        tree.num_children[i] = 0
        tree.guided[i] = 0
        tree.net_value[i] = -1.0
        tree.visits[i] = tree.wins[i] = tree.amaf_visits[i] = tree.amaf_wins[i] = 0.0
        tree.prior_visits[i] = s.prior_even
        tree.prior_wins[i] = s.prior_even / 2
    if s.prior_policy > 0:
        set_priors(tree, start, k, b, g, t, s, ws, c, last, before)
    tree.first_child[node] = start
    tree.num_children[node] = k
    tree.size[0] = start + k
    return True


@inline
def add_prior(tree: Tree, child: int, visits: float, won: bool) -> None:
    tree.prior_visits[child] += visits
    if won:
        tree.prior_wins[child] += visits


@kernel
def set_priors(tree: Tree, start: int, k: int, b: GoBoard, g: GoGeometry, t: PolicyTables, s: Settings,
               ws: Workspace, c: int, last: int, before: int) -> None:
    """Go knowledge as virtual simulations for the children ``start .. start + k``."""
    patterns = len(ws.log_gamma) > 0
    n = len(b.color)
    if last >= 0:
        cfg_distances(b, g, ws, last)
    top = -1e300
    for i in range(start, start + k):  # the rollout policy's (or the patterns') logits, and the tactical flags
        p = tree.move[i]
        ws.logits[i - start] = -1e300
        if p == n:
            continue
        found = policy_features(b, g, t, p, c)
        logit = 0.0
        for j in range(found):
            f = t.found[j]
            logit += t.weights[f]
            if f == CAPTURE_1:
                add_prior(tree, i, s.prior_capture_one, True)
            elif f == CAPTURE_2 or f == CAPTURE_MORE:
                add_prior(tree, i, s.prior_capture_many, True)
            elif f == SELF_ATARI:
                add_prior(tree, i, s.prior_self_atari, False)
        if found and patterns:
            team_of_features(g, t, found, p, last, before, ws.team)
            logit = team_logit(ws.log_gamma, ws.team)
        if found:
            ws.logits[i - start] = logit
            top = max(top, logit)
        if last >= 0 and 1 <= ws.distance[p] <= 3:
            add_prior(tree, i, (s.prior_cfg1, s.prior_cfg2, s.prior_cfg3)[ws.distance[p] - 1], True)
        height = line_height(g, p)
        if height <= 2 and empty_area(b, g, p):
            add_prior(tree, i, s.prior_empty_area, height == 2)
    total = 0.0
    for i in range(k):
        if ws.logits[i] > -1e300:
            ws.logits[i] = math.exp(ws.logits[i] - top)
            total += ws.logits[i]
        else:
            ws.logits[i] = 0.0
    for i in range(k):
        if ws.logits[i] > 0:
            add_prior(tree, start + i, s.prior_policy * math.sqrt(ws.logits[i] / total), True)


@inline
def line_height(g: GoGeometry, p: int) -> int:
    """0 on the first line, 1 on the second, ..."""
    r, col = p // g.cols, p % g.cols
    return min(r, col, g.rows - 1 - r, g.cols - 1 - col)


@inline
def empty_area(b: GoBoard, g: GoGeometry, p: int) -> bool:
    """No stone within 3 steps (Manhattan distance) of ``p``."""
    r, col = p // g.cols, p % g.cols
    for dr in range(-3, 4):
        for dc in range(-3 + abs(dr), 4 - abs(dr)):
            rr, cc = r + dr, col + dc
            if 0 <= rr < g.rows and 0 <= cc < g.cols and b.color[rr * g.cols + cc] != EMPTY:
                return False
    return True


@kernel
def cfg_distances(b: GoBoard, g: GoGeometry, ws: Workspace, last: int) -> None:
    """``ws.distance[p]``: how far ``p`` is from ``last`` on the common fate graph
    (Bouzy 2003), where a string is one place: a breadth-first search in which
    reaching a stone reaches its whole string. Only distances up to 3 matter."""
    dist = ws.distance
    for p in range(len(b.color)):
        dist[p] = 1 << 20
    tail = reach(b, ws, last, 0, 0)
    head = 0
    while head < tail:
        p = ws.queue[head]
        head += 1
        if dist[p] >= 3:
            continue
        for k in range(4):
            q = g.neighbors[p, k]
            if q < 0:
                break
            if dist[q] == 1 << 20:
                tail = reach(b, ws, q, dist[p] + 1, tail)


@inline
def reach(b: GoBoard, ws: Workspace, q: int, d: int, tail: int) -> int:
    """``q``, or every stone of its string, is at distance ``d``: into the queue."""
    if b.color[q] == EMPTY:
        ws.distance[q] = d
        ws.queue[tail] = q
        return tail + 1
    stone = b.string[q]
    while stone >= 0:
        ws.distance[stone] = d
        ws.queue[tail] = stone
        tail += 1
        stone = b.next_stone[stone]
    return tail


# ------------------------------------------------------------- selection
@inline
def urgency(tree: Tree, child: int, s: Settings, log_parent: float) -> float:
    """The child's value for its mover, blended with its AMAF value (RAVE), plus
    the exploration term."""
    n = tree.visits[child] + tree.prior_visits[child]
    value = (tree.wins[child] + tree.prior_wins[child]) / n if n > 0 else 1.0
    amaf_n = tree.amaf_visits[child]
    if s.rave_equiv > 0 and amaf_n > 0:
        beta = amaf_n / (amaf_n + n + n * amaf_n / s.rave_equiv)
        value = beta * tree.amaf_wins[child] / amaf_n + (1 - beta) * value
    if s.c > 0:
        value += s.c * math.sqrt(log_parent / (tree.visits[child] + 1))
    return value


@inline
def select_child(tree: Tree, node: int, s: Settings, ws: Workspace) -> int:
    """The child of highest urgency (ties: the first from a random starting place)."""
    start = tree.first_child[node]
    k = tree.num_children[node]
    log_parent = math.log(tree.visits[node] + 1) if s.c > 0 else 0.0
    offset = below(ws.rng, k)
    best, best_value = start, -1e300
    for i in range(k):
        child = start + (offset + i) % k
        value = urgency(tree, child, s, log_parent)
        if value > best_value:
            best, best_value = child, value
    return best


# ------------------------------------------------------------ simulation
@kernel
def simulate(tree: Tree, root_node: int, root: GoBoard, g: GoGeometry, t: PolicyTables, s: Settings, ws: Workspace,
             color: int, passes: int, last: int, before: int, mark: int) -> None:
    """One simulation from ``root_node``, whose position is ``root`` with
    ``color`` to move after ``passes`` passes in a row (``last``, ``before``: the
    points of the last two moves, -1 for a pass or none); ``mark``: the size of ``ws.seen`` holding the game's
    positions."""
    b = ws.board
    copy_into(b, root)
    set_truncate(ws.seen, mark)
    n = len(b.color)
    node, c, depth = root_node, color, 0
    ws.path[0] = node
    winner = -1
    while tree.num_children[node] > 0 and depth < MAX_DEPTH:
        if s.guide_after > 0 and tree.guided[node] == 0 and tree.visits[node] + 1 >= s.guide_after:
            ask_network(tree, node, b, g, ws, c)
        child = select_child(tree, node, s, ws)
        m = tree.move[child]
        before = last
        if m == n:
            passes += 1
            last = -1
        else:
            play(b, g, m, c)
            passes = 0
            last = m
        set_add(ws.seen, b.hash[0] ^ side_key(3 - c))
        ws.moves[depth] = m
        c = 3 - c
        node = child
        depth += 1
        ws.path[depth] = node
        if passes >= 2:
            winner = area_winner(b, g, s.komi)
            break
        if tree.num_children[node] == 0 and tree.visits[node] + 1 >= s.expand:
            expand(tree, node, b, g, t, s, ws, c, passes > 0, last, before)
            break  # one expansion a simulation: the playout starts from the new node
    played = 0
    if winner < 0:
        if s.heavy:
            played = policy_playout(b, g, t, c, passes, last, ws.seen, s.budget, ws.rng, ws.playout)
        else:
            played = random_playout(b, g, c, passes, ws.seen, s.budget, ws.rng, False, ws.playout)
        for i in range(min(played, len(ws.playout))):
            ws.moves[depth + i] = n if ws.playout[i] < 0 else ws.playout[i]
        winner = area_winner(b, g, s.komi)
    backup(tree, ws, depth, depth + min(played, len(ws.playout)), color, winner, n, s.value_share)


@kernel
def backup(tree: Tree, ws: Workspace, depth: int, length: int, color: int, winner: int, n: int,
           value_share: float) -> None:
    """Count the simulation (``ws.moves[:length]``, ``color`` moving first; the
    first ``depth`` moves in the tree) in every node of its path, and in the AMAF
    statistics of every child of the path whose move its player made first from
    that node on. Above the deepest node of the path that the value network has
    valued, a node counts ``value_share`` of that value and the rest of the result."""
    first = ws.first_color
    for p in range(n):
        first[p] = 0
    valued = -1  # the depth of the deepest node on the path with the value network's estimate
    if value_share > 0:
        for d in range(depth, -1, -1):
            if tree.net_value[ws.path[d]] >= 0:
                valued = d
                break
    t = length - 1
    for d in range(depth, -1, -1):
        node = ws.path[d]
        mover = color if d % 2 == 1 else 3 - color  # who moved into the node at depth d
        tree.visits[node] += 1
        result = 1.0 if winner == mover else 0.5 if winner == 0 else 0.0
        if d <= valued:
            v = tree.net_value[ws.path[valued]]
            result = (1 - value_share) * result + value_share * (v if (valued - d) % 2 == 0 else 1.0 - v)
        tree.wins[node] += result
        while t >= d:  # the moves from depth d on, the earliest last: who played each point first
            m = ws.moves[t]
            if m < n:
                first[m] = color if t % 2 == 0 else 3 - color
            t -= 1
        k = tree.num_children[node]
        if k == 0:
            continue
        to_move = 3 - mover
        won = 1.0 if winner == to_move else 0.5 if winner == 0 else 0.0
        start = tree.first_child[node]
        for child in range(start, start + k):
            m = tree.move[child]
            if m < n and first[m] == to_move:
                tree.amaf_visits[child] += 1
                tree.amaf_wins[child] += won


@kernel
def simulate_many(tree: Tree, root_node: int, root: GoBoard, g: GoGeometry, t: PolicyTables, s: Settings,
                  ws: Workspace, color: int, passes: int, last: int, before: int, mark: int, count: int,
                  batch: int) -> int:
    """``count`` simulations (see :func:`simulate`), or fewer: it stops as soon as
    ``batch`` nodes wait for the network, so that the answers arrive after the
    same simulations whatever the clock says. Returns how many it ran."""
    for i in range(count):
        simulate(tree, root_node, root, g, t, s, ws, color, passes, last, before, mark)
        if ws.asking_size[0] >= batch:
            return i + 1
    return count


# ------------------------------------------------------------- guidance
@kernel
def ask_network(tree: Tree, node: int, b: GoBoard, g: GoGeometry, ws: Workspace, c: int) -> None:
    """Queue ``node`` (position ``b``, ``c`` to move) for the network, if the queue has room."""
    k = ws.asking_size[0]
    if k >= len(ws.asking):
        return
    encode_board(b, g, c, ws.seen, ws.recipe, ws.asking_planes[k])
    ws.asking[k] = node
    ws.asking_size[0] = k + 1
    tree.guided[node] = 1


@kernel
def apply_guidance(tree: Tree, ws: Workspace, policy: np.ndarray, values: np.ndarray, s: Settings) -> None:
    """The network's answers for the queued nodes (``policy[i]``: move
    probabilities over the action space, pass last; ``values[i]``: the value for
    the player to move, -1..1), as virtual simulations; empties the queue."""
    for i in range(ws.asking_size[0]):
        node = ws.asking[i]
        start, k = tree.first_child[node], tree.num_children[node]
        total = 0.0
        for child in range(start, start + k):
            total += policy[i, tree.move[child]]
        if total > 0:
            for child in range(start, start + k):
                add_prior(tree, child, s.prior_net * math.sqrt(policy[i, tree.move[child]] / total), True)
        if s.value_share > 0:  # the node's statistics are its mover's: the player to move there loses
            tree.net_value[node] = (1.0 - values[i]) / 2.0
        tree.guided[node] = 2
    ws.asking_size[0] = 0


# --------------------------------------------------------------- reuse
@kernel
def compact(tree: Tree, node: int, out: Tree) -> None:
    """Copy the subtree under ``node`` into the empty tree ``out``, as its node 0,
    breadth first (each block of children stays together); the rest of ``tree``
    is forgotten. Children that do not fit leave their parent a leaf."""
    copy_node(tree, node, out, 0)
    source = out.num_children  # scratch: the node of ``tree`` each new node copies, until it is expanded
    source[0] = node
    size = 1
    for head in range(len(out.move)):
        if head >= size:
            break
        old = source[head]
        k = tree.num_children[old]
        source[head] = 0
        out.first_child[head] = -1
        if k > 0 and size + k <= len(out.move):
            first = tree.first_child[old]
            for i in range(k):
                copy_node(tree, first + i, out, size + i)
                source[size + i] = first + i
            out.first_child[head] = size
            source[head] = k  # from here on, what the array is for: its number of children
            size += k
    out.size[0] = size


@inline
def copy_node(tree: Tree, old: int, out: Tree, new: int) -> None:
    """A node's move and statistics (not its children)."""
    out.move[new] = tree.move[old]
    out.visits[new] = tree.visits[old]
    out.wins[new] = tree.wins[old]
    out.prior_visits[new] = tree.prior_visits[old]
    out.prior_wins[new] = tree.prior_wins[old]
    out.amaf_visits[new] = tree.amaf_visits[old]
    out.amaf_wins[new] = tree.amaf_wins[old]
    out.guided[new] = tree.guided[old]
    out.net_value[new] = tree.net_value[old]
