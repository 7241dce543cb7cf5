"""The random engine: the baseline every other engine is measured against."""
from __future__ import annotations

import random

from dlgo.game import GameStateBase
from dlgo.goboard import Move
from engines.base import Agent


class RandomAgent(Agent):
    """Uniform over legal moves; in Go never fills its own eyes and passes only
    when nothing else is left (the book's random bot)."""

    name = "random"
    unit = "moves"

    def __init__(self, seed: int | None = None):
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, state: GameStateBase) -> Move:
        self._work = 1
        return state.random_move(self.rng)
