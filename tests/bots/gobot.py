"""A bot for Go (any game, in fact): a random sensible move, never into its own eye, and a pass
only when nothing else is left."""
from __future__ import annotations

import random

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State


class GoBot(Agent):
    """Plays a seeded random sensible move."""

    name = "gobot"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, state: State) -> Decision:
        return Decision(self.rng.choice(state.sensible_moves()), 1)
