"""Area scoring on hand-built finished positions."""
import pytest

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.games.go.scoring import GameResult, evaluate_territory
from dlgo.games.go.state import compute_game_result
from helpers import BOOK_SCORING_DIAGRAM, go_board, go_position


def test_book_five_by_five_example():
    # The book's scoring test: 9 + 4 for black, 9 + 3 for white, no dame.
    board = go_board(BOOK_SCORING_DIAGRAM)
    t = evaluate_territory(board)
    assert (t.num_black_stones, t.num_black_territory) == (9, 4)
    assert (t.num_white_stones, t.num_white_territory) == (9, 3)
    assert t.num_dame == 0
    result = compute_game_result(GameState.from_board(board, komi=7.5))
    assert (result.b, result.w) == (13, 12)
    assert result.winner is Player.white and result.winning_margin == 6.5
    assert str(result) == "W+6.5"


def test_walls_on_9x9():
    # Black owns columns A-E (45 points), white F-J (36): 45 against 36 + 7.5.
    rows = "\n".join(". . . . X O . . ." for _ in range(9))
    result = compute_game_result(go_position(rows, komi=7.5))
    assert (result.b, result.w) == (45, 36)
    assert str(result) == "B+1.5" and result.winner is Player.black


def test_dame_counts_for_nobody():
    board = go_board("""
        . X . O .
        . X . O .
        . X . O .
    """)
    t = evaluate_territory(board)
    assert (t.num_black_territory, t.num_white_territory, t.num_dame) == (3, 3, 3)
    assert len(t.dame_points) == 3 and all(p.col == 3 for p in t.dame_points)


def test_jigo_with_integer_komi_is_a_draw():
    result = compute_game_result(go_position("""
        . X O .
        . X O .
        . X O .
        . X O .
    """, komi=0))
    assert result.winner is None and str(result) == "0"


def test_empty_board_all_dame_komi_wins():
    result = compute_game_result(GameState.new_game(9))
    assert (result.b, result.w) == (0, 0) and str(result) == "W+7.5"


def test_finished_game_winner_uses_the_score():
    s = go_position("""
        . . X O .
        . . X O .
        . . X O .
        . . X O .
        . . X O .
    """, komi=0.5)
    s = s.apply_move(Move.pass_turn()).apply_move(Move.pass_turn())
    assert s.is_over() and s.winner() is Player.black  # 15 against 10 + 0.5


@pytest.mark.parametrize("b,w,komi,text", [(40, 41, 0.5, "W+1.5"), (41, 33, 7.5, "B+0.5"), (10, 10, 0, "0")])
def test_result_strings(b, w, komi, text):
    assert str(GameResult(b, w, komi)) == text


def test_the_area_count_of_a_finished_game_gives_each_point_its_owner_and_agrees_with_the_result():
    s = go_position("""
        . X . O .
        . X . O .
        . X . O .
    """, komi=0.5)
    assert s.area_count() is None  # not over
    s = s.apply_move(Move.pass_turn()).apply_move(Move.pass_turn())
    count = s.area_count()
    assert count.owners.tolist() == [[1, 1, 0, 2, 2]] * 3 and not count.dead  # row 1 first; column C is dame
    assert count.stones == {Player.black: 3, Player.white: 3} and count.territory == {Player.black: 3, Player.white: 3}
    assert (count.total(Player.black), count.total(Player.white)) == (6, 6.5) and s.outcome().text == "W+0.5"
    assert go_position(". X O .\n. X O .").apply_move(Move.resign()).area_count() is None  # resigned: no count
