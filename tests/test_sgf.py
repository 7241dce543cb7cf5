"""SGF: what we write, sgfmill reads back to the same game; setup stones and errors."""
import random

import pytest

from dlgo.goboard import GameState
from dlgo.gotypes import Player, Point
from dlgo.formats.sgf import game_to_sgf, read_sgf, sgf_to_state


@pytest.mark.parametrize("size, seed", [(9, 1), (13, 2), (19, 3)])
def test_written_games_read_back_to_the_same_position(size, seed):
    state = GameState.new_game(size, komi=6.5)
    rng = random.Random(seed)
    while not state.is_over():
        state = state.apply_move(state.random_move(rng))
    text = game_to_sgf(state, "mcts:rounds=10", "random", "B+1.5")
    record = read_sgf(text)
    assert (record.size, record.komi, record.black, record.white, record.result) == \
        (size, 6.5, "mcts:rounds=10", "random", "B+1.5")
    assert [m for _, m in record.moves] == state.move_history()
    final = sgf_to_state(record)
    assert final.zobrist_hash() == state.zobrist_hash() and final.is_over()


def test_handicap_setup_stones():
    record = read_sgf("(;GM[1]FF[4]SZ[19]HA[3]AB[dd][pd][dp]KM[0.5];W[qp])")
    assert record.setup[Player.black] == [Point(4, 4), Point(16, 4), Point(16, 16)]
    moves, setup = record.plies()
    assert setup == 5 and [m.is_pass for m in moves] == [False, True, False, True, False, False]
    final = sgf_to_state(record)
    assert final.board.get(Point(4, 17)) == Player.white and final.next_player == Player.black


@pytest.mark.parametrize("text, message", [
    ("hello", "not a readable SGF game"),
    ("(;GM[3]SZ[9];B[aa])", "not a Go game"),
])
def test_unreadable_files_are_clear_errors(text, message):
    with pytest.raises(ValueError, match=message):
        read_sgf(text)


def test_illegal_moves_name_the_move():
    with pytest.raises(ValueError, match="move 2: illegal move A9: the point is occupied"):
        sgf_to_state(read_sgf("(;GM[1]SZ[9];B[aa];W[aa])"))
