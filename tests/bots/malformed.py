"""A bot that answers a number where a move belongs."""
from dlgo.core.agent import Agent, Decision


class Malformed(Agent):
    """Returns the action index, not the move."""

    def choose(self, state):
        return Decision(state.legal_actions()[0], 1)
