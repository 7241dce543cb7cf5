"""A bot that raises on its third move."""
from dlgo.core.agent import Agent, Decision


class Raises(Agent):
    """Plays the first legal move, and raises on its third."""

    def __init__(self) -> None:
        super().__init__()
        self.moves = 0

    def choose(self, state):
        self.moves += 1
        if self.moves == 3:
            raise ValueError("no idea what to do")
        return Decision(state.legal_moves()[0], 1)
