"""dlgo.envs: the games as a PettingZoo AEC environment and a Gymnasium environment."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the envs extra (pettingzoo) is not installed")
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from dlgo.core.errors import IllegalMoveError  # noqa: E402
from dlgo.encoders import get_encoder_by_name  # noqa: E402
from dlgo.envs import DlgoAECEnv, DlgoGymEnv  # noqa: E402
from dlgo.games import new_game  # noqa: E402


@pytest.mark.parametrize("game", ["tictactoe", "connect4", "go:size=5", "gomoku:size=7", "mnk:m=4,n=3,k=3",
                                  "connect4:pie_rule=true"])
def test_every_game_passes_pettingzoos_api_test(game):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's advice on Dict observations, not failures
        api_test(DlgoAECEnv(game), num_cycles=300, verbose_progress=False)


def play_out(env, actions):
    """Step the AEC environment through ``actions``; every agent's total reward at the end."""
    env.reset(seed=0)
    totals = {agent: 0.0 for agent in env.possible_agents}
    moves = iter(actions)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        env.step(None if termination or truncation else next(moves))
    return totals


def test_a_win_and_a_draw_reward_both_agents():
    win = play_out(DlgoAECEnv("connect4"), [3, 4, 3, 4, 3, 4, 3])  # black's four in column 4
    assert win == {"black_0": 1.0, "white_0": -1.0}
    draw = play_out(DlgoAECEnv("tictactoe"), [4, 0, 8, 2, 1, 7, 6, 3, 5])  # a full board, no line
    assert draw == {"black_0": 0.0, "white_0": 0.0}


def test_observations_are_the_encoders_planes_and_the_legal_mask():
    env = DlgoAECEnv("go:size=5")
    env.reset()
    env.step(12)
    state = new_game("go:size=5").apply_action(12)
    observation = env.observe("white_0")
    encoder = get_encoder_by_name(None, state.game)
    assert np.array_equal(observation["observation"], encoder.encode(state))
    assert np.array_equal(observation["action_mask"].astype(bool), state.legal_action_mask())
    assert not env.observe("black_0")["action_mask"].any()  # not its turn
    with pytest.raises(IllegalMoveError, match="cannot play action 12"):
        env.step(12)


def test_a_long_game_is_truncated():
    env = DlgoAECEnv("go:size=5", max_moves=6)
    env.reset()
    for _ in range(6):
        env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())


@pytest.mark.parametrize("colour", ["black", "white", "alternate", "random"])
def test_the_gymnasium_environment_passes_its_checker(colour):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(DlgoGymEnv("connect4", "mcts:rounds=20", colour=colour), skip_render_check=True)


def test_episodes_against_an_engine_end_with_the_result_as_reward():
    env = DlgoGymEnv("tictactoe", "alphabeta", colour="alternate")
    rng = np.random.default_rng(0)
    colours, rewards = [], []
    for episode in range(4):
        observation, info = env.reset(seed=7 if episode == 0 else None)
        colours.append(info["colour"])
        terminated = truncated = False
        while not (terminated or truncated):
            legal = observation["action_mask"].nonzero()[0]
            observation, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        rewards.append(reward)
        assert info["result"] in ("1-0", "0-1", "1/2-1/2")
    assert colours == ["black", "white", "black", "white"]
    assert all(r in (-1.0, 0.0) for r in rewards)  # random moves never beat alpha-beta


def test_an_illegal_action_loses_the_episode_and_the_same_seed_gives_the_same_game():
    env = DlgoGymEnv("tictactoe", "mcts:rounds=30", colour="white")
    first, _ = env.reset(seed=3)
    again, _ = env.reset(seed=3)
    assert np.array_equal(first["observation"], again["observation"])  # the engine's opening, seeded
    taken = int((~first["action_mask"].astype(bool)).nonzero()[0][0])  # the cell black took
    observation, reward, terminated, truncated, info = env.step(taken)
    assert terminated and reward == -1.0 and "not legal" in info["illegal"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
