"""The book's ``MCTSAgent(num_rounds, temperature)`` (*Deep Learning and the Game
of Go*, chapter 4): ``from dlgo import mcts`` then ``mcts.MCTSAgent(500, 1.4)``.
It is the ``mcts`` engine (:mod:`engines.aliases`), whose UCT exploration constant
``c`` is the book's ``temperature``."""
from __future__ import annotations

from engines.aliases import MCTSAgent as _MCTSEngine

__all__ = ["MCTSAgent"]


class MCTSAgent(_MCTSEngine):
    """UCT with random rollouts: ``num_rounds`` rounds a move, ``temperature`` the
    weight of exploration (the book's names for ``rounds`` and ``c``)."""

    def __init__(self, num_rounds: int, temperature: float, seed: int | None = None):
        super().__init__(rounds=num_rounds, c=temperature, seed=seed)
