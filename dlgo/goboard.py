"""The book's names for Go (*Deep Learning and the Game of Go*, chapter 3):
``from dlgo.goboard import GameState, Move, Board`` works as it does there.
The code lives in :mod:`dlgo.games.go`.
"""
from dlgo.core.types import Move
from dlgo.games.go.board import Board, is_point_an_eye
from dlgo.games.go.state import GameState

__all__ = ["GameState", "Move", "Board", "is_point_an_eye"]
