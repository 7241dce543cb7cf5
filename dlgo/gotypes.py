"""The book's names for players and points: ``from dlgo.gotypes import Player, Point``.
The code lives in :mod:`dlgo.core.types`."""
from dlgo.core.types import Player, Point

__all__ = ["Player", "Point"]
