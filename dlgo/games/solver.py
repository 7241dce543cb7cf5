"""Exact game values by brute force, for games small enough (tic-tac-toe, tiny
boards): the oracle that engines are checked against.

>>> from dlgo.games import new_game
>>> exact_value(new_game("tictactoe"))
0
"""
from __future__ import annotations

from dlgo.core.game import State, value_for
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
