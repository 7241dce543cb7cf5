"""A bot that plays on a point already taken (tic-tac-toe, Go) or a full column (Connect Four)."""
from dlgo.core.agent import Agent, Decision
from dlgo.core.types import Move, Point


class Illegal(Agent):
    """Plays the bottom left point, again and again."""

    def choose(self, state):
        return Decision(Move.play(Point(1, 1)), 1)
