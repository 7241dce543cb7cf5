"""Exercise 3 (chapter 4): Monte Carlo tree search with UCT.

Write the UCT score and a whole search: ``dlgo exercise check 3`` tests the
score's formula and sets your search tactical problems on tic-tac-toe and
Connect Four; ``dlgo exercise play 3`` plays it against the library's MCTS at
the same number of rounds.

One round of MCTS:

1. **select**: from the root, while the node has no untried move and has
   children, go down to the child with the highest ``uct_score``;
2. **expand**: if the node's game is not over, add a child for one untried move;
3. **simulate**: play random legal moves from that child to the end of the game;
4. **backpropagate**: walk back up to the root, adding one visit to each node and
   a win (1, or 0.5 for a draw) to each node whose *mover* (the player who made
   the move into it) won.

After the rounds, play the root's most visited move.

Build the tree from the ``Node`` class below and keep its names (``children``,
``move``, ``visits``, ``wins``): two of the checks look at your tree through it.

The state API (``dlgo.core.game.State``): ``is_over()``, ``winner()``,
``next_player``, ``legal_moves()``, ``apply_move(move)``.
"""
from __future__ import annotations

import math
import random

from dlgo.core.game import State
from dlgo.core.types import Move


def uct_score(parent_visits: int, child_visits: int, child_win_rate: float, c: float) -> float:
    """The child's win rate (for the player who moves into it) plus the
    exploration bonus ``c * sqrt(ln(parent_visits) / child_visits)``."""
    raise NotImplementedError("uct_score")


class Node:
    """A position in the search tree: the move that led here, the visits and
    wins (for ``mover``, who made that move), the children, and the moves not
    tried yet."""

    def __init__(self, state: State, parent: "Node | None" = None, move: Move | None = None):
        self.state = state
        self.parent = parent
        self.move = move
        self.mover = state.next_player.other  # who moved into this position
        self.children: list[Node] = []
        self.untried: list[Move] = state.legal_moves() if not state.is_over() else []
        self.visits = 0
        self.wins = 0.0


def mcts_move(state: State, rounds: int, rng: random.Random) -> Move:
    """The move MCTS chooses after ``rounds`` rounds from ``state``; every
    random choice (the move to expand, the simulations) drawn from ``rng``."""
    raise NotImplementedError("mcts_move")


_ = math  # for uct_score
