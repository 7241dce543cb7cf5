"""Dice: a legal move at random, the weakest bot a student can write."""
from __future__ import annotations

import random

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State


class Dice(Agent):
    """Plays a legal move at random."""

    name = "dice"

    def __init__(self, seed: int | None = None):
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, state: State) -> Decision:
        return Decision(self.rng.choice(state.legal_moves()), 1)
