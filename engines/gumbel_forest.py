"""Gumbel AlphaZero's search in the compiled forest: every game's tree in one pool of flat arrays.

:class:`GumbelForest` is :class:`engines.forest.CompiledForest` (the same pool,
planting, expansion, leaf encoding, advancing and compaction) with the
descents of :class:`engines.gumbel.GumbelSearch` (:mod:`engines.gumbel_forest_kernels`):
the root's edge by the move's schedule and Gumbel noise, the improved
policy's below. The tests hold it to :class:`engines.forest.NodeForest` with
the same search, visits and moves simulation for simulation.

How a move's search meets its plan: ``GumbelSearch`` keeps a move's plan (the
noise, the schedule) by its root's ``id``, from ``begin`` to ``play``. So
:meth:`GumbelForest.store`, called after ``begin`` with the root it began,
keeps that :class:`~engines.puct.Node` as the game's root view and copies the
plan's noise and schedule into the forest's per-game arrays; until the game
moves on (:meth:`~GumbelForest.advance`) or ends, :meth:`~GumbelForest.root`
returns that same object, its visits brought up to date, so
``policy_target``, ``search_value`` and ``play`` find the plan. ``begin``
starts each move from a fresh root (as mctx does): ``store`` drops the root's
earlier visits and children in the pool too (their nodes go at the next
compaction), and they are evaluated again when the search reaches them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dlgo.core.game import CompiledRules, State
from engines.forest import CompiledForest, PlanesEvaluator
from engines.gumbel import GumbelSearch
from engines.puct import Node

if TYPE_CHECKING:  # numba's modules: imported when a forest is made, not with this one
    from dlgo.games.kinarow_kernels import LineTables
    from engines.forest_kernels import Forest


class GumbelForest(CompiledForest):
    """Every game's tree in one pool (:class:`CompiledForest`), searched as ``search``
    (a :class:`GumbelSearch`: its ``c_visit``, ``c_scale`` and plans) searches."""

    def __init__(self, search: GumbelSearch, evaluator: PlanesEvaluator, rules: CompiledRules, num_actions: int):
        # the base keeps the search for PUCT's settings, read only by the search this class replaces
        super().__init__(search, evaluator, rules, num_actions)  # type: ignore[arg-type]
        from engines import gumbel_forest_kernels  # numba: compiled on first use, cached on disk

        self.gumbel_kernels = gumbel_forest_kernels
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
    def _descend_all(self, pool: Forest, tables: LineTables, active: np.ndarray, nodes: np.ndarray,
                     slots: np.ndarray, depths: np.ndarray, leaves: np.ndarray, pending: np.ndarray) -> int:
        """One step's descents (:func:`engines.gumbel_forest_kernels.gumbel_descend_all`);
        returns how many leaves wait for the evaluator."""
        search = self.gumbel_search
        return int(self.gumbel_kernels.gumbel_descend_all(
            pool, tables, self.roots, active, self.gumbel, self.schedule, self.scheduled, float(search.c_visit),
            float(search.c_scale), nodes, slots, depths, leaves, pending, self.scratch[0], self.scratch[1]))


__all__ = ["GumbelForest"]
