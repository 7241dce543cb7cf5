"""Exercise 6 (chapters 9-12): discounted returns, REINFORCE's targets and loss,
and a replay buffer, checked against the library's own."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from dlgo.data.experience import Experience, discounted_rewards
from dlgo.exercises.checking import Check, Exercise, expect
from engines.training.replay import ReplayBuffer as LibraryBuffer
from engines.training.selfplay import Examples


def _experience(rewards: np.ndarray, games: np.ndarray, actions: np.ndarray | None = None,
                num_moves: int = 1) -> Experience:
    n = len(rewards)
    return Experience(np.zeros((n, 1), np.int8), np.zeros(n, np.int32) if actions is None else actions,
                      np.asarray(rewards, np.float32), np.ones((n, num_moves), bool), np.asarray(games, np.int32))


def library_returns(rewards: np.ndarray, games: np.ndarray, discount: float) -> np.ndarray:
    return discounted_rewards(_experience(rewards, games), discount)


def library_targets(actions: np.ndarray, returns: np.ndarray, num_moves: int) -> np.ndarray:
    from engines.training.rl import training_targets  # loads TensorFlow

    experience = _experience(returns, np.arange(len(returns)), np.asarray(actions, np.int32), num_moves)
    _, targets, _ = training_targets("pg", experience, lambda x: [], num_moves)
    return np.asarray(targets)[:, :num_moves]


def library_loss(targets: np.ndarray, legal: np.ndarray, probabilities: np.ndarray) -> float:
    from engines.training.rl import PolicyGradientLoss  # loads TensorFlow

    y_true = np.hstack([targets, legal]).astype(np.float32)
    return float(PolicyGradientLoss(entropy=0.0)(y_true, probabilities.astype(np.float32)))


class _Buffer:
    """The library's replay buffer with the skeleton's names."""

    def __init__(self, capacity: int):
        self._buffer = LibraryBuffer(capacity)

    def add_game(self, states: np.ndarray, policies: np.ndarray, values: np.ndarray) -> None:
        self._buffer.add(Examples(states, policies, values, lengths=[len(values)]))

    def __len__(self) -> int:
        return len(self._buffer)

    def sample(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        batch = self._buffer.sample(size, rng)
        return batch.x, batch.pi, batch.z


def returns(module: Any) -> None:
    rewards = np.array([1, 1, 1, -1, -1, 0, 0], np.float32)  # two games and a draw
    games = np.array([0, 0, 0, 1, 1, 2, 2])
    for discount in (1.0, 0.9, 0.5):
        got = np.asarray(module.discounted_returns(rewards, games, discount), float)
        expected = library_returns(rewards, games, discount)
        expect(got.shape == expected.shape and np.allclose(got, expected, atol=1e-6),
               f"discounted_returns(rewards={rewards.tolist()}, games={games.tolist()}, discount={discount}) is "
               f"{np.round(got, 4).tolist()}; expected {np.round(expected, 4).tolist()}")


def targets(module: Any) -> None:
    rng = np.random.default_rng(0)
    actions, results = rng.integers(0, 5, size=8), rng.choice([-1.0, 1.0], size=8).astype(np.float32)
    got = np.asarray(module.policy_gradient_targets(actions, results, 5), float)
    expected = library_targets(actions, results, 5)
    expect(got.shape == expected.shape, f"the targets have shape {got.shape}; expected {expected.shape}")
    expect(np.allclose(got, expected, atol=1e-6),
           f"policy_gradient_targets for actions {actions.tolist()} and returns {results.tolist()}: row 0 is "
           f"{np.round(got[0], 3).tolist()}, expected {np.round(expected[0], 3).tolist()}")


def loss(module: Any) -> None:
    rng = np.random.default_rng(1)
    for _ in range(5):
        logits = rng.normal(size=(6, 7))
        probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        legal = (rng.random((6, 7)) < 0.7).astype(np.float32)
        legal[:, 0] = 1.0
        actions = np.array([int(rng.choice(np.flatnonzero(row))) for row in legal])
        advantages = rng.normal(size=6)
        targets = np.zeros((6, 7))
        targets[np.arange(6), actions] = advantages
        got = float(module.policy_gradient_loss(targets, legal, probabilities))
        expected = library_loss(targets, legal, probabilities)
        expect(abs(got - expected) < 1e-4 * max(1.0, abs(expected)),
               f"policy_gradient_loss is {got:.5f}; expected {expected:.5f} (renormalise the probabilities over "
               f"the legal moves before the log)")


def replay_buffer(module: Any) -> None:
    ours, theirs = module.ReplayBuffer(3), _Buffer(3)
    rng = np.random.default_rng(2)
    for game, length in enumerate((4, 2, 5, 3)):  # the first game is forgotten when the fourth comes
        states = np.full((length, 2, 2, 1), game, np.float32)
        policies = rng.random((length, 5)).astype(np.float32)
        values = np.full(length, game % 2 * 2 - 1, np.float32)
        ours.add_game(states, policies, values)
        theirs.add_game(states, policies, values)
        expect(len(ours) == len(theirs), f"after {game + 1} games of lengths (4, 2, 5, 3)[:{game + 1}] and a "
                                         f"capacity of 3 games, len() is {len(ours)}; expected {len(theirs)}")
    got = ours.sample(20, np.random.default_rng(3))
    expected = theirs.sample(20, np.random.default_rng(3))
    for name, mine, right in zip(("states", "policies", "values"), got, expected):
        mine = np.asarray(mine)
        expect(mine.shape == right.shape and np.allclose(mine, right),
               f"sample(20) with a fresh rng: the {name} differ from the library's draw (shape {mine.shape}, "
               f"expected {right.shape})")


EXERCISE = Exercise(
    number=6, chapter="9-12", title="returns, the policy-gradient loss and a replay buffer",
    file="ex6_experience.py", step="steps 7-10, with ch09_experience.py and ch10_policy_gradient.py",
    writes=["discounted_returns", "policy_gradient_targets", "policy_gradient_loss", "ReplayBuffer"],
    reference=lambda: SimpleNamespace(discounted_returns=library_returns, policy_gradient_targets=library_targets,
                                      policy_gradient_loss=library_loss, ReplayBuffer=_Buffer),
    checks=[
        Check("discounted returns", returns, [
            "a move's return depends on what came after it in its own game: which direction should you walk?",
            "walk each game backwards: the last move gets the reward, each earlier one discount times the "
            "next one's multiplier; games[i] tells where a game ends"]),
        Check("REINFORCE's targets", targets, [
            "the target pushes up the move that was played, by how much better than usual it turned out",
            "advantage = returns - returns.mean(); put it at [row, action] of a zero array"]),
        Check("the policy-gradient loss", loss, [
            "the network's probabilities include illegal moves: what must happen to them first?",
            "keep only the legal moves' probabilities and make them sum to 1 again; then a cross-entropy "
            "against the targets, averaged over the rows",
            "q = probabilities * legal; q /= q.sum(axis=1, keepdims=True); the loss is "
            "-(targets * log(q)).sum(axis=1).mean() (log of 0 only where targets are 0: clip q to 1e-7)"]),
        Check("the replay buffer", replay_buffer, [
            "what leaves the buffer when it is full, and in what order are its rows?",
            "keep whole games in a collections.deque(maxlen=capacity); sample rows of the games "
            "concatenated, oldest first"]),
    ],
)
