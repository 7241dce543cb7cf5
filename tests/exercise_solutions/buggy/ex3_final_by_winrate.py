"""A buggy answer to exercise 3: the move played is the best win rate, not the most
visited (tests/test_exercises.py: the check on the move played must catch it, and only it)."""
from __future__ import annotations

import math
import random

from dlgo.core.game import State
from dlgo.core.types import Move


def uct_score(parent_visits: int, child_visits: int, child_win_rate: float, c: float) -> float:
    return child_win_rate + c * math.sqrt(math.log(parent_visits) / child_visits)


class Node:
    def __init__(self, state: State, parent: "Node | None" = None, move: Move | None = None):
        self.state = state
        self.parent = parent
        self.move = move
        self.mover = state.next_player.other
        self.children: list[Node] = []
        self.untried: list[Move] = state.legal_moves() if not state.is_over() else []
        self.visits = 0
        self.wins = 0.0


def mcts_move(state: State, rounds: int, rng: random.Random) -> Move:
    root = Node(state)
    for _ in range(rounds):
        node = root
        while not node.untried and node.children:
            node = max(node.children, key=lambda ch: uct_score(node.visits, ch.visits, ch.wins / ch.visits, 1.4))
        if node.untried:
            move = node.untried.pop(rng.randrange(len(node.untried)))
            child = Node(node.state.apply_move(move), node, move)
            node.children.append(child)
            node = child
        game = node.state
        while not game.is_over():
            game = game.apply_move(rng.choice(game.legal_moves()))
        winner = game.winner()
        walker: Node | None = node
        while walker is not None:
            walker.visits += 1
            walker.wins += 0.5 if winner is None else float(winner == walker.mover)
            walker = walker.parent
    best = max(root.children, key=lambda ch: ch.wins / ch.visits)  # the bug: by win rate
    assert best.move is not None
    return best.move
