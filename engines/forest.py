"""The search trees of a batch of games, readable or compiled: what batched self-play searches in.

A :class:`Forest` holds one search's tree for every game in flight, keyed by the
game's number, and runs their simulations together, one descent a game a step,
each step's leaves evaluated in one call (:mod:`engines.training.selfplay`).
Two kinds, one behaviour:

* :class:`NodeForest`: the trees as :class:`engines.puct.Node` objects, for any
  game and any search (PUCT, Gumbel): the readable reference.
* :class:`CompiledForest` (and :class:`GumbelForest` for Gumbel search): every tree in one pool of flat arrays,
simulated by
  the compiled kernels of :mod:`engines.forest_kernels`, the leaves encoded
  there too, so only the network call is left to Python. For PUCT over a network
  whose encoder reads stones alone (``Encoder.stone_planes``) on a game with
  compiled rules (``Game.compiled_rules``: Connect Four, tic-tac-toe). The
  tests hold it to :class:`NodeForest`'s visits simulation for simulation.
* :class:`GoForest`: the same pool for PUCT on Go, the positions on Go's
  compiled board (:mod:`engines.go_forest_kernels`), for a network whose
  encoder reads Go compiled (``Encoder.go_planes``).

:func:`make_forest` picks the compiled one wherever it can play. A move's
root is read back as a :class:`Node` (:meth:`Forest.root`), so the policy
target, the root value and the move played come from the same code in both.
"""
from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, Protocol, Sequence, cast

import numpy as np

from dlgo.core.game import CompiledRules, State
from dlgo.encoders.base import GoPlanes
from engines.gumbel import GumbelSearch
from engines.puct import Evaluator, MoveSearch, Node, PUCTSearch, backup, terminal_value

if TYPE_CHECKING:
    from dlgo.games.go.compiled_rules import GoRules  # numba's: imported where a Go forest is made

#: the first pool's room, in nodes a game (it grows as needed)
NODES_PER_GAME = 256
#: a search makes room in the pool for this many steps at a time
ROOM_STEPS = 1024


class PlanesEvaluator(Protocol):
    """An evaluator that also answers for positions already encoded (a network's)."""

    evaluations: int

    def check(self, state: State) -> None:
        """An error unless it can evaluate positions of ``state``'s game."""

    def stone_planes(self) -> tuple[int, int, int, int] | None:
        """How its encoder reads stones (``Encoder.stone_planes``)."""

    def planes_shape(self) -> tuple[int, int, int]:
        """One position's planes: rows, columns, planes."""

    def evaluate_planes(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(priors (n, num_actions), values (n,))`` for ``n`` encoded positions."""


class Forest(Protocol):
    """One search's trees, a tree per game in flight (by the game's key)."""

    def plant(self, key: int, state: State) -> None:
        """A tree for a new game at ``state``."""

    def fell(self, key: int) -> None:
        """Drop a finished game's tree."""

    def expand_roots(self, keys: Sequence[int]) -> None:
        """Evaluate (in one call) and expand the roots of ``keys`` not expanded yet."""

    def root(self, key: int) -> Node:
        """The game's root, its statistics as arrays (a copy for a compiled tree)."""

    def store(self, key: int, root: Node) -> None:
        """Keep what a search's ``begin`` changed in ``root`` (its noised priors)."""

    def search(self, keys: Sequence[int], budgets: Sequence[int]) -> None:
        """Simulate each game's tree its budget of times, one descent a game a step,
        a step's leaves evaluated in one call."""

    def advance(self, key: int, action: int, state: State) -> None:
        """The game went on by ``action`` to ``state``: its tree is the subtree there."""


class NodeForest:
    """The trees as :class:`Node` objects, searched by ``search``'s own ``descend``."""

    def __init__(self, search: MoveSearch):
        self.move_search = search
        self.trees: dict[int, Node] = {}

    def plant(self, key: int, state: State) -> None:
        self.trees[key] = Node(state)

    def fell(self, key: int) -> None:
        del self.trees[key]

    def expand_roots(self, keys: Sequence[int]) -> None:
        unexpanded = [self.trees[key] for key in keys if not self.trees[key].expanded]
        if unexpanded:
            priors, values = self.move_search.evaluator.evaluate([node.state for node in unexpanded])
            for node, p, v in zip(unexpanded, priors, values):
                node.expand(p, v)

    def root(self, key: int) -> Node:
        return self.trees[key]

    def store(self, key: int, root: Node) -> None:
        pass  # the root is the tree's own node

    def search(self, keys: Sequence[int], budgets: Sequence[int]) -> None:
        trees = [self.trees[key] for key in keys]
        for step in range(max(budgets, default=0)):
            pending: list[tuple[list[tuple[Node, int]], Node]] = []
            for tree, budget in zip(trees, budgets):
                if step >= budget:
                    continue
                path, leaf = self.move_search.descend(tree)
                if leaf.terminal is not None:
                    backup(path, leaf, leaf.terminal)
                else:
                    pending.append((path, leaf))
            if pending:
                priors, values = self.move_search.evaluator.evaluate([leaf.state for _, leaf in pending])
                for (path, leaf), p, v in zip(pending, priors, values):
                    leaf.expand(p, v)
                    backup(path, leaf, float(v))

    def advance(self, key: int, action: int, state: State) -> None:
        tree = self.trees[key]
        child = tree.children.get(int(np.flatnonzero(tree.actions == action)[0])) if tree.expanded else None
        if child is None:
            child = Node(state)
        child.state = state  # the game's own state (the same position): its history is the game's
        self.trees[key] = child


class CompiledForest:
    """Every game's tree in one pool of flat arrays (:class:`engines.forest_kernels.Forest`),
    simulated by PUCT as ``search`` is set (its ``c``, ``fpu``, forced playouts), the
    leaves encoded from bitboards and evaluated by ``evaluator.evaluate_planes``."""

    def __init__(self, search: PUCTSearch, evaluator: PlanesEvaluator, rules: CompiledRules, num_actions: int):
        import engines.forest_kernels as kernels  # numba: compiled on first use, cached on disk

        self.kernels = kernels
        self.move_search = search
        self.evaluator = evaluator
        self.rules = rules
        self.tables = rules.tables
        self.recipe = np.array(evaluator.stone_planes(), np.int32)
        self.shape = evaluator.planes_shape()
        self.pool = kernels.new_forest(NODES_PER_GAME, num_actions)
        self.depth = len(self.tables.above) + 2  # the longest path: a move a cell
        self.slot: dict[int, int] = {}  # each game's row in the per-game arrays
        self.states: dict[int, State] = {}
        self.roots = np.zeros(0, np.int32)
        self.noised = np.zeros(0, np.bool_)

    # -------------------------------------------------------------- games
    def plant(self, key: int, state: State) -> None:
        if not self.states:
            self.evaluator.check(state)
        free = np.flatnonzero(self.roots < 0)
        if len(free):
            slot = int(free[0])
        else:
            slot = len(self.roots)
            self.roots = np.append(self.roots, np.int32(-1))
            self.noised = np.append(self.noised, False)
        self.slot[key] = slot
        self.states[key] = state
        self.roots[slot] = self._planted(state)
        self.noised[slot] = False

    def _planted(self, state: State) -> int:
        self._make_room(1)
        black, white, to_move, stones = self.rules.words(state)
        finished = state.is_over()
        return int(self.kernels.plant(self.pool, black, white, to_move, stones,
                                      self.kernels.FINISHED if finished else self.kernels.LEAF,
                                      terminal_value(state) if finished else 0.0))

    def fell(self, key: int) -> None:
        slot = self.slot.pop(key)
        del self.states[key]
        self.roots[slot] = -1  # its nodes go at the next compaction

    def advance(self, key: int, action: int, state: State) -> None:
        slot, root = self._moved_on(key, state)
        if self.pool.status[root] != self.kernels.EXPANDED:
            self.roots[slot] = self._planted(state)
            return
        edges = self.pool.action[root, :self.pool.slots[root]]
        self.roots[slot] = self.kernels.advance(self.pool, self.tables, root, int(np.flatnonzero(edges == action)[0]))

    def _moved_on(self, key: int, state: State) -> tuple[int, int]:
        """Game ``key`` is at ``state`` now, its root not yet moved: its slot and that root
        (room made first: a compaction renumbers the nodes; the new root's priors unnoised)."""
        self._make_room(1)
        slot = self.slot[key]
        self.states[key] = state
        self.noised[slot] = False
        return slot, int(self.roots[slot])

    # ------------------------------------------------------------- roots
    def root(self, key: int) -> Node:
        slot = self.slot[key]
        n, pool = int(self.roots[slot]), self.pool
        node = Node(self.states[key])
        if pool.status[n] == self.kernels.EXPANDED:
            k = int(pool.slots[n])
            node.actions = pool.action[n, :k].astype(np.int64)
            node.P = pool.prior[n, :k].copy()
            node.N = pool.visits[n, :k].astype(np.float64)
            node.W = pool.total[n, :k].copy()
            node.value = float(pool.value[n])
            node.noised = bool(self.noised[slot])
        return node

    def store(self, key: int, root: Node) -> None:
        slot = self.slot[key]
        n = int(self.roots[slot])
        if root.expanded:
            self.pool.prior[n, :len(root.P)] = root.P
        self.noised[slot] = root.noised

    def expand_roots(self, keys: Sequence[int]) -> None:
        nodes = np.array([self.roots[self.slot[key]] for key in keys], np.int32)
        nodes = nodes[self.pool.status[nodes] == self.kernels.LEAF]
        if len(nodes):
            planes = np.zeros((len(nodes), *self.shape), np.float32)
            self.kernels.encode_leaves(self.pool, self.tables, nodes, len(nodes), planes, self.recipe)
            priors, values = self.evaluator.evaluate_planes(planes)
            for node, p, v in zip(nodes, priors, values):
                self.kernels.expand(self.pool, self.tables, int(node), p, float(v))

    # ------------------------------------------------------------ search
    def search(self, keys: Sequence[int], budgets: Sequence[int], deadline: float = math.inf) -> None:
        """:meth:`Forest.search`; or fewer simulations if ``time.perf_counter()``
        reaches ``deadline`` first (checked after each step)."""
        most = max(budgets, default=0)
        kernels = self.kernels
        games = len(self.roots)
        rows = np.array([self.slot[key] for key in keys], np.int64)
        budget = np.zeros(games, np.int64)
        budget[rows] = budgets
        nodes = np.zeros((games, self.depth), np.int32)
        slots = np.zeros((games, self.depth), np.int32)
        depths = np.zeros(games, np.int32)
        leaves = np.zeros(games, np.int32)
        pending = np.zeros(games, np.int32)
        waiting_nodes = np.zeros(games, np.int32)
        planes = np.zeros((games, *self.shape), np.float32)
        step = 0
        while step < most:
            if step and deadline != math.inf and time.perf_counter() >= deadline:
                break
            if step % ROOM_STEPS == 0:  # at most a new node a game a step: room for the next steps
                self._make_room(len(keys) * min(most - step, ROOM_STEPS))
            pool, tables = self.pool, self.tables
            waiting = self._descend_all(pool, tables, budget > step, nodes, slots, depths, leaves, pending)
            if waiting:
                np.take(leaves, pending[:waiting], out=waiting_nodes[:waiting])
                kernels.encode_leaves(pool, tables, waiting_nodes, waiting, planes, self.recipe)
                priors, values = self.evaluator.evaluate_planes(planes[:waiting])
                kernels.expand_all(pool, tables, pending, waiting, nodes, slots, depths, leaves,
                                   np.ascontiguousarray(priors, np.float32), np.ascontiguousarray(values, np.float32))
            step += 1

    def _descend_all(self, pool: Any, tables: Any, active: np.ndarray, nodes: np.ndarray, slots: np.ndarray,
                     depths: np.ndarray, leaves: np.ndarray, pending: np.ndarray) -> int:
        """One step's descents, PUCT's (:func:`engines.forest_kernels.descend_all`);
        returns how many leaves wait for the evaluator."""
        search = self.move_search
        fpu = search.fpu
        return int(self.kernels.descend_all(pool, tables, self.roots, active, self.noised, float(search.c),
                                            0.0 if fpu is None else float(fpu), fpu is not None,
                                            float(search.forced_playouts), nodes, slots, depths, leaves, pending))

    def principal_variation(self, key: int, action: int) -> tuple[int, ...]:
        """``action`` and the most visited line under it, as far as the game's tree has searched."""
        root = int(self.roots[self.slot[key]])
        edges = self.pool.action[root, :self.pool.slots[root]]
        line = np.zeros(self.depth, np.int32)
        length = self.kernels.principal_line(self.pool, root, int(np.flatnonzero(edges == action)[0]), line)
        return tuple(int(a) for a in line[:length])

    def _make_room(self, nodes: int) -> None:
        """Room in the pool for ``nodes`` more: the finished games' and the played
        moves' nodes dropped (compaction), and the pool grown if that is not enough."""
        pool = self.pool
        capacity = len(pool.status)
        if int(pool.size[0]) + nodes <= capacity:
            return
        scratch = np.zeros(capacity, np.int32)
        self.kernels.compact(pool, self.roots, scratch, np.zeros(capacity, np.int32))
        used = int(pool.size[0])
        if used + nodes > capacity // 2:
            self.pool = self.kernels.grown(pool, max(2 * capacity, 2 * (used + nodes)))

    @property
    def nodes(self) -> int:
        """Nodes in use in the pool (the live trees and any not yet compacted away)."""
        return int(self.pool.size[0])

    @property
    def capacity(self) -> int:
        return len(self.pool.status)


# How a Gumbel move's search meets its plan (GumbelForest):
# ``GumbelSearch`` keeps a move's plan (the
# noise, the schedule) by its root's ``id``, from ``begin`` to ``play``. So
# :meth:`GumbelForest.store`, called after ``begin`` with the root it began,
# keeps that :class:`~engines.puct.Node` as the game's root view and copies the
# plan's noise and schedule into the forest's per-game arrays; until the game
# moves on (:meth:`~GumbelForest.advance`) or ends, :meth:`~GumbelForest.root`
# returns that same object, its visits brought up to date, so
# ``policy_target``, ``search_value`` and ``play`` find the plan. ``begin``
# starts each move from a fresh root (as mctx does): ``store`` drops the root's
# earlier visits and children in the pool too (their nodes go at the next
# compaction), and they are evaluated again when the search reaches them.


class GumbelForest(CompiledForest):
    """Every game's tree in one pool (:class:`CompiledForest`), searched as ``search``
    (a :class:`GumbelSearch`: its ``c_visit``, ``c_scale`` and plans) searches."""

    def __init__(self, search: GumbelSearch, evaluator: PlanesEvaluator, rules: CompiledRules, num_actions: int):
        # the base keeps the search for PUCT's settings, read only by the search this class replaces
        super().__init__(search, evaluator, rules, num_actions)  # type: ignore[arg-type]
        import engines.gumbel_forest_kernels as gumbel_kernels  # numba: compiled on first use, cached on disk

        self.gumbel_kernels = gumbel_kernels
        self.gumbel_search = search
        self.views: dict[int, Node] = {}  # each game's root as its move's search began it, until it moves on
        self.gumbel = np.zeros((0, num_actions))  # per game (its slot): the move's Gumbel noise per root edge
        self.schedule = np.zeros((0, 1), np.int32)  # ... its considered visits, simulation by simulation
        self.scheduled = np.zeros(0, np.int64)  # ... and how many it planned
        self.scratch = np.zeros((2, num_actions))  # the descents' workspace: a node's scores, and more

    # -------------------------------------------------------------- games
    def plant(self, key: int, state: State) -> None:
        super().plant(key, state)
        games = len(self.roots)
        if len(self.scheduled) < games:
            more = games - len(self.scheduled)
            self.gumbel = np.concatenate([self.gumbel, np.zeros((more, self.gumbel.shape[1]))])
            self.schedule = np.concatenate([self.schedule, np.zeros((more, self.schedule.shape[1]), np.int32)])
            self.scheduled = np.concatenate([self.scheduled, np.zeros(more, np.int64)])
        self.scheduled[self.slot[key]] = 0

    def fell(self, key: int) -> None:
        self.views.pop(key, None)
        super().fell(key)

    def advance(self, key: int, action: int, state: State) -> None:
        self.views.pop(key, None)
        super().advance(key, action, state)

    # ------------------------------------------------------------- roots
    def root(self, key: int) -> Node:
        """The game's root as a :class:`Node` (a copy of the pool's); once a move's search
        has begun (:meth:`store`), the very node it began, its visits brought up to date."""
        fresh = super().root(key)
        view = self.views.get(key)
        if view is None:
            return fresh
        view.N, view.W = fresh.N, fresh.W
        return view

    def store(self, key: int, root: Node) -> None:
        """Keep what ``GumbelSearch.begin`` did to ``root``: the root fresh (its visits
        and children dropped), the move's noise and schedule, and ``root`` itself as
        the game's root until it moves on."""
        super().store(key, root)
        if not root.expanded:
            return
        slot, pool = self.slot[key], self.pool
        n, k = int(self.roots[slot]), len(root.actions)
        pool.visits[n, :k] = root.N
        pool.total[n, :k] = root.W
        pool.child[n, :k][root.N == 0] = -1  # begin's fresh root: the children it dropped
        plan = self.gumbel_search.plans[id(root)]
        planned = len(plan.schedule)
        if planned > self.schedule.shape[1]:
            wider = np.zeros((len(self.schedule), planned), np.int32)
            wider[:, :self.schedule.shape[1]] = self.schedule
            self.schedule = wider
        self.gumbel[slot, :k] = plan.gumbel
        self.schedule[slot, :planned] = plan.schedule
        self.scheduled[slot] = planned
        self.views[key] = root

    # ------------------------------------------------------------ search
    def _descend_all(self, pool: Any, tables: Any, active: np.ndarray, nodes: np.ndarray,
                     slots: np.ndarray, depths: np.ndarray, leaves: np.ndarray, pending: np.ndarray) -> int:
        """One step's descents (:func:`engines.gumbel_forest_kernels.gumbel_descend_all`);
        returns how many leaves wait for the evaluator."""
        search = self.gumbel_search
        return int(self.gumbel_kernels.gumbel_descend_all(
            pool, tables, self.roots, active, self.gumbel, self.schedule, self.scheduled, float(search.c_visit),
            float(search.c_scale), nodes, slots, depths, leaves, pending, self.scratch[0], self.scratch[1]))


#: the first room, in positions, of each game's superko set (its history and a descent's path); it grows as needed
FIRST_ROOM = 256


def go_planes_of(evaluator: Any) -> GoPlanes | None:
    """How ``evaluator``'s encoder reads a Go position (``Encoder.go_planes``), asked
    without knowing its class: its own ``go_planes()``, else its network's encoder's
    (:class:`engines.alphazero.NetworkEvaluator`'s ``loaded.encoder``). None: neither reads Go compiled."""
    own = getattr(evaluator, "go_planes", None)
    if callable(own):
        return own()
    reader = getattr(getattr(getattr(evaluator, "loaded", None), "encoder", None), "go_planes", None)
    return reader() if callable(reader) else None


class GoForest(CompiledForest):
    """Every Go game's tree in one pool (:class:`CompiledForest`'s), simulated by PUCT
    as ``search`` is set (its ``c``, ``fpu``, forced playouts) on the compiled board
    of ``rules`` (:class:`dlgo.games.go.compiled_rules.GoRules`), the leaves encoded
    as ``evaluator``'s encoder reads Go (:func:`go_planes_of`) and evaluated by its
    ``evaluate_planes``."""

    def __init__(self, search: PUCTSearch, evaluator: PlanesEvaluator, rules: CompiledRules, num_actions: int):
        import engines.forest_kernels as kernels  # numba: compiled on first use, cached on disk
        import engines.go_forest_kernels as go_kernels
        from dlgo.encoders.go_kernels import recipe_array

        if rules.family != "go":
            raise TypeError(f"the compiled Go forest plays Go's compiled rules, not {rules.family!r} ones")
        planes = go_planes_of(evaluator)
        if planes is None:
            raise ValueError("the compiled Go forest needs an evaluator whose encoder reads Go compiled "
                             "(Encoder.go_planes)")
        self.kernels = kernels
        self.go = go_kernels
        self.move_search = search
        self.evaluator = evaluator
        self.rules = rules
        self.go_rules = cast("GoRules", rules)
        self.tables = rules.tables  # the board's GoGeometry
        self.recipe = recipe_array(planes)
        self.shape = evaluator.planes_shape()
        self.pool = kernels.new_forest(NODES_PER_GAME, num_actions)
        self.slot: dict[int, int] = {}  # each game's row in the per-game arrays
        self.states: dict[int, State] = {}
        self.roots = np.zeros(0, np.int32)
        self.noised = np.zeros(0, np.bool_)
        points = self.go_rules.num_points
        self.games = go_kernels.new_games(0, points, FIRST_ROOM)  # each game's root board and positions
        self.scratch = go_kernels.board_row(go_kernels.new_games(1, points, 0), 0)  # a descent's board
        self.legal = np.zeros(points, np.bool_)  # scratch: the legal plays of a position
        self.depth = 1  # the longest line principal_variation reads: set to the tree's height when asked

    # -------------------------------------------------------------- games
    def plant(self, key: int, state: State) -> None:
        super().plant(key, state)
        slot = self.slot[key]
        if slot >= len(self.games.to_move):
            self.games = self.go.regrown(self.games, max(4, 2 * len(self.games.to_move)), self.go.room(self.games))
        self._put(slot, state)

    def _planted(self, state: State) -> int:
        self._make_room(1)
        finished = state.is_over()
        kernels = self.kernels
        return int(kernels.plant(self.pool, 0, 0, int(state.next_player), 0,
                                 kernels.FINISHED if finished else kernels.LEAF,
                                 terminal_value(state) if finished else 0.0))

    def _put(self, slot: int, state: State) -> None:
        """Game ``slot``'s root board and positions at ``state`` (a finished game needs none)."""
        if state.is_over():
            return
        first, colour, path = self.go_rules.start(state)
        self._fit(len(path) + 1)
        last = state.last_move
        self.go.set_root(self.games, slot, self.tables, first, colour, path, last is not None and last.is_pass)

    def _fit(self, positions: int) -> None:
        """Room in each game's set for ``positions`` positions."""
        if positions > self.go.room(self.games):
            self.games = self.go.regrown(self.games, len(self.games.to_move), 2 * positions)

    def advance(self, key: int, action: int, state: State) -> None:
        slot, root = self._moved_on(key, state)
        pool, child = self.pool, -1
        if pool.status[root] == self.kernels.EXPANDED:
            edge = np.flatnonzero(pool.action[root, :pool.slots[root]] == action)
            child = int(pool.child[root, int(edge[0])]) if len(edge) else -1
        if not state.is_over():  # (a finished game's board is needed no more)
            self._fit(int(self.games.seen_size[slot]) + 1)
            if int(self.go.advance_root(self.games, slot, self.tables, action)) != state.zobrist_hash():
                self._put(slot, state)  # not where the move leads from the root: set up afresh, a new tree
                child = -1
        self.roots[slot] = child if child >= 0 else self._planted(state)

    # ------------------------------------------------------------- roots
    def expand_roots(self, keys: Sequence[int]) -> None:
        rows = np.array([self.slot[key] for key in keys], np.int64)
        nodes = self.roots[rows]
        unexpanded = self.pool.status[nodes] == self.kernels.LEAF
        rows, nodes = rows[unexpanded], nodes[unexpanded]
        count = len(nodes)
        if count:
            planes = np.zeros((count, *self.shape), np.float32)
            self.go.prepare_roots(self.pool, self.games, self.tables, rows, nodes, self.legal, planes, self.recipe)
            priors, values = self.evaluator.evaluate_planes(planes)
            no_path = np.zeros((count, 1), np.int32)
            self.go.expand_all(self.pool, np.arange(count, dtype=np.int32), count, no_path, no_path,
                               np.zeros(count, np.int32), nodes, *self._answers(priors, values))

    @staticmethod
    def _answers(priors: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The evaluator's answers as the kernels read them (float64: a float32 answer exactly as the reference reads
        it)."""
        return np.ascontiguousarray(priors, np.float64), np.ascontiguousarray(values, np.float64)

    # ------------------------------------------------------------ search
    def search(self, keys: Sequence[int], budgets: Sequence[int], deadline: float = math.inf) -> None:
        """:meth:`Forest.search`; or fewer simulations if ``time.perf_counter()``
        reaches ``deadline`` first (checked after each step)."""
        most = max(budgets, default=0)
        games = len(self.roots)
        rows = np.array([self.slot[key] for key in keys], np.int64)
        budget = np.array(budgets, np.int64)
        nodes = slots = np.zeros((games, 0), np.int32)
        depths = np.zeros(games, np.int32)
        leaves = np.zeros(games, np.int32)
        pending = np.zeros(games, np.int32)
        planes = np.zeros((games, *self.shape), np.float32)
        search = self.move_search
        c, fpu, forced = float(search.c), search.fpu, float(search.forced_playouts)
        step = 0
        while step < most:
            if step and deadline != math.inf and time.perf_counter() >= deadline:
                break
            if step % ROOM_STEPS == 0:  # room for the next steps' nodes, paths and positions
                steps = min(most - step, ROOM_STEPS)
                self._make_room(len(keys) * steps)
                depth = self._height(rows) + steps + 1  # a step adds a node a tree: a path one longer at most
                self._fit(int(self.games.seen_size[rows].max()) + depth + 1)
                if depth > nodes.shape[1]:
                    nodes, slots = np.zeros((games, depth), np.int32), np.zeros((games, depth), np.int32)
            pool = self.pool
            waiting = self.go.descend_all(pool, self.games, self.tables, self.scratch, self.legal, rows, budget, step,
                                          self.roots, self.noised, c, 0.0 if fpu is None else float(fpu),
                                          fpu is not None, forced, self.go_rules.komi, nodes, slots, depths, leaves,
                                          pending, planes, self.recipe)
            if waiting:
                priors, values = self.evaluator.evaluate_planes(planes[:waiting])
                self.go.expand_all(pool, pending, waiting, nodes, slots, depths, leaves,
                                   *self._answers(priors, values))
            step += 1

    def _height(self, rows: np.ndarray) -> int:
        """The longest path from the root of a game in ``rows`` (slots) down its tree."""
        capacity = len(self.pool.status)
        return int(self.go.height(self.pool, self.roots, rows, np.zeros(capacity, np.int32),
                                  np.zeros(capacity, np.int32)))

    def principal_variation(self, key: int, action: int) -> tuple[int, ...]:
        self.depth = self._height(np.array([self.slot[key]], np.int64)) + 1  # the longest line the tree holds
        return super().principal_variation(key, action)


def make_forest(search: MoveSearch, game: Any, compiled: bool = True) -> Forest:
    """A compiled forest where one can play ``search`` and ``compiled`` is on, else a
    :class:`NodeForest`. Compiled: an evaluator that reads encoded planes of stones,
    on a game with compiled rules; PUCT on a line game's rules
    (:class:`CompiledForest`) or Go's (:class:`GoForest`, where
    the evaluator's encoder reads Go compiled), Gumbel on a line game's
    (:class:`GumbelForest`)."""
    evaluator: Any = search.evaluator
    rules = game.compiled_rules() if compiled and hasattr(evaluator, "evaluate_planes") else None
    if rules is not None and rules.family == "line" and evaluator.stone_planes() is not None:
        if type(search) is PUCTSearch:
            return CompiledForest(search, evaluator, rules, game.num_actions)
        if type(search) is GumbelSearch:
            return GumbelForest(search, evaluator, rules, game.num_actions)
    if rules is not None and rules.family == "go" and type(search) is PUCTSearch:
        if go_planes_of(evaluator) is not None:
            return GoForest(search, evaluator, rules, game.num_actions)
    return NodeForest(search)


__all__ = ["Forest", "NodeForest", "CompiledForest", "GumbelForest", "GoForest", "go_planes_of", "PlanesEvaluator",
           "make_forest", "Evaluator"]
