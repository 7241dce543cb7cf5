"""Exercise 7 (chapters 13-14): PUCT scores, the move choice with a temperature,
and self-play's policy and value targets, checked against :mod:`engines.puct`."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from dlgo.core.game import value_for
from dlgo.core.types import Player
from dlgo.exercises.checking import Check, Exercise, expect
from engines import puct


def library_node(W: np.ndarray, N: np.ndarray, P: np.ndarray, actions: np.ndarray | None = None,
                 value: float = 0.0) -> puct.Node:
    """A library node holding these statistics and the evaluator's ``value`` (no game
    state needed for the arithmetic)."""
    node = puct.Node.__new__(puct.Node)
    node.W, node.N, node.P = (np.asarray(a, np.float64) for a in (W, N, P))
    node.actions = np.arange(len(N)) if actions is None else np.asarray(actions, np.int64)
    node.children = {}
    node.value = value
    return node


def library_scores(W: np.ndarray, N: np.ndarray, P: np.ndarray, c: float) -> np.ndarray:
    return library_node(W, N, P).puct_scores(c)


def library_select(N: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    return puct.select_action(library_node(np.zeros(len(N)), N, np.ones(len(N))), temperature, rng)


def library_policy(actions: np.ndarray, N: np.ndarray, num_actions: int) -> np.ndarray:
    return library_node(np.zeros(len(N)), N, np.ones(len(N)), actions).visit_policy(num_actions)


def library_values(movers: list[Player], winner: Player | None) -> list[float]:
    return [value_for(winner, mover) for mover in movers]


def scores(module: Any) -> None:
    cases = [(np.zeros(3), np.zeros(3), np.array([0.5, 0.3, 0.2]), 1.5),  # nothing visited: the priors decide
             (np.array([0.5, -1.0, 0.0]), np.array([1.0, 2.0, 0.0]), np.array([0.2, 0.5, 0.3]), 1.5),
             (np.array([3.0, 10.0]), np.array([10.0, 30.0]), np.array([0.9, 0.1]), 4.0)]
    for W, N, P, c in cases:
        got = np.asarray(module.puct_scores(W, N, P, c), float)
        expected = library_scores(W, N, P, c)
        expect(got.shape == expected.shape and np.allclose(got, expected, atol=1e-9),
               f"puct_scores(W={W.tolist()}, N={N.tolist()}, P={P.tolist()}, c={c}) is {np.round(got, 4).tolist()};"
               f" expected {np.round(expected, 4).tolist()}")


def choice(module: Any) -> None:
    N = np.array([10.0, 30.0, 60.0, 0.0])
    for _ in range(5):
        expect(module.select_action(N, 0.0, np.random.default_rng()) == 2,
               "with temperature 0 the most visited action (index 2 of [10, 30, 60, 0]) is played")
    for temperature in (1.0, 0.5):
        rng = np.random.default_rng(4)
        draws = np.bincount([module.select_action(N, temperature, rng) for _ in range(4000)], minlength=4) / 4000
        weights = N ** (1 / temperature)
        expected = weights / weights.sum()
        expect(np.abs(draws - expected).max() < 0.03,
               f"temperature {temperature}: your choices fell {np.round(draws, 3).tolist()} of the time; "
               f"expected about {np.round(expected, 3).tolist()}")


def policy_target(module: Any) -> None:
    actions, N = np.array([0, 3, 4, 8]), np.array([5.0, 0.0, 12.0, 3.0])
    got = np.asarray(module.visit_policy(actions, N, 10), float)
    expected = library_policy(actions, N, 10)
    expect(got.shape == expected.shape and np.allclose(got, expected),
           f"visit_policy(actions={actions.tolist()}, N={N.tolist()}, 10) is {np.round(got, 3).tolist()}; "
           f"expected {np.round(expected, 3).tolist()}")


def value_target(module: Any) -> None:
    movers = [Player.black, Player.white, Player.black, Player.white, Player.black]
    for winner in (Player.black, Player.white, None):
        got = [float(v) for v in module.value_targets(movers, winner)]
        expected = library_values(movers, winner)
        expect(got == expected, f"value_targets(black, white, black, ... with winner {winner}) is {got}; "
                                f"expected {expected}")


EXERCISE = Exercise(
    number=7, chapter="13-14", title="PUCT and self-play targets", file="ex7_puct.py",
    step="steps 11-13, with ch13_alphago.py and ch14a_alphazero_tictactoe.py",
    writes=["puct_scores", "select_action", "visit_policy", "value_targets"],
    reference=lambda: SimpleNamespace(puct_scores=library_scores, select_action=library_select,
                                      visit_policy=library_policy, value_targets=library_values),
    checks=[
        Check("PUCT scores", scores, [
            "two terms again: a mean value, and a bonus led by the network's prior; what is the mean of a move "
            "never visited?",
            "Q is W / N where N > 0 and 0 elsewhere; the bonus is c times the prior times the square root of the "
            "parent's visits (at least 1), over 1 plus the move's visits",
            "Q = np.where(N > 0, W / np.maximum(N, 1), 0); add c * P * sqrt(max(1, N.sum())) / (1 + N)"]),
        Check("the move after the search", choice, [
            "the temperature sharpens or flattens the visit counts before the draw: how?",
            "temperature 0 is the most visited move; otherwise raise the counts to the power 1 / temperature, "
            "normalise, and draw with the rng given",
            "temperature 0: np.argmax(N); otherwise weights = N ** (1 / temperature), then "
            "rng.choice(len(N), p=weights / weights.sum())"]),
        Check("the policy target", policy_target, [
            "the target is the search's visits as a distribution over every action of the game",
            "a zero array of num_actions, then pi[actions] = N / N.sum()"]),
        Check("the value targets", value_target, [
            "whose point of view is each position's value target from?",
            "+1 where the mover is the winner, -1 where not, 0 everywhere for a draw"]),
    ],
)
