"""Engines that learned by playing (the book's chapters 10-12): a network, no search.

* ``pg``: a **policy network** improved by policy gradients. It plays like the
  supervised predictor it may have started from: the most likely sensible move,
  or (``temperature`` > 0) one sampled from its softmax, as in self-play.
* ``q``: an **action-value network**: for every action, the expected result of
  playing it, in [-1, 1]. It plays the best sensible action; with probability
  ``epsilon`` a random one instead (exploration, in self-play).
* ``ac``: an **actor-critic network**: a policy head that plays like ``pg`` and a
  value head, the expected result of the position for the mover, shown in its
  search report (an AlphaZero network has the same two heads and plays here too,
  without its search).

Each loads a ``.keras`` file by path (``model=``), once per process and file,
and calls it through the same graph-compiled call as every network of the
suite. ``dlgo train-rl`` makes these files.
"""
from __future__ import annotations

import numpy as np

from dlgo.core.agent import Decision, SearchReport
from dlgo.core.errors import ModelFileError
from dlgo.core.game import State
from dlgo.core.specs import require
from engines.predictor import NetworkAgent, PredictorAgent, candidate_plays, pass_wins


class PolicyAgent(PredictorAgent):
    """A policy network trained by policy gradients: its most likely sensible
    move, or one sampled with ``temperature``."""

    name = "pg"
    trained_by = "train-rl --method pg"


class ActorCriticAgent(PredictorAgent):
    """An actor-critic network: plays by its policy head (``temperature`` as
    pg) and reports its value head."""

    name = "ac"
    trained_by = "train-rl --method ac"
    network_heads = {"model": ("policy", "value")}

    def value_of(self, outputs: list[np.ndarray]) -> float | None:
        if len(outputs) != 2:
            raise ModelFileError(f"{self.model_path} has no value head: an ac engine needs policy and value heads")
        return float(np.ravel(outputs[1])[0])


class QAgent(NetworkAgent):
    """An action-value network: the sensible action it values most, or a random
    one with probability ``epsilon``."""

    name = "q"
    trained_by = "train-rl --method q"
    network_heads = {"model": ("action values",)}

    def __init__(self, model: str = "", epsilon: float = 0.0, seed: int | None = None):
        """``model``: a .keras file from ``dlgo train-rl --method q``; ``epsilon``:
        the chance of a uniformly random sensible action instead of the best."""
        require(0 <= epsilon <= 1, f"q: epsilon is a probability in [0, 1], got {epsilon}")
        super().__init__(model, seed)
        self.epsilon = epsilon

    def values(self, state: State) -> np.ndarray:
        """The network's value of every action in ``state``, for the mover."""
        outputs = self.outputs(state)
        if len(outputs) != 1:
            raise ModelFileError(f"{self.model_path} is not an action-value network (it has {len(outputs)} heads)")
        return outputs[0]

    def choose(self, state: State) -> Decision:
        values = self.values(state)
        plays = candidate_plays(state)
        if pass_wins(state):
            assert state.game.pass_action is not None
            action = state.game.pass_action
        elif self.rng.random() < self.epsilon:
            action = self.rng.choice(plays)
        else:
            action = max(plays, key=lambda a: values[a])
        report = SearchReport(value=float(values[action]), q=values, principal_variation=(action,))
        return Decision(state.index_to_move(action), 1, report)
