"""The suite's errors: one family for everything a user can get wrong.

Every error a user can cause (a typo in a move, an unknown engine, a model file
that is not one, a damaged record) is a :class:`DlgoError`. The command line
prints these as one line and exits non-zero; any other exception is a bug and
keeps its traceback. ``DlgoError`` is a ``ValueError``, so code written
against the plain ``ValueError`` of earlier versions still catches it.
"""
from __future__ import annotations


class DlgoError(ValueError):
    """Something the user asked for cannot be done; the message says why."""


class IllegalMoveError(DlgoError):
    """A move the rules forbid here (occupied, self-capture, ko, a full column,
    the game is over), or text that does not name a move."""


class SpecError(DlgoError):
    """A game or engine spec string that names nothing, or has a bad parameter."""


class ModelFileError(DlgoError):
    """A network file that is missing, unreadable, or made for another game."""


class RecordError(DlgoError):
    """A game record (games.csv, SGF, a dataset) that cannot be read or used."""


class SettingsMismatchError(RecordError):
    """A folder holds a run made with other settings (another kind of run,
    another game, other players or seeds): resuming would mix two runs, so
    nothing is written. ``problem`` says what differs; the message adds ``fix``."""

    def __init__(self, problem: str, fix: str = "use another folder"):
        super().__init__(f"{problem}; {fix}")
        self.problem = problem


class EngineError(DlgoError, RuntimeError):
    """An engine could not give a move: an external program died, stopped
    answering or answered an error. Matches record the game as a forfeit."""
