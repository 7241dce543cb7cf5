"""A student's answer to exercise 7."""
from __future__ import annotations

import numpy as np

from dlgo.core.types import Player


def puct_scores(W: np.ndarray, N: np.ndarray, P: np.ndarray, c: float) -> np.ndarray:
    q = np.where(N > 0, W / np.maximum(N, 1), 0.0)
    return q + c * P * np.sqrt(max(1.0, N.sum())) / (1 + N)


def select_action(N: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    if temperature == 0:
        return int(np.argmax(N))
    weights = N ** (1 / temperature)
    return int(rng.choice(len(N), p=weights / weights.sum()))


def visit_policy(actions: np.ndarray, N: np.ndarray, num_actions: int) -> np.ndarray:
    pi = np.zeros(num_actions)
    pi[actions] = N / N.sum()
    return pi


def value_targets(movers: list[Player], winner: Player | None) -> list[float]:
    return [0.0 if winner is None else (1.0 if mover == winner else -1.0) for mover in movers]
