"""The book's fast Go board (*Deep Learning and the Game of Go*, chapter 3's end
and the later chapters): ``from dlgo import goboard_fast as goboard`` works as it
does there. The names are :mod:`dlgo.goboard`'s: the suite's one board."""
from dlgo.goboard import Board, GameState, Move, is_point_an_eye

__all__ = ["GameState", "Move", "Board", "is_point_an_eye"]
