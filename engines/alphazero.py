"""The AlphaZero engine: PUCT search guided by a policy-value network.

``alphazero:checkpoint=PATH,simulations=200`` searches with the network as the
evaluator (:class:`NetworkEvaluator`: one compiled call per batch of leaves);
``simulations=0`` plays the network's raw policy over the sensible moves. The
tree is kept between moves (our move and the reply) when ``reuse`` is on.
"""
from __future__ import annotations

import math
import random
from typing import Sequence

import numpy as np

from dlgo.core.agent import Agent, SearchReport
from dlgo.core.errors import ModelFileError, SpecError
from dlgo.core.game import State
from dlgo.core.specs import require
from dlgo.core.types import Move
from engines.neural.loading import LoadedModel, load_network
from engines.predictor import choose_from_policy
from engines.puct import Evaluator, Node, PUCTSearch, select_action


class NetworkEvaluator(Evaluator):
    """A policy-value network as an evaluator; counts its position evaluations.

    With ``symmetries`` each position is also shown to the network under every
    board symmetry (Connect Four's mirror; the 8 of a square board) in the same
    call, and the priors (mapped back) and values are averaged: AlphaGo's
    ensemble, steadier estimates for 2 or 8 times the network work."""

    def __init__(self, loaded: LoadedModel, symmetries: bool = False):
        self.loaded = loaded
        self.symmetries = loaded.encoder.game.symmetries() if symmetries else []
        self.evaluations = 0

    def evaluate(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        self.loaded.check(states[0])
        features = self.loaded.encoder.encode_batch(list(states))
        if self.symmetries:
            features = np.concatenate([sym.planes(features) for sym in self.symmetries])
        outputs = self.loaded.call(features)
        if len(outputs) != 2:
            raise ModelFileError("this network has no value head: train it with AlphaZero, not supervised learning")
        self.evaluations += len(states)
        policy, value = outputs
        if self.symmetries:  # the network's prior for action i under a symmetry sits at sym.actions[i]
            n = len(states)
            policy = np.mean([policy[k * n:(k + 1) * n][:, sym.actions] for k, sym in enumerate(self.symmetries)],
                             axis=0)
            value = value.reshape(len(self.symmetries), n, -1).mean(axis=0)
        return policy, value[:, 0]


class AlphaZeroAgent(Agent):
    """AlphaZero: PUCT search guided by a policy-value network (simulations=0: the raw policy)."""

    name = "alphazero"
    unit = "evaluations"

    def __init__(self, checkpoint: str = "", simulations: int = 200, c: float = 1.5, temperature: float = 0.0,
                 seed: int | None = None, reuse: bool = True, fpu: float | None = None, symmetries: bool = False):
        """``checkpoint``: a .keras policy-value network; ``simulations``: searches per
        move (0 = play the raw policy); ``c``: PUCT exploration; ``temperature``:
        0 plays the most visited move, 1 samples by visits; ``reuse``: keep the tree;
        ``fpu``: first-play urgency (an unvisited move counts as the position's
        mean value so far minus ``fpu``; None: it counts 0); ``symmetries``:
        average the network over the board's symmetries (see :class:`NetworkEvaluator`)."""
        super().__init__()
        if not checkpoint:
            raise SpecError("alphazero needs checkpoint=PATH (a .keras file from AlphaZero training)")
        require(simulations >= 0, f"alphazero: simulations must be at least 0 (0 = the raw policy), got {simulations}")
        require(0 < c < math.inf, f"alphazero: c must be a finite number above 0, got {c}")
        require(0 <= temperature < math.inf, f"alphazero: temperature must be a finite number, at least 0, "
                                             f"got {temperature}")
        require(fpu is None or 0 <= fpu < math.inf, f"alphazero: fpu must be a finite number, at least 0, got {fpu}")
        self.evaluator = NetworkEvaluator(load_network(checkpoint), symmetries=symmetries)
        self.simulations = simulations
        self.temperature = temperature
        self.reuse = reuse
        self.rng = random.Random(seed)
        self.search = PUCTSearch(self.evaluator, c=c, seed=seed, fpu=fpu)
        self.np_rng = np.random.default_rng(seed)
        self.root: Node | None = None

    def new_game(self) -> None:
        self.root = None

    def check_game(self, state: State) -> None:
        self.evaluator.loaded.check(state)

    def choose(self, state: State) -> Move:
        before = self.evaluator.evaluations
        if self.simulations == 0:
            policy, value = self.evaluator.evaluate([state])
            action = choose_from_policy(policy[0], state.sensible_actions(), self.temperature, self.rng)
            self._report = SearchReport(value=float(value[0]), policy=policy[0], principal_variation=(action,))
        else:
            root = self._reusable_node(state) or Node(state)
            self.search.run(root, self.simulations, deadline=self.deadline())
            action = select_action(root, self.temperature, self.np_rng)
            self._report = root.report(action)
            self.root = root.children.get(int(np.flatnonzero(root.actions == action)[0])) if self.reuse else None
        self._work = self.evaluator.evaluations - before
        return state.index_to_move(action)

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
