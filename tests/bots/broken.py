"""A bot file that does not even import."""
from dlgo.core.agent import Agent, Decision


class Broken(Agent)
    def choose(self, state):
        return Decision(state.legal_moves()[0], 1)
