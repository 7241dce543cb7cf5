"""A bot that never answers its second move."""
from dlgo.core.agent import Agent, Decision


class Hangs(Agent):
    """Plays the first legal move, then loops for ever."""

    def __init__(self) -> None:
        super().__init__()
        self.moves = 0

    def choose(self, state):
        self.moves += 1
        while self.moves > 1:
            pass
        return Decision(state.legal_moves()[0], 1)
