"""The book's console helpers (*Deep Learning and the Game of Go*, chapter 3):
``from dlgo.utils import print_board, print_move, point_from_coords``.

They print, as the book's do: its bot-vs-bot and human-vs-bot scripts call
them. The board is drawn as the suite draws it (``X``, ``O``, ``.``; columns
A..T without I) and coordinates are read and written by :mod:`dlgo.core.grid`.
"""
from __future__ import annotations

from dlgo.core.grid import go_column_label, parse_go_point
from dlgo.core.types import Move, Player, Point
from dlgo.core.zobrist import MAX_BOARD_SIZE
from dlgo.games.go.board import Board

__all__ = ["print_board", "print_move", "point_from_coords", "coords_from_point"]


def print_board(board: Board) -> None:
    """Print ``board``, the top row first, with its coordinates."""
    print(board.render())


def print_move(player: Player, move: Move) -> None:
    """Print who played what: ``B C3``, ``W passes``, ``B resigns``."""
    text = "passes" if move.is_pass else "resigns" if move.point is None else coords_from_point(move.point)
    print(f"{player} {text}")


def point_from_coords(coords: str) -> Point:
    """``'C3'`` to ``Point(row=3, col=3)`` (columns A..Z without I)."""
    return parse_go_point(coords, MAX_BOARD_SIZE, MAX_BOARD_SIZE)


def coords_from_point(point: Point) -> str:
    """``Point(row=3, col=3)`` to ``'C3'``."""
    return f"{go_column_label(point.col)}{point.row}"
