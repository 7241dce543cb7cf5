"""A bot that changes the position it is given in place (a state is never to be changed)."""
from dlgo.core.agent import Agent, Decision


class Mutates(Agent):
    """Plays the first legal move, after handing the turn to the other side in the state itself."""

    def choose(self, state):
        move = state.legal_moves()[0]
        state.next_player = state.next_player.other
        return Decision(move, 1)
