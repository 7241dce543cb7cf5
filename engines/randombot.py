"""The random engine: the baseline every other engine is measured against."""
from __future__ import annotations

import random

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State


class RandomAgent(Agent):
    """Uniform over legal moves; in Go never fills its own eyes and passes only
    when nothing else is left (the book's random bot)."""

    name = "random"
    unit = "moves"

    def __init__(self, seed: int | None = None):
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, state: State) -> Decision:
        return Decision(state.random_move(self.rng), 1)
