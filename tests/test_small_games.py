"""Tic-tac-toe, Connect Four, gomoku and the pie rule: known values and rules."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from dlgo.core import zobrist

from dlgo.games.connectn import ConnectNGameState
from dlgo.games import new_game
from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from helpers import exact_value, play


# ------------------------------------------------------------ known values
def test_tictactoe_has_5478_positions_and_255168_games():
    positions: set[int] = set()
    games = 0

    def walk(state) -> int:
        positions.add(state.zobrist_hash())
        if state.is_over():
            return 1
        return sum(walk(state.apply_move(m)) for m in state.legal_moves())

    games = walk(new_game("tictactoe"))
    assert len(positions) == 5478
    assert games == 255168


def test_connect4_distinct_positions_by_ply():
    expected = [1, 7, 49, 238, 1120, 4263, 16422, 54859]
    layer = {new_game("connect4").zobrist_hash(): new_game("connect4")}
    for ply, count in enumerate(expected):
        assert len(layer) == count, f"ply {ply}"
        if ply + 1 < len(expected):
            nxt = {}
            for state in layer.values():
                for move in state.legal_moves():
                    child = state.apply_move(move)
                    nxt[child.zobrist_hash()] = child
            layer = nxt


def test_tictactoe_perfect_play_is_a_draw():
    assert exact_value(new_game("tictactoe")) == 0
    assert exact_value(play(new_game("tictactoe"), "a1", "b1")) == 1  # a known blunder by O


# ---------------------------------------------------------- win detection
@pytest.mark.parametrize("moves,winner", [
    (["a1", "a2", "b1", "b2", "c1"], Player.black),            # row
    (["a1", "b1", "a2", "b2", "c3", "b3"], Player.white),      # column
    (["a1", "a2", "b2", "a3", "c3"], Player.black),            # diagonal
    (["a3", "a1", "b2", "b1", "c1"], Player.black),            # anti-diagonal
])
def test_tictactoe_lines(moves, winner):
    s = play(new_game("tictactoe"), *moves)
    assert s.is_over() and s.winner() is winner
    assert s.legal_moves() == []


def test_tictactoe_draw():
    s = play(new_game("tictactoe"), "a1", "b2", "c3", "b1", "b3", "a3", "c1", "c2", "a2")
    assert s.is_over() and s.winner() is None and s.legal_moves() == []
    with pytest.raises(ValueError, match="over"):
        s.apply_move(Move.play(Point(1, 1)))


@pytest.mark.parametrize("columns,winner", [
    ("1 1 2 2 3 3 4", Player.black),              # horizontal on the bottom row
    ("1 2 1 2 1 2 1", Player.black),              # vertical
    ("1 2 2 3 3 4 3 4 4 7 4", Player.black),      # diagonal up-right
    ("7 6 6 5 5 4 5 4 4 1 4", Player.black),      # diagonal up-left
    ("1 4 2 4 1 4 2 4", Player.white),             # white vertical in column 4
])
def test_connect4_lines(columns, winner):
    s = play(new_game("connect4"), *columns.split())
    assert s.is_over() and s.winner() is winner


def test_connect4_three_is_not_four():
    s = play(new_game("connect4"), *"1 1 2 2 3 3".split())
    assert not s.is_over()


def test_connect4_gravity_and_coordinates():
    s = play(new_game("connect4"), "4", "4")
    assert s.board.get(Point(1, 4)) is Player.black and s.board.get(Point(2, 4)) is Player.white
    assert s.parse_move("4") == Move.play(Point(3, 4))
    with pytest.raises(ValueError, match="lands on row 3"):
        s.apply_move(Move.play(Point(5, 4)))
    with pytest.raises(ValueError, match="columns are 1-7"):
        s.parse_move("8")
    with pytest.raises(ValueError, match="column number"):
        s.parse_move("d")
    with pytest.raises(ValueError, match="no passing"):
        s.parse_move("pass")
    full = play(new_game("connect4"), *["4"] * 6)
    with pytest.raises(ValueError, match="full"):
        full.parse_move("4")
    assert not full.legal_action_mask()[3] and full.legal_action_mask().sum() == 6
    assert full.action_point(3) is None and full.action_point(4) == Point(1, 5)  # a full column plays nowhere


def test_connect4_draw_on_a_full_board():
    # Columns filled in pairs so no four ever lines up.
    order = "1 2 1 2 1 2 2 1 2 1 2 1 3 4 3 4 3 4 4 3 4 3 4 3 5 6 5 6 5 6 6 5 6 5 6 5 7 7 7 7 7 7"
    s = play(new_game("connect4"), *order.split())
    assert s.is_over() and s.winner() is None


def test_gomoku_needs_five():
    s = play(new_game("gomoku"), "a1", "a2", "b1", "b2", "c1", "c2", "d1", "d2")
    assert not s.is_over()
    s = play(s, "e1")
    assert s.winner() is Player.black
    assert new_game("gomoku").parse_move("i9") == Move.play(Point(9, 9))  # i is a column here


def test_mnk_options():
    s = new_game("mnk", m=4, n=3, k=3)
    assert (s.board.num_rows, s.board.num_cols, s.num_actions) == (3, 4, 12)
    assert play(s, "b1", "a2", "c1", "b2", "d1").winner() is Player.black


# --------------------------------------------------------------- pie rule
def test_pie_rule_swap_in_connect4():
    s = new_game("connect4", pie_rule=True)
    assert s.num_actions == 8 and not s.legal_action_mask()[7]
    s1 = play(s, "4")
    assert s1.swap_available()
    mask = s1.legal_action_mask()
    assert mask[7] and mask[:7].all()
    swap = s1.parse_move("swap")
    assert swap in s1.legal_moves() and s1.move_to_index(swap) == 7
    assert s1.index_to_move(7) == swap and s1.format_move(swap) == "swap"
    s2 = s1.apply_move(swap)
    assert s2.board.get(Point(1, 4)) is Player.white
    assert s2.next_player is Player.black
    assert not s2.swap_available() and not s2.legal_action_mask()[7]
    assert s2.heights[3] == 1
    # hash equals that of the same stones reached without a swap offer
    plain = play(new_game("connect4", pie_rule=True), "1", "4", "1")
    assert plain.board.get(Point(1, 4)) is Player.white
    s3 = play(s2, "1", "1")  # black 1, white 1 (lands on row 2)
    assert s3.zobrist_hash() != plain.zobrist_hash()  # different stones: sanity
    again = play(new_game("connect4", pie_rule=True), "4", "swap", "1", "5")
    assert again.board.get(Point(1, 5)) is Player.white


def test_swap_only_when_offered():
    s = play(new_game("connect4", pie_rule=True), "4", "3")
    with pytest.raises(ValueError, match="swap"):
        s.parse_move("swap")
    with pytest.raises(ValueError, match="swap"):
        new_game("connect4").apply_move(Move.play(Point(1, 4))).parse_move("swap")


def test_pie_rule_in_tictactoe_shares_the_cell_index():
    s = play(new_game("tictactoe", pie_rule=True), "b2")
    swap = s.parse_move("swap")
    assert swap == Move.play(Point(2, 2)) and s.legal_action_mask()[4]
    s2 = s.apply_move(swap)
    assert s2.board.get(Point(2, 2)) is Player.white and s2.next_player is Player.black


def test_connectn_variants():
    s = ConnectNGameState.new_game(columns=5, rows=4, n=3)
    assert s.num_actions == 5 and s.game.name == "connectn(5,4,3)"
    s = play(s, "1", "1", "2", "2", "3")
    assert s.winner() is Player.black


def test_playouts_are_reproducible_and_valid():
    for name in ("tictactoe", "connect4", "gomoku"):
        start = new_game(name)
        a, b = [], []
        wa = start.random_playout(random.Random(3), a)
        wb = start.random_playout(random.Random(3), b)
        assert a == b and wa == wb
        s = start
        for m in a:
            s = s.apply_move(m)
        assert s.is_over() and s.winner() == wa


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       name=st.sampled_from(["tictactoe", "connect4", "gomoku"]), pie_rule=st.booleans())
def test_incremental_hash_equals_recomputation(seed, name, pie_rule):
    rng = random.Random(seed)
    state = new_game(name, pie_rule=pie_rule)
    while True:
        expected = state.board.zobrist_hash()  # from scratch, stones only
        if state.next_player is Player.white:
            expected ^= zobrist.WHITE_TO_MOVE
        if state.swap_available():
            expected ^= zobrist.SWAP_AVAILABLE
        assert state.zobrist_hash() == expected
        if state.is_over():
            break
        state = state.apply_move(state.random_move(rng))


def test_perfect_moves_keep_the_value():
    from dlgo.games.solvers.brute_force import perfect_moves

    # After X a1, O b1 (a blunder), X wins with exactly the moves that keep the win.
    s = play(new_game("tictactoe"), "a1", "b1")
    winning = {s.format_move(m) for m in perfect_moves(s)}
    assert winning and all(exact_value(play(s, w)) == -1 for w in winning)
    assert all(exact_value(play(s, s.format_move(m))) >= 0 for m in s.legal_moves() if s.format_move(m) not in winning)
    assert len(perfect_moves(new_game("tictactoe"))) == 9  # every first move keeps the draw



def test_the_winning_line_is_every_full_line_through_the_last_stone():
    assert play(new_game("tictactoe"), "a1", "a2", "b1", "b2").winning_line() is None  # not over
    row = play(new_game("tictactoe"), "a1", "a2", "b1", "b2", "c1").winning_line()
    assert row == [Point(1, 1), Point(1, 2), Point(1, 3)]
    longer = play(new_game("connect4"), *"11223355664").winning_line()  # red's 4 joins 1-3 and 5-6
    assert longer == [Point(1, col) for col in range(1, 7)]
    assert play(new_game("connect4"), *"454545", "resign").winning_line() is None  # won by resignation
    assert play(new_game("tictactoe"), *"a1 b2 c3 b1 b3 a3 c1 c2 a2".split()).winning_line() is None  # a draw
    assert new_game("go").winning_line() is None  # no game of lines
