"""Exercise 8 (chapter 14, beyond the book): Gumbel AlphaZero's arithmetic.

Gumbel AlphaZero (Danihelka et al., ICLR 2022) improves on the network's policy
even with a handful of simulations. Its pieces, on plain numpy arrays with one
entry per legal action of a node: ``W`` the summed values of the simulations
through the action (for the player to move at the node), ``N`` their number,
``P`` the network's prior, ``value`` the network's value of the node itself.
``dlgo exercise check 8`` compares each function with the library's
(``engines.gumbel``).
"""
from __future__ import annotations

import numpy as np


def completed_q(W: np.ndarray, N: np.ndarray, P: np.ndarray, value: float) -> np.ndarray:
    """Each action's value: ``W / N`` where it was visited; elsewhere the mixed
    value ``(value + sum N * sum_v P(v) q(v) / sum_v P(v)) / (1 + sum N)``, the sums
    ``_v`` over the visited actions (with no visits at all: ``value``)."""
    raise NotImplementedError("completed_q")


def improved_policy(W: np.ndarray, N: np.ndarray, P: np.ndarray, value: float) -> np.ndarray:
    """``softmax(log P + sigma(q))`` with ``q`` the completed Q-values rescaled to
    [0, 1] over the actions (all 0 if they are equal) and
    ``sigma(q) = (50 + max N) * 0.1 * q``."""
    raise NotImplementedError("improved_policy")


def considered_visits(considered: int, simulations: int) -> list[int]:
    """Sequential halving's schedule: for each simulation, how many visits its
    root action already has. ``ceil(log2 considered)`` phases; each gives every
    remaining action ``max(1, simulations // (phases * remaining))`` more visits,
    one round after another, then keeps half (at least 2). One considered action:
    0, 1, 2, ... The list has ``simulations`` entries."""
    raise NotImplementedError("considered_visits")
