"""Exercise 6 (chapters 9-12): experience, returns, the policy-gradient loss and a replay buffer.

``dlgo exercise check 6`` compares each function with the library's
(``dlgo.data.experience``, ``engines.training.rl``, ``engines.training.replay``).

Experience is kept as flat arrays, one row per recorded move, the moves of a
game together and in order: ``rewards[i]`` is the result of move ``i``'s game
for the player who made it (+1 won, -1 lost, 0 drawn) and ``games[i]`` the
number of its game.
"""
from __future__ import annotations

import numpy as np


def discounted_returns(rewards: np.ndarray, games: np.ndarray, discount: float) -> np.ndarray:
    """Each move's return: its reward times ``discount`` to the power of the
    number of moves of the same game recorded after it (the game's last move
    gets the whole result; with ``discount`` 1 every move does)."""
    raise NotImplementedError("discounted_returns")


def policy_gradient_targets(actions: np.ndarray, returns: np.ndarray, num_moves: int) -> np.ndarray:
    """REINFORCE's targets, one row of ``num_moves`` per move: zero except at
    the action played, where it is the move's *advantage*: its return minus the
    mean return of the batch (the baseline)."""
    raise NotImplementedError("policy_gradient_targets")


def policy_gradient_loss(targets: np.ndarray, legal: np.ndarray, probabilities: np.ndarray) -> float:
    """The loss whose gradient REINFORCE follows, averaged over the moves:
    ``-sum(targets * log q)``, where ``q`` is the network's ``probabilities``
    kept on the legal moves (``legal``: 1 or 0 per move) and renormalised to sum to 1."""
    raise NotImplementedError("policy_gradient_loss")


class ReplayBuffer:
    """The examples (planes, search policy, result) of the last ``capacity`` games."""

    def __init__(self, capacity: int):
        self.capacity = capacity

    def add_game(self, states: np.ndarray, policies: np.ndarray, values: np.ndarray) -> None:
        """Keep one game's examples (one row per position); beyond ``capacity``
        games, forget the oldest game."""
        raise NotImplementedError("ReplayBuffer.add_game")

    def __len__(self) -> int:
        """The number of examples (positions) held."""
        raise NotImplementedError("ReplayBuffer.__len__")

    def sample(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``size`` examples drawn with replacement: the rows ``rng.integers(len(self), size=size)``
        of every held example, oldest game first."""
        raise NotImplementedError("ReplayBuffer.sample")
