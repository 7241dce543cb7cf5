"""Game-tree search: plain minimax for teaching, and alpha-beta for playing.

Both are written as *negamax*: a position's value for the player to move is the
best of the negated values of its children. Scores come from
:mod:`engines.evaluation`: exact for finished games, heuristic at the depth limit.
Both search int actions; move ordering looks at the point each action plays at
(``state.action_point``): the centre first, and killer and history moves
remembered by their point, so they carry over between positions.
"""
from __future__ import annotations

import functools
import math
import time
from typing import NamedTuple

from dlgo.core.agent import Agent, Decision, SearchReport
from dlgo.core.game import State
from dlgo.core.specs import require, require_seconds
from dlgo.core.types import Point
from engines.evaluation import PROVEN, game_value, terminal_score

MAX_DEPTH = 200  # "no depth limit" still needs a bound for iterative deepening


@functools.lru_cache(maxsize=None)
def _centre_distance(num_rows: int, num_cols: int) -> dict[tuple[int, int], float]:
    """Distance of each point from the board centre (for centre-first ordering)."""
    cr, cc = (num_rows + 1) / 2, (num_cols + 1) / 2
    return {(r, c): abs(r - cr) + abs(c - cc) + 1e-3 * (r + c / 100)
            for r in range(1, num_rows + 1) for c in range(1, num_cols + 1)}


def centre_first(state: State, actions: list[int]) -> list[tuple[Point | None, int]]:
    """``(point, action)`` pairs, centre first, pass (no point) last, ties broken by position."""
    dist = _centre_distance(state.game.num_rows, state.game.num_cols)
    pairs = [(state.action_point(a), a) for a in actions]
    pairs.sort(key=lambda pa: math.inf if pa[0] is None else dist[pa[0]])
    return pairs


def _exact_value(score: float) -> float:
    """A completed search's score as a game value: a proven win or loss, else a draw."""
    return float(game_value(score) or 0)


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
        require(depth >= 0, f"minimax: depth must be at least 0 (0 = to the end), got {depth}")
        self.depth = depth or MAX_DEPTH
        self.nodes = 0  # the positions this move's search has visited: its work
        self.pruning = pruning
        self._estimated = False

    def warm_up(self, state: State) -> None:
        """Nothing: plain Python loads nothing, and no time limit shortens its search."""

    def choose(self, state: State) -> Decision:
        self._estimated, self.nodes = False, 0
        ordered = centre_first(state, state.legal_actions())
        best_action, best = ordered[0][1], -math.inf
        for _, action in ordered:
            # with pruning, a reply only has to show the move is no better than ``best``
            score = -self._negamax(state.apply_action(action), self.depth - 1, 1, -math.inf, -best)
            if score > best:
                best_action, best = action, score
        value = game_value(best) if self._estimated else _exact_value(best)
        report = SearchReport(value=None if value is None else float(value), proven=value is not None,
                              principal_variation=(best_action,), score=best)
        return Decision(state.index_to_move(best_action), self.nodes, report)

    def _negamax(self, state: State, depth: int, ply: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if state.is_over():
            return terminal_score(state, ply)
        if depth <= 0:
            self._estimated = True
            return state.heuristic_value()
        best = -math.inf
        for action in state.legal_actions():
            score = -self._negamax(state.apply_action(action), depth - 1, ply + 1, -beta, -alpha)
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
    action: int | None  # best (or refuting) action found
    solved: bool        # no estimate was used below: the score holds at any depth


class _OutOfBudget(Exception):
    pass


class AlphaBetaAgent(Agent):
    """Negamax with alpha-beta pruning, iterative deepening under a depth, node or
    time budget, a Zobrist-keyed transposition table and move ordering
    (transposition move, killers, history, centre first)."""

    name = "alphabeta"
    unit = "nodes"
    budget_parameters = ("depth", "nodes", "seconds")

    def __init__(self, depth: int = 0, nodes: int = 20000, seconds: float = 0.0, table_size: int = 1_000_000):
        """``depth``: deepest iteration (0 = no limit); ``nodes``/``seconds``: budget
        per move (0 = none; with none of ``depth``, ``nodes`` and ``seconds``
        given, a game clock's time when GTP has one); ``table_size``:
        transposition-table entries kept."""
        super().__init__()
        require(depth >= 0, f"alphabeta: depth must be at least 0 (0 = no limit), got {depth}")
        require(nodes >= 0, f"alphabeta: nodes must be at least 0 (0 = no limit), got {nodes}")
        require_seconds(seconds, "alphabeta: seconds")
        require(table_size >= 1, f"alphabeta: table_size must be at least 1, got {table_size}")
        self.max_depth = depth or MAX_DEPTH
        self.max_nodes = nodes
        self.seconds = seconds
        self.table_size = table_size
        self.table: dict[int, TTEntry] = {}
        self.history: dict[Point | None, int] = {}  # by the point a move plays at (None: pass)
        self._killers: list[list[Point | None]] = []
        self._deadline = math.inf
        self._node_budget = nodes  # this move's node budget (0 = none)
        self.nodes = 0  # the positions this move's search has visited: its work
        self._estimates = 0
        self._root_best: tuple[int, float] | None = None

    def new_game(self) -> None:
        self.table.clear()
        self.history.clear()

    # ------------------------------------------------------------ the driver
    def choose(self, state: State) -> Decision:
        self.nodes = 0
        self._node_budget, seconds = self.move_budget(self.max_nodes, self.seconds)
        self._deadline = self.deadline(seconds)
        self._killers = [[] for _ in range(MAX_DEPTH + 2)]
        if len(self.table) > self.table_size:
            self.table.clear()
        best_action: int | None = None
        best_score, solved, depth_done = 0.0, False, 0
        for depth in range(1, self.max_depth + 1):
            self._estimates = 0
            self._root_best = None
            try:
                score = self._negamax(state, depth, -math.inf, math.inf, 0)
            except _OutOfBudget:
                if self._root_best is not None:  # the first (previous best) move was searched deeper
                    best_action, best_score = self._root_best
                break
            best_action, best_score = self.table[state.zobrist_hash()].action, score
            depth_done = depth
            solved = self._estimates == 0
            if solved or abs(score) >= PROVEN:
                break
        if best_action is None:  # out of budget before depth 1 finished: any legal move
            best_action = centre_first(state, state.legal_actions())[0][1]
        value = _exact_value(best_score) if solved else game_value(best_score)
        report = SearchReport(value=None if value is None else float(value), proven=value is not None,
                              principal_variation=self._principal_variation(state, best_action, depth_done),
                              score=best_score)
        return Decision(state.index_to_move(best_action), self.nodes, report)

    def _principal_variation(self, state: State, first: int, depth: int) -> tuple[int, ...]:
        """The expected line: ``first``, then the table's best action in each position after it."""
        line = [first]
        state = state.apply_action(first)
        while len(line) < max(depth, 1) and not state.is_over():
            entry = self.table.get(state.zobrist_hash())
            if entry is None or entry.action is None:
                break
            line.append(entry.action)
            state = state.apply_action(entry.action)
        return tuple(line)

    # ------------------------------------------------------------ the search
    def _negamax(self, state: State, depth: int, alpha: float, beta: float, ply: int) -> float:
        self.nodes += 1
        if self._node_budget and self.nodes > self._node_budget:
            raise _OutOfBudget
        if self.nodes & 255 == 0 and time.perf_counter() > self._deadline:
            raise _OutOfBudget
        if state.is_over():
            return terminal_score(state, ply)

        key = state.zobrist_hash()
        entry = self.table.get(key)
        tt_action = None
        if entry is not None:
            tt_action = entry.action
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
            return state.heuristic_value()

        estimates_before = self._estimates
        alpha_before = alpha
        best_score, best_action = -math.inf, None
        for point, action in self._ordered(state, tt_action, ply):
            score = -self._negamax(state.apply_action(action), depth - 1, -beta, -alpha, ply + 1)
            if score > best_score:
                best_score, best_action = score, action
                if ply == 0:
                    self._root_best = (action, score)
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    self._reward(point, depth, ply)
                    break
        kind = UPPER if best_score <= alpha_before else LOWER if best_score >= beta else EXACT
        self.table[key] = TTEntry(depth, _to_table(best_score, ply), kind, best_action,
                                  self._estimates == estimates_before)
        return best_score

    def _ordered(self, state: State, tt_action: int | None, ply: int) -> list[tuple[Point | None, int]]:
        """Transposition move, then killers, then by history score, centre first."""
        moves = centre_first(state, state.legal_actions())
        history = self.history
        killers = self._killers[ply]
        moves.sort(key=lambda pa: -history.get(pa[0], 0))  # stable: centre-first breaks ties
        front = [pa for k in killers for pa in moves if pa[0] == k]
        if tt_action is not None:
            first = [pa for pa in moves if pa[1] == tt_action]
            if first:
                front = first + [pa for pa in front if pa[1] != tt_action]
        if front:
            moves = front + [pa for pa in moves if pa not in front]
        return moves

    def _reward(self, point: Point | None, depth: int, ply: int) -> None:
        """A move that caused a cutoff: remember its point as a killer at this ply and in the history."""
        self.history[point] = self.history.get(point, 0) + depth * depth
        killers = self._killers[ply]
        if point not in killers:
            killers.insert(0, point)
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
