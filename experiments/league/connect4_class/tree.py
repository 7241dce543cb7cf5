"""Tree: the MCTS exercise's solution (plain UCT with random playouts) as a bot."""
from __future__ import annotations

import math
import random

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State
from dlgo.core.types import Move


class Node:
    """A position in the search tree, with what the playouts through it won."""

    def __init__(self, state: State, parent: Node | None = None, move: Move | None = None):
        self.state, self.parent, self.move = state, parent, move
        self.mover = state.next_player.other  # who made the move into this position
        self.children: list[Node] = []
        self.untried = state.legal_moves() if not state.is_over() else []
        self.visits, self.wins = 0, 0.0

    def uct(self, c: float) -> Node:
        """The child to walk into: the best win rate plus exploration."""
        log_visits = math.log(self.visits)
        return max(self.children, key=lambda ch: ch.wins / ch.visits + c * math.sqrt(log_visits / ch.visits))


class Tree(Agent):
    """UCT with random playouts, ``rounds`` of them a move."""

    name = "tree"
    unit = "rounds"

    def __init__(self, rounds: int = 1000, c: float = 1.4, seed: int | None = None):
        super().__init__()
        self.rounds, self.c, self.rng = rounds, c, random.Random(seed)

    def choose(self, state: State) -> Decision:
        root = Node(state)
        for _ in range(self.rounds):
            node = root
            while not node.untried and node.children:
                node = node.uct(self.c)
            if node.untried:
                move = node.untried.pop(self.rng.randrange(len(node.untried)))
                node.children.append(Node(node.state.apply_move(move), node, move))
                node = node.children[-1]
            end = node.state
            while not end.is_over():
                end = end.apply_move(self.rng.choice(end.legal_moves()))
            winner = end.winner()
            walker: Node | None = node
            while walker is not None:
                walker.visits += 1
                walker.wins += 0.5 if winner is None else float(winner == walker.mover)
                walker = walker.parent
        best = max(root.children, key=lambda ch: ch.visits)
        assert best.move is not None
        return Decision(best.move, self.rounds)
