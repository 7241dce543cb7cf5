"""``dlgo export-kaggle``: an AlphaZero network as one numpy-only ConnectX agent,
checked against Keras and played in Kaggle's own ``kaggle-environments``."""
from __future__ import annotations

import ast
import importlib.util
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dlgo.app import cli
from dlgo.app.kaggle_export import export_kaggle, play_in_kaggle
from dlgo.games import new_game
from helpers import play

pytest.importorskip("tensorflow", reason="the neural extra (TensorFlow) is not installed")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def submission(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("kaggle") / "submission.py"
    export_kaggle("alphazero:checkpoint=connect4,simulations=100", path)
    return path


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"submission_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def observation(state) -> dict:
    """ConnectX's observation of one of our Connect Four positions (top row first; marks 1 and 2)."""
    stones = state.stone_array()[::-1]
    return {"board": [int(x) for x in stones.flatten()], "mark": 1 if state.next_player.name == "black" else 2}


CONFIGURATION = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 60}  # its simulations end a search, not the clock


def random_positions(game: str, count: int, seed: int = 0) -> list:
    rng, states = random.Random(seed), []
    while len(states) < count:
        state = new_game(game)
        for _ in range(rng.randrange(0, 25)):
            if state.is_over():
                break
            state = state.apply_action(rng.choice(state.legal_actions()))
        if not state.is_over():
            states.append(state)
    return states


def test_the_numpy_network_is_the_keras_network(submission):
    from engines.neural.loading import load_network

    agent = load(submission)
    network = load_network("connect4")
    states = random_positions("connect4", 40)
    planes = network.encoder.encode_batch(states)
    policy, value = network.call(planes)
    ours_policy, ours_value = agent.network(planes, agent.WEIGHTS)
    assert np.abs(policy - ours_policy).max() < 1e-4 and np.abs(value[:, 0] - ours_value).max() < 1e-4
    assert all(np.array_equal(agent.Position.from_observation(observation(s)["board"], observation(s)["mark"],
                                                              6, 7).planes(), network.encoder.encode(s))
               for s in states)  # the agent's own encoder is ours


def test_a_small_resnet_of_another_board_survives_the_export_batch_norm_and_all(tmp_path):
    from engines.neural.backend import save_model
    from engines.neural.resnet import build_resnet
    from dlgo.encoders import get_encoder_by_name

    encoder = get_encoder_by_name("planes", "connectn:columns=5,rows=4,n=3")
    model = build_resnet(encoder.shape, encoder.num_moves, blocks=2, filters=8, value_units=8)
    rng = np.random.default_rng(1)
    for layer in model.layers:  # batch norm with statistics of its own, so that folding it matters
        if type(layer).__name__ == "BatchNormalization":
            gamma, beta, mean, variance = layer.get_weights()
            layer.set_weights([rng.uniform(0.5, 1.5, gamma.shape), rng.normal(0, 0.3, beta.shape),
                               rng.normal(0, 0.3, mean.shape), rng.uniform(0.5, 2, variance.shape)])
    path = tmp_path / "small.keras"
    save_model(model, path, {"kind": "alphazero", "encoder": {"name": "planes", "game": encoder.game_spec}})
    out = tmp_path / "small.py"
    settings = export_kaggle(f"alphazero:checkpoint={path},simulations=20,c=2.0,fpu=0.2", out)
    assert settings == {"rows": 4, "columns": 5, "inarow": 3, "blocks": 2, "simulations": 20, "c": 2.0, "fpu": 0.2,
                        "batch": 8, "time_fraction": 0.5}
    agent = load(out)
    planes = encoder.encode_batch(random_positions("connectn:columns=5,rows=4,n=3", 10))
    keras_policy, keras_value = model(planes, training=False)
    policy, value = agent.network(planes, agent.WEIGHTS)
    assert np.abs(np.asarray(keras_policy) - policy).max() < 1e-4
    assert np.abs(np.asarray(keras_value)[:, 0] - value).max() < 1e-4


def test_the_agent_wins_and_blocks_from_connectx_observations(submission):
    agent = load(submission)
    wins_in_one = play(new_game("connect4"), "4", "1", "4", "1", "4", "2")
    must_block = play(new_game("connect4"), "4", "1", "4", "1", "4")
    across = play(new_game("connect4"), "1", "1", "2", "2", "3", "3")  # black's three on the bottom row
    assert agent.agent(observation(wins_in_one), CONFIGURATION) == 3
    assert agent.agent(observation(must_block), CONFIGURATION) == 3
    assert agent.agent(observation(across), CONFIGURATION) == 3
    full_but_one = {"board": [0] + [1, 2, 1, 2, 1, 2] + [2, 1, 2, 1, 2, 1, 2] * 5, "mark": 1}
    assert agent.agent(full_but_one, CONFIGURATION) == 0  # the one legal move, without a search


def test_the_submission_needs_numpy_alone(submission):
    imported = set()
    for node in ast.walk(ast.parse(submission.read_text())):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported <= {"__future__", "base64", "io", "math", "time", "typing", "numpy"}
    code = ("import sys; sys.modules['tensorflow'] = sys.modules['keras'] = sys.modules['dlgo'] = None; "
            "import importlib.util as u; s = u.spec_from_file_location('sub', sys.argv[1]); m = u.module_from_spec(s); "
            "s.loader.exec_module(m); print(m.agent({'board': [0] * 42, 'mark': 1}, "
            "{'rows': 6, 'columns': 7, 'inarow': 4, 'actTimeout': 2}))")
    out = subprocess.run([sys.executable, "-c", code, str(submission)], capture_output=True, text=True,
                         check=True, cwd="/").stdout
    assert out.strip() == "3"  # the centre column


def test_kaggles_games_replay_from_their_seed(submission):
    pytest.importorskip("kaggle_environments", reason="kaggle-environments is not installed")
    first, again, other = (play_in_kaggle(submission, "random", 2, act_timeout=60, seed=s) for s in (5, 5, 6))
    assert [g.columns for g in first] == [g.columns for g in again]  # the random agent drew the same moves
    assert [g.columns for g in first] != [g.columns for g in other]


@pytest.mark.parametrize("opponent, games", [("negamax", 10), ("random", 20)])
def test_in_kaggle_environments_it_beats_the_built_in_agents(submission, opponent, games):
    pytest.importorskip("kaggle_environments", reason="kaggle-environments is not installed")
    # a minute a move: its 100 simulations end each search, never the clock of a busy machine; and
    # Kaggle's agents seeded (negamax breaks ties at random): the same games on every run (negamax,
    # slow in Python, plays 10: the report, reports/kaggle-connectx, plays more)
    played = play_in_kaggle(submission, opponent, games, act_timeout=60, seed=0)
    assert len(played) == games and all(g.status == "DONE" for g in played)  # no error, no timeout
    assert sum(g.reward == 1 for g in played) >= games - 1, played  # all but one won, first and second player alike
    for g in played:  # Kaggle's game is ours: the same moves replay here to the same end
        final = play(new_game("connect4"), *(str(c + 1) for c in g.columns))
        ours, theirs = ("black", "white") if g.first else ("white", "black")
        winner = final.winner()
        assert final.is_over() and (winner.name if winner else None) == {1: ours, 0: None, -1: theirs}[g.reward]


@pytest.mark.parametrize("spec, words", [
    ("mcts:rounds=100", "exports an alphazero engine"),
    ("alphazero:checkpoint=tictactoe", "not a Connect-N network"),
    ("alphazero:checkpoint=connect4,temperature=1", "drop temperature"),
    ("alphazero:checkpoint=connect4,simulations=0", "simulations of at least 1"),
    ("alphazero", "needs checkpoint"),
])
def test_what_cannot_be_exported_gets_one_line_and_no_file(tmp_path, capsys, spec, words):
    out = tmp_path / "submission.py"
    assert cli.main(["export-kaggle", "--engine", spec, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and not out.exists()
