"""The supervised move predictor as an engine (the book's chapter 8 agent).

The network gives a probability for every move; the agent keeps only the
sensible ones (``state.sensible_actions()``: legal, and in Go never into its own
eye) and plays the most likely (``temperature=0``) or samples in proportion to
``p ** (1 / temperature)``. In a game with a pass (Go) it passes when the
opponent has just passed and passing wins the count, and otherwise only when
nothing sensible is left.

Models load once per process and file (a tournament creates an agent per game),
and play through a graph-compiled call, never ``model.predict``.
"""
from __future__ import annotations

import math
import random
from typing import Sequence

import numpy as np

from dlgo.core.agent import Agent, Decision, SearchReport
from dlgo.core.errors import SpecError
from dlgo.core.game import Game, State
from dlgo.core.specs import require
from engines.neural.loading import load_network


def choose_from_policy(probabilities: np.ndarray, candidates: list[int], temperature: float,
                       rng: random.Random) -> int:
    """The candidate with the highest probability, or one sampled with ``temperature``."""
    p = probabilities[candidates].astype(np.float64)
    if temperature <= 0:
        return candidates[int(np.argmax(p))]
    p = np.power(np.maximum(p, 1e-12), 1.0 / temperature)
    r = rng.random() * p.sum()
    return candidates[min(int(np.searchsorted(np.cumsum(p), r)), len(candidates) - 1)]


def pass_wins(state: State) -> bool:
    """The opponent has just passed and passing now ends the game with a win
    for the player to move (Go: they lead on the board)."""
    pass_action = state.game.pass_action
    if pass_action is None or state.last_move is None or not state.last_move.is_pass:
        return False
    return state.apply_action(pass_action).winner() == state.next_player


def candidate_plays(state: State) -> list[int]:
    """The sensible actions a network engine chooses among: the plays (no pass)
    while there are any, else what is left (a pass)."""
    pass_action = state.game.pass_action
    candidates = state.sensible_actions()
    return [a for a in candidates if a != pass_action] or candidates


class NetworkAgent(Agent):
    """An engine that plays from one network call per move, no search: the
    model file, its seeded random choices, the call. Subclasses choose the move."""

    unit = "evaluations"
    trained_by = "train-supervised"  # the command that makes its model files
    network_heads = {"model": ("policy",)}

    def __init__(self, model: str, seed: int | None):
        super().__init__()
        if not model:
            raise SpecError(f"{self.name} needs model=PATH (a .keras file from `dlgo {self.trained_by}`)")
        self.model_path = model
        self.loaded = load_network(model, self.network_heads["model"], self.name)
        self.rng = random.Random(seed)
        self._prepared: tuple[State, list[np.ndarray]] | None = None  # (state, its outputs) from prepare_batch

    def check_game(self, state: State) -> None:
        self.loaded.check(state)

    def native_game(self) -> Game:
        return self.loaded.encoder.game

    def outputs(self, state: State) -> list[np.ndarray]:
        """The network's outputs for ``state`` (batch axis dropped): those
        :meth:`prepare_batch` computed for it, else one compiled call for it alone (a move's work:
        one evaluation)."""
        prepared, self._prepared = self._prepared, None
        if prepared is not None and prepared[0] is state:
            return prepared[1]
        self.loaded.check(state)
        planes = self.loaded.encoder.encode(state)[np.newaxis]
        return [output[0] for output in self.loaded.call(planes)]

    @classmethod
    def prepare_batch(cls, agents: Sequence[Agent], states: Sequence[State]) -> None:
        """One compiled call per network file for all the positions its agents are to move in."""
        by_network: dict[int, list[tuple[NetworkAgent, State]]] = {}
        for agent, state in zip(agents, states):
            if isinstance(agent, NetworkAgent):
                by_network.setdefault(id(agent.loaded), []).append((agent, state))
        for pairs in by_network.values():
            loaded = pairs[0][0].loaded
            for _, state in pairs:
                loaded.check(state)
            outputs = loaded.call(np.stack([loaded.encoder.encode(state) for _, state in pairs]))
            for k, (agent, state) in enumerate(pairs):
                agent.keep_outputs(state, [output[k] for output in outputs])

    def keep_outputs(self, state: State, outputs: list[np.ndarray]) -> None:
        """Keep the network's ``outputs`` for ``state`` (batch axis dropped), computed in a batch
        with other games' (:meth:`prepare_batch`): the next move in ``state`` uses them."""
        self._prepared = (state, outputs)


class PredictorAgent(NetworkAgent):
    """A supervised move predictor: plays the network's most likely sensible move."""

    name = "predictor"

    def __init__(self, model: str = "", temperature: float = 0.0, seed: int | None = None):
        """``model``: a .keras file from ``dlgo train-supervised``; ``temperature``:
        0 plays the most likely move, 1 samples from the network's probabilities."""
        require(0 <= temperature < math.inf, f"{self.name}: temperature must be a finite number, at least 0, "
                                             f"got {temperature}")
        super().__init__(model, seed)
        self.temperature = temperature

    def policy(self, state: State) -> np.ndarray:
        """The network's move probabilities for ``state``."""
        probabilities: np.ndarray = self.outputs(state)[0]
        return probabilities

    def choose(self, state: State) -> Decision:
        outputs = self.outputs(state)
        action = self.pick(state, outputs[0])
        report = SearchReport(value=self.value_of(outputs), policy=outputs[0], principal_variation=(action,))
        return Decision(state.index_to_move(action), 1, report)

    def value_of(self, outputs: list[np.ndarray]) -> float | None:
        """The position's value for the mover, if the network has a value head (a predictor has none)."""
        return None

    def pick(self, state: State, probabilities: np.ndarray) -> int:
        """The action to play: pass when passing wins (Go), else the most likely
        sensible play (or one sampled with ``temperature``)."""
        if pass_wins(state):
            assert state.game.pass_action is not None
            return state.game.pass_action
        return choose_from_policy(probabilities, candidate_plays(state), self.temperature, self.rng)
