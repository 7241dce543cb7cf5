"""Exact game values by brute force, for games small enough (tic-tac-toe, tiny
boards): the oracle that engines are checked against.

>>> from dlgo.games import new_game
>>> exact_value(new_game("tictactoe"))
0
"""
from __future__ import annotations

import numpy as np

from dlgo.core.game import ExactSolver, Game, State, value_for
from dlgo.core.types import Move

#: (game spec, zobrist hash) -> value for the player to move; the spec keeps apart
#: games whose boards share a size, and so their Zobrist keys
_VALUES: dict[tuple[str, int], int] = {}


def exact_value(state: State) -> int:
    """+1 / 0 / -1: the result for the player to move under perfect play by
    both sides (plain negamax over every legal action, memoised by hash)."""
    key = (state.game.spec, state.zobrist_hash())
    if key not in _VALUES:
        if state.is_over():
            _VALUES[key] = int(value_for(state.winner(), state.next_player))
        else:
            _VALUES[key] = max(-exact_value(state.apply_action(a)) for a in state.legal_actions())
    return _VALUES[key]


def perfect_actions(state: State) -> list[int]:
    """Every legal action that keeps the game's value: what a perfect player may choose."""
    best = exact_value(state)
    return [a for a in state.legal_actions() if -exact_value(state.apply_action(a)) == best]


def perfect_moves(state: State) -> list[Move]:
    """:func:`perfect_actions` as moves."""
    return [state.index_to_move(a) for a in perfect_actions(state)]


class BruteForceSolver:
    """:class:`dlgo.core.game.ExactSolver` by plain negamax over every legal action,
    memoised by Zobrist hash: exact scores (how soon each side wins) for a game
    small enough to search to the end (tic-tac-toe: 5,478 positions)."""

    def __init__(self, game: Game):
        self.game = game
        self._scores: dict[int, int] = {}

    def score(self, state: State) -> int:
        """The exact score of an unfinished position for the player to move."""
        if state.is_over():
            raise ValueError("a finished game has no score to solve")
        key = state.zobrist_hash()
        if key not in self._scores:
            self._scores[key] = max(self.move_scores(state).values())
        return self._scores[key]

    def move_scores(self, state: State) -> dict[int, int]:
        """Each legal action's exact score for the player making it."""
        if state.is_over():
            raise ValueError("a finished game has no moves to score")
        return {action: move_score(self, state, action) for action in state.legal_actions()}


def move_score(solver: ExactSolver, state: State, action: int) -> int:
    """The exact score of ``action`` for the player making it, by ``solver``: one
    entry of ``solver.move_scores(state)``, for a caller that wants them one at a
    time (to show progress, or stop between them)."""
    child = state.apply_action(action)
    if not child.is_over():
        return -solver.score(child)
    if child.winner() is None:
        return 0
    cells = state.game.num_rows * state.game.num_cols  # only the player who moved can have won
    return (cells + 1 - int(np.count_nonzero(state.stone_array()))) // 2
