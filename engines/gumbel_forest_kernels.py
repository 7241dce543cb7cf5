"""Gumbel AlphaZero's search over the compiled forest's pool: the descents, compiled.

:class:`engines.forest.GumbelForest` drives these kernels over the pool of
:mod:`engines.forest_kernels` (its nodes, expansion, backup, leaf encoding and
compaction are that module's); :class:`engines.gumbel.GumbelSearch` over
:class:`engines.puct.Node` objects is the readable reference, and the tests hold
the two to the same visits, simulation for simulation, on the same evaluations.

What differs from PUCT is only the choice of an edge (:mod:`engines.gumbel`):

* at the root, the move's schedule (``considered_visits``) names how many
  visits the edge must already have; of those edges, the one of best
  ``g + logits + sigma(completed Q)`` (``g`` the move's Gumbel noise); past
  the schedule, or with no such edge, the interior choice;
* below it, ``argmax pi'(a) - N(a) / (1 + sum N)``, ``pi' = softmax(logits +
  sigma(completed Q))``.

The arithmetic is the reference's, operation for operation: numpy's pairwise
sums (:func:`engines.forest_kernels.pairwise_sum`) over the same numbers in the
same order, the same divisions and rescaling. Only ``log`` and ``exp`` are the C
library's here where numpy may use its own vectorised ones, which can differ in
the last bit: a choice can differ only where two scores tie to within that.
"""
from __future__ import annotations

import math

import numpy as np

from dlgo.games.kernels import inline, kernel
from dlgo.games.kinarow_kernels import LineTables
from engines.forest_kernels import EXPANDED, Forest, new_child, pairwise_sum, settle

__all__ = ["gumbel_descend_all"]


@inline
def _sigma(f: Forest, node: int, c_visit: float, c_scale: float, out: np.ndarray, work: np.ndarray) -> float:
    """``sigma(completed Q)`` of ``node``'s edges into ``out`` (``engines.gumbel.sigma``
    of ``completed_q``); ``work``: scratch. Returns the node's visits, ``sum N``."""
    k = f.slots[node]
    visits, most, seen = 0.0, 0.0, 0
    for i in range(k):  # q: the visited edges' mean values; their priors gathered in order
        n = np.float64(f.visits[node, i])
        visits += n  # whole numbers: exact in any order
        most = max(most, n)
        if n > 0:
            out[i] = f.total[node, i] / n
            work[seen] = f.prior[node, i]
            seen += 1
        else:
            out[i] = 0.0
    if visits == 0:
        v_mix = f.value[node]
    else:
        weight = pairwise_sum(work, seen)
        j = 0
        for i in range(k):
            if f.visits[node, i] > 0:
                work[j] = f.prior[node, i] * out[i] if weight > 0 else out[i]
                j += 1
        policy_q = pairwise_sum(work, seen) / weight if weight > 0 else pairwise_sum(work, seen) / seen
        v_mix = (f.value[node] + visits * policy_q) / (1.0 + visits)
    low, high = math.inf, -math.inf
    for i in range(k):
        if f.visits[node, i] == 0:
            out[i] = v_mix
        low = min(low, out[i])
        high = max(high, out[i])
    scale = (c_visit + most) * c_scale
    for i in range(k):
        out[i] = scale * ((out[i] - low) / (high - low) if high > low else 0.0)
    return visits


@inline
def _logit(prior: float) -> float:
    """``engines.gumbel.logits_of``: the log of a prior, a zero one very negative."""
    return math.log(max(prior, 1e-30))


@inline
def interior_choice(f: Forest, node: int, c_visit: float, c_scale: float, scores: np.ndarray,
                    work: np.ndarray) -> int:
    """``engines.gumbel.interior_choice``: the edge of largest ``pi'(a) - N(a) / (1 + sum N)``
    (the first of equals). ``scores``, ``work``: scratch."""
    k = f.slots[node]
    visits = _sigma(f, node, c_visit, c_scale, scores, work)
    top = -math.inf
    for i in range(k):
        scores[i] = _logit(f.prior[node, i]) + scores[i]
        top = max(top, scores[i])
    for i in range(k):
        work[i] = math.exp(scores[i] - top)
    total = pairwise_sum(work, k)
    best, choice = -math.inf, 0
    for i in range(k):
        score = work[i] / total - f.visits[node, i] / (1.0 + visits)
        if score > best:
            best, choice = score, i
    return choice


@inline
def root_choice(f: Forest, root: int, gumbel: np.ndarray, schedule: np.ndarray, length: int, c_visit: float,
                c_scale: float, scores: np.ndarray, work: np.ndarray) -> int:
    """``engines.gumbel.GumbelSearch.descend``'s root edge: of the edges with the visits
    the schedule wants next, the best by ``g + logits + sigma(q)``; else the interior choice."""
    k = f.slots[root]
    visits = 0
    for i in range(k):
        visits += f.visits[root, i]
    choice = -1
    if length > 0:
        wanted = schedule[min(visits, length - 1)]
        _sigma(f, root, c_visit, c_scale, scores, work)
        best = -math.inf
        for i in range(k):
            if f.visits[root, i] == wanted:
                score = gumbel[i] + _logit(f.prior[root, i]) + scores[i]
                if score > best:
                    best, choice = score, i
    if choice < 0:  # more simulations than the schedule planned
        choice = interior_choice(f, root, c_visit, c_scale, scores, work)
    return choice


@inline
def gumbel_descend(f: Forest, t: LineTables, root: int, gumbel: np.ndarray, schedule: np.ndarray, length: int,
                   c_visit: float, c_scale: float, nodes: np.ndarray, slots: np.ndarray, scores: np.ndarray,
                   work: np.ndarray) -> tuple[int, int]:
    """From the expanded ``root`` by the schedule, then by the improved policy, to a
    node not yet expanded or a finished game (made on first visit); the path into
    ``nodes`` and ``slots``. Returns ``(leaf, depth)``."""
    i = root_choice(f, root, gumbel, schedule, length, c_visit, c_scale, scores, work)
    nodes[0], slots[0] = root, i
    depth = 1
    node = new_child(f, t, root, i)
    while f.status[node] == EXPANDED:
        i = interior_choice(f, node, c_visit, c_scale, scores, work)
        nodes[depth], slots[depth] = node, i
        depth += 1
        node = new_child(f, t, node, i)
    return node, depth


@kernel
def gumbel_descend_all(f: Forest, t: LineTables, roots: np.ndarray, active: np.ndarray, gumbel: np.ndarray,
                       schedule: np.ndarray, lengths: np.ndarray, c_visit: float, c_scale: float,
                       nodes: np.ndarray, slots: np.ndarray, depths: np.ndarray, leaves: np.ndarray,
                       pending: np.ndarray, scores: np.ndarray, work: np.ndarray) -> int:
    """:func:`engines.forest_kernels.descend_all` for Gumbel search: one descent in each
    ``active`` game's tree, game g by its move's noise ``gumbel[g]`` and schedule
    ``schedule[g, :lengths[g]]``; a finished game's value backed up at once, the
    games whose leaf needs the evaluator into ``pending``, in order. Returns how many.
    ``scores``, ``work``: scratch of the pool's edges a node."""
    waiting = 0
    for g in range(len(roots)):
        if not active[g]:
            continue
        leaf, depth = gumbel_descend(f, t, roots[g], gumbel[g], schedule[g], lengths[g], c_visit, c_scale,
                                     nodes[g], slots[g], scores, work)
        waiting = settle(f, g, leaf, depth, nodes, slots, depths, leaves, pending, waiting)
    return waiting
