"""The book's ``dlgo.agent.base.Agent``: the suite's engine interface,
:class:`dlgo.core.agent.Agent`. Call ``select_move(game_state)`` as in the book;
a new agent implements ``choose(game_state)``, which ``select_move`` times."""
from dlgo.core.agent import Agent

__all__ = ["Agent"]
