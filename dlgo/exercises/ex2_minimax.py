"""Exercise 2 (chapter 4): minimax and alpha-beta, checked against the exact
values of tic-tac-toe (:mod:`dlgo.games.solvers.brute_force`), with the positions each search
visits counted, and on finished games of Go, where the winner may be the player to move."""
from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from dlgo.core.game import State
from dlgo.exercises.checking import Check, CheckFailed, Exercise, expect
from dlgo.exercises.playing import match
from dlgo.games import new_game
from dlgo.games.solvers.brute_force import exact_value, perfect_moves


class Counted:
    """A state that counts the positions a search creates with ``apply_move``
    (or ``apply_action``); everything else is the state's own."""

    def __init__(self, state: State, counter: list[int]):
        self._state = state
        self._counter = counter

    def apply_move(self, move: Any) -> "Counted":
        self._counter[0] += 1
        return Counted(self._state.apply_move(move), self._counter)

    def apply_action(self, action: int) -> "Counted":
        self._counter[0] += 1
        return Counted(self._state.apply_action(action), self._counter)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)


def _position(moves: str, game: str = "tictactoe") -> State:
    state = new_game(game)
    for text in moves.split():
        state = state.apply_move(state.parse_move(text))
    return state


def random_positions(count: int, seed: int, least: int = 2, most: int = 6) -> list[State]:
    """Positions of random tic-tac-toe games after ``least`` to ``most`` moves, not over."""
    rng = random.Random(seed)
    found: list[State] = []
    while len(found) < count:
        state = new_game("tictactoe")
        for _ in range(rng.randint(least, most)):
            state = state.apply_move(rng.choice(state.legal_moves()))
            if state.is_over():
                break
        if not state.is_over():
            found.append(state)
    return found


def tree_size(state: State) -> int:
    """Positions a full minimax below ``state`` creates."""
    if state.is_over():
        return 0
    return sum(1 + tree_size(state.apply_move(m)) for m in state.legal_moves())


#: (game, moves, value for the player to move, why); in tic-tac-toe the winner always moved last,
#: in Go not: a game ends on two passes, or when a player resigns, and the player to move may have won
KNOWN = [("tictactoe", "a1 b1 a2 b2 a3", -1, "X has three in a column: O, to move, has lost"),
         ("tictactoe", "b2 a1 c1 a3 a2 c2 b1 b3 c3", 0, "a full board with no line: a draw"),
         ("tictactoe", "a1 b1 a2 b2", 1, "X to move completes a3"),
         ("tictactoe", "b2 b1", 1, "O answered the centre on an edge: X, to move, wins by force"),
         ("tictactoe", "b2 a1", 0, "O answered the centre in a corner: a draw"),
         ("tictactoe", "a1 b2 a2", 0, "O to move blocks at a3 and holds the draw"),
         ("go:size=9", "E5 C5 G5 pass pass", 1, "9x9 Go, over after two passes: White, to move, wins on the "
                                                "count (1 stone and 7.5 komi against 2 stones)"),
         ("go:size=9", "E5 resign", 1, "9x9 Go, over because White resigned: Black, to move, has won")]


def _check_values(function: Any, label: str) -> None:
    cases = [(_position(moves, game), value, why) for game, moves, value, why in KNOWN]
    cases += [(state, exact_value(state), "the exact value") for state in random_positions(30, seed=7)]
    got = [function(state) for state, _, _ in cases]
    wrong = [(state, value, why, g) for (state, value, why), g in zip(cases, got) if g != value]
    if not wrong:
        return
    state, value, why, g = wrong[0]
    if len(set(got)) == 1:
        raise CheckFailed(f"{label} is {g} after every one of {len(cases)} positions: it never looks at the game "
                          f"(after {state.moves_text()} the value is {value}: {why})", _constant_hints(label))
    raise CheckFailed(f"{label}(after {state.moves_text()}) is {g}; expected {value} ({why})")


def _constant_hints(label: str) -> list[str]:
    """Hints for a search that gives every position the same value."""
    call = "-alphabeta_value(state.apply_move(move), -beta, -alpha)" if label.startswith("alpha") else \
        "-minimax_value(state.apply_move(move))"
    return ["a value that never changes cannot be right: some positions are won (+1) and some lost (-1); "
            "where does your function return before it has looked at a single move?",
            "a finished game is scored from its winner; any other position is the best, over its moves, of "
            "minus the value after the move (the same function, called on the position after the move)",
            f"if state.is_over(): return 0, +1 or -1 from state.winner(); else loop over state.legal_moves(), "
            f"value = {call}, and keep the best"]


def minimax_values(module: Any) -> None:
    _check_values(module.minimax_value, "minimax_value")


def alphabeta_values(module: Any) -> None:
    _check_values(module.alphabeta_value, "alphabeta_value")


def alphabeta_prunes(module: Any) -> None:
    """Pruning counts only for a search that is right: the values first, then the positions created."""
    for game, moves, value, why in KNOWN:
        got = module.alphabeta_value(_position(moves, game))
        expect(got == value, f"alphabeta_value(after {moves}) is {got}; expected {value} ({why}): a search "
                             f"that prunes must still find the value", PRUNE_WRONG_HINTS)
    start = _position("a1")
    counter = [0]
    value = module.alphabeta_value(Counted(start, counter))
    full = tree_size(start)
    expect(value == 0, f"alphabeta_value(after a1) is {value}; expected 0", PRUNE_WRONG_HINTS)
    expect(counter[0] <= full // 2, f"alphabeta_value(after a1) created {counter[0]:,} positions; plain minimax "
                                    f"creates {full:,}, and alpha-beta should need at most half of that")


#: hints for a search that prunes but gets the value wrong
PRUNE_WRONG_HINTS = [
    "pruning is only worth something in a search that returns the right value: make the check "
    "'alpha-beta: the same values' pass first",
    "cutting off early is allowed only once a move's value reaches beta; until then every move must be "
    "searched, and the value returned is the best one found",
    "value = -alphabeta_value(child, -beta, -alpha); best = max(best, value); alpha = max(alpha, value); "
    "if alpha >= beta: break; and return best",
]


def best_moves(module: Any) -> None:
    for state in random_positions(30, seed=8, least=1):
        move = module.best_move(state)
        expect(move in state.legal_moves(), f"best_move(after {state.moves_text()}) gave "
                                            f"{move}, which is not a legal move")
        expect(move in perfect_moves(state),
               f"best_move(after {state.moves_text()}) gave {state.format_move(move)}, which "
               f"changes the game's value; the moves that keep it: "
               f"{', '.join(state.format_move(m) for m in perfect_moves(state))}")


def reference() -> SimpleNamespace:
    """The library's answers: exact values by negamax (memoised by hash) and perfect moves."""
    return SimpleNamespace(minimax_value=exact_value, alphabeta_value=lambda s, alpha=-1, beta=1: exact_value(s),
                           best_move=lambda s: perfect_moves(s)[0])


def play(module: Any, games: int, seed: int, player: str) -> str:
    """``games`` of tic-tac-toe against a perfect alpha-beta, after one random ply:
    every first move is still a draw, so a correct best_move draws every game."""
    report = match(module.best_move, "tictactoe", "alphabeta:depth=9,nodes=0", games, seed, opening_plies=1,
                   player=player)
    return report + "\n  a correct best_move draws every game: a loss means a move that gave the game away"


EXERCISE = Exercise(
    number=2, chapter="4", title="minimax and alpha-beta", file="ex2_minimax.py",
    step="step 2, with ch04a_minimax_alphabeta.py", writes=["minimax_value", "alphabeta_value", "best_move"],
    reference=reference, play=play,
    checks=[
        Check("minimax: known positions and 30 random ones", minimax_values, [
            "start with the end of the game: whose point of view is a finished game's value from?",
            "the value is for the player to move: compare state.winner() with state.next_player; who moved "
            "last does not tell you (a game of Go ends on two passes, and the player to move may have won)",
            "a finished game's value is 0 if state.winner() is None, +1 if state.winner() == state.next_player, "
            "-1 otherwise; any other position's is the best of -value(after each move)"]),
        Check("alpha-beta: the same values", alphabeta_values, [
            "called with the whole window (-1, 1), alpha-beta must return exactly what minimax returns: start "
            "from your minimax_value",
            "the window belongs to the player to move; seen from the child, the opponent's side, it is negated "
            "and its ends swap",
            "call yourself with the window negated and swapped: -alphabeta_value(child, -beta, -alpha)"]),
        Check("alpha-beta prunes", alphabeta_prunes, [
            "when can you stop looking at a position's remaining moves without changing the result?",
            "once a move reaches beta, the opponent would never let the game reach this position: stop there; "
            "and each better move found raises alpha for the moves after it",
            "return as soon as a move's value reaches beta, and raise alpha to each better value found"]),
        Check("best_move keeps the value", best_moves, [
            "a best move leads to a position that is as good for you as the one you are in",
            "the value after your move is the opponent's: the move keeps the game's value when minus that "
            "value equals alphabeta_value(state)",
            "pick a move whose position after it has the value -alphabeta_value(state) for the opponent"]),
    ],
)
