"""Monte Carlo tree search with UCT, random rollouts and MCTS-Solver.

One round: **select** a path down the tree by the UCT formula, **expand** one
untried move (among ``state.sensible_moves()``: in Go, no filling of one's own
eyes and no pass until the opponent passes), **simulate** the rest of the game with random moves
(``state.random_playout``: in Go it never fills its own eyes), and
**backpropagate** the winner up the path.

MCTS-Solver (Winands, Björnsson & Saito, 2008): a finished game inside the tree
has an exact value, and exact values propagate upward: a position with a move
to a proven win is a proven win, and one whose moves all lead to proven wins for
the opponent is a proven loss. Proven losing moves are never selected, and a
proven win at the root ends the search. (In Go the proofs are over the sensible
moves: a line that only an own-eye fill or an early pass would save is missed.)
"""
from __future__ import annotations

import math
import random
import time

from dlgo.game import GameStateBase
from dlgo.goboard import Move
from dlgo.gotypes import Player
from engines.base import Agent

WIN, DRAW, LOSS = 1, 0, -1  # proven values, for the player who moved into a node


class Node:
    """A position in the search tree. ``wins`` and ``proven`` are from the view of
    ``mover``, the player whose move led here (so a parent picks the child that
    is best for itself)."""

    __slots__ = ("state", "parent", "move", "mover", "children", "untried", "visits", "wins", "proven")

    def __init__(self, state: GameStateBase, parent: "Node | None", move: Move | None, rng):
        self.state = state
        self.parent = parent
        self.move = move
        self.mover: Player = state.next_player.other
        self.children: list[Node] = []
        self.visits = 0
        self.wins = 0.0
        if state.is_over():
            self.untried: list[Move] = []
            winner = state.winner()
            self.proven: int | None = DRAW if winner is None else WIN if winner == self.mover else LOSS
        else:
            self.untried = state.sensible_moves()
            rng.shuffle(self.untried)  # expansion order: random, reproducible from the seed
            self.proven = None

    def child_for(self, move: Move) -> "Node | None":
        for child in self.children:
            if child.move == move:
                return child
        return None

    def update_proof(self) -> bool:
        """Derive this node's exact value from its children; True if it is now proven."""
        children = self.children
        if any(child.proven == WIN for child in children):  # the player to move here can win
            self.proven = LOSS
        elif not self.untried and all(child.proven is not None for child in children):
            self.proven = -max(child.proven for child in children)
        return self.proven is not None


class MCTSAgent(Agent):
    """UCT with random rollouts, MCTS-Solver and tree reuse; budget in rounds or seconds."""

    name = "mcts"
    unit = "rounds"

    def __init__(self, rounds: int | None = None, seconds: float = 0.0, c: float = 1.4,
                 seed: int | None = None, reuse: bool = True, resign: float = 0.0):
        """``rounds``: rounds per move (default 1000, or none when ``seconds`` is set);
        ``seconds``: time per move (0 = none); ``c``: UCT exploration constant;
        ``reuse``: keep the subtree of the moves played; ``resign``: resign when the
        best move's win rate falls below this (0 = never; meant for Go)."""
        super().__init__()
        if rounds is None:
            rounds = 0 if seconds > 0 else 1000
        if rounds <= 0 and seconds <= 0:
            raise ValueError("mcts needs a budget: rounds > 0 or seconds > 0")
        self.rounds = rounds
        self.seconds = seconds
        self.c = c
        self.reuse = reuse
        self.resign = resign
        self.rng = random.Random(seed)
        self.root: Node | None = None
        self.last_value: int | None = None  # +1 / 0 / -1 once the root is proven
        self.last_win_rate: float = 0.5

    def new_game(self) -> None:
        self.root = None

    # -------------------------------------------------------------- driver
    def choose(self, state: GameStateBase) -> Move:
        root = self._reusable_node(state) if self.reuse else None
        if root is None:
            root = Node(state, None, None, self.rng)
        root.parent = None  # let the rest of the old tree go
        self.root = root

        deadline = self.deadline(self.seconds)
        rounds = 0
        while root.proven is None:
            if self.rounds and rounds >= self.rounds:
                break
            if rounds and deadline != math.inf and time.perf_counter() >= deadline:
                break
            self._round(root)
            rounds += 1
        self._work = rounds

        child = self._best_child(root)
        self.last_value = None if root.proven is None else -root.proven  # for the player to move
        self.last_win_rate = child.wins / child.visits if child.visits else 0.5
        proven_lost = root.proven == WIN  # a win for the player who moved into the root
        if self.resign and (proven_lost or (root.proven is None and self.last_win_rate < self.resign)):
            return Move.resign()
        return child.move

    def _best_child(self, root: Node) -> Node:
        """A proven win if there is one; else the most visited move not proven lost."""
        winning = [ch for ch in root.children if ch.proven == WIN]
        if winning:
            return max(winning, key=lambda ch: ch.visits)
        if not root.children:  # no round was run: expand one move
            self._expand(root)
        safe = [ch for ch in root.children if ch.proven != LOSS] or root.children
        return max(safe, key=lambda ch: (ch.visits, ch.wins))

    # --------------------------------------------------------------- round
    def _round(self, root: Node) -> None:
        node = root
        c = self.c
        # Select: descend through fully expanded, unproven nodes by UCT.
        while node.proven is None and not node.untried:
            log_n = math.log(node.visits)
            best, best_value = None, -math.inf
            for child in node.children:
                if child.proven == LOSS:  # never choose a proven losing move
                    continue
                n = child.visits
                value = child.wins / n + c * math.sqrt(log_n / n)
                if value > best_value:
                    best, best_value = child, value
            node = best
        # Expand one untried move.
        if node.proven is None:
            node = self._expand(node)
        # Simulate, or take the exact result of a proven node.
        if node.proven is None:
            winner = node.state.random_playout(self.rng)
        else:
            winner = None if node.proven == DRAW else node.mover if node.proven == WIN else node.mover.other
        # Backpropagate the result and any new proof.
        proving = node.proven is not None
        while node is not None:
            node.visits += 1
            if winner is None:
                node.wins += 0.5
            elif winner == node.mover:
                node.wins += 1.0
            if proving and node.proven is None:
                proving = node.update_proof()
            node = node.parent

    def _expand(self, node: Node) -> Node:
        move = node.untried.pop()
        child = Node(node.state.apply_move(move), node, move, self.rng)
        node.children.append(child)
        return child

    # ----------------------------------------------------------- tree reuse
    def _reusable_node(self, state: GameStateBase) -> Node | None:
        """The node of the kept tree for ``state``: the root itself or a position up
        to two plies below it (our move and the reply), matched by hash and moves."""
        root = self.root
        if root is None:
            return None
        target = root.state.zobrist_hash()
        moves: list[Move] = []
        s: GameStateBase | None = state
        for _ in range(3):
            if s is None:
                return None
            if s.zobrist_hash() == target:
                node: Node | None = root
                for move in reversed(moves):
                    node = node.child_for(move)
                    if node is None:
                        return None
                return node
            moves.append(s.last_move)
            s = s.previous_state
        return None
