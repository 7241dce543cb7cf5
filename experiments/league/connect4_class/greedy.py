"""Greedy: a winning move when there is one, else a legal move at random."""
from __future__ import annotations

import random

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State


class Greedy(Agent):
    """Wins at once where it can; otherwise plays at random."""

    name = "greedy"

    def __init__(self, seed: int | None = None):
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, state: State) -> Decision:
        moves = state.legal_moves()
        for move in moves:
            if state.apply_move(move).winner() == state.next_player:
                return Decision(move, len(moves))
        return Decision(self.rng.choice(moves), len(moves))
