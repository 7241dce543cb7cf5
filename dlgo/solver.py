"""Exact game values by brute force, for games small enough (tic-tac-toe, tiny
boards): the oracle that engines are checked against.

>>> from dlgo.games import new_game
>>> exact_value(new_game("tictactoe"))
0
"""
from __future__ import annotations

from dlgo.game import GameStateBase
from dlgo.goboard import Move

_VALUES: dict[int, int] = {}  # zobrist hash -> value for the player to move


def exact_value(state: GameStateBase) -> int:
    """+1 / 0 / -1: the result for the player to move under perfect play by
    both sides (plain negamax over every legal move, memoised by hash)."""
    key = state.zobrist_hash()
    if key not in _VALUES:
        if state.is_over():
            winner = state.winner()
            _VALUES[key] = 0 if winner is None else 1 if winner == state.next_player else -1
        else:
            _VALUES[key] = max(-exact_value(state.apply_move(m)) for m in state.legal_moves())
    return _VALUES[key]


def perfect_moves(state: GameStateBase) -> list[Move]:
    """Every legal move that keeps the game's value: what a perfect player may choose."""
    best = exact_value(state)
    return [m for m in state.legal_moves() if -exact_value(state.apply_move(m)) == best]
