"""Exercise 3 (chapter 4): MCTS with UCT, checked on its formula and on
tactical positions (a win to take, a loss to stop) in tic-tac-toe and Connect Four."""
from __future__ import annotations

import math
import random
from types import SimpleNamespace
from typing import Any

from dlgo.core.game import State
from dlgo.core.types import Move
from dlgo.exercises.ex2_minimax import random_positions
from dlgo.exercises.checking import Check, CheckFailed, Exercise, expect
from dlgo.exercises.playing import Tally, describe, match_tally
from dlgo.games import new_game
from engines.mcts import UCTAgent, uct_score


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


def search(module: Any, state: State, rounds: int, seed: int) -> tuple[Move, Any]:
    """The student's move from ``state``, and the root of the tree their search
    built, read through the skeleton's ``Node`` class while it runs (None for a
    module with no ``Node``: the library's reference)."""
    original = getattr(module, "Node", None)
    if not isinstance(original, type):
        return module.mcts_move(state, rounds, random.Random(seed)), None
    created: list[Any] = []

    class Recorded(original):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            created.append(self)

    module.Node = Recorded
    try:
        move = module.mcts_move(state, rounds, random.Random(seed))
    finally:
        module.Node = original
    roots = [node for node in created if getattr(node, "parent", None) is None]
    expect(bool(roots), "your mcts_move builds no Node: this check reads the visits of the search's tree, so "
                        "build it from the skeleton's Node class (root = Node(state))", TREE_HINTS)
    expect(all(hasattr(child, name) for child in getattr(roots[0], "children", [None])
               for name in ("move", "visits", "wins")),
           "the root's children lack move, visits or wins: this check reads the tree through the skeleton's "
           "Node names (children, move, visits, wins)", TREE_HINTS)
    return move, roots[0]


#: hints for a tree the checks cannot read
TREE_HINTS = ["keep the skeleton's Node class, and its names: the checks read your tree through them",
              "root = Node(state) at the start of mcts_move; each child is Node(next_state, parent, move), in "
              "its parent's children list, with its visits and its wins for its mover"]


def _rate(node: Any) -> float:
    return node.wins / node.visits if node.visits else 0.0


#: (tic-tac-toe moves, the one move that does not lose, rounds): it holds a draw, every other move loses
DRAWS = [("c2 c1 a3 a2 c3", "b3", 300), ("c1 b1 a2 c2 b3", "a3", 300)]


def draws(module: Any) -> None:
    """A search that counts a draw as a loss cannot tell the move that holds the
    draw from the moves that lose: it picks one of those (measured: always, in
    the first position, for every c from 0.7 to 2 and any expansion order)."""
    for moves, answer, rounds in DRAWS:
        state = _position("tictactoe", moves)
        expected = state.parse_move(answer)
        for seed in range(3):
            move, root = search(module, state, rounds, seed)
            if move == expected:
                continue
            where = (f"tictactoe after {moves}, {rounds} rounds: your search chose {state.format_move(move)}, "
                     f"where {answer} is the only move that does not lose (it holds the draw; every other move "
                     f"loses)")
            drawn = [node for node in _nodes(root) if node.visits and _drawn(getattr(node, "state", None))]
            miscounted = [node for node in drawn if not math.isclose(_rate(node), 0.5)]
            if miscounted:
                node = miscounted[0]
                raise CheckFailed(f"{where}; a node where the game ended in a draw has {node.wins:g} wins from "
                                  f"{node.visits} visits: a draw counts as {_rate(node):g} of a win, not 0.5",
                                  DRAW_HINTS)
            raise CheckFailed(where)


def _drawn(state: State | None) -> bool:
    return state is not None and state.is_over() and state.winner() is None


def _nodes(root: Any, limit: int = 100_000) -> list[Any]:
    """The nodes of the student's tree (up to ``limit``), root first; none without a tree."""
    found: list[Any] = []
    stack = [root] if root is not None else []
    while stack and len(found) < limit:
        node = stack.pop()
        found.append(node)
        stack.extend(getattr(node, "children", []))
    return found


#: hints for a search that counts a draw as something other than half a win
DRAW_HINTS = [
    "a drawn game is not worth nothing: what does your backpropagation add to a node's wins when the "
    "game ends with no winner?",
    "a draw is half a win for both players; counted as 0 it is as bad as a loss, and in tic-tac-toe, "
    "where good play draws, the move that holds the draw then looks no better than the moves that lose",
    "walker.wins += 0.5 if winner is None else float(winner == walker.mover)",
]


def most_visited(module: Any) -> None:
    """The move played is the root's most visited (ties allowed), in 150 short
    searches from tic-tac-toe positions, where a move seen a few times can have a
    lucky win rate. Under UCT a higher win rate draws more visits, so a choice by
    win rate differs from the most visited move in 1 search in 20 or 30 here,
    and then between moves of nearly the same visits: the message shows the
    widest gap found."""
    gaps = []
    for k, state in enumerate(random_positions(150, seed=11)):
        rounds = (20, 30, 40)[k % 3]
        move, root = search(module, state, rounds, seed=k)
        if root is None:
            return  # the library's reference: no Node to read (it plays the most visited move)
        most = max(root.children, key=lambda child: child.visits)
        chosen = next((child for child in root.children if child.move == move), None)
        if chosen is not None and chosen.visits < most.visits:
            gaps.append((most.visits - chosen.visits, state, rounds, chosen, most))
    if gaps:
        _, state, rounds, chosen, most = max(gaps, key=lambda gap: gap[0])
        raise CheckFailed(f"in {len(gaps)} of 150 searches your move was not the most visited; e.g. tictactoe "
                          f"after {state.moves_text()}, {rounds} rounds: you played {state.format_move(chosen.move)}, "
                          f"visited {chosen.visits} times (win rate {_rate(chosen):.0%}), where "
                          f"{state.format_move(most.move)} was visited {most.visits} times (win rate "
                          f"{_rate(most):.0%}): play the most visited move, not the best win rate", VISITS_HINTS)


#: hints for a search that plays another move than the most visited
VISITS_HINTS = [
    "how does your search pick the move to play once the rounds are over?",
    "the visit counts are the search's verdict: UCT sends its rounds to the moves that look best once their "
    "uncertainty is weighed, and a win rate measured over fewer visits is less sure: play the most visited child",
    "best = max(root.children, key=lambda child: child.visits)",
]


def _library_move(state: State, rounds: int, rng: random.Random) -> Move:
    return UCTAgent(rounds=rounds, seed=rng.randrange(2 ** 31), reuse=False).select_move(state)


def reference() -> SimpleNamespace:
    """The library's MCTS (engines.mcts)."""
    return SimpleNamespace(uct_score=uct_score, mcts_move=_library_move)


#: exercise 3's two matches: (game, random opening plies), each against mcts:rounds=300 at 300 rounds a move
MATCHES = [("tictactoe", 1), ("connect4", 2)]
OPPONENT, ROUNDS = "mcts:rounds=300", 300

#: the answers whose scores the matches are set against
CORRECT, LIBRARY = "a correct plain UCT", "the library's MCTS (--reference)"
DRAW_BUG, RATE_BUG = "one that counts a draw as a loss", "one that plays the best win rate"

#: what the matches give, measured over 400 games each: ``dlgo exercise play 3 FILE --games 200`` with ``--seed 1``
#: and ``--seed 2``, added up, on tests/exercise_solutions/ex3_mcts.py, buggy/ex3_draws_zero.py and
#: buggy/ex3_final_by_winrate.py, and with ``--reference``
MEASURED: dict[str, dict[str, Tally]] = {
    "tictactoe": {CORRECT: Tally(37, 315, 48), LIBRARY: Tally(42, 315, 43), DRAW_BUG: Tally(30, 180, 190),
                  RATE_BUG: Tally(36, 319, 45)},
    "connect4": {CORRECT: Tally(169, 17, 214), LIBRARY: Tally(191, 12, 197), DRAW_BUG: Tally(162, 6, 232),
                 RATE_BUG: Tally(183, 23, 194)},
}


def play(module: Any, games: int, seed: int, player: str) -> str:
    """Tic-tac-toe, where a draw is the usual end, then Connect Four, each
    ``games`` games against the library's MCTS at the same 300 rounds, each
    score set against what a correct answer and a buggy one score."""
    lines = []
    for game, plies in MATCHES:
        rng = random.Random(seed)
        tally = match_tally(lambda state: module.mcts_move(state, ROUNDS, rng), game, OPPONENT, games, seed, plies)
        lines += [describe(tally, game, OPPONENT, plies, player), *_expectation(game, tally)]
    lines.append("a match finds a bug only when the bug costs games; the checks find the others "
                 "(dlgo exercise check 3)")
    return "\n".join(lines)


def _expectation(game: str, tally: Tally) -> list[str]:
    """The match's score against a correct answer's likely range over as many
    games; the others' scores, and how many games it takes to tell them apart."""
    measured = dict(MEASURED[game])
    correct = measured.pop(CORRECT)
    games = tally.games
    low, high = correct.likely_range(games)
    verdict = ("inside it" if low <= tally.score <= high else
               "below it: a bug, or bad luck (1 match in 40)" if tally.score < low else
               "above it: stronger than a plain UCT, or good luck (1 match in 40)")
    others = ", ".join(f"{name} {other.score:.0%} ({_range(other, games)})" for name, other in measured.items())
    tell = ", ".join(f"{name} {_games_to_tell(correct.games_to_tell(other), min(correct.games, other.games))}"
                     for name, other in measured.items())
    return [f"  {CORRECT} scores {correct.score:.0%} here, 95% of its {games}-game matches {_range(correct, games)}: "
            f"this one is {verdict}",
            f"  over {games} games: {others}",
            f"  games it takes to tell each from a correct answer: {tell}"]


def _range(tally: Tally, games: int) -> str:
    low, high = tally.likely_range(games)
    return f"{low:.0%} to {high:.0%}"


def _games_to_tell(games: int | None, measured: int) -> str:
    """How many games tell two answers apart; none that the measurement itself could resolve."""
    return f"more than the {measured} measured" if games is None or games > measured else \
        f"about {games:,}"


EXERCISE = Exercise(
    number=3, chapter="4", title="Monte Carlo tree search with UCT", file="ex3_mcts.py",
    step="step 3, with ch04b_mcts.py", writes=["uct_score", "mcts_move"], reference=reference, play=play,
    games=40,  # enough to tell a search that counts a draw as a loss on tic-tac-toe (10 cannot)
    checks=[
        Check("the UCT formula", formula, [
            "two terms: how well the child has done (its win rate), plus a bonus for having been tried little",
            "the bonus is c times a square root: it grows slowly with the parent's visits (a logarithm) and "
            "shrinks as the child's own visits grow",
            "child_win_rate + c * math.sqrt(math.log(parent_visits) / child_visits)"]),
        Check("legal moves from random positions", legal_everywhere, [
            "what does your mcts_move return after only a few rounds?",
            "with few rounds, some of the root's moves may be untried; the move returned must be one of the "
            "root's children's moves, never None",
            "return one of the root's children's moves (the most visited); with few rounds, some moves may be "
            "untried: never return None"]),
        Check("takes a win, stops a loss", tactics, [
            "on the way back up, whose win does each node count?",
            "a parent picks its child by the child's win rate, so a child's wins must be its mover's (who moved "
            "into it), not those of the player to move there; and select only among the children once no move "
            "is left untried",
            "walker.wins += 0.5 if winner is None else float(winner == walker.mover); descend while "
            "not node.untried and node.children"]),
        Check("a draw is better than a loss", draws, [
            "in these positions one move holds a draw and every other move loses: does your search value a "
            "draw above a loss?",
            "a draw is half a win for both players: count it 0.5 in the backpropagation",
            "walker.wins += 0.5 if winner is None else float(winner == walker.mover)"]),
        Check("plays the most visited move", most_visited, VISITS_HINTS),
    ],
)
