"""Exercise 7 (chapters 13-14): PUCT, the move choice and self-play targets.

The arithmetic at the heart of AlphaGo's and AlphaZero's search, written on
plain numpy arrays, one entry per legal action of a node: ``W`` the summed
values of the simulations through the action (for the player to move at the
node), ``N`` their number, ``P`` the network's prior. ``dlgo exercise check 7``
compares each function with the library's (``engines.puct``).
"""
from __future__ import annotations

import numpy as np

from dlgo.core.types import Player


def puct_scores(W: np.ndarray, N: np.ndarray, P: np.ndarray, c: float) -> np.ndarray:
    """``Q + c * P * sqrt(sum N) / (1 + N)`` per action, where ``Q = W / N`` (0
    for an action never visited) and ``sum N`` is counted as at least 1 (so that
    the priors decide the first visit)."""
    raise NotImplementedError("puct_scores")


def select_action(N: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """The index of the action to play after the search: the most visited one
    when ``temperature`` is 0; otherwise one drawn with probability proportional
    to ``N ** (1 / temperature)`` (``rng.choice(len(N), p=...)``)."""
    raise NotImplementedError("select_action")


def visit_policy(actions: np.ndarray, N: np.ndarray, num_actions: int) -> np.ndarray:
    """Self-play's policy target: the visit counts as probabilities over the
    whole action space (``actions`` are the node's action indices; every other
    action gets 0)."""
    raise NotImplementedError("visit_policy")


def value_targets(movers: list[Player], winner: Player | None) -> list[float]:
    """Self-play's value targets: for each recorded position, the game's result
    for the player to move there (``movers``): +1 won, -1 lost, 0 a draw."""
    raise NotImplementedError("value_targets")
