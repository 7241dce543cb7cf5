"""The bottom layer: players, points and moves; the Game and State contract;
outcomes; spec strings; Zobrist keys; the errors; the engine interface.

Everything else in the suite imports from here, and this package imports
nothing of the suite's above it.
"""
from dlgo.core.agent import Agent, Compute, SearchReport
from dlgo.core.errors import (DlgoError, EngineError, IllegalMoveError, ModelFileError, RecordError,
                              SpecError)
from dlgo.core.game import Ending, Game, Outcome, State, value_for
from dlgo.core.symmetry import Symmetry
from dlgo.core.types import Move, Player, Point

__all__ = ["Agent", "Compute", "SearchReport", "DlgoError", "EngineError", "IllegalMoveError", "ModelFileError",
           "RecordError", "SpecError", "Ending", "Game", "Outcome", "State", "value_for", "Symmetry", "Move",
           "Player", "Point"]
