"""A bot that asks for 10 GB on its first move."""
from dlgo.core.agent import Agent, Decision


class Hog(Agent):
    """Allocates 10 GB, then plays."""

    def choose(self, state):
        hoard = bytearray(10 * 2**30)
        return Decision(state.legal_moves()[len(hoard) % 2], 1)
