"""The games: Go (:mod:`dlgo.games.go`), the m,n,k games (tic-tac-toe, gomoku)
and gravity Connect-N (Connect Four), one registry to build them by name, and
an exact solver for the small ones.

>>> from dlgo.games import new_game
>>> new_game("tictactoe").legal_actions()
[0, 1, 2, 3, 4, 5, 6, 7, 8]
"""
from dlgo.games.registry import GAMES, game_options, get_game, new_game, register_game

__all__ = ["GAMES", "game_options", "get_game", "new_game", "register_game"]
