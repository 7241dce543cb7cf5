"""Exercise 3 (chapter 4): MCTS with UCT, checked on its formula and on
tactical positions (a win to take, a loss to stop) in tic-tac-toe and Connect Four."""
from __future__ import annotations

import math
import random
from types import SimpleNamespace
from typing import Any

from dlgo.core.game import State
from dlgo.core.types import Move
from dlgo.exercises.checking import Check, Exercise, expect
from dlgo.exercises.playing import match
from dlgo.games import new_game
from engines.mcts import MCTSAgent, uct_score


def _position(game: str, moves: str) -> State:
    state = new_game(game)
    for text in moves.split():
        state = state.apply_move(state.parse_move(text))
    return state


def formula(module: Any) -> None:
    for parent, child, rate, c in ((10, 2, 0.5, 1.4), (100, 1, 0.0, 1.4), (1000, 500, 0.9, 0.5), (7, 7, 1.0, 2.0)):
        got, expected = module.uct_score(parent, child, rate, c), uct_score(parent, child, rate, c)
        expect(math.isclose(got, expected, rel_tol=1e-9),
               f"uct_score({parent}, {child}, {rate}, {c}) is {got}; expected {expected:.6f}")
    rare = module.uct_score(100, 1, 0.4, 1.4)
    often = module.uct_score(100, 90, 0.4, 1.4)
    expect(rare > often, "with the same win rate, a child visited once must score above one visited 90 times")


#: (game, moves, the move that wins or saves, what it does, rounds)
PROBLEMS = [("tictactoe", "a1 b1 a2 b2", "a3", "X completes the a column", 300),
            ("tictactoe", "b2 a1 c3 c1", "b1", "O threatens b1: X must block", 1000),
            ("tictactoe", "a1 b2 c3 a3", "c1", "X takes c1 (O's a3 threatens c1)", 1000),
            ("connect4", "1 2 1 2 1 2", "1", "a fourth disc in column 1 wins", 1000),
            ("connect4", "4 1 4 1 5 1", "1", "White stacks column 1: Black must block", 2000)]


def tactics(module: Any) -> None:
    for game, moves, answer, what, rounds in PROBLEMS:
        state = _position(game, moves)
        expected = state.parse_move(answer)
        chosen = [module.mcts_move(state, rounds, random.Random(seed)) for seed in range(3)]
        wrong = [state.format_move(m) for m in chosen if m != expected]
        expect(not wrong, f"{game} after {moves}, {rounds} rounds: your search chose {', '.join(wrong)} where "
                          f"{answer} is the move ({what})")


def legal_everywhere(module: Any) -> None:
    rng = random.Random(5)
    for game in ("tictactoe", "connect4"):
        for _ in range(10):
            state = new_game(game)
            for _ in range(rng.randint(0, 8)):
                if state.is_over():
                    break
                state = state.apply_move(rng.choice(state.legal_moves()))
            if state.is_over():
                continue
            move = module.mcts_move(state, 50, random.Random(1))
            expect(move in state.legal_moves(), f"{game} after {state.moves_text()}: {move} is not a legal move")


def _library_move(state: State, rounds: int, rng: random.Random) -> Move:
    return MCTSAgent(rounds=rounds, seed=rng.randrange(2 ** 31), reuse=False).select_move(state)


def reference() -> SimpleNamespace:
    """The library's MCTS (engines.mcts)."""
    return SimpleNamespace(uct_score=uct_score, mcts_move=_library_move)


def play(module: Any, games: int, seed: int) -> str:
    rng = random.Random(seed)
    return match(lambda state: module.mcts_move(state, 300, rng), "connect4", "mcts:rounds=300", games, seed)


EXERCISE = Exercise(
    number=3, chapter="4", title="Monte Carlo tree search with UCT", file="ex3_mcts.py",
    step="step 3, with ch04b_mcts.py", writes=["uct_score", "mcts_move"], reference=reference, play=play,
    checks=[
        Check("the UCT formula", formula,
              "child_win_rate + c * math.sqrt(math.log(parent_visits) / child_visits)"),
        Check("legal moves from random positions", legal_everywhere,
              "return one of the root's children's moves (the most visited); with few rounds, some moves may be "
              "untried: never return None"),
        Check("takes a win, stops a loss", tactics,
              "count a win for the node's mover (who moved into it), not for the player to move there; select "
              "only among children once no move is left untried; pick the most visited root child at the end"),
    ],
)
