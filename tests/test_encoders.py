"""Encoders: shapes, plane contents on hand-built positions, move round trips,
and board symmetries that agree with the rules."""
import random

import numpy as np
import pytest

from dlgo.encoders import ENCODERS, get_encoder_by_name
from dlgo.encoders.symmetry import augment_batch
from dlgo.games import new_game
from dlgo.gotypes import Player
from helpers import go_position, play

KO = """
    . . . . .
    . X O . .
    X O . O .
    . X O . .
    . . . . .
"""


@pytest.mark.parametrize("name, game, shape, moves", [
    ("oneplane", "go:size=9", (9, 9, 1), 82),
    ("sevenplane", "go:size=9", (9, 9, 7), 82),
    ("simple", "go:size=19", (19, 19, 11), 362),
    ("planes", "tictactoe", (3, 3, 3), 9),
    ("planes", "connect4", (6, 7, 3), 7),
    ("planes", "connect4:pie_rule=true", (6, 7, 4), 8),
])
def test_shapes_and_move_round_trip(name, game, shape, moves):
    enc = get_encoder_by_name(name, game)
    assert enc.shape == shape and enc.num_moves == moves
    state = new_game(game)
    rng = random.Random(3)
    for _ in range(4):
        state = state.apply_move(state.random_move(rng))
    planes = enc.encode(state)
    assert planes.shape == shape and planes.dtype == np.float32
    assert set(np.unique(planes)) <= {-1.0, 0.0, 1.0}
    first = state.history().__next__().apply_move(state.move_history()[0])  # swap available here
    for index in range(enc.num_moves):
        assert enc.encode_move(enc.decode_move_index(index, first), first) == index
    assert enc.encode_batch([state, state]).shape == (2,) + shape


def test_default_encoders_and_errors():
    assert get_encoder_by_name(None, "go:size=9").name == "simple"
    assert get_encoder_by_name(None, "connect4").name == "planes"
    with pytest.raises(ValueError, match="unknown encoder 'nine'"):
        get_encoder_by_name("nine", "go")
    with pytest.raises(ValueError, match="is for Go"):
        get_encoder_by_name("sevenplane", "tictactoe")
    # planes reads only state.stone_array(): it encodes any game, Go included
    planes = get_encoder_by_name("planes", "go:size=9")
    assert planes.shape == (9, 9, 3) and planes.encode(new_game("go:size=9").apply_action(40))[4, 4, 1] == 1
    assert set(ENCODERS) == {"oneplane", "sevenplane", "simple", "planes"}


def test_game_spec_rebuilds_each_game():
    for spec in ("go:size=13,komi=6.5", "tictactoe", "connect4:pie_rule=true", "gomoku", "mnk:m=4,n=3,k=3",
                 "go:size=9,handicap=3"):
        state = new_game(spec)
        rebuilt = new_game(state.game.spec)
        assert rebuilt.game == state.game
        assert type(rebuilt) is type(state) and rebuilt.num_actions == state.num_actions
        assert rebuilt.zobrist_hash() == state.zobrist_hash()


def test_oneplane_is_from_the_movers_view():
    state = play(go_position(KO), "C3")  # black captures B3; white to move
    planes = get_encoder_by_name("oneplane", "go:size=5").encode(state)[:, :, 0]
    # [r, c] is Point(r + 1, c + 1): C3 is [2, 2], black's; white moves, so it is -1.
    assert planes[2, 2] == -1 and planes[3, 2] == 1 and planes[2, 1] == 0
    assert planes.sum() == 3 - 4  # three white stones (the mover's), four black


def test_sevenplane_liberties_and_ko():
    state = play(go_position(KO), "C3")
    enc = get_encoder_by_name("sevenplane", "go:size=5")
    planes = enc.encode(state)
    # White (to move) stone C4 has liberties C5, D4: two -> plane 1. The black
    # stone C3 that just captured has one liberty (B3): opponent, one liberty -> plane 3.
    assert planes[3, 2, 1] == 1 and planes[2, 2, 3] == 1
    # B3 is empty but forbidden to white by ko.
    assert state.ko_points() == [2 * 5 + 1]
    assert planes[2, 1, 6] == 1 and planes[:, :, 6].sum() == 1
    # Every stone is in exactly one liberty plane.
    assert planes[:, :, :6].sum() == 7


def test_simple_planes_are_by_colour_with_side_to_move():
    state = play(go_position(KO), "C3")
    planes = get_encoder_by_name("simple", "go:size=5").encode(state)
    assert planes[2, 2, 0] == 1  # black C3, one liberty
    assert planes[3, 2, 4 + 1] == 1  # white C4, two liberties
    assert planes[:, :, 9].all() and not planes[:, :, 8].any()  # white to move
    assert planes[2, 1, 10] == 1


def test_planes_encoder_swaps_views_with_the_mover():
    enc = get_encoder_by_name("planes", "tictactoe")
    s1 = play(new_game("tictactoe"), "b2")
    p = enc.encode(s1)  # white to move: the black stone is the opponent's
    assert p[1, 1, 1] == 1 and p[:, :, 0].sum() == 0 and not p[:, :, 2].any()
    s2 = play(s1, "a1")
    p = enc.encode(s2)
    assert p[1, 1, 0] == 1 and p[0, 0, 1] == 1 and p[:, :, 2].all()


def test_pie_rule_plane():
    enc = get_encoder_by_name("planes", "connect4:pie_rule=true")
    s = play(new_game("connect4:pie_rule=true"), "4")
    assert enc.encode(s)[:, :, 3].all()
    assert not enc.encode(play(s, "3"))[:, :, 3].any()


@pytest.mark.parametrize("game, count", [("go:size=5", 8), ("tictactoe", 8), ("connect4", 2),
                                         ("mnk:m=4,n=3,k=3", 4)])
def test_symmetries_map_games_onto_games(game, count):
    """Play a random game and its image under each symmetry, move by move: the
    image is legal, and its planes are the transformed planes of the original."""
    start = new_game(game)
    syms = start.game.symmetries()
    assert len(syms) == count and syms[0].name == "identity"
    enc = get_encoder_by_name(None, game)
    rng = random.Random(5)
    for sym in syms:
        assert sorted(sym.actions) == list(range(start.num_actions))
        state, image = start, start
        for _ in range(8):
            if state.is_over():
                break
            move = state.random_move(rng)
            image = image.apply_move(image.index_to_move(int(sym.actions[state.move_to_index(move)])))
            state = state.apply_move(move)
            np.testing.assert_array_equal(sym.planes(enc.encode(state)[None])[0], enc.encode(image))
        assert image.is_over() == state.is_over() and image.winner() == state.winner()


def test_augment_batch_keeps_labels_with_their_boards():
    game = "go:size=5"
    enc = get_encoder_by_name("oneplane", game)
    state = play(new_game(game), "A1", "B1")  # black to move: A1 is +1, B1 is -1
    x = np.repeat(enc.encode(state)[None], 64, axis=0)
    y = np.full(64, enc.encode_move(state.parse_move("A1")))
    ax, ay = augment_batch(x, y, state.game.symmetries(), np.random.default_rng(0))
    flat = ax.reshape(64, -1)
    assert (flat[np.arange(64), ay] == 1).all()  # the label still points at the black stone
    assert len({tuple(f) for f in flat}) > 1     # and the boards were really transformed
    assert state.next_player == Player.black
