"""Reinforcement learning by generations, on tiny settings: each method trains,
checks itself against the generation before, keeps its history and resumes."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from dlgo.core.errors import RecordError, SpecError
from dlgo.arena.ratings import binomial_p_value, wilson_interval
from engines.training.rl import RLConfig, train_rl


def tiny(method: str = "pg", **changes) -> RLConfig:
    return RLConfig(**{**dict(method=method, game="tictactoe", model="tiny", games=6, batch_size=16, eval_games=4,
                              baseline_games=2, baselines=["random"], seed=1), **changes})


def test_the_significance_test_and_intervals():
    assert binomial_p_value(0, 10) == 1.0 and binomial_p_value(10, 10) == 1 / 1024
    assert binomial_p_value(60, 100) == pytest.approx(0.0284, abs=1e-4)  # 60 of 100: significant at 5%
    low, high = wilson_interval(0.5, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60
    assert all(math.isnan(v) for v in wilson_interval(0.5, 0))


@pytest.mark.parametrize("method", ["pg", "q", "ac"])
def test_each_method_runs_generations_and_resumes(method, tmp_path):
    from engines.neural.backend import read_metadata

    history = train_rl(tmp_path, tiny(method), 1, progress=False)
    assert list(history["generation"]) == [1]
    assert {"loss", "score_vs_previous", "p_value", "score_vs_random", "examples"} <= set(history.columns)
    assert (tmp_path / "learning_curve.png").exists() and (tmp_path / "checkpoints" / "gen-001.keras").exists()
    assert read_metadata(tmp_path / "current.keras")["generation"] == 1
    history = train_rl(tmp_path, tiny(method), 2, progress=False)  # continues from generation 1
    assert list(history["generation"]) == [1, 2]
    assert pd.read_csv(tmp_path / "history.csv")["generation"].tolist() == [1, 2]
    with pytest.raises(RecordError, match="other settings"):
        train_rl(tmp_path, tiny(method, games=7), 3, progress=False)


def test_sparring_games_teach_the_network_its_own_moves_only(tmp_path):
    import json

    from dlgo.data.experience import load_experience

    config = tiny("ac", sparring=["random", "mcts:rounds=4"], sparring_games=4)
    history = train_rl(tmp_path, config, 1, progress=False)
    folders = sorted(p.name for p in (tmp_path / "experience").iterdir())
    assert folders == ["gen-001", "gen-001-sparring-1", "gen-001-sparring-2"]
    sizes = [len(load_experience(tmp_path / "experience" / name).actions) for name in folders]
    assert history["examples"].iloc[0] == sum(sizes)
    for name, size in zip(folders[1:], sizes[1:]):  # the network's moves: half of each game, rounded by colour
        games = pd.read_csv(tmp_path / "experience" / name / "games.csv")
        network = json.loads((tmp_path / "experience" / name / "run.json").read_text())["learners"]
        assert len(games) == 4 and network[0] in set(games["black"]) & set(games["white"])
        mover = [(plies + (black == network[0])) // 2 for plies, black in zip(games["plies"], games["black"])]
        assert size == sum(mover)
    # a run from before the sparring settings existed resumes: its missing settings are the defaults
    saved = json.loads((tmp_path / "config.json").read_text())
    plain = tmp_path / "plain"
    train_rl(plain, tiny("ac"), 1, progress=False)
    old = json.loads((plain / "config.json").read_text())
    del old["sparring"], old["sparring_games"]
    (plain / "config.json").write_text(json.dumps(old))
    assert list(train_rl(plain, tiny("ac"), 2, progress=False)["generation"]) == [1, 2]
    assert saved["sparring"] == ["random", "mcts:rounds=4"]


def test_a_network_behind_its_history_is_put_right_on_resume(tmp_path):
    from engines.neural.backend import read_metadata

    train_rl(tmp_path, tiny("pg"), 1, progress=False)
    (tmp_path / "current.keras").write_bytes((tmp_path / "checkpoints" / "gen-000.keras").read_bytes())
    train_rl(tmp_path, tiny("pg"), 1, progress=False)
    assert read_metadata(tmp_path / "current.keras")["generation"] == 1


def test_policy_gradients_start_from_a_supervised_predictor(tmp_path):
    from dlgo.encoders import get_encoder_by_name
    from engines.neural.backend import save_model
    from engines.neural.models import build_model

    encoder = get_encoder_by_name(None, "tictactoe")
    predictor = tmp_path / "predictor.keras"
    save_model(build_model("tiny", encoder.shape, encoder.num_moves), predictor,
               {"kind": "predictor", "encoder": encoder.config()})
    history = train_rl(tmp_path / "run", tiny("pg", init=str(predictor)), 1, progress=False)
    assert len(history) == 1
    with pytest.raises(SpecError, match="wrong heads"):
        train_rl(tmp_path / "q", tiny("q", init=str(predictor)), 1, progress=False)


def test_a_run_stopped_and_resumed_learns_exactly_what_an_unbroken_run_learns(tmp_path):
    import numpy as np

    from engines.neural.backend import load_model

    train_rl(tmp_path / "unbroken", tiny("pg"), 2, progress=False)
    train_rl(tmp_path / "resumed", tiny("pg"), 1, progress=False)
    train_rl(tmp_path / "resumed", tiny("pg"), 2, progress=False)
    weights = [load_model(tmp_path / run / "checkpoints" / "gen-002.keras")[0].get_weights()
               for run in ("unbroken", "resumed")]
    assert all(np.array_equal(a, b) for a, b in zip(*weights))


def test_a_resumed_run_keeps_its_optimizer_state(tmp_path):
    from engines.neural.backend import load_model

    train_rl(tmp_path, tiny("ac"), 1, progress=False)
    first, _ = load_model(tmp_path / "checkpoints" / "gen-001.keras")
    steps = int(first.optimizer.iterations.numpy())
    assert steps > 0
    train_rl(tmp_path, tiny("ac"), 2, progress=False)  # a new process would load the same file
    second, _ = load_model(tmp_path / "checkpoints" / "gen-002.keras")
    assert int(second.optimizer.iterations.numpy()) > steps  # Adam's step count went on from the first


@pytest.mark.parametrize("bad", [dict(method="sarsa"), dict(games=0), dict(epsilon=1.5), dict(learning_rate=0.0),
                                 dict(discount=0.0), dict(discount=1.5),
                                 dict(temperature=float("nan")), dict(model="huge"), dict(game="chess"),
                                 dict(baselines=["nobody"]), dict(sparring=["mcts:rounds=x"]),
                                 dict(sparring_games=0), dict(bootstrap=1.5),
                                 dict(method="pg", bootstrap=0.5), dict(init="missing.keras")])
def test_bad_settings_are_refused_before_a_folder_is_made(bad):
    with pytest.raises(SpecError):
        tiny(**{"method": "pg", **bad})


def test_the_settings_name_every_model_without_loading_tensorflow():
    from engines.neural.models import MODELS
    from engines.training.rl_config import MODEL_NAMES

    assert MODEL_NAMES == tuple(MODELS)


def test_the_learning_targets_of_each_method():
    import numpy as np

    from dlgo.data.experience import Experience
    from engines.neural.models import build_model
    from engines.neural.backend import compiled_call
    from engines.training.rl import training_targets

    states = np.zeros((4, 3, 3, 3), np.int8)
    experience = Experience(states, np.array([0, 1, 2, 3]), np.array([1.0, -1.0, 1.0, 1.0], np.float32),
                            np.ones((4, 9), bool), np.zeros(4, np.int32))
    _, pg, facts = training_targets("pg", experience, compiled_call(build_model("tiny", (3, 3, 3), 9)), 9)
    assert facts["baseline"] == 0.5 and pg[1, 1] == -1.5 and pg[0, 0] == 0.5 and pg[0, 1:9].sum() == 0
    assert (pg[:, 9:] == 1).all()  # the legal moves, beside the advantages
    _, discounted, _ = training_targets("pg", experience, compiled_call(build_model("tiny", (3, 3, 3), 9)), 9, 0.5)
    rewards = np.array([0.125, -0.25, 0.5, 1.0])  # one game: the last move gets the whole result
    assert np.allclose(discounted[np.arange(4), experience.actions], rewards - rewards.mean())
    q_model = build_model("tiny", (3, 3, 3), 9, head="q")
    _, q, _ = training_targets("q", experience, compiled_call(q_model), 9)
    before = q_model.predict(states.astype(np.float32), verbose=0)
    assert q[1, 1] == -1.0 and np.allclose(np.delete(q[1], 1), np.delete(before[1], 1))  # only the action played
    ac_model = build_model("tiny", (3, 3, 3), 9, head="policy-value")
    _, (policy, value), _ = training_targets("ac", experience, compiled_call(ac_model), 9)
    values = ac_model.predict(states.astype(np.float32), verbose=0)[1].reshape(-1)
    assert np.allclose(value.reshape(-1), experience.rewards)
    assert np.allclose(policy[np.arange(4), experience.actions], experience.rewards - values)
    assert policy.shape == (4, 18)


def test_one_step_targets_look_at_the_next_position_from_the_movers_side():
    import numpy as np

    from dlgo.data.experience import Experience
    from engines.training.rl import one_step_targets

    # two games: three moves won by the first mover (rows 0-2), then two moves ending in a draw (rows 3-4)
    experience = Experience(np.zeros((5, 1)), np.zeros(5, np.int32), np.array([1.0, -1.0, 1.0, 0.0, 0.0], np.float32),
                            np.ones((5, 1), bool), np.array([0, 0, 0, 1, 1], np.int32))
    values = np.array([0.1, 0.2, 0.3, 0.4, 0.5], np.float32)
    self_play = one_step_targets(experience, values, 0.5, alternating=True)
    assert np.allclose(self_play, [-0.1, -0.15, 1.0, -0.25, 0.0])  # the next position is the opponent's
    sparring = one_step_targets(experience, values, 1.0, alternating=False)
    assert np.allclose(sparring, [0.2, 0.3, 1.0, 0.5, 0.0])  # the next recorded position is the mover's again


def test_bootstrapped_targets_of_q_and_ac():
    import numpy as np

    from dlgo.data.experience import Experience
    from engines.neural.backend import compiled_call
    from engines.neural.models import build_model
    from engines.training.rl import training_targets

    rng = np.random.default_rng(0)
    states = rng.integers(0, 2, (3, 3, 3, 3)).astype(np.int8)
    legal = np.ones((3, 9), bool)
    legal[1, 4] = False  # the max runs over the legal moves only
    experience = Experience(states, np.array([0, 1, 2]), np.array([1.0, -1.0, 1.0], np.float32), legal,
                            np.zeros(3, np.int32))
    q_model = build_model("tiny", (3, 3, 3), 9, head="q")
    q = q_model.predict(states.astype(np.float32), verbose=0)
    best = np.where(legal, q, -np.inf).max(axis=1)
    _, targets, _ = training_targets("q", experience, compiled_call(q_model), 9, 1.0, bootstrap=1.0)
    assert np.allclose(targets[[0, 1, 2], [0, 1, 2]], [-best[1], -best[2], 1.0], atol=1e-5)
    _, half, _ = training_targets("q", experience, compiled_call(q_model), 9, 1.0, bootstrap=0.5)
    assert np.allclose(half[0, 0], 0.5 * 1.0 - 0.5 * best[1], atol=1e-5)
    ac_model = build_model("tiny", (3, 3, 3), 9, head="policy-value")
    values = ac_model.predict(states.astype(np.float32), verbose=0)[1].reshape(-1)
    _, (policy, value), _ = training_targets("ac", experience, compiled_call(ac_model), 9, 1.0, bootstrap=1.0)
    assert np.allclose(value.reshape(-1), [-values[1], -values[2], 1.0], atol=1e-5)
    assert np.allclose(policy[[0, 1, 2], [0, 1, 2]], value.reshape(-1) - values, atol=1e-5)


def test_train_rl_from_the_command_line_and_resume(tmp_path, capsys):
    from dlgo.app import cli

    out = tmp_path / "run"
    args = ["train-rl", "--out", str(out), "--method", "q", "--game", "tictactoe", "--model", "tiny",
            "--games", "4", "--eval-games", "2", "--baseline-games", "0", "--generations", "1"]
    assert cli.main(args) == 0
    assert "play it: dlgo play --game tictactoe --white q:model=" in capsys.readouterr().out
    assert cli.main(["train-rl", "--out", str(out), "--resume", "--generations", "2"]) == 0
    assert cli.main(["train-rl", "--out", str(out), "--resume", "--games", "9"]) == 2
    assert cli.main(["train-rl", "--out", str(tmp_path / "bad"), "--method", "sarsa"]) == 2
    assert not (tmp_path / "bad").exists()


@pytest.mark.filterwarnings("ignore:Skipping variable loading for optimizer")  # never trained: nothing to load
def test_the_policy_gradient_loss_is_reinforce_with_an_entropy_bonus(tmp_path):
    import numpy as np

    from engines.neural.backend import load_model, save_model
    from engines.neural.models import build_model
    from engines.training.rl import PolicyGradientLoss, compile_for

    p = np.array([[0.7, 0.2, 0.1]], np.float32)
    targets = np.array([[0.0, -0.5, 0.0]], np.float32)  # the second move lost: push it down
    entropy = -(p * np.log(p)).sum()
    loss = float(PolicyGradientLoss(0.1)(targets, p))
    assert loss == pytest.approx(0.5 * np.log(0.2) - 0.1 * entropy, rel=1e-5)
    # with the legal moves beside the advantages: the policy renormalised over them (the first is illegal)
    legal = np.array([[0.0, 1.0, 1.0]], np.float32)
    q = np.array([2 / 3, 1 / 3])
    masked = float(PolicyGradientLoss(0.1)(np.hstack([targets, legal]), p))
    assert masked == pytest.approx(0.5 * np.log(2 / 3) + 0.1 * (q * np.log(q)).sum(), rel=1e-5)
    model = build_model("tiny", (3, 3, 3), 9, head="policy-value")
    compile_for("ac", model, 1e-3, entropy=0.05)
    save_model(model, tmp_path / "ac.keras", {"kind": "ac"})
    reloaded, _ = load_model(tmp_path / "ac.keras", compile=True)  # the loss travels with the file
    assert reloaded.loss[0].entropy == 0.05


def test_learning_under_the_boards_symmetries_moves_the_targets_with_the_board():
    import numpy as np

    from dlgo.games import get_game
    from engines.training.rl import with_symmetries

    mirror = get_game("connect4").symmetries()
    x = np.zeros((1, 6, 7, 2), np.float32)
    x[0, 5, 0, 0] = 1  # a stone in the left column
    policy = np.zeros((1, 14), np.float32)
    policy[0, 1], policy[0, 7 + 2] = 0.5, 1  # an advantage on column 1, column 2 legal
    value = np.array([[0.25]], np.float32)
    xs, (policies, values) = with_symmetries(x, [policy, value], mirror)
    assert xs.shape == (2, 6, 7, 2) and xs[1, 5, 6, 0] == 1 and xs[1].sum() == 1
    assert policies[1, 5] == 0.5 and policies[1, 7 + 4] == 1 and policies[1].sum() == 1.5
    assert np.array_equal(values, [[0.25], [0.25]])
    q = np.arange(7, dtype=np.float32)[None]
    _, qs = with_symmetries(x, q, mirror)
    assert np.array_equal(qs[1], q[0, ::-1])
    go = get_game("go:size=5").symmetries()  # 8 on a square board; the pass stays the pass
    xs, qs = with_symmetries(np.zeros((3, 5, 5, 1), np.float32), np.tile(np.arange(26.0), (3, 1)), go)
    assert xs.shape[0] == 24 and (qs[:, 25] == 25).all() and all(sorted(row) == list(range(26)) for row in qs)


def test_the_clipped_surrogate_stops_pushing_a_losing_move_where_reinforce_never_stops():
    import numpy as np

    from dlgo.data.experience import Experience
    from engines.neural.backend import compiled_call
    from engines.neural.models import build_model
    from engines.training.rl import PolicyGradientLoss, training_targets

    # the first move lost (advantage -1); it had probability 0.5 when the game was played
    targets = np.array([[-1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.5, 0.0, 0.0]], np.float32)

    def losses(first: float) -> tuple[float, float]:
        p = np.array([[first, (1 - first) / 2, (1 - first) / 2]], np.float32)
        return float(PolicyGradientLoss(0.0, clip=0.2)(targets, p)), float(PolicyGradientLoss(0.0)(targets[:, :6], p))

    at_start, pushed, far = losses(0.5), losses(0.3), losses(0.01)
    assert at_start[0] == pytest.approx(1.0)                                    # ratio 1: -(1 * -1)
    assert pushed[0] == pytest.approx(0.8) and far[0] == pytest.approx(0.8)    # clipped at 1 - 0.2: flat, no pull
    assert far[1] < pushed[1] < at_start[1] and far[1] == pytest.approx(np.log(0.01), rel=1e-4)  # REINFORCE: no floor
    states = np.zeros((2, 3, 3, 3), np.int8)
    experience = Experience(states, np.array([0, 4]), np.array([1.0, -1.0], np.float32), np.ones((2, 9), bool),
                            np.zeros(2, np.int32))
    model = build_model("tiny", (3, 3, 3), 9)
    _, clipped, _ = training_targets("pg", experience, compiled_call(model), 9, clip=0.2)
    before = model.predict(states.astype(np.float32), verbose=0)
    assert clipped.shape == (2, 27)
    assert np.allclose(clipped[[0, 1], 18 + experience.actions], before[[0, 1], experience.actions], rtol=1e-4)
