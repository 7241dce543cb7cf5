"""Monte Carlo tree search with UCT, random rollouts and MCTS-Solver.

One round: **select** a path down the tree by the UCT formula, **expand** one
untried action (among ``state.sensible_actions()``: in Go, no filling of one's own
eyes and no pass until the opponent passes), **simulate** the rest of the game with random moves
(``state.random_playout``: in Go it never fills its own eyes; with ``rollout=`` a
fast rollout policy's moves, :mod:`engines.rollouts`), and **backpropagate** the
winner up the path.

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
from typing import Any

import numpy as np

from dlgo.core.agent import Agent, Decision, SearchReport
from dlgo.core.errors import SpecError
from dlgo.core.game import State
from dlgo.core.specs import require, require_seconds
from dlgo.core.types import RESIGN, Move, Player
from dlgo.games.go.state import GoState
from engines.rollouts import load_move_patterns, load_rollout_policy

WIN, DRAW, LOSS = 1, 0, -1  # proven values, for the player who moved into a node


def uct_score(parent_visits: int, child_visits: int, child_win_rate: float, c: float) -> float:
    """UCT (UCB1 applied to trees): a child's win rate, for the player who moves
    into it, plus ``c * sqrt(ln(parent_visits) / child_visits)``, a bonus that
    grows for a child visited rarely while its parent is visited often."""
    return child_win_rate + c * math.sqrt(math.log(parent_visits) / child_visits)


def check_budget(name: str, rounds: int | None, seconds: float, c: float, resign: float) -> None:
    """A :class:`SpecError` for a search budget, exploration or resignation out of range."""
    require(rounds is None or rounds >= 0, f"{name}: rounds must be at least 0, got {rounds}")
    require_seconds(seconds, f"{name}: seconds")
    require(0 <= c < math.inf, f"{name}: c must be a finite number, at least 0, got {c}")
    require(0 <= resign < 1, f"{name}: resign is a win rate in [0, 1), got {resign}")
    if (rounds is not None and rounds <= 0) and seconds <= 0:
        raise SpecError(f"{name} needs a budget: rounds > 0 or seconds > 0")


def check_go_settings(name: str, rave_equiv: float, expand: int) -> None:
    """A :class:`SpecError` for Go's search settings out of range."""
    require(0 <= rave_equiv < math.inf, f"{name}: rave_equiv must be a finite number, at least 0, got {rave_equiv}")
    require(expand >= 1, f"{name}: expand must be at least 1, got {expand}")


def default_rounds(rounds: int | None, seconds: float) -> int:
    """The rounds a move: as given; else none (0) when ``seconds`` is set, or 1000."""
    if rounds is None:
        return 0 if seconds > 0 else 1000
    return rounds


class Node:
    """A position in the search tree. ``wins`` and ``proven`` are from the view of
    ``mover``, the player whose move led here (so a parent picks the child that
    is best for itself)."""

    __slots__ = ("state", "parent", "action", "mover", "children", "untried", "visits", "wins", "proven")

    def __init__(self, state: State, parent: "Node | None", action: int | None, rng: random.Random):
        self.state = state
        self.parent = parent
        self.action = action  # the action that led here from the parent
        self.mover: Player = state.next_player.other
        self.children: list[Node] = []
        self.visits = 0
        self.wins = 0.0
        self.untried: list[int]
        self.proven: int | None
        if state.is_over():
            self.untried = []
            winner = state.winner()
            self.proven = DRAW if winner is None else WIN if winner == self.mover else LOSS
        else:
            self.untried = state.sensible_actions()
            rng.shuffle(self.untried)  # expansion order: random, reproducible from the seed
            self.proven = None

    def child_for(self, action: int) -> "Node | None":
        for child in self.children:
            if child.action == action:
                return child
        return None

    def update_proof(self) -> bool:
        """Derive this node's exact value from its children; True if it is now proven."""
        children = self.children
        if any(child.proven == WIN for child in children):  # the player to move here can win
            self.proven = LOSS
        elif not self.untried and all(child.proven is not None for child in children):
            self.proven = -max(child.proven for child in children if child.proven is not None)
        return self.proven is not None


class UCTAgent(Agent):
    """UCT: Monte Carlo tree search with random rollouts (or a fast rollout policy's), MCTS-Solver and tree reuse, on
    every game: the course's and the book's readable search. Budget in rounds or seconds.

    The search of this module, as the course and the book build it; on Go the
    suite's strong search is ``mcts-go`` (:class:`GoMCTSAgent`)."""

    name = "uct"
    unit = "rounds"
    budget_parameters = ("rounds", "seconds")

    def __init__(self, rounds: int | None = None, seconds: float = 0.0, c: float = 1.4, seed: int | None = None,
                 reuse: bool = True, resign: float = 0.0, rollout: str = ""):
        """``rounds``: rounds (simulations) per move (default 1000, or none when
        ``seconds`` is set; with neither given, a game clock's time when GTP has one);
        ``seconds``: time per move (0 = none); ``c``: the UCT exploration constant;
        ``reuse``: keep the subtree of the moves played; ``resign``: resign when the
        best move's win rate falls below this (0 = never); ``rollout``: a fast rollout
        policy file (Go, ``dlgo train-rollout``) that plays the simulations instead of
        uniformly random moves (``random`` or empty: uniform moves)."""
        super().__init__()
        check_budget(self.name, rounds, seconds, c, resign)
        self.rounds = default_rounds(rounds, seconds)
        self.seconds = seconds
        self.c = c
        self.reuse = reuse
        self.resign = resign
        self.seed = seed
        self.rng = random.Random(seed)
        self.rollout = load_rollout_policy("" if rollout == "random" else rollout)
        self.root: Node | None = None

    def check_game(self, state: State) -> None:
        self.rollout.check(state)

    def new_game(self) -> None:
        self.root = None

    # -------------------------------------------------------------- driver
    def choose(self, state: State) -> Decision:
        root = self._reusable_node(state) if self.reuse else None
        if root is None:
            root = Node(state, None, None, self.rng)
        root.parent = None  # let the rest of the old tree go
        self.root = root

        limit, seconds = self.move_budget(self.rounds, self.seconds)
        deadline = self.deadline(seconds)
        rounds = 0
        while root.proven is None:
            if limit and rounds >= limit:
                break
            if rounds and deadline != math.inf and time.perf_counter() >= deadline:
                break
            self._round(root)
            rounds += 1

        child = self._best_child(root)
        win_rate = child.wins / child.visits if child.visits else 0.5
        report = self._search_report(root, child, win_rate)
        proven_lost = root.proven == WIN  # a win for the player who moved into the root
        if self.resign and (proven_lost or (root.proven is None and win_rate < self.resign)):
            return Decision(RESIGN, rounds, report)
        assert child.action is not None
        return Decision(state.index_to_move(child.action), rounds, report)

    @staticmethod
    def _search_report(root: Node, chosen: Node, win_rate: float) -> SearchReport:
        """Visits and mean values per action, and the value: proven, or the chosen
        move's win rate (0..1) on the -1..1 scale."""
        n = root.state.num_actions
        visits, q = np.zeros(n), np.zeros(n)
        for child in root.children:
            visits[child.action] = child.visits
            q[child.action] = 2.0 * child.wins / child.visits - 1.0 if child.visits else 0.0
        line: list[int] = []
        node: Node | None = chosen
        while node is not None and node.action is not None:
            line.append(node.action)
            node = max(node.children, key=lambda ch: ch.visits) if node.children else None
        proven = root.proven is not None
        value = float(-root.proven) if root.proven is not None else 2.0 * win_rate - 1.0
        return SearchReport(value=value, proven=proven, visits=visits, q=q, principal_variation=tuple(line))

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
        # uct_score, inlined: a function call per child costs a sixth of Connect Four's search
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
            assert best is not None  # a node whose moves all lose is proven lost, and stops the descent
            node = best
        # Expand one untried move.
        if node.proven is None:
            node = self._expand(node)
        # Simulate, or take the exact result of a proven node.
        if node.proven is None:
            winner = self.rollout.playout(node.state, self.rng)
        else:
            winner = None if node.proven == DRAW else node.mover if node.proven == WIN else node.mover.other
        # Backpropagate the result and any new proof.
        proving = node.proven is not None
        walker: Node | None = node
        while walker is not None:
            walker.visits += 1
            if winner is None:
                walker.wins += 0.5
            elif winner == walker.mover:
                walker.wins += 1.0
            if proving and walker.proven is None:
                proving = walker.update_proof()
            walker = walker.parent

    def _expand(self, node: Node) -> Node:
        action = node.untried.pop()
        child = Node(node.state.apply_action(action), node, action, self.rng)
        node.children.append(child)
        return child

    # ----------------------------------------------------------- tree reuse
    def _reusable_node(self, state: State) -> Node | None:
        """The node of the kept tree for ``state``: the root itself or a position up
        to two plies below it (our move and the reply), matched by hash and moves."""
        root = self.root
        if root is None:
            return None
        target = root.state.zobrist_hash()
        steps: list[tuple[State, Move]] = []  # (position before, move played there)
        s: State | None = state
        for _ in range(3):
            if s is None:
                return None
            if s.zobrist_hash() == target:
                node: Node | None = root
                for before, move in reversed(steps):
                    if node is None or move.is_resign:
                        return None
                    node = node.child_for(before.move_to_index(move))
                return node
            if s.last_move is None or s.previous_state is None:
                return None
            steps.append((s.previous_state, s.last_move))
            s = s.previous_state
        return None


class GoMCTSAgent(Agent):
    """Monte Carlo tree search on Go as Go programs play it: compiled, with RAVE, pattern priors, heavy playouts from
    the fast rollout policy, tree reuse, time management, resigning and passing that end games cleanly. Go only. Budget
    in rounds or seconds.

    The search is :class:`engines.go_search.GoSearch` over the compiled kernels
    (:mod:`engines.mcts_kernels`); docs/engines.md, "The Go engine"."""

    name = "mcts-go"
    unit = "rounds"
    budget_parameters = ("rounds", "seconds")

    def __init__(self, rounds: int | None = None, seconds: float = 0.0, c: float = 0.0, seed: int | None = None,
                 reuse: bool = True, resign: float = 0.1, rollout: str = "", rave: bool = True,
                 rave_equiv: float = 3500.0, priors: bool = True, expand: int = 8, manage: bool = True,
                 patterns: str = ""):
        """``rounds``, ``seconds``: as ``uct``'s; ``c``: UCT exploration (0: the priors
        and RAVE explore); ``reuse``: keep the tree; ``resign``: resign below this win
        rate (0 = never); ``rollout``: the fast rollout policy that plays the
        simulations and gives the priors (default the shipped ``go9-rollout``;
        ``random``: uniform light playouts, the shipped policy's priors);
        ``rave``, ``rave_equiv``: RAVE with this equivalence (Gelly & Silver 2007);
        ``priors``: Go knowledge as virtual simulations for new moves (Coulom 2007, Michi);
        ``patterns``: move patterns (``dlgo train-patterns``) whose probabilities replace
        the rollout policy's among the priors (default none);
        ``expand``: simulations through a leaf before it is expanded;
        ``manage``: time management (with ``seconds``: stop when decided while
        the bank of saved time has room, spend it on close middle-game positions)."""
        super().__init__()
        check_budget(self.name, rounds, seconds, c, resign)
        check_go_settings(self.name, rave_equiv, expand)
        self.rounds = default_rounds(rounds, seconds)
        self.seconds = seconds
        self.reuse = reuse
        self.rng = random.Random(seed)
        self._heavy = rollout != "random"  # the rollout policy plays the playouts; its weights give the priors
        self._policy = load_rollout_policy(rollout if self._heavy and rollout else "go9-rollout")
        if patterns and not priors:
            raise SpecError(f"{self.name}: patterns give priors, which priors=false turns off")
        self._patterns = load_move_patterns(patterns)
        self._options: dict[str, Any] = {"rave_equiv": rave_equiv if rave else 0.0, "c": c, "expand": expand,
                                         "priors": priors, "manage": manage, "resign": resign}
        self._search: Any = None  # engines.go_search.GoSearch, made at the first position

    def check_game(self, state: State) -> None:
        if not isinstance(state, GoState):
            raise SpecError(f"{self.name} plays Go, not {state.game.name}: on other games use uct (or mcts)")

    def new_game(self) -> None:
        if self._search is not None:
            self._search.new_game()

    def choose(self, state: State) -> Decision:
        self.check_game(state)
        assert isinstance(state, GoState)
        if self._search is None:
            from engines.go_search import GoSearch, SearchSettings  # numba: loaded where it runs
            self._search = GoSearch(SearchSettings(heavy=self._heavy, **self._options), self._policy,
                                    self.rng.getrandbits(63),
                                    log_gamma=None if self._patterns is None else self._patterns.log_gamma)
        rounds, seconds = self.move_budget(self.rounds, self.seconds)
        result = self._search.search(state, rounds, seconds, self.deadline(seconds * 2.5), self.reuse)
        return Decision(result.move, result.simulations, result.report())
