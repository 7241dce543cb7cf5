"""The book's ``is_point_an_eye(board, point, color)``: the eye test of
:mod:`dlgo.games.go.board`, the one the random bot and the playouts use."""
from dlgo.games.go.board import is_point_an_eye

__all__ = ["is_point_an_eye"]
