"""Blocker: wins at once, else stops the opponent's win, else keeps to the middle columns."""
from __future__ import annotations

import random

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State
from dlgo.core.types import Move


class Blocker(Agent):
    """Takes a win, blocks a threat, avoids handing the opponent a win, prefers the centre."""

    name = "blocker"

    def __init__(self, seed: int | None = None):
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, state: State) -> Decision:
        me, moves = state.next_player, state.legal_moves()
        after = {move: state.apply_move(move) for move in moves}
        wins = [m for m in moves if after[m].winner() == me]
        if wins:
            return Decision(wins[0], len(moves))
        # the opponent's winning replies in each position we could leave them
        threats = {m: [r for r in after[m].legal_moves() if after[m].apply_move(r).winner() == me.other]
                   for m in moves if not after[m].is_over()}
        safe = [m for m in moves if not threats.get(m)] or moves
        centre = (state.game.num_cols + 1) / 2

        def closeness(move: Move) -> float:
            column = move.point.col if move.point is not None else centre
            return abs(column - centre) + self.rng.random()

        return Decision(min(safe, key=closeness), len(moves) ** 2)
