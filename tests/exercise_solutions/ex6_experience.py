"""A student's answer to exercise 6."""
from __future__ import annotations

from collections import deque

import numpy as np


def discounted_returns(rewards: np.ndarray, games: np.ndarray, discount: float) -> np.ndarray:
    out = np.zeros(len(rewards))
    later = 0
    for i in range(len(rewards) - 1, -1, -1):
        later = 0 if i == len(rewards) - 1 or games[i + 1] != games[i] else later + 1
        out[i] = rewards[i] * discount ** later
    return out


def policy_gradient_targets(actions: np.ndarray, returns: np.ndarray, num_moves: int) -> np.ndarray:
    targets = np.zeros((len(actions), num_moves))
    targets[np.arange(len(actions)), actions] = returns - returns.mean()
    return targets


def policy_gradient_loss(targets: np.ndarray, legal: np.ndarray, probabilities: np.ndarray) -> float:
    q = probabilities * legal
    q = q / q.sum(axis=1, keepdims=True)
    return float(-(targets * np.log(np.clip(q, 1e-7, 1.0))).sum(axis=1).mean())


class ReplayBuffer:
    def __init__(self, capacity: int):
        self.capacity = capacity
        self.games: deque[tuple[np.ndarray, np.ndarray, np.ndarray]] = deque(maxlen=capacity)

    def add_game(self, states: np.ndarray, policies: np.ndarray, values: np.ndarray) -> None:
        self.games.append((states, policies, values))

    def __len__(self) -> int:
        return sum(len(game[2]) for game in self.games)

    def sample(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        states, policies, values = (np.concatenate(part) for part in zip(*self.games))
        rows = rng.integers(len(self), size=size)
        return states[rows], policies[rows], values[rows]
