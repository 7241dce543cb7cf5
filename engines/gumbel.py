"""Gumbel AlphaZero's search: policy improvement with few simulations.

After Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by
planning with Gumbel" (ICLR 2022), as DeepMind's ``mctx`` implements it, over
the nodes and evaluators of :mod:`engines.puct`. With the network's logits
``logits(a)`` (the log of its prior) and each action's completed value:

* **At the root, Gumbel-top-k**: draw ``g(a) ~ Gumbel(0, 1)`` and consider only
  the ``m`` actions with the largest ``g(a) + logits(a)`` (sampling without
  replacement from the policy), ``m = min(considered, actions, simulations)``.
* **Sequential halving** spreads the ``n`` simulations over ``ceil(log2 m)``
  phases: each phase visits every remaining action equally, then keeps the
  better half by ``g(a) + logits(a) + sigma(q(a))``; the last one left is played.
* ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``, with ``q`` the completed
  values rescaled to [0, 1] over the node's actions (``c_visit = 50``,
  ``c_scale = 0.1``: mctx's defaults, ``maxvisit_init`` and ``value_scale``;
  the paper's 1.0 let a single noisy value outweigh the prior here: 22% of
  critical Connect Four positions lost at 16 simulations against 18%).
* **Completed Q**: a visited action's mean value; an unvisited one's is the
  node's mixed value ``v_mix = (v + sum_b N(b) * sum_{visited} P(b) q(b) /
  sum_{visited} P(b)) / (1 + sum_b N(b))`` (``v`` the network's value of the node).
* **The improved policy** ``pi' = softmax(logits + sigma(completed Q))``: the
  training target at the root, and below it the deterministic selection
  ``argmax_a pi'(a) - N(a) / (1 + sum_b N(b))`` (visits follow ``pi'``).

Sequential halving is written as mctx writes it, without state: a fixed
*schedule* (:func:`considered_visits`) says, for the k-th simulation, how many
visits the root action it goes through must already have; of the actions with
that many, the one with the best ``g + logits + sigma(q)`` is simulated. So a
search is one simulation after another, whoever runs them: the engine one at a
time, self-play a batch of games in step (:mod:`engines.training.selfplay`).
The search starts each move from a fresh root (as mctx does): the schedule
counts the root's visits from zero.

Without the Gumbel noise (``gumbel_scale=0``) the choice is deterministic; in
self-play the noise explores, and the improved policy is the policy target.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from dlgo.core.game import State
from engines.puct import Evaluator, Node, backup

C_VISIT = 50.0
C_SCALE = 0.1


def logits_of(node: Node) -> np.ndarray:
    """The log of the node's priors over its actions (a zero prior: very negative, not -inf)."""
    return np.log(np.maximum(node.P, 1e-30))


def completed_q(node: Node) -> np.ndarray:
    """Per action: its mean value if visited, else the node's mixed value ``v_mix``
    (all from the view of the player to move at the node)."""
    visits = node.N.sum()
    visited = node.N > 0
    q = np.divide(node.W, node.N, out=np.zeros_like(node.W), where=visited)
    if visits == 0:
        v_mix = node.value
    else:
        weight = node.P[visited].sum()
        policy_q = float((node.P[visited] * q[visited]).sum() / weight) if weight > 0 else float(q[visited].mean())
        v_mix = (node.value + visits * policy_q) / (1.0 + visits)
    return np.where(visited, q, v_mix)


def sigma(node: Node, q: np.ndarray, c_visit: float = C_VISIT, c_scale: float = C_SCALE) -> np.ndarray:
    """``(c_visit + max N) * c_scale * q``, ``q`` rescaled to [0, 1] over the node's actions."""
    low, high = float(q.min()), float(q.max())
    scaled = (q - low) / (high - low) if high > low else np.zeros_like(q)
    return (c_visit + float(node.N.max(initial=0.0))) * c_scale * scaled


def improved_policy(node: Node, c_visit: float = C_VISIT, c_scale: float = C_SCALE) -> np.ndarray:
    """``softmax(logits + sigma(completed Q))`` over the node's actions."""
    scores = logits_of(node) + sigma(node, completed_q(node), c_visit, c_scale)
    scores = np.exp(scores - scores.max())
    return scores / scores.sum()


def interior_choice(node: Node, c_visit: float = C_VISIT, c_scale: float = C_SCALE) -> int:
    """The slot a simulation takes below the root: ``argmax pi'(a) - N(a) / (1 + sum N)``,
    so that the visits follow the improved policy, deterministically."""
    return int(np.argmax(improved_policy(node, c_visit, c_scale) - node.N / (1.0 + node.N.sum())))


def considered_visits(considered: int, simulations: int) -> tuple[int, ...]:
    """mctx's ``get_sequence_of_considered_visits``: for each simulation, the visits
    its root action already has. Phases of ``ceil(log2 considered)`` visit every
    remaining action equally, then half of them go (at least two stay)."""
    if considered <= 1:
        return tuple(range(simulations))
    phases = math.ceil(math.log2(considered))
    sequence: list[int] = []
    visits = [0] * considered
    remaining = considered
    while len(sequence) < simulations:
        for _ in range(max(1, simulations // (phases * remaining))):
            sequence.extend(visits[:remaining])
            for i in range(remaining):
                visits[i] += 1
        remaining = max(2, remaining // 2)
    return tuple(sequence[:simulations])


@dataclass
class RootPlan:
    """One move's search: its root, the Gumbel noise per root action and the
    schedule of considered visits."""

    root: Node
    gumbel: np.ndarray
    schedule: tuple[int, ...]

    def scores(self, c_visit: float, c_scale: float) -> np.ndarray:
        """``g + logits + sigma(completed Q)`` per root action."""
        return self.gumbel + logits_of(self.root) + sigma(self.root, completed_q(self.root), c_visit, c_scale)


class GumbelSearch:
    """Gumbel root search with sequential halving, and the improved-policy
    selection below the root, over any :class:`~engines.puct.Evaluator`."""

    def __init__(self, evaluator: Evaluator, considered: int = 16, gumbel_scale: float = 1.0,
                 seed: int | None = None, c_visit: float = C_VISIT, c_scale: float = C_SCALE):
        self.evaluator = evaluator
        self.considered = considered
        self.gumbel_scale = gumbel_scale
        self.c_visit, self.c_scale = c_visit, c_scale
        self.rng = np.random.default_rng(seed)
        self.plans: dict[int, RootPlan] = {}  # the searches under way, by their root's id

    def run(self, root: Node | State, simulations: int, deadline: float = math.inf) -> tuple[Node, int]:
        """Search ``simulations`` times from ``root``, or fewer if ``time.perf_counter()``
        reaches ``deadline`` first; returns the root and the action to play (of the
        most visited actions, the best by ``g + logits + sigma(q)``)."""
        node = root if isinstance(root, Node) else Node(root)
        if node.terminal is not None:
            raise ValueError("a finished game has no move to search")
        if not node.expanded:
            self.expand(node)
        self.begin(node, noise=self.gumbel_scale > 0, simulations=simulations)
        for done in range(simulations):
            if done and deadline != math.inf and time.perf_counter() >= deadline:
                break
            path, leaf = self.descend(node)
            value = leaf.terminal if leaf.terminal is not None else self.expand(leaf)
            backup(path, leaf, value)
        return node, self.play(node, 0.0, self.rng)

    def begin(self, root: Node, noise: bool, simulations: int) -> None:
        """Start a move's search at the expanded ``root`` (its visits from an
        earlier move are dropped): draw the Gumbel noise (``noise``: scaled by
        ``gumbel_scale``; else none) and the schedule for ``simulations``."""
        if root.N.sum() > 0:
            root.N, root.W, root.children = np.zeros_like(root.N), np.zeros_like(root.W), {}
        scale = self.gumbel_scale if noise else 0.0
        gumbel = scale * self.rng.gumbel(size=len(root.actions))
        considered = min(self.considered, len(root.actions))
        self.plans[id(root)] = RootPlan(root, gumbel, considered_visits(considered, simulations))

    def descend(self, root: Node) -> tuple[list[tuple[Node, int]], Node]:
        """The next simulation's path: through the root action the schedule names,
        then down by the improved policy to an unexpanded or finished node."""
        plan = self.plans[id(root)]
        done = int(root.N.sum())
        wanted = plan.schedule[min(done, len(plan.schedule) - 1)]
        scores = np.where(root.N == wanted, plan.scores(self.c_visit, self.c_scale), -np.inf)
        if np.isfinite(scores).any():
            slot = int(np.argmax(scores))
        else:  # more simulations than the schedule planned: the improved policy's way, as below the root
            slot = interior_choice(root, self.c_visit, self.c_scale)
        path, node = [(root, slot)], root.child(slot)
        while node.expanded and node.terminal is None:
            i = interior_choice(node, self.c_visit, self.c_scale)
            path.append((node, i))
            node = node.child(i)
        return path, node

    def play(self, root: Node, temperature: float, rng: np.random.Generator) -> int:
        """End the move's search: the action to play. Temperature 0: of the most
        visited actions, the best by ``g + logits + sigma(q)`` (the last one
        sequential halving keeps); above 0: sampled from the improved policy
        (sharpened by ``1 / temperature``), so that matches without noise still vary."""
        plan = self.plans.pop(id(root))
        if temperature > 0:
            weights = improved_policy(root, self.c_visit, self.c_scale) ** (1.0 / temperature)
            return int(root.actions[rng.choice(len(weights), p=weights / weights.sum())])
        scores = np.where(root.N == root.N.max(), plan.scores(self.c_visit, self.c_scale), -np.inf)
        return int(root.actions[int(np.argmax(scores))])

    def expand(self, node: Node) -> float:
        """Evaluate ``node``, keep its priors and value; returns the value."""
        priors, values = self.evaluator.evaluate([node.state])
        node.expand(priors[0], values[0])
        return node.value

    def search_value(self, root: Node) -> float:
        """The searched value of the root for the player to move: the completed Q
        averaged under the improved policy, ``sum_a pi'(a) completedQ(a)``. Not
        the mean over the root's visits: sequential halving gives every considered
        action, blunders included, its share of the simulations."""
        return float(improved_policy(root, self.c_visit, self.c_scale) @ completed_q(root))

    def policy_target(self, root: Node) -> np.ndarray:
        """The improved policy over the whole action space: the training target."""
        target = np.zeros(root.state.num_actions)
        target[root.actions] = improved_policy(root, self.c_visit, self.c_scale)
        return target
