"""A bot that prints as it plays: harmless (its output goes nowhere)."""
import sys

from dlgo.core.agent import Agent, Decision


class Prints(Agent):
    """Plays the last legal move, and talks about it on stdout and stderr."""

    def choose(self, state):
        move = state.legal_moves()[-1]
        print(f"= I play {move}")
        print("thinking...", file=sys.stderr)
        return Decision(move, 1)
