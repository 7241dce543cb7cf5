"""A bot whose process dies under it (as a crash in compiled code would)."""
import os

from dlgo.core.agent import Agent


class Crashes(Agent):
    """Ends its process at once, with no Python exception to catch."""

    def choose(self, state):
        os._exit(3)
