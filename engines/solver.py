"""The perfect player: every move it plays keeps the game's exact result.

It plays the games the suite can solve, each by the solver its game offers
(:meth:`dlgo.core.game.Game.solver`): tic-tac-toe and other tiny m,n,k boards by
brute force, Connect Four and the Connect-N boards that fit a 64-bit word by the
bitboard solver (:mod:`dlgo.games.solvers.bitboard`). It is the fixed top of the
Connect Four ladder, as ``random`` is its bottom.

Among the moves that keep the result it prefers, by default, the best score:
the fastest win, the slowest loss (Pons' perfect play); ``fastest=false`` lets
it pick any move that keeps a win a win and a draw a draw, for more varied
games. Ties are broken by the seed.
"""
from __future__ import annotations

import random

from dlgo.core.agent import Agent, Decision, SearchReport
from dlgo.core.errors import SpecError
from dlgo.core.game import ExactSolver, State, result_of


class SolverAgent(Agent):
    """Perfect play, by the game's exact solver (tic-tac-toe, Connect Four, small
    Connect-N boards); ``fastest``: win as soon and lose as late as possible
    (else any move that keeps the result); ties broken by ``seed``."""

    name = "solver"
    unit = "nodes"

    def __init__(self, fastest: bool = True, seed: int | None = None):
        """``fastest``: among the moves that keep the result, only those with the best
        score; ``seed``: how ties are broken."""
        super().__init__()
        self.fastest = fastest
        self.rng = random.Random(seed)
        self._solvers: dict[str, ExactSolver] = {}

    def check_game(self, state: State) -> None:
        self.solver_for(state)

    def solver_for(self, state: State) -> ExactSolver:
        """The solver of ``state``'s game (one per game, its tables kept between moves)."""
        spec = state.game.spec
        if spec not in self._solvers:
            solver = state.game.solver()
            if solver is None:
                raise SpecError(f"the solver engine cannot solve {state.game.name}: it plays tic-tac-toe, "
                                "Connect Four and small Connect-N boards")
            self._solvers[spec] = solver
        return self._solvers[spec]

    def warm_up(self, state: State) -> None:
        """The solver's kernels loaded on a position a few moves from a full board
        (a seeded random continuation of ``state`` that never ends the game while
        it can help it), which it solves at once: no time limit shortens a solve,
        and the early positions take minutes."""
        rng = random.Random(0)
        while quiet := [a for a in state.legal_actions() if not state.apply_action(a).is_over()]:
            state = state.apply_action(rng.choice(quiet))
        self.solver_for(state).move_scores(state)

    def perfect_actions(self, state: State) -> tuple[list[int], dict[int, int], int]:
        """The actions a perfect player may choose here, every action's exact score, and the
        nodes the solver searched for them (the moves scored, for a solver that counts none)."""
        solver = self.solver_for(state)
        before = getattr(solver, "nodes", 0)
        scores = solver.move_scores(state)
        nodes = getattr(solver, "nodes", 0) - before or len(scores)
        best = max(scores.values())
        if self.fastest:
            return [a for a, s in scores.items() if s == best], scores, nodes
        return [a for a, s in scores.items() if result_of(s) == result_of(best)], scores, nodes

    def choose(self, state: State) -> Decision:
        actions, scores, nodes = self.perfect_actions(state)
        action = self.rng.choice(sorted(actions))
        best = max(scores.values())
        report = SearchReport(value=float(result_of(best)), proven=True, principal_variation=(action,),
                              score=float(best))
        return Decision(state.index_to_move(action), nodes, report)
