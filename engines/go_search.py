"""The Go engine's search: compiled MCTS with RAVE, priors, heavy playouts and tree reuse.

:class:`GoSearch` drives the kernels of :mod:`engines.mcts_kernels` from
Python: it puts the game's position on the compiled board, keeps the tree
between moves (the subtree under the position reached, compacted), runs the
simulations in short compiled chunks between looks at the clock, manages the
time of a game, and chooses (the most simulated move), passes or resigns. The
``mcts`` engine hands it every Go position unless told ``plain=true``.

Time management (``manage``, with a budget in seconds) keeps the average per
move at ``seconds`` and moves the time to where it matters, as Go programs do
(Huang, Coulom & Lin, "Time management for Monte-Carlo tree search applied to
the game of Go", 2010): a search stops early once the most simulated move can
no longer be overtaken in the time left, the time saved goes to a bank, and a
close middle-game position whose most simulated move is not also the best
valued one draws on the bank for up to another ``seconds``. The bank holds three
moves' time: a decided search stops early only when the bank can take what it
saves (or it has one move to play); else it runs on, growing the tree the next
moves keep.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from dlgo.core.agent import SearchReport
from dlgo.core.types import Move
from dlgo.games.go import kernels, playouts
from dlgo.games.go.move_features import played_point
from dlgo.games.go.pattern_kernels import tables_for
from dlgo.games.go.state import GoState
from engines import mcts_kernels
from engines.mcts_kernels import MAX_DEPTH, Settings, Tree

#: the first tree's room, in nodes; it doubles when it runs short
FIRST_CAPACITY = 1 << 16
#: simulations in the first compiled chunk; later chunks aim at CHUNK_SECONDS each
FIRST_CHUNK = 16
CHUNK_SECONDS = 0.01
#: a search resigns only after this many simulations (or all it was given, if fewer)
RESIGN_AFTER = 2000
#: the bank holds at most this many moves' time
BANK_MOVES = 3


class Guide(Protocol):
    """A network that guides the search (:mod:`engines.alphago`): how its encoder
    reads a position, and its answers for a batch of encoded positions."""

    recipe: np.ndarray  # dlgo.encoders.go_kernels.recipe_array of its encoder
    shape: tuple[int, int, int]  # one position's planes: rows, columns, planes

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(policy (k, num_actions), values (k,))`` for ``k`` encoded positions;
        values for the player to move, -1..1."""


#: positions that may wait for the network; it is asked once this many wait (a call on
#: 16 costs little more than on one) and at the end of every search
GUIDE_ROOM = 256
GUIDE_BATCH = 16


@dataclass(frozen=True)
class SearchSettings:
    """What the ``mcts-go`` spec sets (see :class:`engines.mcts.GoMCTSAgent`)."""

    rave_equiv: float = 3500.0  # 0: no RAVE
    c: float = 0.0
    expand: int = 8
    heavy: bool = True
    priors: bool = True
    manage: bool = True
    resign: float = 0.1
    guide_after: int = 0  # with a network: simulations through a node before it is asked
    prior_net: float = 0.0
    value_share: float = 0.0  # AlphaGo's 1 - lambda

    def kernel_settings(self, komi: float, budget: int, guided: bool = False) -> Settings:
        """The constants the kernels read; the priors are Michi's (Baudis 2015), in simulations."""
        on = 1.0 if self.priors else 0.0
        return Settings(float(self.rave_equiv), float(self.c), self.expand, self.heavy, float(komi), budget,
                        prior_even=10.0,
                        prior_policy=100.0 * on, prior_capture_one=15.0 * on, prior_capture_many=30.0 * on,
                        prior_self_atari=10.0 * on, prior_cfg1=24.0 * on, prior_cfg2=22.0 * on, prior_cfg3=8.0 * on,
                        prior_empty_area=10.0 * on, guide_after=self.guide_after if guided else 0,
                        prior_net=float(self.prior_net), value_share=float(self.value_share))  # one compiled version


@dataclass
class Clock:
    """One move's time: when it began, the seconds planned (inf: none), the hard
    deadline (a ``time.perf_counter()`` value), and whether it is managed."""

    start: float
    planned: float
    deadline: float
    managed: bool
    bank_room: float = math.inf  # the seconds the bank can still take
    extended: bool = False

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


class SearchResult(NamedTuple):
    """A finished search: the move chosen and what the report needs."""

    move: Move
    simulations: int
    visits: np.ndarray  # per action
    q: np.ndarray  # per action, for the player to move, -1..1
    value: float  # the chosen move's win rate, -1..1
    line: tuple[int, ...]  # the principal variation

    def report(self) -> SearchReport:
        """The search as an engine reports it."""
        return SearchReport(value=self.value, visits=self.visits, q=self.q, principal_variation=self.line)


class GoSearch:
    """One engine's compiled Go search, its tree kept from move to move."""

    def __init__(self, settings: SearchSettings, policy: Any, seed: int, guide: Guide | None = None,
                 log_gamma: np.ndarray | None = None):
        self.settings = settings
        self.policy = policy  # a PatternPolicy: its weights give the priors, and the playouts when heavy
        self.guide = guide  # a network asked about the nodes simulated often (None: none)
        self.log_gamma = log_gamma  # move patterns' log strengths: the priors in the policy's place (None: none)
        self.seed = seed
        self.tree: Tree | None = None
        self.root_state: GoState | None = None  # the position node 0 of the tree stands for
        self.bank = 0.0  # seconds saved on earlier moves

    def new_game(self) -> None:
        self.tree = None
        self.root_state = None
        self.bank = 0.0

    # ------------------------------------------------------------ the move
    def search(self, state: GoState, rounds: int, seconds: float, deadline: float, reuse: bool) -> SearchResult:
        """Search ``state`` for ``rounds`` simulations (0: no limit) or until
        ``seconds`` have passed (0: no limit; managed) or ``deadline`` (a hard
        ``time.perf_counter()`` limit), and choose."""
        if self._passing_wins(state):
            n = state.num_actions
            return SearchResult(Move.pass_turn(), 0, np.zeros(n), np.zeros(n), 1.0, (n - 1,))
        clock = Clock(time.perf_counter(), seconds if seconds > 0 else math.inf, deadline,
                      managed=seconds > 0 and self.settings.manage, bank_room=BANK_MOVES * seconds - self.bank)
        position = self._position(state, reuse)
        done, chunk = 0, FIRST_CHUNK
        while not rounds or done < rounds:
            count = chunk if not rounds else min(chunk, rounds - done)
            tick = time.perf_counter()
            ran = self._simulate(position, count)
            done += ran
            # the next chunk: about CHUNK_SECONDS at this speed, at most four times this one
            chunk = max(1, min(4 * chunk, int(ran * CHUNK_SECONDS / max(time.perf_counter() - tick, 1e-6))))
            if self._time_is_up(clock, done, state):
                break
        self._forget_waiting(position)  # no network call past the time; and the tree may be compacted
        if clock.managed:  # what this move did not spend goes to the bank
            self.bank = min(self.bank + max(0.0, clock.planned - clock.elapsed()), BANK_MOVES * seconds)
        return self._choose(state, done, min(RESIGN_AFTER, rounds or RESIGN_AFTER))

    def _time_is_up(self, clock: "Clock", done: int, state: GoState) -> bool:
        """Should the search stop: past the deadline, decided, or at its planned time
        (which a close middle game may extend once from the bank)?"""
        elapsed = clock.elapsed()
        if clock.start + elapsed >= clock.deadline:
            return True
        if clock.managed and self._decided(done, (clock.planned - elapsed) * done / max(elapsed, 1e-6)) \
                and (self._forced() or clock.planned - elapsed <= clock.bank_room):
            return True  # decided, and the bank can take the time saved (else it grows the tree for later moves)
        if elapsed < clock.planned:
            return False
        if clock.managed and not clock.extended and self._worth_more_time(state):
            clock.extended = True
            extra = min(self.bank, clock.planned)
            clock.planned += extra
            self.bank -= extra
            return elapsed >= clock.planned
        return True

    @staticmethod
    def _passing_wins(state: GoState) -> bool:
        """Has the opponent just passed, so that passing now ends the game, and
        would the game's own count give it to the player to move?"""
        last = state.last_move
        return last is not None and last.is_pass and state.apply_move(Move.pass_turn()).winner() == state.next_player

    def _position(self, state: GoState, reuse: bool) -> "Position":
        """``state`` on the compiled board, with the tree's node for it at node 0."""
        settings = self.settings
        budget = 10 * len(state.board.color)
        board, seen, color = playouts.compiled_position(state, room=MAX_DEPTH + budget + 2)
        geometry = kernels.geometry_arrays(state.board.num_rows, state.board.num_cols)
        last_move = state.last_move
        passes = 1 if last_move is not None and last_move.is_pass else 0
        last, before = played_point(state), played_point(state.previous_state)
        guide = self.guide
        seed = self.seed + state.num_moves_played
        ws = mcts_kernels.new_workspace(kernels.copy_board(board), seen, budget, seed, log_gamma=self.log_gamma) \
            if guide is None else mcts_kernels.new_workspace(kernels.copy_board(board), seen, budget, seed,
                                                             guide.recipe, guide.shape, GUIDE_ROOM, self.log_gamma)
        s = settings.kernel_settings(state.game.komi, budget, guided=guide is not None)
        tables = tables_for(self.policy)
        self.tree = self._reused_tree(state) if reuse else None
        if self.tree is None:
            self.tree = mcts_kernels.new_tree(FIRST_CAPACITY)
        self.root_state = state
        at = Position(board, geometry, tables, s, ws, color, passes, last, before, int(seen.size[0]))
        if self.tree.num_children[0] == 0:
            mcts_kernels.expand(self.tree, 0, board, geometry, tables, s, ws, color, passes > 0, last, before)
        if guide is not None and guide.shape[:2] != (state.board.num_rows, state.board.num_cols):
            raise ValueError(f"the network reads {guide.shape[0]}x{guide.shape[1]} boards, not this one")
        if guide is not None and self.tree.guided[0] == 0 and self.tree.num_children[0] > 0:
            mcts_kernels.ask_network(self.tree, 0, board, geometry, ws, color)  # the root: at once
            self._consult(at)
        return at

    def _simulate(self, at: "Position", count: int) -> int:
        """Up to ``count`` simulations; the network answers once ``GUIDE_BATCH`` nodes
        wait (after the same simulations, however fast they ran). Returns how many ran."""
        tree = self.tree
        assert tree is not None
        width = len(at.board.color) + 1  # the most children one expansion makes
        if tree.size[0] + (count // max(1, self.settings.expand) + 1) * width > len(tree.move):
            self.tree = tree = mcts_kernels.grown(tree, 2 * len(tree.move))
        ran = int(mcts_kernels.simulate_many(tree, 0, at.board, at.geometry, at.tables, at.settings, at.workspace,
                                             at.color, at.passes, at.last, at.before, at.mark, count, GUIDE_BATCH))
        if at.workspace.asking_size[0] >= GUIDE_BATCH:
            self._consult(at)
        return ran

    def _consult(self, at: "Position") -> None:
        """The network's answers for the nodes queued for it, in one batch."""
        waiting = int(at.workspace.asking_size[0])
        if self.guide is None or not waiting:
            return
        try:
            policy, values = self.guide.evaluate(at.workspace.asking_planes[:waiting])
        except BaseException:
            self._forget_waiting(at)  # a failed or interrupted call leaves no node waiting for good
            raise
        assert self.tree is not None
        mcts_kernels.apply_guidance(self.tree, at.workspace, policy.astype(np.float64), values.astype(np.float64),
                                    at.settings)

    def _forget_waiting(self, at: "Position") -> None:
        """The nodes still queued go unanswered: a later search may queue them again."""
        waiting = int(at.workspace.asking_size[0])
        if waiting:
            assert self.tree is not None
            self.tree.guided[at.workspace.asking[:waiting]] = 0
            at.workspace.asking_size[0] = 0

    # --------------------------------------------------------- time management
    def _children(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The root's children: their moves, simulations and win rates (for the player to move)."""
        tree = self.tree
        assert tree is not None
        first, k = int(tree.first_child[0]), int(tree.num_children[0])
        visits = tree.visits[first:first + k]
        rates = np.divide(tree.wins[first:first + k], visits, out=np.full(k, 0.5), where=visits > 0)
        return tree.move[first:first + k], visits, rates

    def _forced(self) -> bool:
        """Has the root one move (or none) to choose from?"""
        assert self.tree is not None
        return bool(self.tree.num_children[0] < 2)

    def _decided(self, done: int, remaining: float) -> bool:
        """Can the most simulated move no longer be overtaken in the ``remaining`` simulations?"""
        _, visits, _ = self._children()
        if len(visits) < 2:
            return done >= 1
        top_two = np.sort(visits)[-2:]
        return bool(top_two[1] - top_two[0] > remaining)

    def _worth_more_time(self, state: GoState) -> bool:
        """A close middle game whose most simulated move is not the best valued one."""
        moves, visits, rates = self._children()
        if len(visits) < 2:
            return False
        best = int(np.argmax(visits))
        well_sampled = visits >= 0.1 * visits[best]
        empty = int(np.count_nonzero(np.asarray(state.board.color) == 0))
        close = 0.25 <= rates[best] <= 0.75 and empty > len(state.board.color) // 4
        return bool(close and int(np.argmax(np.where(well_sampled, rates, -1.0))) != best)

    # ------------------------------------------------------------- choosing
    def _choose(self, state: GoState, done: int, enough_to_resign: int) -> SearchResult:
        moves, visits, rates = self._children()
        n = len(state.board.color)
        best = int(np.argmax(visits))
        action_visits = np.zeros(n + 1)
        action_q = np.zeros(n + 1)
        action_visits[moves] = visits
        action_q[moves] = 2 * rates - 1
        move = state.index_to_move(int(moves[best]))
        rate = float(rates[best])
        if self.settings.resign > 0 and done >= enough_to_resign and rate < self.settings.resign:
            move = Move.resign()
        return SearchResult(move, done, action_visits, action_q, 2 * rate - 1, self._line())

    def _line(self) -> tuple[int, ...]:
        """The most simulated line from the root."""
        tree = self.tree
        assert tree is not None
        line: list[int] = []
        node = 0
        while tree.num_children[node] > 0 and len(line) < 20:
            first, k = int(tree.first_child[node]), int(tree.num_children[node])
            node = first + int(np.argmax(tree.visits[first:first + k]))
            if tree.visits[node] == 0:
                break
            line.append(int(tree.move[node]))
        return tuple(line)

    # ----------------------------------------------------------- tree reuse
    def _reused_tree(self, state: GoState) -> Tree | None:
        """The kept tree's subtree for ``state`` (the root or a position up to two
        plies below it, found by the moves played), compacted; None if there is none."""
        tree, root = self.tree, self.root_state
        if tree is None or root is None:
            return None
        steps: list[int] = []
        s: GoState | None = state
        while s is not None and s is not root and len(steps) <= 2:
            if s.last_move is None:  # a turn handed over (GoState.with_turn): no move of the tree
                return None
            steps.append(s._action)
            s = s.previous_state
        if s is not root or any(a < 0 for a in steps):
            return None
        node = 0
        for action in reversed(steps):
            first, k = int(tree.first_child[node]), int(tree.num_children[node])
            matches = np.flatnonzero(tree.move[first:first + k] == action) if k else np.empty(0, np.int64)
            if not len(matches):
                return None
            node = first + int(matches[0])
        if node == 0:
            return tree
        out = mcts_kernels.new_tree(len(tree.move))
        mcts_kernels.compact(tree, node, out)
        return out


class Position(NamedTuple):
    """A search's root on the compiled board, with what every simulation needs."""

    board: kernels.GoBoard
    geometry: kernels.GoGeometry
    tables: Any
    settings: Settings
    workspace: mcts_kernels.Workspace
    color: int
    passes: int
    last: int
    before: int
    mark: int
