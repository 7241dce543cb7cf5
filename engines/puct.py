"""PUCT search (AlphaZero's MCTS) with pluggable evaluators, OpenSpiel style.

An :class:`Evaluator` looks at leaf positions and returns, for each, prior
probabilities over the game's action space and a value in [-1, 1] for the
player to move. One search serves every evaluator: random rollouts
(:class:`RolloutEvaluator`) for teaching and tests, a policy-value network for
AlphaZero.

Each node keeps, per sensible action (``state.sensible_actions()``), arrays of
its prior ``P``, visit count ``N`` and total value ``W``, all from the view of
the player to move at the node. A simulation descends by

    Q(a) + c * P(a) * sqrt(sum N) / (1 + N(a)),   Q(a) = W(a) / N(a) (0 if unvisited)

(with ``fpu`` set, an unvisited action's Q is instead the node's mean value
so far minus ``fpu``: "first-play urgency" as in Leela Zero, which keeps a
search in a good position on its good moves)

to a leaf, evaluates it (a finished game has its exact value: win 1, draw 0,
loss -1), and adds the value to every edge on the path, negated for edges
chosen by the other player. Dirichlet noise is mixed into the root's priors
only, when asked.
"""
from __future__ import annotations

import abc
import math
import random
import sys
import time
from typing import Protocol, Sequence

import numpy as np

from dlgo.core.agent import Agent, Decision, SearchReport
from dlgo.core.game import State, value_for
from dlgo.core.specs import require, require_seconds


class Evaluator(abc.ABC):
    """Priors over the action space and a value for the player to move, per state;
    ``evaluations`` counts the states it has evaluated."""

    evaluations: int = 0

    @abc.abstractmethod
    def evaluate(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        """``(priors (n, num_actions), values (n,))`` for ``n`` unfinished states."""


class RolloutEvaluator(Evaluator):
    """Uniform priors; the value is the mean result of ``rollouts`` random games
    (Go: never into one's own eye), seen from the player to move."""

    def __init__(self, rollouts: int = 1, seed: int | None = None):
        self.rollouts = rollouts
        self.rng = random.Random(seed)

    def evaluate(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        self.evaluations += len(states)
        priors = np.ones((len(states), states[0].num_actions), dtype=np.float32)
        values = np.zeros(len(states), dtype=np.float32)
        for i, state in enumerate(states):
            total = sum(value_for(state.random_playout(self.rng), state.next_player) for _ in range(self.rollouts))
            values[i] = total / self.rollouts
        return priors, values


def terminal_value(state: State) -> float:
    """A finished game's value for the player to move there: 1, 0 or -1."""
    return value_for(state.winner(), state.next_player)


class Node:
    """A position; ``actions``, ``P``, ``N``, ``W`` are filled when it is expanded."""

    __slots__ = ("state", "terminal", "actions", "P", "N", "W", "children", "value", "noised")

    def __init__(self, state: State):
        self.state = state
        self.value = 0.0  # the evaluator's value of this position, where a search keeps it (Gumbel's)
        self.noised = False  # a root whose priors hold exploration noise (self-play's full searches)
        self.terminal: float | None = terminal_value(state) if state.is_over() else None
        self.actions: np.ndarray = _NO_ACTIONS
        self.P = self.N = self.W = np.zeros(0)
        self.children: dict[int, Node] = {}

    @property
    def expanded(self) -> bool:
        return self.actions is not _NO_ACTIONS

    def expand(self, priors: np.ndarray, value: float = 0.0) -> None:
        """Keep the sensible actions, with the evaluator's priors renormalised over
        them, and the evaluator's ``value`` of the position (Gumbel's search reads it)."""
        self.value = float(value)
        self.actions = np.array(self.state.sensible_actions(), dtype=np.int64)
        p = np.asarray(priors, dtype=np.float64)[self.actions]
        total = p.sum()
        self.P = p / total if total > 0 else np.full(len(p), 1.0 / len(p))
        self.N = np.zeros(len(self.actions))
        self.W = np.zeros(len(self.actions))

    def child(self, i: int) -> "Node":
        """The node after the action in slot ``i`` (made on first visit)."""
        node = self.children.get(i)
        if node is None:
            node = self.children[i] = Node(self.state.apply_action(int(self.actions[i])))
        return node

    def puct_scores(self, c: float, fpu: float | None = None) -> np.ndarray:
        """``Q + c * P * sqrt(sum N) / (1 + N)`` per action (sum N counted as at least 1).
        An unvisited action's Q is 0, or with ``fpu`` the mean value so far (sum W / sum N) minus ``fpu``."""
        # The hot spot of every search: few numpy calls on these short arrays.
        N = self.N
        visits = N.sum()
        explore = (c * math.sqrt(visits if visits > 1.0 else 1.0)) * self.P / (N + 1.0)
        q = self.W / np.maximum(N, 1.0)  # an unvisited action has W = 0, so Q = 0
        if fpu is not None and visits > 0:
            q = np.where(N > 0, q, self.W.sum() / visits - fpu)  # mean_value(), sum N already at hand
        return q + explore

    def mean_value(self) -> float:
        """The search's value of this position for the player to move: the mean over its visits (0 if none)."""
        visits = self.N.sum()
        return float(self.W.sum() / visits) if visits > 0 else 0.0

    def visit_policy(self, num_actions: int) -> np.ndarray:
        """Visit counts as a distribution over the whole action space."""
        pi = np.zeros(num_actions)
        pi[self.actions] = self.N / max(1.0, self.N.sum())
        return pi

    def report(self, chosen: int) -> SearchReport:
        """This root's search as a report: visits, mean values and priors per
        action, the mean value, and the most visited line from ``chosen`` on."""
        n = self.state.num_actions
        visits, q, policy = np.zeros(n), np.zeros(n), np.zeros(n)
        visits[self.actions] = self.N
        q[self.actions] = np.divide(self.W, self.N, out=np.zeros_like(self.W), where=self.N > 0)
        policy[self.actions] = self.P
        line, node = [chosen], self.children.get(int(np.flatnonzero(self.actions == chosen)[0]))
        while node is not None and node.expanded and node.N.sum() > 0:
            best = int(np.argmax(node.N))
            line.append(int(node.actions[best]))
            node = node.children.get(best)
        return SearchReport(value=self.mean_value(), visits=visits, q=q, policy=policy,
                            principal_variation=tuple(line))


_NO_ACTIONS = np.zeros(0, dtype=np.int64)  # an unexpanded node's actions


class MoveSearch(Protocol):
    """What a loop that runs many searches in step (batched self-play) needs of
    a search: PUCT (:class:`PUCTSearch`) or Gumbel (:class:`engines.gumbel.GumbelSearch`).
    A move's search is ``begin``, then ``descend`` / evaluate / :func:`backup`
    once per simulation, then ``policy_target``, ``search_value`` and ``play``."""

    evaluator: Evaluator

    def begin(self, root: Node, noise: bool, simulations: int) -> None:
        """Start a move's search at the expanded ``root`` (``noise``: explore, as in self-play)."""

    def descend(self, root: Node) -> tuple[list[tuple[Node, int]], Node]:
        """The next simulation's path of (node, action slot) and its leaf."""

    def policy_target(self, root: Node) -> np.ndarray:
        """The training target over the whole action space."""

    def search_value(self, root: Node) -> float:
        """The searched value of the root for the player to move (a value target's share)."""

    def play(self, root: Node, temperature: float, rng: np.random.Generator) -> int:
        """End the move's search: the action to play."""


class PUCTSearch:
    """PUCT over any evaluator. ``dirichlet_alpha``/``epsilon`` set the root noise;
    ``fpu`` (None: off) the first-play-urgency reduction for unvisited actions;
    ``batch`` > 1 evaluates that many leaves per call, kept apart by virtual losses
    (:meth:`simulate_batch`).

    ``forced_playouts`` k > 0 turns on KataGo's forced playouts and policy
    target pruning (Wu 2019, section 3.1), for self-play's noised searches: at
    a root with Dirichlet noise, a child already visited but with fewer than
    ``n_forced = sqrt(k * P * sum N)`` visits is visited next, so that the
    noise's discoveries get looked at (k = 2 in KataGo); the policy
    target then takes those visits back from every child but the most visited,
    as far as that child's PUCT score stays below the best one's, and drops the
    children left with one visit, so the network does not learn the forcing.
    """

    def __init__(self, evaluator: Evaluator, c: float = 1.5, dirichlet_alpha: float = 0.3,
                 dirichlet_epsilon: float = 0.25, seed: int | None = None, fpu: float | None = None,
                 batch: int = 1, forced_playouts: float = 0.0):
        self.evaluator = evaluator
        self.c = c
        self.forced_playouts = forced_playouts
        self.fpu = fpu
        self.batch = batch
        self.dirichlet_alpha = dirichlet_alpha
        self.dirichlet_epsilon = dirichlet_epsilon
        self.np_rng = np.random.default_rng(seed)

    def run(self, root: Node | State, simulations: int, noise: bool = False,
            deadline: float = math.inf) -> Node:
        """Search ``simulations`` times from ``root`` (a node to reuse, or a state),
        or fewer if ``time.perf_counter()`` reaches ``deadline`` first."""
        if not isinstance(root, Node):
            root = Node(root)
        if root.terminal is not None:
            return root
        if not root.expanded:
            priors, _ = self.evaluator.evaluate([root.state])
            root.expand(priors[0])
        if noise:
            self.add_noise(root)
        done = 0
        while done < simulations:
            if done and deadline != math.inf and time.perf_counter() >= deadline:
                break
            if self.batch > 1:
                done += self.simulate_batch(root, min(self.batch, simulations - done))
            else:
                self.simulate(root)
                done += 1
        return root

    def begin(self, root: Node, noise: bool, simulations: int) -> None:
        """Start a move's search at the expanded ``root``; ``noise``: Dirichlet noise in its priors."""
        if noise:
            self.add_noise(root)

    def policy_target(self, root: Node) -> np.ndarray:
        """The root's visit distribution over the whole action space: the training
        target (with forced playouts, pruned: :meth:`pruned_visits`)."""
        if not self.forced_playouts:
            return root.visit_policy(root.state.num_actions)
        target = np.zeros(root.state.num_actions)
        visits = self.pruned_visits(root)
        target[root.actions] = visits / max(1.0, visits.sum())
        return target

    def search_value(self, root: Node) -> float:
        """The mean value over the root's visits, for the player to move."""
        return root.mean_value()

    def forced_visits(self, root: Node) -> np.ndarray:
        """``sqrt(k * P * sum N)`` per root action: the visits forced playouts give it."""
        return np.sqrt(self.forced_playouts * root.P * root.N.sum())

    def pruned_visits(self, root: Node) -> np.ndarray:
        """Policy target pruning: each child but the most visited loses up to its
        forced visits, but never so many that its PUCT score would reach the most
        visited child's; children left with at most one visit are dropped."""
        N = root.N
        best = int(np.argmax(N))
        best_score = float(root.puct_scores(self.c)[best])
        q = root.W / np.maximum(N, 1.0)
        explore = self.c * math.sqrt(max(N.sum(), 1.0)) * root.P  # PUCT's numerator: score = q + explore / (1 + n)
        gap = best_score - q
        # the fewest visits that keep the score below the best: explore / (1 + n) < gap
        keep = np.where(gap > 0, explore / np.where(gap > 0, gap, 1.0) - 1.0, N)
        pruned = np.clip(np.maximum(N - self.forced_visits(root), keep), 0.0, N)
        pruned[pruned <= 1.0] = 0.0
        pruned[best] = N[best]
        return pruned

    def play(self, root: Node, temperature: float, rng: np.random.Generator) -> int:
        """The action to play (:func:`select_action`)."""
        return select_action(root, temperature, rng)

    def add_noise(self, root: Node) -> None:
        """Mix Dirichlet noise into an expanded root's priors (exploration in self-play)."""
        sample = self.np_rng.dirichlet([self.dirichlet_alpha] * len(root.actions))
        root.P = (1 - self.dirichlet_epsilon) * root.P + self.dirichlet_epsilon * sample
        root.noised = True

    def simulate(self, root: Node) -> None:
        """One descent, evaluation and backup."""
        path, leaf = self.descend(root)
        if leaf.terminal is not None:
            value = leaf.terminal
        else:
            priors, values = self.evaluator.evaluate([leaf.state])
            leaf.expand(priors[0])
            value = float(values[0])
        backup(path, leaf, value)

    def simulate_batch(self, root: Node, size: int) -> int:
        """Up to ``size`` descents whose leaves the evaluator sees in one call;
        returns how many simulations were done. Each descent puts a *virtual
        loss* on its path (a visit that counts as a loss until the real value
        comes back), so the next one goes elsewhere; a descent that reaches a
        leaf already waiting ends the batch."""
        pending: list[tuple[list[tuple[Node, int]], Node]] = []
        done = 0
        while done < size:
            path, leaf = self.descend(root)
            if leaf.terminal is not None:
                backup(path, leaf, leaf.terminal)
                done += 1
                continue
            if any(leaf is waiting for _, waiting in pending):
                break
            for parent, i in path:
                parent.N[i] += 1
                parent.W[i] -= 1.0
            pending.append((path, leaf))
            done += 1
        if pending:
            priors, values = self.evaluator.evaluate([leaf.state for _, leaf in pending])
            for (path, leaf), prior, value in zip(pending, priors, values):
                for parent, i in path:
                    parent.N[i] -= 1
                    parent.W[i] += 1.0
                leaf.expand(prior)
                backup(path, leaf, float(value))
        return max(done, 1)

    def descend(self, root: Node) -> tuple[list[tuple[Node, int]], Node]:
        """Follow the best PUCT score down to an unexpanded or finished node;
        returns the path of (node, action slot) and that leaf."""
        node, path = root, []
        c, fpu = self.c, self.fpu
        if self.forced_playouts and root.noised and root.terminal is None:
            short = (root.N > 0) & (root.N < self.forced_visits(root))
            if short.any():  # a forced playout: the best-scored of the visited children short of their forced visits
                i = int(np.where(short, root.puct_scores(c, fpu), -np.inf).argmax())
                path.append((root, i))
                node = root.child(i)
        while node.expanded and node.terminal is None:
            i = int(node.puct_scores(c, fpu).argmax())
            path.append((node, i))
            node = node.child(i)
        return path, node


def backup(path: list[tuple[Node, int]], leaf: Node, value: float) -> None:
    """Add ``value`` (for the player to move at ``leaf``) to every edge of ``path``,
    negated for edges chosen by the other player."""
    leaf_player = leaf.state.next_player
    for parent, i in path:
        parent.N[i] += 1
        parent.W[i] += value if parent.state.next_player == leaf_player else -value


def select_action(root: Node, temperature: float, rng: np.random.Generator) -> int:
    """The action to play: the most visited (``temperature`` 0), or one sampled
    with probability proportional to ``N ** (1 / temperature)``."""
    if temperature <= 0:
        return int(root.actions[int(np.argmax(root.N))])
    weights = np.power(root.N, 1.0 / temperature)
    if weights.sum() <= 0:
        weights = np.ones_like(weights)
    return int(root.actions[rng.choice(len(weights), p=weights / weights.sum())])


def check_search_settings(name: str, simulations: int, c: float = 1.0, temperature: float = 0.0,
                          fpu: float | None = None, seconds: float = 0.0, batch: int = 1) -> None:
    """A :class:`SpecError` naming engine ``name`` for a search setting out of range."""
    require(simulations >= 0, f"{name}: simulations must be at least 0 (0 = the raw policy), got {simulations}")
    require(0 < c < math.inf, f"{name}: c must be a finite number above 0, got {c}")
    require(0 <= temperature < math.inf, f"{name}: temperature must be a finite number, at least 0, "
                                         f"got {temperature}")
    require(fpu is None or 0 <= fpu < math.inf, f"{name}: fpu must be a finite number, at least 0, got {fpu}")
    require_seconds(seconds, f"{name}: seconds")
    require(batch >= 1, f"{name}: batch is the leaves per network call, at least 1, got {batch}")


class PUCTAgent(Agent):
    """An engine that searches with :class:`PUCTSearch` over an evaluator: the
    tree kept between moves (our move and the reply) when ``reuse`` is on, a
    game clock's time searched when the spec gives no budget and a cap on one it
    gives (:meth:`Agent.move_budget`), the search in its report;
    ``simulations=0`` plays the evaluator's raw policy (:meth:`raw_move`).
    AlphaZero and AlphaGo are two evaluators on this one agent."""

    unit = "evaluations"

    def __init__(self, evaluator: Evaluator, *, simulations: int, c: float = 1.5, temperature: float = 0.0,
                 seed: int | None = None, reuse: bool = True, fpu: float | None = None, seconds: float = 0.0,
                 batch: int = 1):
        super().__init__()
        self.evaluator = evaluator
        self.simulations = simulations
        self.seconds = seconds
        self.temperature = temperature
        self.reuse = reuse
        self.rng = random.Random(seed)
        self.search = PUCTSearch(evaluator, c=c, seed=seed, fpu=fpu, batch=batch)
        self.np_rng = np.random.default_rng(seed)
        self.root: Node | None = None

    def check_settings(self, simulations: int, c: float, temperature: float, fpu: float | None,
                       seconds: float = 0.0, batch: int = 1) -> None:
        """A :class:`SpecError` naming the engine for a setting out of range (:func:`check_search_settings`)."""
        check_search_settings(self.name, simulations, c, temperature, fpu, seconds, batch)

    def new_game(self) -> None:
        self.root = None

    @abc.abstractmethod
    def raw_move(self, state: State) -> tuple[int, SearchReport]:
        """The action the evaluator's policy plays without search, and its report."""

    def choose(self, state: State) -> Decision:
        before = self.evaluator.evaluations
        if self.simulations == 0:
            action, report = self.raw_move(state)
        else:
            root = self._reusable_node(state) or Node(state)
            simulations, seconds = self.move_budget(self.simulations, self.seconds)
            self.search.run(root, simulations or sys.maxsize, deadline=self.deadline(seconds))
            action = select_action(root, self.temperature, self.np_rng)
            report = root.report(action)
            self.root = root.children.get(int(np.flatnonzero(root.actions == action)[0])) if self.reuse else None
        return Decision(state.index_to_move(action), self.evaluator.evaluations - before, report)

    def _reusable_node(self, state: State) -> Node | None:
        """The kept node after our last move, one step on by the opponent's reply."""
        node, last = self.root, state.last_move
        if node is None or last is None or not node.expanded or last.is_resign:
            return None
        matches = np.flatnonzero(node.actions == state.move_to_index(last))
        child = node.children.get(int(matches[0])) if len(matches) else None
        if child is None or child.state.zobrist_hash() != state.zobrist_hash():
            return None
        return child
