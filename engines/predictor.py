"""The supervised move predictor as an engine (the book's chapter 8 agent).

The network gives a probability for every move; the agent keeps only the
sensible ones (``state.sensible_moves()``: legal, and in Go never into its own
eye) and plays the most likely (``temperature=0``) or samples in proportion to
``p ** (1 / temperature)``. In Go it passes when the opponent has just passed
and it is ahead on the board, and otherwise only when nothing sensible is left.

Models load once per process and file (a tournament creates an agent per game),
and play through a graph-compiled call, never ``model.predict``.
"""
from __future__ import annotations

import random

import numpy as np

from dlgo.game import GameStateBase
from dlgo.goboard import GameState, Move
from engines.base import Agent
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


def go_pass_is_wise(state: GameState) -> bool:
    """The opponent has just passed and the player to move leads on the board."""
    from dlgo.scoring import compute_game_result

    if state.last_move is None or not state.last_move.is_pass:
        return False
    return compute_game_result(state).winner == state.next_player


class PredictorAgent(Agent):
    """A supervised move predictor: plays the network's most likely sensible move."""

    name = "predictor"
    unit = "evaluations"

    def __init__(self, model: str = "", temperature: float = 0.0, seed: int | None = None):
        """``model``: a .keras file from ``dlgo train-supervised``; ``temperature``:
        0 plays the most likely move, 1 samples from the network's probabilities."""
        super().__init__()
        if not model:
            raise ValueError("predictor needs model=PATH (a .keras file from `dlgo train-supervised`)")
        self.model_path = model
        self.loaded = load_network(model)
        self.temperature = temperature
        self.rng = random.Random(seed)
        self.last_policy: np.ndarray | None = None

    def check_game(self, state: GameStateBase) -> None:
        self.loaded.check(state)

    def policy(self, state: GameStateBase) -> np.ndarray:
        """The network's move probabilities for ``state`` (one compiled call)."""
        self.loaded.check(state)
        planes = self.loaded.encoder.encode(state)[np.newaxis]
        self._work += 1
        return self.loaded.call(planes)[0][0]

    def choose(self, state: GameStateBase) -> Move:
        probabilities = self.last_policy = self.policy(state)
        moves = state.sensible_moves()
        if isinstance(state, GameState):
            if go_pass_is_wise(state):
                return Move.pass_turn()
            plays = [m for m in moves if m.is_play]
            moves = plays or moves
        candidates = [state.move_to_index(m) for m in moves]
        return state.index_to_move(choose_from_policy(probabilities, candidates, self.temperature, self.rng))
