"""Lookahead: the minimax exercise's alpha-beta, cut at a depth, scored by a heuristic."""
from __future__ import annotations

import random

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State

WIN = 1_000_000.0


class Lookahead(Agent):
    """Depth-limited negamax with alpha-beta; the game's own heuristic at the horizon."""

    name = "lookahead"
    unit = "nodes"

    def __init__(self, depth: int = 4, seed: int | None = None):
        super().__init__()
        self.depth, self.rng, self.nodes = depth, random.Random(seed), 0

    def value(self, state: State, depth: int, alpha: float, beta: float) -> float:
        """The position's value for the player to move."""
        self.nodes += 1
        if state.is_over():
            winner = state.winner()
            return 0.0 if winner is None else (WIN + depth if winner == state.next_player else -WIN - depth)
        if depth == 0:
            return state.heuristic_value()
        best = -2 * WIN
        for action in state.legal_actions():
            best = max(best, -self.value(state.apply_action(action), depth - 1, -beta, -alpha))
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        return best

    def choose(self, state: State) -> Decision:
        self.nodes = 0
        actions = state.legal_actions()
        self.rng.shuffle(actions)  # ties broken at random, so that games vary
        scored = [(-self.value(state.apply_action(a), self.depth - 1, -2 * WIN, 2 * WIN), a) for a in actions]
        best = max(score for score, _ in scored)
        action = next(a for score, a in scored if score == best)
        return Decision(state.index_to_move(action), self.nodes)
