"""Buggy: a centre-first bot with an off-by-one error: it fails once the middle column is full."""
from __future__ import annotations

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State


class Buggy(Agent):
    """Plays the middle column, then the next ones out; its list of columns has a bug."""

    name = "buggy"

    def choose(self, state: State) -> Decision:
        moves = state.legal_moves()
        middle = state.game.num_cols // 2 + 1
        open_columns = sorted({m.point.col for m in moves if m.point is not None}, key=lambda c: abs(c - middle))
        if middle not in open_columns:
            column = open_columns[len(open_columns)]  # the bug: one past the end of the list
        else:
            column = middle
        return Decision(next(m for m in moves if m.point is not None and m.point.col == column), 1)
