"""Go: the board (:mod:`.board`), area scoring (:mod:`.scoring`), handicap
points (:mod:`.handicap`) and the game with its states (:mod:`.state`)."""
from dlgo.games.go.board import Board, is_point_an_eye
from dlgo.games.go.scoring import GameResult, area_score
from dlgo.games.go.state import GameState, GoGame, GoState, compute_game_result

__all__ = ["Board", "is_point_an_eye", "GameResult", "area_score", "GoState", "GameState", "GoGame",
           "compute_game_result"]
