"""Experience for reinforcement learning: rewards from the mover's side, chunks
written once, appending and resuming with exact counts, one writer per buffer."""
from __future__ import annotations

import numpy as np
import pytest

from dlgo.core.errors import RecordError, SpecError
from dlgo.data.experience import FOLDER, collect_experience, load_experience
from dlgo.formats.records import read_games, replay
from engines import ENGINES

RANDOM, MCTS = "random", "mcts:rounds=10"


def test_each_recorded_move_has_its_position_action_and_the_movers_result(tmp_path):
    manifest = collect_experience(ENGINES, tmp_path, "tictactoe", RANDOM, MCTS, 6, seed=2, opening_plies=1,
                                  workers=1, progress=False)
    experience = load_experience(tmp_path)
    records = {r.game_id: r for r in read_games(tmp_path / "games.csv")}
    assert sorted(manifest.game_ids) == sorted(records) and len(records) == 6
    assert len(experience.actions) == sum(r.plies - r.opening_plies for r in records.values())
    assert experience.states.shape[1:] == manifest.shape and experience.legal.shape[1] == manifest.num_moves
    for k in range(len(experience.actions)):
        record = records[manifest.game_ids[experience.games[k]]]
        assert experience.legal[k, experience.actions[k]]  # every action was legal where it was played
        assert (experience.rewards[k] == 0.0) == (record.winner == "draw")
    wins = {r.game_id: r.winner for r in records.values()}
    assert any(w != "draw" for w in wins.values())
    # in a won game, the winner's moves carry +1 and the loser's -1, alternately
    game = next(i for i, gid in enumerate(manifest.game_ids) if wins[gid] != "draw")
    rewards = experience.rewards[experience.games == game]
    assert set(rewards.tolist()) == {-1.0, 1.0} and all(rewards[:-1] == -rewards[1:])
    winner_moved_last = rewards[-1] == 1.0  # in tic-tac-toe the winner makes the last move
    assert winner_moved_last


def test_only_the_learners_moves_are_recorded(tmp_path):
    manifest = collect_experience(ENGINES, tmp_path, "connect4", MCTS, RANDOM, 4, learners=[MCTS], workers=1,
                                  progress=False)
    records = {r.game_id: r for r in read_games(tmp_path / "games.csv")}
    expected = 0
    for gid in manifest.game_ids:
        record = records[gid]
        states = replay(record.game, record.moves)
        expected += sum(1 for ply in range(record.plies)
                        if (record.black if states[ply].next_player.name == "black" else record.white) == MCTS)
    assert len(load_experience(tmp_path).actions) == expected


def test_more_games_append_a_chunk_and_never_rewrite_one(tmp_path):
    collect_experience(ENGINES, tmp_path, "tictactoe", RANDOM, RANDOM, 3, workers=1, progress=False)
    first = (tmp_path / FOLDER / "chunk-00000.npz").read_bytes()
    manifest = collect_experience(ENGINES, tmp_path, "tictactoe", RANDOM, RANDOM, 5, workers=1, progress=False)
    assert manifest.chunks == ["chunk-00000.npz", "chunk-00001.npz"] and len(manifest.game_ids) == 5
    assert (tmp_path / FOLDER / "chunk-00000.npz").read_bytes() == first
    again = collect_experience(ENGINES, tmp_path, "tictactoe", RANDOM, RANDOM, 5, workers=1, progress=False)
    assert again.chunks == manifest.chunks  # nothing new: nothing written
    assert len(set(again.game_ids)) == 5


def test_a_kill_between_games_and_chunk_resumes_with_exact_counts(tmp_path, monkeypatch):
    """Games are durable first; a kill before their chunk is written loses
    nothing: the next run encodes exactly those games, once."""
    from dlgo.data import experience as module

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "append_experience", killed)
    with pytest.raises(KeyboardInterrupt):
        collect_experience(ENGINES, tmp_path, "tictactoe", RANDOM, RANDOM, 4, workers=1, progress=False)
    assert len(read_games(tmp_path / "games.csv")) == 4 and not (tmp_path / FOLDER).exists()
    monkeypatch.undo()
    manifest = collect_experience(ENGINES, tmp_path, "tictactoe", RANDOM, RANDOM, 4, workers=1, progress=False)
    assert sorted(manifest.game_ids) == sorted(r.game_id for r in read_games(tmp_path / "games.csv"))
    assert len(manifest.chunks) == 1


def test_a_buffer_refuses_other_players_and_bad_settings(tmp_path):
    collect_experience(ENGINES, tmp_path, "tictactoe", RANDOM, RANDOM, 2, workers=1, progress=False)
    with pytest.raises(RecordError, match="holds a experience run with white 'random', not 'mcts"):
        collect_experience(ENGINES, tmp_path, "tictactoe", RANDOM, MCTS, 2, workers=1, progress=False)
    with pytest.raises(SpecError):
        collect_experience(ENGINES, tmp_path / "b", "tictactoe", RANDOM, RANDOM, 0, progress=False)
    with pytest.raises(SpecError, match="learners must be among"):
        collect_experience(ENGINES, tmp_path / "c", "tictactoe", RANDOM, RANDOM, 2, learners=["nobody"],
                           progress=False)
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()
    with pytest.raises(RecordError, match="holds no experience"):
        load_experience(tmp_path / "nowhere")
    assert np.isfinite(load_experience(tmp_path).rewards).all()


def test_discounted_rewards_credit_the_last_moves_most():
    from dlgo.data.experience import Experience, discounted_rewards, moves_to_end

    games = np.array([0, 0, 0, 1, 1], np.int32)
    assert moves_to_end(games).tolist() == [2, 1, 0, 1, 0]
    experience = Experience(np.zeros((5, 1)), np.zeros(5, np.int32), np.array([1, -1, 1, 0, 1], np.float32),
                            np.ones((5, 1), bool), games)
    assert discounted_rewards(experience, 0.5).tolist() == [0.25, -0.5, 1.0, 0.0, 1.0]
    assert discounted_rewards(experience, 1.0).tolist() == experience.rewards.tolist()
