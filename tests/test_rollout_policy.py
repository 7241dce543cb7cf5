"""The fast Go rollout policy: its features on hand-built positions, legal
playouts, its fitting, its file, and MCTS playing with it."""
import random

import numpy as np
import pytest

from dlgo.core.errors import ModelFileError, SpecError
from dlgo.games import new_game
from dlgo.games.go.patterns import (ATARI, CAPTURE_1, ESCAPE, NUM_FEATURES, PATTERN_CLASS, REST, SELF_ATARI,
                                    PatternPolicy, features, pattern_code, responses)
from dlgo.gotypes import Player
from engines import registry
from engines.rollouts import read_rollout_policy, save_rollout_policy
from engines.training.rollout_policy import MAX_RESPONSES, Examples, accuracy, examples_from, fit, train_rollout
from helpers import go_position, play


def index(state, text: str) -> int:
    return state.board.geometry.index_of(state.parse_move(text).point)


def test_rotated_and_mirrored_patterns_share_a_class_and_colours_do_not():
    s = go_position("""
        . . . . .
        . . . . .
        . . X . .
        . . . . .
        . . . . .
    """)
    b, black = s.board, int(Player.black)
    around = [pattern_code(b, index(s, p), black) for p in ("C2", "B3", "C4", "D3")]  # X above, right, below, left
    assert len({PATTERN_CLASS[code] for code in around}) == 1
    assert PATTERN_CLASS[around[0]] != PATTERN_CLASS[pattern_code(b, index(s, "C2"), int(Player.white))]
    assert PATTERN_CLASS[pattern_code(b, index(s, "B2"), black)] != PATTERN_CLASS[around[0]]  # a diagonal
    assert PATTERN_CLASS[pattern_code(b, index(s, "A3"), black)] != PATTERN_CLASS[around[0]]  # the edge


def test_capture_escape_and_atari_features():
    s = go_position("""
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
    """)  # white C3 has one liberty, D3
    b, black, white = s.board, int(Player.black), int(Player.white)
    assert CAPTURE_1 in features(b, index(s, "D3"), black)
    assert ESCAPE in features(b, index(s, "D3"), white)  # white D3 gives C3 three liberties
    assert CAPTURE_1 not in features(b, index(s, "D4"), black)
    s = go_position("""
        . . . . .
        . . X . .
        . X O . .
        . . . . .
        . . . . .
    """)  # white C3 has two liberties
    assert ATARI in features(s.board, index(s, "D3"), black)
    assert ATARI not in features(s.board, index(s, "D4"), black)


def test_self_atari_eyes_and_self_capture():
    s = go_position("""
        . . . . .
        . . . . .
        . . . . .
        . X . . .
        . . X . .
    """, next_player=Player.white)
    b, white, black = s.board, int(Player.white), int(Player.black)
    assert SELF_ATARI in features(b, index(s, "B1"), white)  # one liberty left, A1, and no capture
    assert SELF_ATARI not in features(b, index(s, "D4"), white)
    s = go_position("""
        . . . . .
        . . . . .
        . . . . .
        X X . . .
        . X . . .
    """)
    assert features(s.board, index(s, "A1"), black) is None  # black's own eye
    assert features(s.board, index(s, "A1"), white) is None  # self-capture


def test_responses_are_the_last_moves_neighbours():
    s = play(new_game("go:size=7"), "D4")
    points, found = responses(s.board, int(s.next_player), index(s, "D4"))
    ring = {index(s, p) for p in ("C3", "D3", "E3", "C4", "E4", "C5", "D5", "E5")}
    assert set(points) == ring and len(found) == 8


def test_the_liberty_of_a_string_put_in_atari_is_a_response_even_far_away():
    s = go_position("""
        . . . . .
        . . . . .
        . . . . .
        . O O . O
        . X X X O
    """, next_player=Player.white)
    s = play(s, "D2")  # black B1-D1 is left with one liberty, A1, outside D2's ring
    points, found = responses(s.board, int(s.next_player), index(s, "D2"))
    a1 = index(s, "A1")
    assert a1 in points
    assert SELF_ATARI in found[points.index(a1)]  # A1 connects but leaves one liberty


def test_a_strong_capture_weight_always_captures():
    s = go_position("""
        . . . . .
        . . X . .
        . X . . .
        . . X . .
        . . . . .
    """, next_player=Player.white)
    s = play(s, "C3")  # white's last move is in atari; D3 captures it
    weights = np.zeros(NUM_FEATURES)
    weights[CAPTURE_1] = 50.0
    policy = PatternPolicy(weights)
    rng = random.Random(0)
    picks = {policy.select(s.board, int(Player.black), index(s, "C3"), set(), 0, rng.random) for _ in range(20)}
    assert picks == {index(s, "D3")}
    points, probabilities, other = policy.probabilities(s.board, int(Player.black), index(s, "C3"))
    assert probabilities[points.index(index(s, "D3"))] > 0.99 and other < 1e-6


def test_policy_playouts_are_legal_games_that_end_in_two_passes():
    rng = random.Random(3)
    policy = PatternPolicy(np.random.default_rng(1).normal(0, 2, NUM_FEATURES))
    start = new_game("go:size=7")
    for _ in range(20):
        moves = []
        winner = start.random_playout(rng, moves=moves, policy=policy)
        state = start
        for move in moves:
            state = state.apply_move(move)  # raises on an illegal move
        assert state.is_over() and state.winner() == winner


def test_fitting_learns_that_the_teacher_always_captures():
    rng = np.random.default_rng(0)
    n = 2000
    feats = np.full((n, MAX_RESPONSES, 5), NUM_FEATURES, dtype=np.int16)
    valid = np.zeros((n, MAX_RESPONSES), bool)
    valid[:, :4] = True
    feats[:, :4, 0] = rng.integers(1, 200, size=(n, 4))  # some patterns
    target = rng.integers(0, 4, size=n)
    feats[np.arange(n), target, 1] = CAPTURE_1  # the chosen one always captures
    ex = Examples(feats, valid, target, np.full(n, 40))
    weights, losses = fit(ex, epochs=20, batch_size=200, progress=False)
    assert losses[-1] < losses[0]
    assert weights[CAPTURE_1] > 2.0 and weights[REST] < weights[CAPTURE_1]
    assert accuracy(weights, ex)["top1"] > 0.9


def test_train_rollout_round_trip_and_bad_input(tmp_path):
    from engines import ENGINES
    from dlgo.data.generate import generate_games

    data = tmp_path / "games"
    generate_games(ENGINES, data, "go:size=5", "random", 30, seed=1, opening_plies=2, workers=1)
    metrics = train_rollout(data, tmp_path / "rollout.npz", epochs=3, progress=False)
    assert set(metrics) >= {"likelihood", "top1", "responses", "uniform"}
    policy = read_rollout_policy(tmp_path / "rollout.npz")
    assert policy.weights.shape == (NUM_FEATURES,) and policy.info["games"] == 30
    with pytest.raises(SpecError, match=".npz"):
        train_rollout(data, tmp_path / "rollout.keras", progress=False)
    with pytest.raises(ModelFileError, match="no rollout policy file"):
        read_rollout_policy(tmp_path / "missing.npz")
    (tmp_path / "bad.npz").write_text("not a zip")
    with pytest.raises(ModelFileError, match="not a rollout policy"):
        read_rollout_policy(tmp_path / "bad.npz")
    records_examples = examples_from([], progress=False)
    assert len(records_examples) == 0


def test_mcts_plays_with_a_rollout_policy_and_refuses_other_games(tmp_path):
    save_rollout_policy(PatternPolicy(np.zeros(NUM_FEATURES)), tmp_path / "flat.npz")
    agent = registry.create(f"mcts:rounds=30,rollout={tmp_path / 'flat.npz'}", seed=0)
    state = new_game("go:size=5")
    assert state.is_valid_move(agent.select_move(state))
    with pytest.raises(SpecError, match="Go rollout policy"):
        agent.check_game(new_game("connect4"))
    with pytest.raises(ModelFileError):
        registry.create("mcts:rounds=30,rollout=nowhere/none.npz")
