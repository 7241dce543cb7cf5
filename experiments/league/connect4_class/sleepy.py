"""Sleepy: Greedy's play, but it stops to think far too long now and then (it loses on time)."""
from __future__ import annotations

import random
import time

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State


class Sleepy(Agent):
    """Wins at once where it can, else random; one move in twenty it sleeps for ``nap`` seconds."""

    name = "sleepy"

    def __init__(self, nap: float = 5.0, seed: int | None = None):
        super().__init__()
        self.nap, self.rng = nap, random.Random(seed)

    def choose(self, state: State) -> Decision:
        if self.rng.random() < 0.05:
            time.sleep(self.nap)
        moves = state.legal_moves()
        wins = [m for m in moves if state.apply_move(m).winner() == state.next_player]
        return Decision(wins[0] if wins else self.rng.choice(moves), 1)
