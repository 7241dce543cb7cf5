"""The book's ``RandomBot``: a random legal move that never fills its own eye,
pass when none is left. It is the ``random`` engine, :class:`engines.randombot.RandomAgent`
(``RandomBot(seed=1)`` repeats its games)."""
from engines.randombot import RandomAgent as RandomBot

__all__ = ["RandomBot"]
