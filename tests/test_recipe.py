"""The recipe's settings (engines/training): the temperature schedule with a floor,
merged positions with averaged targets, the heads' widths and a run's own reference
positions, each doing what its name says."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pytest

from dlgo.core.errors import SpecError
from dlgo.core.game import State
from dlgo.encoders import get_encoder_by_name
from engines.puct import Evaluator
from engines.training.alphazero_config import AlphaZeroConfig
from engines.training.replay import ReplayBuffer, merge_positions
from engines.training.selfplay import Examples, SelfPlaySettings, self_play, temperature_at


def test_the_temperature_falls_linearly_to_its_floor_and_stays():
    schedule = SelfPlaySettings(temperature_moves=20, temperature_floor=0.3, temperature_decay_moves=10)
    assert [temperature_at(m, schedule) for m in (1, 20)] == [1.0, 1.0]
    assert temperature_at(25, schedule) == pytest.approx(0.65)
    assert [temperature_at(m, schedule) for m in (30, 31, 42)] == [0.3, 0.3, 0.3]
    greedy = SelfPlaySettings(temperature_moves=4)  # no floor: the most visited move after the first four
    assert [temperature_at(m, greedy) for m in (4, 5, 40)] == [1.0, 0.0, 0.0]
    step = SelfPlaySettings(temperature_moves=2, temperature_floor=0.5)  # no decay: straight to the floor
    assert [temperature_at(m, step) for m in (2, 3)] == [1.0, 0.5]


class Uniform(Evaluator):
    """Even priors and a value of 0 everywhere: a search with it plays one fixed game when greedy."""

    def evaluate(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        self.evaluations += len(states)
        return np.full((len(states), states[0].num_actions), 1 / states[0].num_actions, np.float32), \
            np.zeros(len(states), np.float32)


def test_a_floor_keeps_self_play_off_its_greedy_path():
    """Greedy after the first move, 16 games hold at most 5 lines (one per first move); with a floor they spread."""
    board = "connectn:columns=5,rows=4,n=4"

    def games(floor: float) -> set[str]:
        settings = SelfPlaySettings(parallel=16, simulations=8, temperature_moves=1, temperature_floor=floor,
                                    dirichlet_epsilon=0.0)
        examples = self_play(board, Uniform(), get_encoder_by_name(None, board), 16, settings, seed=1)
        return {g.moves_text() for g in examples.games}

    assert len(games(0.0)) <= 5 and len(games(0.3)) > 10


def test_gumbel_plays_its_choice_unless_a_floor_asks_for_sampling():
    board = "connectn:columns=5,rows=4,n=4"
    choice = AlphaZeroConfig(game=board, gumbel=5, temperature_moves=10, temperature_floor=0.0).self_play_settings()
    assert (choice.temperature_moves, choice.temperature_floor) == (0, 0.0)  # Gumbel's noise explores
    sampled = AlphaZeroConfig(game=board, gumbel=5, temperature_moves=10, temperature_floor=0.3,
                              temperature_decay_moves=5).self_play_settings()
    assert (sampled.temperature_moves, sampled.temperature_floor, sampled.temperature_decay_moves) == (10, 0.3, 5)


def test_merged_positions_average_their_targets_in_order_of_play():
    features = np.array([[1, 0], [0, 1], [1, 0], [1, 1], [1, 0]], np.int8).reshape(5, 1, 1, 2)
    policies = np.array([[1, 0], [0, 1], [0, 1], [1, 0], [1, 0]], np.float32)
    values = np.array([1, -1, 0, 0.5, -1], np.float32)
    moves_left = np.arange(5, dtype=np.float32).reshape(5, 1)
    (x, pi, z), auxiliary = merge_positions((features, policies, values), {"moves_left": moves_left})
    np.testing.assert_array_equal(x.reshape(-1, 2), [[1, 0], [0, 1], [1, 1]])
    np.testing.assert_allclose(pi, [[2 / 3, 1 / 3], [0, 1], [1, 0]])
    np.testing.assert_allclose(z, [0, -1, 0.5])
    np.testing.assert_allclose(auxiliary["moves_left"].ravel(), [(0 + 2 + 4) / 3, 1, 3])


def test_a_merging_buffer_samples_each_position_once_with_its_mean():
    game = Examples(np.zeros((4, 3, 3, 3), np.int8), np.full((4, 9), 1 / 9, np.float32),
                    np.array([1, -1, 1, 1], np.float32), lengths=[4])  # one position, four results
    merging, plain = ReplayBuffer(10, merge=True), ReplayBuffer(10)
    for buffer in (merging, plain):
        buffer.add(game)
    rng = np.random.default_rng(0)
    assert set(merging.sample(20, rng).z) == {0.5} and merging.distinct() == 1
    assert set(plain.sample(50, rng).z) == {1.0, -1.0}


def test_the_heads_widths_reach_the_network_and_its_flops():
    from engines.neural.resnet import build_resnet, resnet_flops

    model = build_resnet((4, 5, 3), 5, blocks=1, filters=8, policy_filters=32, value_filters=16)
    assert model.get_layer("policy_conv").filters == 32 and model.get_layer("value_conv").filters == 16
    narrow = resnet_flops((4, 5, 3), 5, blocks=1, filters=8)
    wide = resnet_flops((4, 5, 3), 5, blocks=1, filters=8, policy_filters=32, value_filters=16)
    points = 20  # each 1x1 filter: a multiply-add per input plane, and its plane feeds the dense layer
    assert wide - narrow == 2 * ((32 - 2) * points * (8 + 5) + (16 - 1) * points * (8 + 64))


def test_a_run_measures_itself_on_the_positions_it_names(tmp_path):
    from dlgo.data.solved import generate_positions
    from engines.training.references import reference_positions

    board = "connectn:columns=5,rows=4,n=4"
    file = generate_positions(board, tmp_path / "sets", per_set=4, seed=5, workers=1, max_candidates=300,
                              progress=False)
    positions = reference_positions(board, 2, file)
    assert positions and all(p.critical and p.game == board for p in positions)
    assert len(positions) <= 2 * 6 and len({p.set for p in positions}) > 1  # every set of the file, not the early ones
    AlphaZeroConfig(game=board, reference_positions=2, reference_file=str(file), publish="best", baselines=[])
    with pytest.raises(SpecError, match="no such file"):
        AlphaZeroConfig(game=board, reference_positions=2, reference_file=str(tmp_path / "none.csv"))
    with pytest.raises(SpecError, match="not connectn:columns=6"):
        AlphaZeroConfig(game="connectn:columns=6,rows=4,n=4", reference_positions=2, reference_file=str(file))
    with pytest.raises(SpecError, match="temperature_floor"):
        AlphaZeroConfig(temperature_floor=1.5)
    with pytest.raises(SpecError, match="policy_filters"):
        AlphaZeroConfig(policy_filters=0)


def test_the_recipe_is_the_default_and_the_older_runs_keep_theirs(tmp_path):
    """The defaults are the recipe; the experiments of older reports pin the former defaults,
    and a run folder recorded before a setting existed resumes at its former default."""
    import json
    from dataclasses import asdict

    from dlgo.storage.folders import read_settings, record_settings
    from engines.training.alphazero_config import PRE_RECIPE, pre_recipe_config
    from experiments.chapters import ch14b_alphazero_connect4

    recipe = AlphaZeroConfig(game="connect4")
    heads = (recipe.policy_filters, recipe.value_filters)
    assert heads == (32, 32) and (recipe.merge_positions, recipe.publish) == (True, "best")
    assert recipe.temperature_schedule() == (20, 10) and recipe.temperature_floor == 0.3  # AlphaZero.jl's, on 42 points
    assert AlphaZeroConfig(game="connectn:columns=5,rows=4,n=4").temperature_schedule() == (10, 5)  # scaled to 20
    assert AlphaZeroConfig(game="connect4", temperature_moves=8,
                           temperature_decay_moves=0).temperature_schedule() == (8, 0)
    with pytest.raises(SpecError, match="temperature_moves must be at least -1"):
        AlphaZeroConfig(temperature_moves=-2)
    old = pre_recipe_config(game="connect4")
    assert {name: getattr(old, name) for name in PRE_RECIPE} == PRE_RECIPE and old.temperature_schedule() == (4, 0)
    assert ch14b_alphazero_connect4.full_config().policy_filters == 2  # its shipped network's heads
    # a run recorded before merge_positions and the heads' widths were settings
    before = {k: v for k, v in asdict(old).items() if k not in ("merge_positions", "policy_filters", "value_filters")}
    (tmp_path / "config.json").write_text(json.dumps(before))
    resumed = read_settings(tmp_path, AlphaZeroConfig, "AlphaZero")
    assert resumed == old and not resumed.merge_positions and resumed.policy_filters == 2
    record_settings(tmp_path, old)  # the same run: no mismatch
