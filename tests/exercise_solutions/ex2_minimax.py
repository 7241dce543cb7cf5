"""A student's answer to exercise 2: negamax and alpha-beta, no memory."""
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
    if state.is_over():
        return _finished(state)
    best = -1
    for move in state.legal_moves():
        value = -alphabeta_value(state.apply_move(move), -beta, -alpha)
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


def best_move(state: State) -> Move:
    target = alphabeta_value(state)
    for move in state.legal_moves():
        if -alphabeta_value(state.apply_move(move)) == target:
            return move
    raise AssertionError("no move keeps the value")
