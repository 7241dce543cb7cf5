"""The book's first Go board (*Deep Learning and the Game of Go*, chapter 3):
``from dlgo import goboard_slow as goboard`` works as it does there. The suite
has one board, fast and exact, for every chapter: the names are
:mod:`dlgo.goboard`'s."""
from dlgo.goboard import Board, GameState, Move, is_point_an_eye

__all__ = ["GameState", "Move", "Board", "is_point_an_eye"]
