"""The book's agents (*Deep Learning and the Game of Go*, chapter 3):
``from dlgo import agent`` then ``agent.RandomBot()``, and the modules
:mod:`dlgo.agent.base`, :mod:`dlgo.agent.naive` and :mod:`dlgo.agent.helpers`.

The random bot is the ``random`` engine (:mod:`engines.randombot`): this alias
sits above the engines, and nothing in the library imports it.
"""
from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_point_an_eye
from dlgo.agent.naive import RandomBot

__all__ = ["Agent", "RandomBot", "is_point_an_eye"]
