"""Game-tree search: plain minimax for teaching, and alpha-beta for playing.

Both are written as *negamax*: a position's value for the player to move is the
best of the negated values of its children. Scores come from
:mod:`engines.evaluation`: exact for finished games, heuristic at the depth limit.
"""
from __future__ import annotations

import functools
import math
import time
from typing import NamedTuple

from dlgo.game import GameStateBase
from dlgo.goboard import Move
from engines.base import Agent
from engines.evaluation import PROVEN, evaluate, terminal_score

MAX_DEPTH = 200  # "no depth limit" still needs a bound for iterative deepening


@functools.lru_cache(maxsize=None)
def _centre_distance(num_rows: int, num_cols: int) -> dict:
    """Distance of each point from the board centre (for centre-first ordering)."""
    cr, cc = (num_rows + 1) / 2, (num_cols + 1) / 2
    return {(r, c): abs(r - cr) + abs(c - cc) + 1e-3 * (r + c / 100)
            for r in range(1, num_rows + 1) for c in range(1, num_cols + 1)}


def centre_first(state: GameStateBase, moves: list[Move]) -> list[Move]:
    """``moves`` sorted centre first, pass last (ties broken by position)."""
    dist = _centre_distance(state.board.num_rows, state.board.num_cols)
    return sorted(moves, key=lambda m: dist[m.point] if m.is_play else math.inf)


def game_value(score: float) -> int | None:
    """+1 / -1 for a proven win / loss score, None for an estimate."""
    if score >= PROVEN:
        return 1
    if score <= -PROVEN:
        return -1
    return None


class MinimaxAgent(Agent):
    """Plain minimax to a fixed depth (for teaching on tic-tac-toe: compare its
    node count with alpha-beta's). ``pruning=True`` adds textbook alpha-beta
    cut-offs and nothing else, so the saving is the pruning's alone."""

    name = "minimax"
    unit = "nodes"

    def __init__(self, depth: int = 0, pruning: bool = False):
        """``depth``: plies to look ahead (0 searches to the end of the game);
        ``pruning``: cut off branches that cannot change the result (alpha-beta)."""
        super().__init__()
        self.depth = depth or MAX_DEPTH
        self.pruning = pruning
        self.last_score: float = 0.0
        self.last_value: int | None = None

    def choose(self, state: GameStateBase) -> Move:
        self._estimated = False
        best_move, best = None, -math.inf
        for move in centre_first(state, state.legal_moves()):
            # with pruning, a reply only has to show the move is no better than ``best``
            score = -self._negamax(state.apply_move(move), self.depth - 1, 1, -math.inf, -best)
            if score > best:
                best_move, best = move, score
        self.last_score = best
        self.last_value = game_value(best) if self._estimated else (game_value(best) or 0)
        return best_move

    def _negamax(self, state: GameStateBase, depth: int, ply: int, alpha: float, beta: float) -> float:
        self._work += 1
        if state.is_over():
            return terminal_score(state, ply)
        if depth <= 0:
            self._estimated = True
            return evaluate(state)
        best = -math.inf
        for move in state.legal_moves():
            score = -self._negamax(state.apply_move(move), depth - 1, ply + 1, -beta, -alpha)
            best = max(best, score)
            if self.pruning:
                alpha = max(alpha, score)
                if alpha >= beta:
                    break
        return best


# Transposition-table entry kinds: the stored score is exact, a lower or an upper bound.
EXACT, LOWER, UPPER = 0, 1, 2


class TTEntry(NamedTuple):
    depth: int          # plies searched below this position
    score: float        # mate scores stored relative to this position
    kind: int           # EXACT, LOWER or UPPER
    move: Move | None   # best (or refuting) move found
    solved: bool        # no estimate was used below: the score holds at any depth


class _OutOfBudget(Exception):
    pass


class AlphaBetaAgent(Agent):
    """Negamax with alpha-beta pruning, iterative deepening under a depth, node or
    time budget, a Zobrist-keyed transposition table and move ordering
    (transposition move, killers, history, centre first)."""

    name = "alphabeta"
    unit = "nodes"

    def __init__(self, depth: int = 0, nodes: int = 20000, seconds: float = 0.0, table_size: int = 1_000_000):
        """``depth``: deepest iteration (0 = no limit); ``nodes``/``seconds``: budget
        per move (0 = none); ``table_size``: transposition-table entries kept."""
        super().__init__()
        self.max_depth = depth or MAX_DEPTH
        self.max_nodes = nodes
        self.seconds = seconds
        self.table_size = table_size
        self.table: dict[int, TTEntry] = {}
        self.history: dict[Move, int] = {}
        self.last_score: float = 0.0
        self.last_value: int | None = None  # the game-theoretic value, when proven
        self.last_depth = 0

    def new_game(self) -> None:
        self.table.clear()
        self.history.clear()

    # ------------------------------------------------------------ the driver
    def choose(self, state: GameStateBase) -> Move:
        self._deadline = self.deadline(self.seconds)
        self._killers: list[list[Move]] = [[] for _ in range(MAX_DEPTH + 2)]
        if len(self.table) > self.table_size:
            self.table.clear()
        best_move, best_score, solved = None, 0.0, False
        for depth in range(1, self.max_depth + 1):
            self._estimates = 0
            self._root_best = None
            try:
                score = self._negamax(state, depth, -math.inf, math.inf, 0)
            except _OutOfBudget:
                if self._root_best is not None:  # the first (previous best) move was searched deeper
                    best_move, best_score = self._root_best
                break
            best_move, best_score = self.table[state.zobrist_hash()].move, score
            self.last_depth = depth
            solved = self._estimates == 0
            if solved or abs(score) >= PROVEN:
                break
        if best_move is None:  # out of budget before depth 1 finished: any legal move
            best_move = centre_first(state, state.legal_moves())[0]
        self.last_score = best_score
        self.last_value = game_value(best_score) if not solved else (game_value(best_score) or 0)
        return best_move

    # ------------------------------------------------------------ the search
    def _negamax(self, state: GameStateBase, depth: int, alpha: float, beta: float, ply: int) -> float:
        self._work += 1
        if self.max_nodes and self._work > self.max_nodes:
            raise _OutOfBudget
        if self._work & 255 == 0 and time.perf_counter() > self._deadline:
            raise _OutOfBudget
        if state.is_over():
            return terminal_score(state, ply)

        key = state.zobrist_hash()
        entry = self.table.get(key)
        tt_move = None
        if entry is not None:
            tt_move = entry.move
            if (entry.solved or entry.depth >= depth) and ply > 0:
                score = _from_table(entry.score, ply)
                if not entry.solved:
                    self._estimates += 1
                if entry.kind == EXACT:
                    return score
                if entry.kind == LOWER and score >= beta:
                    return score
                if entry.kind == UPPER and score <= alpha:
                    return score
        if depth <= 0:
            self._estimates += 1
            return evaluate(state)

        estimates_before = self._estimates
        alpha_before = alpha
        best_score, best_move = -math.inf, None
        for move in self._ordered(state, tt_move, ply):
            score = -self._negamax(state.apply_move(move), depth - 1, -beta, -alpha, ply + 1)
            if score > best_score:
                best_score, best_move = score, move
                if ply == 0:
                    self._root_best = (move, score)
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    self._reward(move, depth, ply)
                    break
        kind = UPPER if best_score <= alpha_before else LOWER if best_score >= beta else EXACT
        self.table[key] = TTEntry(depth, _to_table(best_score, ply), kind, best_move,
                                  self._estimates == estimates_before)
        return best_score

    def _ordered(self, state: GameStateBase, tt_move: Move | None, ply: int) -> list[Move]:
        """Transposition move, then killers, then by history score, centre first."""
        moves = centre_first(state, state.legal_moves())
        history = self.history
        killers = self._killers[ply]
        moves.sort(key=lambda m: -history.get(m, 0))  # stable: centre-first breaks ties
        front = [m for m in killers if m in moves]
        if tt_move is not None and tt_move in moves:
            front = [tt_move] + [m for m in front if m != tt_move]
        if front:
            moves = front + [m for m in moves if m not in front]
        return moves

    def _reward(self, move: Move, depth: int, ply: int) -> None:
        """A move that caused a cutoff: remember it as a killer at this ply and in the history."""
        self.history[move] = self.history.get(move, 0) + depth * depth
        killers = self._killers[ply]
        if move not in killers:
            killers.insert(0, move)
            del killers[2:]


def _to_table(score: float, ply: int) -> float:
    """Mate scores count plies from the root; the table stores them from this node."""
    if score >= PROVEN:
        return score + ply
    if score <= -PROVEN:
        return score - ply
    return score


def _from_table(score: float, ply: int) -> float:
    if score >= PROVEN:
        return score - ply
    if score <= -PROVEN:
        return score + ply
    return score
