"""Go rules on hand-built positions, the hash, immutability and the fast playout."""
import copy
import random

import pytest
from hypothesis import given, settings, strategies as st

from dlgo.goboard import GameState, Move, is_point_an_eye
from dlgo.gotypes import Player, Point
from helpers import go_board, go_position, play


def P(text: str, size: int = 19) -> Point:
    """'C3' -> Point(3, 3)."""
    return GameState.new_game(size).parse_move(text).point


# ---------------------------------------------------------------- captures
def test_capture_one_stone():
    s = go_position("""
        . . . . .
        . . X . .
        . X O X .
        . . . . .
        . . . . .
    """)
    after = play(s, "C2")
    assert after.board.get(P("C3")) is None
    assert after.board.get(P("C2")) is Player.black
    assert after.board.captures[Player.black] == 1
    # the capturing stone gained the captured point as a liberty
    assert P("C3") in after.board.get_go_string(P("C2")).liberties


def test_capture_two_strings_at_once():
    s = go_position("""
        X O O . O O X
        . X X . X X .
        . . . . . . .
    """)
    after = play(s, "D3")
    for pt in ("B3", "C3", "E3", "F3"):
        assert after.board.get(P(pt)) is None
    assert after.board.captures[Player.black] == 4
    assert after.board.get_go_string(P("D3")).num_liberties == 3  # C3, E3, D2


def test_merging_strings_unites_liberties():
    s = go_position("""
        . . . . .
        . X . X .
        . . . . .
    """)
    after = play(s, "C2")
    string = after.board.get_go_string(P("B2"))
    assert string.stones == {P("B2"), P("C2"), P("D2")}
    assert string.liberties == {P("A2"), P("E2"), P("B3"), P("C3"), P("D3"), P("B1"), P("C1"), P("D1")}
    assert after.board.get_go_string(P("D2")) == string


# ------------------------------------------------------------ self-capture
def test_self_capture_is_illegal():
    s = go_position("""
        . O .
        O . O
        . O .
    """)
    with pytest.raises(ValueError, match="self-capture"):
        s.apply_move(Move.play(P("B2")))
    assert not s.is_valid_move(Move.play(P("B2")))
    assert Move.play(P("B2")) not in s.legal_moves()


def test_multi_stone_self_capture_is_illegal():
    s = go_position("""
        . O X .
        O O X .
        X X X .
    """, next_player=Player.white)
    # White A3 would join a three-stone string and leave it with no liberty.
    with pytest.raises(ValueError, match="self-capture"):
        s.apply_move(Move.play(P("A3")))
    # For black the same point takes that string's last liberty: legal, captures 3.
    black = GameState.from_board(s.board, Player.black)
    after = black.apply_move(Move.play(P("A3")))
    assert after.board.captures[Player.black] == 3


def test_capture_that_looks_like_self_capture_is_legal():
    s = go_position("""
        . X O .
        X O . O
        . X O .
    """)
    after = play(s, "C2")  # surrounded by white, but it takes B2, the last liberty of that stone
    assert after.board.get(P("B2")) is None
    assert after.board.get(P("C2")) is Player.black
    assert after.board.get_go_string(P("C2")).liberties == {P("B2")}


# ---------------------------------------------------------------------- ko
KO = """
    . . . . .
    . . . . .
    . X O . .
    X O . O .
    . X O . .
"""


def test_simple_ko_is_refused_then_legal_after_a_threat_exchange():
    s = play(go_position(KO), "C2")  # black takes the ko
    assert s.board.get(P("B2")) is None
    retake = Move.play(P("B2"))
    with pytest.raises(ValueError, match=r"\bko\b"):
        s.apply_move(retake)
    assert not s.is_valid_move(retake)
    assert retake not in s.legal_moves()
    assert not s.legal_action_mask()[s.move_to_index(retake)]
    s = play(s, "E5", "E4")  # white threatens elsewhere, black answers elsewhere
    s = s.apply_move(retake)  # now legal
    assert s.board.get(P("C2")) is None and s.board.get(P("B2")) is Player.white


def test_snapback_is_not_ko():
    s = go_position("""
        . . O . O
        O X X X O
        X X O X O
        . O O X .
        . O X X .
    """)
    s = play(s, "A1")  # throw-in
    s = play(s, "A2")  # white captures the single stone
    assert s.board.get(P("A1")) is None
    s = play(s, "A1")  # and black takes back five stones at once: legal, not ko
    assert s.board.captures[Player.black] == 5
    for pt in ("A2", "B2", "C2", "B1", "C3"):
        assert s.board.get(P(pt)) is None


def test_superko_cycle_is_refused():
    # On 2x2: A1 B1 A2 B2 (captures A1+A2) A1 A2 (captures A1). Black A1 now would
    # capture three stones and recreate the position after the very first move,
    # with white to move: not a simple ko, but a cycle of six.
    s = play(GameState.new_game(2, komi=0), "A1", "B1", "A2", "B2", "A1", "A2")
    with pytest.raises(ValueError, match="superko"):
        s.apply_move(Move.play(P("A1")))
    assert Move.play(P("A1")) not in s.legal_moves()


def test_a_position_reached_in_another_branch_is_no_repeat():
    # States grown from one start share a set of every hash reached; a position
    # reached only in a sibling branch (a transposition) must stay legal here.
    start = GameState.new_game(5)
    a = play(start, "C3", "D3", "D4", "E4")
    b = play(start, "D4", "E4", "C3")
    after = b.apply_move(Move.play(P("D3")))
    assert after.zobrist_hash() == a.zobrist_hash() and after.board == a.board
    assert b.is_valid_move(Move.play(P("D3"))) and Move.play(P("D3")) in b.legal_moves()
    assert a.zobrist_hash() not in b.history_hashes() and a.zobrist_hash() in b._reached


def test_superko_holds_when_the_shared_set_starts_afresh(monkeypatch):
    from dlgo.games.go import state as go_state

    monkeypatch.setattr(go_state, "MAX_REACHED", 3)  # every few moves, a new set from the history
    s = play(GameState.new_game(2, komi=0), "A1", "B1", "A2", "B2", "A1", "A2")
    with pytest.raises(ValueError, match="superko"):
        s.apply_move(Move.play(P("A1")))
    assert Move.play(P("A1")) not in s.legal_moves()


def test_superko_is_situational_not_positional():
    # This play recreates the board after move 2, but with the other side to move.
    s = play(GameState.new_game(2, komi=0), "A1", "B1", "A2", "pass", "B2", "B1")
    after = s.apply_move(Move.play(P("A1")))
    earlier = play(GameState.new_game(2, komi=0), "A1", "B1")
    assert after.board == earlier.board
    assert after.next_player != earlier.next_player


# ---------------------------------------------------------------- eyes
EYES = """
    . X . X .
    X X X X X
    X . X . X
    X X X X O
    . X . X .
"""


@pytest.mark.parametrize("point,player,expected", [
    ("B3", Player.black, True),    # middle: all four diagonals black
    ("D3", Player.black, True),    # middle: one white diagonal (E2) is tolerated
    ("B3", Player.white, False),   # black's eye is not white's
    ("C5", Player.black, True),    # edge: both on-board diagonals black
    ("C1", Player.black, True),
    ("A5", Player.black, True),    # corner
    ("A1", Player.black, True),
    ("E1", Player.black, False),   # a white neighbour (E2): no eye at all
])
def test_eye_detection(point, player, expected):
    board = go_board(EYES)
    assert is_point_an_eye(board, P(point), player) is expected


def test_one_bad_diagonal_on_the_edge_makes_a_false_eye():
    board = go_board("""
        . . . . .
        O X X X .
        X . X . .
    """)
    assert not is_point_an_eye(board, P("B1"), Player.black)
    assert is_point_an_eye(board, P("D1"), Player.black) is False  # E1 side is open: not surrounded


def test_two_bad_diagonals_in_the_middle_make_a_false_eye():
    board = go_board("""
        . . . . .
        . O X O .
        . X . X .
        . . X . .
        . . . . .
    """)
    assert not is_point_an_eye(board, P("C3"), Player.black)


def test_occupied_point_is_not_an_eye():
    board = go_board(EYES)
    assert not is_point_an_eye(board, P("B4"), Player.black)


# --------------------------------------------------------- end of game
def test_two_passes_end_the_game_and_area_score_decides():
    s = play(GameState.new_game(5), "C3", "pass")
    assert not s.is_over() and s.winner() is None
    s = play(s, "pass")
    assert s.is_over()
    assert s.winner() is Player.black  # 25 points to 0 + 7.5
    assert s.legal_moves() == []
    with pytest.raises(ValueError, match="over"):
        s.apply_move(Move.play(P("A1")))


def test_a_pass_says_what_the_game_would_end_with():
    from dlgo.core.game import pass_would_end_game
    from dlgo.games import new_game

    opening = pass_would_end_game(GameState.new_game(9))  # white passes back and wins by komi
    assert opening is not None and opening.outcome.text == "W+7.5" and not opening.at_once
    after_a_pass = pass_would_end_game(play(GameState.new_game(5), "C3", "pass"))
    assert after_a_pass is not None and after_a_pass.outcome.text == "B+17.5" and after_a_pass.at_once
    assert pass_would_end_game(play(GameState.new_game(5), "C3", "resign")) is None  # over
    assert pass_would_end_game(new_game("tictactoe")) is None  # no pass in this game


def test_resign_ends_the_game_for_the_other_player():
    s = play(GameState.new_game(9), "E5", "resign")
    assert s.is_over() and s.winner() is Player.black
    assert s.is_valid_move(Move.pass_turn()) is False


def test_legal_moves_list_pass_but_not_resign():
    s = GameState.new_game(3)
    moves = s.legal_moves()
    assert len(moves) == 10 and moves[-1] == Move.pass_turn()
    assert Move.resign() not in moves
    assert s.is_valid_move(Move.resign())


def test_illegal_point_off_the_board_and_occupied():
    s = play(GameState.new_game(5), "C3")
    with pytest.raises(ValueError, match="occupied"):
        s.apply_move(Move.play(P("C3")))
    with pytest.raises(ValueError, match="off the"):
        s.apply_move(Move.play(Point(6, 1)))


@pytest.mark.parametrize("size", [2, 5, (3, 7), 19, 25])
def test_board_sizes(size):
    s = GameState.new_game(size)
    rows, cols = (size, size) if isinstance(size, int) else size
    assert s.num_actions == rows * cols + 1
    assert len(s.legal_moves()) == rows * cols + 1


@pytest.mark.parametrize("size", [1, 26, (0, 5)])
def test_bad_board_sizes_are_refused(size):
    with pytest.raises(ValueError, match="board size"):
        GameState.new_game(size)


# --------------------------------------------------------- coordinates
def test_parse_and_format_go_coordinates():
    s = GameState.new_game(19)
    assert s.parse_move("C3") == Move.play(Point(3, 3))
    assert s.parse_move(" j10 ") == Move.play(Point(10, 9))  # no I: J is column 9
    assert s.parse_move("T19") == Move.play(Point(19, 19))
    assert s.parse_move("PASS") == Move.pass_turn()
    assert s.parse_move("resign") == Move.resign()
    for move in s.legal_moves():
        assert s.parse_move(s.format_move(move)) == move


@pytest.mark.parametrize("text,message", [
    ("I5", "no I"), ("Z3", "not on the board"), ("A20", "not on the board"),
    ("A0", "not on the board"), ("", "can't read"), ("33", "can't read"), ("C3x", "can't read"),
])
def test_parse_errors_are_clear(text, message):
    with pytest.raises(ValueError, match=message):
        GameState.new_game(19).parse_move(text)


def test_render_marks_the_last_move():
    text = str(play(GameState.new_game(9), "C3"))
    assert "(X)" in text and "A B C D E F G H J" in text
    assert text.splitlines()[6].startswith("3")


# ----------------------------------------------- hash and immutability
def random_game(seed: int, size, max_moves: int = 400) -> list[GameState]:
    rng = random.Random(seed)
    states = [GameState.new_game(size)]
    while not states[-1].is_over() and len(states) < max_moves:
        legal = states[-1].legal_moves()
        states.append(states[-1].apply_move(legal[rng.randrange(len(legal))]))
    return states


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([3, 4, 5, 7, 9]))
def test_incremental_hash_equals_recomputation(seed, size):
    for state in random_game(seed, size):
        assert state.board.zobrist_hash() == state.board.recompute_hash()
        # strings and liberties are consistent with the stones
        for p, c in enumerate(state.board.color):
            s = state.board.string[p]
            assert (s is None) == (c == 0)
            if s is not None:
                assert s.color == c and p in s.stones and s.liberties
                assert all(state.board.color[q] == 0 for q in s.liberties)


def test_hash_includes_the_side_to_move():
    s = GameState.new_game(9)
    after_pass = s.apply_move(Move.pass_turn())
    assert after_pass.board.zobrist_hash() == s.board.zobrist_hash()
    assert after_pass.zobrist_hash() != s.zobrist_hash()


def test_transpositions_share_a_hash():
    a = play(GameState.new_game(9), "C3", "D4", "E5", "F6")
    b = play(GameState.new_game(9), "E5", "F6", "C3", "D4")
    assert a.zobrist_hash() == b.zobrist_hash() and a.board == b.board


def snapshot(state: GameState):
    b = state.board
    strings = [(s.color, sorted(s.stones), sorted(s.liberties), s.hash) if s else None for s in b.string]
    return (b.color[:], strings, sorted(b.empties), b.hash, b.captures[:], state.next_player, state.history_hashes())


def test_apply_move_and_playouts_never_mutate():
    rng = random.Random(7)
    for state in random_game(11, 7)[::5]:
        before = snapshot(state)
        for move in state.legal_moves()[:15]:
            state.apply_move(move)
        state.random_playout(rng)
        state.legal_action_mask()
        assert snapshot(state) == before


def test_children_do_not_share_mutable_strings():
    s = play(GameState.new_game(5), "C3", "D3")
    a = play(s, "C4")
    b = play(s, "B3")
    assert a.board.get_go_string(P("C3")).stones == {P("C3"), P("C4")}
    assert b.board.get_go_string(P("C3")).stones == {P("C3"), P("B3")}
    assert s.board.get_go_string(P("C3")).stones == {P("C3")}


# -------------------------------------------- fast playout == GameState rules
@pytest.mark.parametrize("size", [3, 4, 5, 9, 13])
def test_playout_follows_gamestate_rules(size):
    """Every playout move is legal by apply_move, never fills the mover's own eye,
    passes only when no other such play exists, and the winner is the same."""
    rng = random.Random(size)
    for game in range(8 if size < 13 else 2):
        start = random_game(game, size, max_moves=rng.randrange(1, 12))[-1]
        if start.is_over():
            continue
        moves: list[Move] = []
        winner = start.random_playout(random.Random(game), moves)
        state = start
        for move in moves:
            if move.is_play:
                assert not is_point_an_eye(state.board, move.point, state.next_player)
            else:
                non_eye = [m for m in state.legal_moves()
                           if m.is_play and not is_point_an_eye(state.board, m.point, state.next_player)]
                assert non_eye == []
            state = state.apply_move(move)  # raises if the playout broke a rule
        assert state.is_over()
        assert state.winner() == winner


def test_playout_is_reproducible_with_a_seed():
    s = GameState.new_game(9)
    a, b = [], []
    s.random_playout(random.Random(42), a)
    s.random_playout(random.Random(42), b)
    assert a == b


def test_random_move_never_fills_own_eye_and_passes_when_only_eyes_remain():
    s = go_position("""
        . X . X .
        X X X X X
        X . X . X
        X X X X X
        . X . X .
    """)
    rng = random.Random(0)
    assert s.random_move(rng) == Move.pass_turn()
    white = go_position("""
        . X . X .
        X X X X X
        X . X . X
        X X X X X
        . X . X .
    """, next_player=Player.white)
    # white may not play into black's eyes (self-capture) either: only pass
    assert white.legal_moves() == [Move.pass_turn()]


def test_deepcopy_of_state_is_independent():
    s = play(GameState.new_game(5), "C3")
    c = copy.deepcopy(s)
    assert c.board == s.board and c.zobrist_hash() == s.zobrist_hash()


def test_sensible_moves_skip_own_eyes_and_early_passes():
    s = go_position("""
        . X . O .
        X X X O O
        . . . . .
        O O O X X
        . O . X .
    """)
    moves = s.sensible_moves()
    # Black's own eyes A5 and E1 are left out, and pass (white has not passed).
    texts = {s.format_move(m) for m in moves}
    assert "A5" not in texts and "E1" not in texts and "pass" not in texts
    assert {"C5", "C1", "A3", "E3"} <= texts and not {"A1", "E5"} & texts  # A1, E5: suicide
    after_pass = play(play(s, "C3"), "pass")
    assert "pass" in {after_pass.format_move(m) for m in after_pass.sensible_moves()}
    only_eyes = go_position("""
        X X X
        X . X
        X X X
    """)
    assert only_eyes.sensible_moves() == [Move.pass_turn()]
    assert set(GameState.new_game(5).sensible_moves()) == set(GameState.new_game(5).legal_moves()) - {Move.pass_turn()}
