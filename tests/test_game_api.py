"""One API test suite, run against every game in the registry (pgx style), and
against Hex, the small game that ``test_new_game.py`` writes to the narrow
contract (four hooks, every other member the generic default)."""
import random

import numpy as np
import pytest

from dlgo.core.game import State
from dlgo.games import GAMES, game_options, new_game, register_game
from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from test_new_game import hex_game

VARIANTS = [(name, {}) for name in GAMES] + [
    ("go", {"size": 5}),
    ("go", {"size": (3, 4), "komi": 0.5}),
    ("connectn", {"columns": 5, "rows": 4, "n": 3, "pie_rule": True}),
    ("tictactoe", {"pie_rule": True}),
    ("hex", {}),
    ("hex", {"size": 3}),
]
IDS = [f"{n}{'-' + '-'.join(f'{k}={v}' for k, v in o.items()) if o else ''}" for n, o in VARIANTS]


@pytest.fixture(autouse=True)
def hex_registered():
    """Hex joins the registered games for each test here, and leaves after it."""
    register_game("hex", "Hex: join your two edges of the board", hex_game)
    yield
    del GAMES["hex"]


@pytest.fixture(params=VARIANTS, ids=IDS)
def start(request):
    name, options = request.param
    return new_game(name, **options)


def random_states(start, seed, limit=60):
    rng = random.Random(seed)
    states = [start]
    while not states[-1].is_over() and len(states) < limit:
        states.append(states[-1].apply_move(states[-1].random_move(rng)))
    return states


def test_initial_state(start):
    assert start.next_player is Player.black
    assert start.previous_state is None and start.last_move is None
    assert not start.is_over() and start.winner() is None
    assert start.legal_moves()


def test_legal_moves_mask_and_indices_agree(start):
    for state in random_states(start, 1)[::3]:
        moves = state.legal_moves()
        assert Move.resign() not in moves
        assert len(set(moves)) == len(moves)
        mask = state.legal_action_mask()
        assert mask.dtype == np.bool_ and mask.shape == (state.num_actions,)
        assert sorted(state.move_to_index(m) for m in moves) == list(np.flatnonzero(mask))
        for m in moves:
            assert state.index_to_move(state.move_to_index(m)) == m
            assert state.is_valid_move(m)
        if not state.is_over():
            assert state.is_valid_move(Move.resign())


def test_apply_move_returns_a_new_state_and_never_mutates(start):
    for state in random_states(start, 2)[::4]:
        if state.is_over():
            continue
        before = (state.zobrist_hash(), state.legal_moves(), state.render(), state.next_player)
        move = state.legal_moves()[0]
        child = state.apply_move(move)
        assert child is not state and child.previous_state is state and child.last_move == move
        assert child.next_player is state.next_player.other
        assert child.zobrist_hash() != state.zobrist_hash()
        assert (state.zobrist_hash(), state.legal_moves(), state.render(), state.next_player) == before


def test_games_end_with_a_consistent_result(start):
    for seed in range(3):
        end = random_states(start, seed, limit=2000)[-1]
        assert end.is_over()
        assert end.winner() in (Player.black, Player.white, None)
        assert end.legal_moves() == [] and not end.legal_action_mask().any()
        with pytest.raises(ValueError):
            end.apply_move(Move.resign())


def test_resign_hands_the_win_to_the_opponent(start):
    s = start.apply_move(start.legal_moves()[0]).apply_move(Move.resign())
    assert s.is_over() and s.winner() is Player.black


def test_illegal_moves_raise_value_error(start):
    first = next(m for m in start.legal_moves() if m.is_play)
    s = start.apply_move(first)
    with pytest.raises(ValueError, match="off the"):
        s.apply_move(Move.play(Point(26, 1)))
    if not s.game.has_pass:
        with pytest.raises(ValueError, match="no passing"):
            s.apply_move(Move.pass_turn())
    if not s.swap_available():  # the first stone's point is taken (the swap aside)
        with pytest.raises(ValueError):
            s.apply_move(first)
        assert not s.is_valid_move(first)


def test_text_round_trip(start):
    for state in random_states(start, 4)[::5]:
        for m in state.legal_moves():
            assert state.parse_move(state.format_move(m)) == m
        assert state.parse_move("resign") == Move.resign()
        with pytest.raises(ValueError):
            state.parse_move("no such move")


def test_render_shows_the_last_move(start):
    s = start.apply_move(start.legal_moves()[0])
    assert "(X)" in s.render() and str(s) == s.render()
    assert "(" not in start.render()


def test_transpositions_share_a_hash(start):
    mask = start.legal_action_mask()
    i, j, k = np.flatnonzero(mask)[[0, len(np.flatnonzero(mask)) // 2, -2]]

    def line(*actions):
        s = start
        for a in actions:
            s = s.apply_move(s.index_to_move(int(a)))
        return s

    a, b = line(i, j, k), line(k, j, i)
    assert a.zobrist_hash() == b.zobrist_hash()

    def stones(state):  # the diagram without the last-move mark
        return [line.replace("(", " ").replace(")", " ").rstrip() for line in state.render().splitlines()]

    assert stones(a) == stones(b)


def test_random_playout_matches_a_replay(start):
    for seed in range(4):
        moves = []
        winner = start.random_playout(random.Random(seed), moves)
        s = start
        for m in moves:
            s = s.apply_move(m)
        assert s.is_over() and s.winner() == winner


def test_the_generic_hash_is_the_one_every_game_keeps(start):
    """The default :meth:`State.zobrist_hash` (from the board) equals the fast
    incremental ones, the pie rule's swap and resignations included (but for a
    resignation while the swap is on offer, whose k-in-a-row hash keeps the offer)."""
    for state in random_states(start, 6):
        assert State.zobrist_hash(state) == state.zobrist_hash()
        if not state.is_over() and not state.swap_available():
            resigned = state.after_resignation()
            assert State.zobrist_hash(resigned) == resigned.zobrist_hash()


def test_history(start):
    states = random_states(start, 5, limit=8)
    assert list(states[-1].history()) == states
    assert states[-1].move_history() == [s.last_move for s in states[1:]]


def test_registry_errors():
    with pytest.raises(ValueError, match="unknown game 'chess'; choose one of: go, tictactoe"):
        new_game("chess")
    with pytest.raises(ValueError, match="game 'go' has no parameter 'sizee'; its parameters are: size=9, komi=7.5"):
        new_game("go", sizee=9)
    with pytest.raises(ValueError, match="'size' must be int or int x int, got 'big'"):
        new_game("go:size=big")
    assert new_game("go:size=13,komi=6.5").board.num_rows == 13
    assert new_game("go:size=5x7").board.num_cols == 7
    assert new_game("connectn:columns=5,pie_rule=true").num_actions == 6
    assert game_options("connectn") == {"columns": 7, "rows": 6, "n": 4, "pie_rule": False}
