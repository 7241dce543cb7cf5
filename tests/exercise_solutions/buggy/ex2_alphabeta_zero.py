"""A buggy answer to exercise 2: alphabeta_value returns 0 without searching (0 is the
value of the pruning check's position, so it used to pass that check)."""
from __future__ import annotations

from dlgo.core.game import State
from dlgo.core.types import Move


def _finished(state: State) -> int:
    winner = state.winner()
    return 0 if winner is None else (1 if winner == state.next_player else -1)


def minimax_value(state: State) -> int:
    if state.is_over():
        return _finished(state)
    return max(-minimax_value(state.apply_move(move)) for move in state.legal_moves())


def alphabeta_value(state: State, alpha: int = -1, beta: int = 1) -> int:
    return 0  # the bug: no search at all


def _value(state: State, memo: dict[int, int]) -> int:
    """minimax_value, remembered by the position's hash: best_move is right."""
    key = state.zobrist_hash()
    if key not in memo:
        memo[key] = _finished(state) if state.is_over() else \
            max(-_value(state.apply_move(move), memo) for move in state.legal_moves())
    return memo[key]


def best_move(state: State) -> Move:
    memo: dict[int, int] = {}
    target = _value(state, memo)
    for move in state.legal_moves():
        if -_value(state.apply_move(move), memo) == target:
            return move
    raise AssertionError("no move keeps the value")
