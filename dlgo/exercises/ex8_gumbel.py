"""Exercise 8 (chapter 14, beyond the book): Gumbel AlphaZero's arithmetic, the
completed Q-values, the improved policy and sequential halving's schedule,
checked against :mod:`engines.gumbel`."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from dlgo.exercises.ex7_puct import library_node
from dlgo.exercises.checking import Check, Exercise, expect
from engines import gumbel


def library_completed_q(W: np.ndarray, N: np.ndarray, P: np.ndarray, value: float) -> np.ndarray:
    return gumbel.completed_q(library_node(W, N, P, value=value))


def library_improved_policy(W: np.ndarray, N: np.ndarray, P: np.ndarray, value: float) -> np.ndarray:
    return gumbel.improved_policy(library_node(W, N, P, value=value))


def library_schedule(considered: int, simulations: int) -> list[int]:
    return list(gumbel.considered_visits(considered, simulations))


CASES = [(np.zeros(4), np.zeros(4), np.array([0.4, 0.3, 0.2, 0.1]), 0.3),  # nothing visited: the node's value
         (np.array([1.5, -2.0, 0.0, 0.0]), np.array([2.0, 2.0, 0.0, 0.0]), np.array([0.1, 0.6, 0.2, 0.1]), -0.2),
         (np.array([0.9, 4.0, -1.0]), np.array([1.0, 5.0, 3.0]), np.array([0.5, 0.25, 0.25]), 0.0)]


def _agrees(module: Any, name: str, library: Callable[..., np.ndarray]) -> None:
    """The student's ``name`` against the library's on every case."""
    for W, N, P, value in CASES:
        got = np.asarray(getattr(module, name)(W, N, P, value), float)
        expected = library(W, N, P, value)
        expect(got.shape == expected.shape and np.allclose(got, expected, atol=1e-9),
               f"{name}(W={W.tolist()}, N={N.tolist()}, P={P.tolist()}, value={value}) is "
               f"{np.round(got, 4).tolist()}; expected {np.round(expected, 4).tolist()}")


def completed(module: Any) -> None:
    _agrees(module, "completed_q", library_completed_q)


def improved(module: Any) -> None:
    _agrees(module, "improved_policy", library_improved_policy)


def schedule(module: Any) -> None:
    for considered, simulations in ((4, 20), (16, 16), (7, 50), (2, 9), (1, 3)):
        got = [int(v) for v in module.considered_visits(considered, simulations)]
        expected = library_schedule(considered, simulations)
        expect(got == expected, f"considered_visits({considered}, {simulations}) is {got}; expected {expected}")


EXERCISE = Exercise(
    number=8, chapter="14", title="Gumbel AlphaZero: completed Q, the improved policy, sequential halving",
    file="ex8_gumbel.py", step="step 13, beyond the book (--gumbel 16)",
    writes=["completed_q", "improved_policy", "considered_visits"],
    reference=lambda: SimpleNamespace(completed_q=library_completed_q, improved_policy=library_improved_policy,
                                      considered_visits=library_schedule),
    checks=[
        Check("completed Q-values", completed, [
            "a visited action has its mean value; what can an action never visited be given instead of 0?",
            "unvisited actions take the mixed value: the network's value of the node blended with the "
            "prior-weighted mean of the visited actions' Q, weighted by the visits",
            "v_mix = (value + sum(N) * sum(P[v] * q[v]) / sum(P[v])) / (1 + sum(N)) over the visited v; with no "
            "visits, the value itself"]),
        Check("the improved policy", improved, [
            "the prior's logits plus a bonus that grows with the completed Q, through a softmax",
            "rescale the completed Q to [0, 1] over the actions, multiply by (50 + max N) * 0.1",
            "softmax(log(P) + (50 + N.max()) * 0.1 * (q - q.min()) / (q.max() - q.min())), the last factor 0 "
            "when every q is equal"]),
        Check("sequential halving's schedule", schedule, [
            "each phase visits every remaining action equally, then keeps the better half (at least two)",
            "phases: ceil(log2(considered)); each gives every remaining action "
            "max(1, simulations // (phases * remaining)) more visits",
            "loop while the sequence is short: extend it by the visits of the remaining actions, add one to each, "
            "repeat that the phase's number of times, then remaining = max(2, remaining // 2); one action: 0, 1, "
            "2..."]),
    ],
)
