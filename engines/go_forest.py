"""The compiled forest for Go: every game's PUCT tree in one pool of flat arrays, the positions on Go's compiled board.

:class:`GoForest` is :class:`engines.forest.CompiledForest` (the same pool of
nodes, the roots read back as :class:`~engines.puct.Node` views, the noised
priors stored back, the finished games' and the played moves' nodes compacted
away) for Go (``Game.compiled_rules`` of family ``"go"``,
:class:`dlgo.games.go.compiled_rules.GoRules`), simulated by the kernels of
:mod:`engines.go_forest_kernels`: each game's root position on the compiled
board, kept move by move with its game's superko set; a descent replays its path
on a copy, gives a new leaf its sensible actions and writes its planes, as the
network's encoder reads them (``Encoder.go_planes``), straight into the batch.
So only the network call is left to Python. The tests hold it to
:class:`engines.forest.NodeForest`'s visits simulation for simulation.
"""
from __future__ import annotations

import math
import time
from typing import Any, Sequence

import numpy as np

from dlgo.core.game import CompiledRules, State
from dlgo.encoders.base import GoPlanes
from dlgo.encoders.go_kernels import recipe_array
from dlgo.games.go.compiled_rules import GoRules
from engines import forest as forests
from engines import forest_kernels, go_forest_kernels
from engines.forest import CompiledForest, PlanesEvaluator
from engines.puct import PUCTSearch, terminal_value

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
        if not isinstance(rules, GoRules):
            raise TypeError(f"the compiled Go forest plays Go's compiled rules, not {rules.family!r} ones")
        planes = go_planes_of(evaluator)
        if planes is None:
            raise ValueError("the compiled Go forest needs an evaluator whose encoder reads Go compiled "
                             "(Encoder.go_planes)")
        self.kernels = forest_kernels
        self.go = go_forest_kernels
        self.move_search = search
        self.evaluator = evaluator
        self.rules = self.go_rules = rules
        self.tables = rules.tables  # the board's GoGeometry
        self.recipe = recipe_array(planes)
        self.shape = evaluator.planes_shape()
        self.pool = forest_kernels.new_forest(forests.NODES_PER_GAME, num_actions)
        self.slot: dict[int, int] = {}  # each game's row in the per-game arrays
        self.states: dict[int, State] = {}
        self.roots = np.zeros(0, np.int32)
        self.noised = np.zeros(0, np.bool_)
        points = rules.num_points
        self.games = go_forest_kernels.new_games(0, points, FIRST_ROOM)  # each game's root board and positions
        self.scratch = go_forest_kernels.board_row(go_forest_kernels.new_games(1, points, 0), 0)  # a descent's board
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
        self._make_room(1)  # first: a compaction renumbers the nodes
        slot = self.slot[key]
        root = int(self.roots[slot])
        self.states[key] = state
        self.noised[slot] = False
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
        """The evaluator's answers as the kernels read them (float64: a float32 answer exactly as the reference reads it)."""
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
            if step % forests.ROOM_STEPS == 0:  # room for the next steps' nodes, paths and positions
                steps = min(most - step, forests.ROOM_STEPS)
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


__all__ = ["GoForest", "go_planes_of"]
