"""Batched self-play: every position becomes an example with a visit distribution
over legal moves and the game's result from the mover's view."""
import pytest
import numpy as np

from dlgo.encoders import get_encoder_by_name
from engines.puct import RolloutEvaluator
from engines.training.selfplay import Examples, MatchSettings, SelfPlaySettings, play_batched_match, random_opening, \
    self_play
from helpers import CountingRollouts


def test_examples_are_consistent_with_the_games():
    enc = get_encoder_by_name(None, "tictactoe")
    evaluator = CountingRollouts(seed=1)
    ex = self_play("tictactoe", evaluator, enc, 6, SelfPlaySettings(parallel=4, simulations=16, temperature_moves=2),
                   seed=1)
    assert len(ex.games) == 6 and all(g.is_over() for g in ex.games)
    n = sum(g.num_moves_played for g in ex.games)
    assert ex.features.shape == (n, 3, 3, 3) and ex.policies.shape == (n, 9) and ex.values.shape == (n,)
    np.testing.assert_allclose(ex.policies.sum(axis=1), 1.0, rtol=1e-5)
    # Each game's examples, in order: the policy covers only legal moves; z flips sign each ply.
    start = 0
    for game in ex.games:
        states = list(game.history())[:-1]
        for k, state in enumerate(states):
            legal = state.legal_action_mask()
            assert (ex.policies[start + k][~legal] == 0).all()
            np.testing.assert_array_equal(ex.features[start + k], enc.encode(state))
        z = ex.values[start:start + len(states)]
        winner = game.winner()
        if winner is None:
            assert (z == 0).all()
        else:
            assert z[-1] == 1.0 and all(z[k] == -z[k + 1] for k in range(len(z) - 1))
        start += len(states)
    assert max(evaluator.batches) > 1  # leaves of several games went to the evaluator together


def test_self_play_is_reproducible_from_its_seed():
    enc = get_encoder_by_name(None, "connect4")
    a = self_play("connect4", RolloutEvaluator(seed=3), enc, 2, SelfPlaySettings(parallel=2, simulations=8), seed=3)
    b = self_play("connect4", RolloutEvaluator(seed=3), enc, 2, SelfPlaySettings(parallel=2, simulations=8), seed=3)
    assert [g.move_history() for g in a.games] == [g.move_history() for g in b.games]
    np.testing.assert_array_equal(a.policies, b.policies)


def _examples(game, games, seed):
    enc = get_encoder_by_name(None, game)
    return enc, self_play(game, RolloutEvaluator(seed=seed), enc, games, SelfPlaySettings(parallel=games,
                                                                                          simulations=8),
                          seed=seed)


def test_replay_buffer_keeps_the_last_games_and_round_trips(tmp_path):
    from engines.training.replay import ReplayBuffer

    _, first = _examples("tictactoe", 3, 1)
    _, second = _examples("tictactoe", 2, 2)
    buffer = ReplayBuffer(capacity=4)
    buffer.add(first)
    buffer.add(second)
    assert len(buffer.games) == 4  # the oldest game dropped
    kept = sum(g.num_moves_played for g in first.games[1:] + second.games)
    assert len(buffer) == kept
    buffer.save(tmp_path / "buffer.npz")
    again = ReplayBuffer.load(tmp_path / "buffer.npz")
    assert again.capacity == 4 and len(again) == kept
    for a, b in zip(buffer.arrays(), again.arrays()):
        np.testing.assert_array_equal(a, b)


def test_sampling_moves_policies_with_the_boards():
    """Under any symmetry the policy's mass stays on the legal moves of the
    transformed board (empty cells in tic-tac-toe, open columns in Connect Four)."""
    from engines.training.replay import ReplayBuffer

    for game in ("tictactoe", "connect4"):
        enc, ex = _examples(game, 3, 4)
        syms = enc.game.symmetries()
        buffer = ReplayBuffer(10, syms)
        buffer.add(ex)
        x, pi, z, _ = buffer.sample(200, np.random.default_rng(0))
        assert x.shape == (200,) + enc.shape and pi.shape == (200, enc.num_moves) and z.shape == (200,)
        np.testing.assert_allclose(pi.sum(axis=1), 1.0, rtol=1e-5)
        occupied = (x[:, :, :, 0] + x[:, :, :, 1]) > 0  # either player's stone
        if game == "tictactoe":
            assert (pi.reshape(200, 3, 3)[occupied] == 0).all()
        else:
            full_columns = occupied[:, -1, :]  # top row (array row 5) taken
            assert (pi[full_columns] == 0).all()
        originals = {tuple(f.ravel()) for f in buffer.arrays()[0].astype(np.float32)}
        assert any(tuple(f.ravel()) not in originals for f in x)  # some boards really were transformed


class Misguided(RolloutEvaluator):
    """Rollout values with the sign flipped: it steers towards losing (finished
    games inside the tree still count exactly)."""

    def evaluate(self, states):
        priors, values = super().evaluate(states)
        return priors, -values


def test_batched_match_scores_the_stronger_side_and_alternates_colours():
    good, bad = RolloutEvaluator(rollouts=4, seed=1), Misguided(rollouts=4, seed=2)
    scores = play_batched_match("connect4", good, bad, 8, MatchSettings(parallel=8, simulations=24), seed=5)
    assert len(scores) == 8 and set(scores) <= {0.0, 0.5, 1.0}
    assert np.mean(scores) >= 0.85
    reverse = play_batched_match("connect4", bad, good, 8, MatchSettings(parallel=4, simulations=24), seed=5)
    assert np.mean(reverse) <= 0.15


def test_batched_match_against_itself_from_both_sides_is_a_fair_fight():
    """Tic-tac-toe with strong search: every game is a draw, whoever opens."""
    scores = play_batched_match("tictactoe", RolloutEvaluator(rollouts=8, seed=1), RolloutEvaluator(rollouts=8, seed=2),
                                6, MatchSettings(parallel=6, simulations=300, temperature_moves=0), seed=1)
    assert scores == [0.5] * 6


def test_playout_cap_randomisation_records_only_the_full_searches():
    enc = get_encoder_by_name(None, "connect4")
    evaluator = CountingRollouts(seed=4)
    ex = self_play("connect4", evaluator, enc, 6,
                   SelfPlaySettings(parallel=6, simulations=40, fast_simulations=4, full_fraction=0.25), seed=4)
    moves = sum(g.num_moves_played for g in ex.games)
    assert sum(ex.lengths) == len(ex.values) and 0 < len(ex.values) < moves / 2  # about a quarter recorded
    np.testing.assert_allclose(ex.policies.sum(axis=1), 1.0, rtol=1e-5)
    for game, start, n in zip(ex.games, np.cumsum([0] + ex.lengths[:-1]), ex.lengths):
        winner = game.winner()
        states = {s.zobrist_hash(): s for s in list(game.history())[:-1]}
        for k in range(start, start + n):  # each example is a position of its game, valued from its mover's view
            match = [s for s in states.values() if np.array_equal(enc.encode(s), ex.features[k])]
            assert match
            expected = 0.0 if winner is None else 1.0 if winner == match[0].next_player else -1.0
            assert ex.values[k] == expected
    full = self_play("connect4", RolloutEvaluator(seed=4), enc, 2,
                     SelfPlaySettings(parallel=2, simulations=8, fast_simulations=4, full_fraction=1.0), seed=4)
    assert len(full.values) == sum(g.num_moves_played for g in full.games)  # every move full: every move kept


def test_random_openings_are_played_but_never_learnt_from():
    """A game's first 0 to ``opening_moves`` moves are random and unrecorded: its
    examples are its positions from the opening's end on, in order."""
    enc = get_encoder_by_name(None, "connect4")
    ex = self_play("connect4", RolloutEvaluator(seed=5), enc, 12,
                   SelfPlaySettings(parallel=6, simulations=8, opening_moves=6), seed=5)
    openings = [g.num_moves_played - n for g, n in zip(ex.games, ex.lengths)]
    assert all(0 <= k <= 6 for k in openings) and len(set(openings)) > 2
    for game, start, k in zip(ex.games, np.cumsum([0] + ex.lengths[:-1]), openings):
        states = list(game.history())[k:-1]
        np.testing.assert_array_equal(ex.features[start:start + len(states)], enc.encode_batch(states))
    rng = np.random.default_rng(1)
    assert random_opening("connect4", 0, rng).move_history() == [] and rng.integers(1000) == \
        np.random.default_rng(1).integers(1000)  # no opening: no draw, a run without one plays as before


def test_search_value_weight_mixes_the_result_with_the_root_value():
    enc = get_encoder_by_name(None, "tictactoe")

    def play(weight: float):
        return self_play("tictactoe", RolloutEvaluator(seed=3), enc, 4,
                         SelfPlaySettings(parallel=4, simulations=30, search_value_weight=weight), seed=3)

    results, searched, mixed = play(0.0), play(1.0), play(0.5)
    np.testing.assert_array_equal(results.features, searched.features)  # the weight changes no move
    assert set(np.unique(results.values)) <= {-1.0, 0.0, 1.0}
    q = searched.values
    assert np.all(np.abs(q) <= 1) and not np.array_equal(q, results.values) and len(np.unique(q)) > 3
    np.testing.assert_allclose(mixed.values, 0.5 * results.values + 0.5 * q, rtol=1e-6)
    with pytest.raises(ValueError, match="search_value_weight"):
        play(1.5)


def test_a_runs_settings_reach_self_play_and_its_matches_whole():
    """Every self-play setting comes from the AlphaZero run's field of the same name;
    the match against the previous network searches with the evaluation's budget."""
    from dataclasses import fields

    from dlgo.core.errors import SpecError
    from engines.training.alphazero_config import AlphaZeroConfig

    config = AlphaZeroConfig(parallel=12, simulations=33, c=2.5, temperature_moves=3, dirichlet_alpha=0.7,
                             dirichlet_epsilon=0.4, fast_simulations=5, full_fraction=0.3, search_value_weight=0.6,
                             previous_games=8, eval_simulations=21, opening_moves=3)
    settings = config.self_play_settings()
    played = [f.name for f in fields(SelfPlaySettings) if f.name != "compiled"]  # how the trees are kept: no setting
    assert settings.compiled
    assert {name: getattr(settings, name) for name in played} == \
        {name: getattr(config, name) for name in played if name != "auxiliary"} | \
        {"auxiliary": config.auxiliary_targets(),  # the names, in the network's order
         "temperature_decay_moves": 2}  # the default -1: 10/42 of tic-tac-toe's 9 points
    assert config.match_settings() == MatchSettings(parallel=8, simulations=21, c=2.5)
    with pytest.raises(SpecError, match="search_value_weight"):
        SelfPlaySettings(search_value_weight=1.5)


def test_the_buffer_samples_the_games_added_since_its_last_batch():
    """Batches come from arrays joined once per change: a game added after a batch is drawn in the next."""
    from engines.training.replay import ReplayBuffer

    def game(value: float):
        return Examples(np.zeros((3, 3, 3, 3), np.int8), np.full((3, 9), 1 / 9, np.float32),
                        np.full(3, value, np.float32), lengths=[3])

    buffer = ReplayBuffer(capacity=2)
    buffer.add(game(1.0))
    rng = np.random.default_rng(0)
    assert set(buffer.sample(50, rng).z) == {1.0}
    buffer.add(game(-1.0))
    assert set(buffer.sample(50, rng).z) == {1.0, -1.0}
    buffer.add(game(0.5))  # capacity 2: the first game goes
    assert set(buffer.sample(50, rng).z) == {-1.0, 0.5}
    buffer.resize(1)
    assert set(buffer.sample(50, rng).z) == {0.5}


def test_greedy_returns_cut_the_result_at_exploratory_moves():
    """The value target of ``greedy_return``: the result where no later move explored,
    else the root value of the first exploratory move, for the player to move."""
    from dlgo.core.types import Player
    from dlgo.games import new_game
    from engines.training.selfplay import _Game, greedy_returns

    state = new_game("tictactoe")
    for action in (0, 3, 1, 4, 2):  # X takes the top row and wins
        state = state.apply_move(state.index_to_move(action))
    x, o = state.previous_state.next_player, state.previous_state.previous_state.next_player
    assert state.winner() == x and {x, o} == {Player.black, Player.white}
    game = _Game(0, state)
    game.played = [(x, 0.2, True, False), (o, -0.1, True, True), (x, 0.3, False, True),  # a fast move explores
                   (o, -0.4, True, False), (x, 0.5, True, False)]
    # Before O's exploratory move: O's root value there (-0.1), for the mover; after the last
    # exploratory move (X's fast, unrecorded one): the result.
    assert greedy_returns(game) == [0.1, -0.1, -1.0, 1.0]
    game.played[1] = (o, -0.1, True, False)  # now the first exploratory move is X's fast one
    assert greedy_returns(game) == [0.3, -0.3, -1.0, 1.0]
    game.played = [(mover, value, True, False) for mover, value, _, _ in game.played]
    assert greedy_returns(game) == [1.0, -1.0, 1.0, -1.0, 1.0]  # no exploration: the game's result


def test_greedy_return_runs_are_consistent():
    """Self-play with ``greedy_return``: values within [-1, 1]; with no exploration at all
    (temperature 0, no noise) the targets are the game's result."""
    enc = get_encoder_by_name(None, "tictactoe")
    greedy = SelfPlaySettings(parallel=2, simulations=8, temperature_moves=0, dirichlet_epsilon=0.0,
                              greedy_return=True)
    a = self_play("tictactoe", RolloutEvaluator(seed=2), enc, 2, greedy, seed=2)
    b = self_play("tictactoe", RolloutEvaluator(seed=2), enc, 2, SelfPlaySettings(
        parallel=2, simulations=8, temperature_moves=0, dirichlet_epsilon=0.0), seed=2)
    np.testing.assert_array_equal(a.values, b.values)
    explore = self_play("tictactoe", RolloutEvaluator(seed=2), enc, 4, SelfPlaySettings(
        parallel=4, simulations=8, temperature_moves=9, greedy_return=True), seed=2)
    assert (np.abs(explore.values) <= 1).all() and not set(np.unique(explore.values)) <= {-1.0, 0.0, 1.0}


def _record(moves: str, winner: str, opening_plies: int = 0, game: str = "tictactoe"):
    from dlgo.formats.records import GameRecord

    return GameRecord("t", f"game {moves}", game, "teacher", "teacher", "", winner, len(moves.split()), 0, 0, 0, 0,
                      "", "", 0, opening_plies, moves)


def test_a_teachers_games_become_examples_of_the_moves_its_players_chose():
    """Each chosen move is the policy's whole weight, the result the value from the mover's view;
    the random opening plies are left out (context, not lessons)."""
    from dlgo.games import new_game
    from engines.training.replay import recorded_examples

    enc = get_encoder_by_name(None, "tictactoe")
    # black (x) wins along the bottom row; the first ply was a random opening move
    ex = recorded_examples([_record("a1 a2 b1 b2 c1", "black", opening_plies=1)], enc, ("moves_left",))
    assert ex.lengths == [4] and ex.policies.shape == (4, 9)
    np.testing.assert_array_equal(ex.policies.sum(axis=1), 1.0)
    state = new_game("tictactoe").apply_move(new_game("tictactoe").parse_move("a1"))
    assert ex.policies[0].argmax() == enc.encode_move(state.parse_move("a2"), state)
    np.testing.assert_array_equal(ex.features[0], enc.encode(state))
    np.testing.assert_array_equal(ex.values, [-1.0, 1.0, -1.0, 1.0])  # white to move first here: the loser
    np.testing.assert_allclose(ex.auxiliary["moves_left"].ravel(), np.array([4, 3, 2, 1]) / 9)


def test_the_teachers_games_fill_the_places_self_play_has_not_filled_yet(tmp_path):
    from engines.training.replay import ReplayBuffer, recorded_examples

    enc = get_encoder_by_name(None, "tictactoe")
    teacher = recorded_examples([_record("a1 a2 b1 b2 c1", "black"), _record("b2 a1 c3 a3 a2 c1", "draw"),
                                 _record("c3 b2 a1 c1 a3", "white")], enc)
    buffer = ReplayBuffer(capacity=2)
    buffer.fill_with(teacher)
    assert len(buffer) == 5 + 6  # the first two teacher games: the buffer's two places
    rng = np.random.default_rng(0)
    assert set(buffer.sample(100, rng).z) == {1.0, -1.0, 0.0}
    _, own = _examples("tictactoe", 1, 3)
    buffer.add(own)
    assert len(buffer) == own.lengths[0] + 5  # one self-play game: one teacher game left
    buffer.save(tmp_path / "buffer.npz")
    again = ReplayBuffer.load(tmp_path / "buffer.npz")
    assert len(again) == own.lengths[0]  # the fill is not saved: a run remakes it from its games
    buffer.add(own)
    assert len(buffer) == 2 * own.lengths[0]  # full of self-play's games: the teacher's are gone


def test_teacher_games_must_be_a_games_file_of_the_runs_game(tmp_path):
    from dlgo.core.errors import SpecError
    from dlgo.formats.records import write_games
    from engines.training.alphazero_config import AlphaZeroConfig

    with pytest.raises(SpecError, match="no such games file"):
        AlphaZeroConfig(game="tictactoe", teacher_games=str(tmp_path / "missing.csv"))
    write_games(tmp_path / "games.csv", [_record("d1 d2 c1", "draw", game="connect4")])
    with pytest.raises(SpecError, match="holds games of connect4"):
        AlphaZeroConfig(game="tictactoe", teacher_games=str(tmp_path / "games.csv"))
    write_games(tmp_path / "ttt.csv", [_record(moves, "black") for moves in ("a1 a2", "b1 b2", "c1 c2")])
    records = AlphaZeroConfig(game="tictactoe", buffer_games=2,
                              teacher_games=str(tmp_path / "ttt.csv")).teacher_records()
    assert [r.moves for r in records] == ["a1 a2", "b1 b2"]  # the file's first, as many as the buffer holds
