"""A bot that ends the interpreter."""
import sys

from dlgo.core.agent import Agent


class Exits(Agent):
    """Calls sys.exit() on its first move."""

    def choose(self, state):
        sys.exit("bye")
