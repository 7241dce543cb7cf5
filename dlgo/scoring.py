"""The book's names for scoring (*Deep Learning and the Game of Go*, chapter 3):
``from dlgo.scoring import compute_game_result`` works as it does there.

``compute_game_result(game_state)`` counts the board by area with the game's
komi (the book's always used 7.5, the default here) and gives a
:class:`GameResult` with ``winner``, ``winning_margin`` and ``str()`` as
``B+3.5``; a drawn count (possible only with a whole-number komi) has the
winner None. The code lives in :mod:`dlgo.games.go.scoring`.
"""
from dlgo.games.go.scoring import GameResult, Territory, evaluate_territory
from dlgo.games.go.state import compute_game_result

__all__ = ["GameResult", "Territory", "compute_game_result", "evaluate_territory"]
