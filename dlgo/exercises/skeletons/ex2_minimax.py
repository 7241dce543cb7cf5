"""Exercise 2 (chapter 4): minimax and alpha-beta pruning.

Write three functions that work on any game of the suite through the shared
state API, and check them with ``dlgo exercise check 2`` (on tic-tac-toe, and on
finished games of Go); play your ``best_move`` against the library's alpha-beta
with ``dlgo exercise play 2``.

What a state offers (``dlgo.core.game.State``):

- ``state.is_over()``: is the game finished?
- ``state.winner()``: ``Player.black``, ``Player.white``, or None (a draw, or not over);
- ``state.next_player``: the player to move;
- ``state.legal_moves()``: the moves allowed now (a list of ``Move``);
- ``state.apply_move(move)``: the state after ``move`` (the state itself does not change).

Values are from the point of view of the player to move: +1 they win with best
play from both sides, 0 a draw, -1 they lose. In *negamax* form a position's
value is the maximum, over the moves, of minus the value of the position after
the move.
"""
from __future__ import annotations

from dlgo.core.game import State
from dlgo.core.types import Move


def minimax_value(state: State) -> int:
    """The game's value for the player to move: +1, 0 or -1, by searching every
    line to the end (no pruning, no memory)."""
    raise NotImplementedError("minimax_value")


def alphabeta_value(state: State, alpha: int = -1, beta: int = 1) -> int:
    """The same value, searching only what can still change it: the result is
    exact when it lies strictly between ``alpha`` and ``beta``; stop looking at
    a position's moves as soon as one reaches ``beta`` (the opponent would never
    allow this position), and raise ``alpha`` as better moves are found."""
    raise NotImplementedError("alphabeta_value")


def best_move(state: State) -> Move:
    """A move that keeps the game's value for the player to move (use alphabeta_value)."""
    raise NotImplementedError("best_move")
