"""Fixed references of an AlphaZero run (engines/training/references.py) and the
gating on them: mistakes on solved positions, the published network the best."""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np
import pandas as pd
import pytest

from dlgo.core.errors import SpecError
from dlgo.core.game import State
from dlgo.formats.positions import SolvedPosition, position_state
from engines.puct import Evaluator
from engines.training.alphazero_config import AlphaZeroConfig
from engines.training.references import (EARLY_SETS, measure_reference, measure_targets, raw_quality,
                                         reference_positions, target_quality)
from engines.training.selfplay import MatchSettings, SelfPlaySettings


class Oracle(Evaluator):
    """Priors on the positions' perfect moves (``perfect``) or on their mistakes, value 0."""

    def __init__(self, positions: Sequence[SolvedPosition], perfect: bool):
        self.choice = {position_state(p).zobrist_hash(): (p.perfect_actions() if perfect else
                                                          [a for a in p.scores if p.is_mistake(a)])
                       for p in positions}

    def evaluate(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        priors = np.full((len(states), states[0].num_actions), 1e-3, np.float32)
        for k, state in enumerate(states):
            for action in self.choice.get(state.zobrist_hash(), []):
                priors[k, action] = 1.0
        return priors, np.zeros(len(states), np.float32)


def test_the_reference_positions_are_critical_early_game_positions():
    positions = reference_positions("connect4", 4)
    assert len(positions) == 12 and {p.set for p in positions} == set(EARLY_SETS)
    assert all(p.critical for p in positions)
    with pytest.raises(SpecError, match="no solved position sets"):
        reference_positions("tictactoe", 4)


@pytest.mark.parametrize("gumbel", [0, 4])
def test_an_oracle_makes_no_mistake_and_its_opposite_always_errs(gumbel):
    positions = reference_positions("connect4", 3)
    settings = MatchSettings(parallel=4, simulations=6, gumbel=gumbel)
    good = measure_reference(Oracle(positions, perfect=True), positions, settings)
    assert good.positions == 9 and good.raw == 0.0 and good.search <= 1 / 9
    bad = measure_reference(Oracle(positions, perfect=False), positions, settings)
    assert bad.raw == 1.0


def test_targets_are_judged_against_the_solver():
    positions = reference_positions("connect4", 3)
    perfect = [np.isin(np.arange(7), p.perfect_actions()) / len(p.perfect_actions()) for p in positions]
    results = np.array([p.result for p in positions], float)
    right = target_quality(np.array(perfect), results, positions)
    assert right == (9, 0.0, 0.0, 1.0)
    mistakes = [np.isin(np.arange(7), [a for a in p.scores if p.is_mistake(a)]).astype(float) for p in positions]
    half = [(a + b) / 2 for a, b in zip(perfect, (m / m.sum() for m in mistakes))]
    wrong = target_quality(np.array(half), -results + (results == 0), positions)  # values on the wrong side
    assert wrong.mistake_mass == pytest.approx(0.5) and wrong.value_right == 0.0
    assert raw_quality(Oracle(positions, perfect=False), positions).policy_mistakes == 1.0


@pytest.mark.parametrize("gumbel", [0, 4])
def test_a_searchs_targets_follow_its_guide(gumbel):
    positions = reference_positions("connect4", 3)
    settings = SelfPlaySettings(parallel=4, simulations=8, gumbel=gumbel)
    good = measure_targets(Oracle(positions, perfect=True), positions, settings)
    bad = measure_targets(Oracle(positions, perfect=False), positions, settings)
    assert good.positions == bad.positions == 9
    assert good.mistake_mass < bad.mistake_mass and good.policy_mistakes < bad.policy_mistakes
    assert 0.0 <= good.value_right <= 1.0


def test_the_best_iteration_by_the_references():
    from engines.training.alphazero import best_iteration

    history = pd.DataFrame({"iteration": [0, 1, 2, 3], "mistakes_search": [0.30, 0.20, 0.25, 0.20],
                            "score_vs_gnugo": [0.6, np.nan, 0.5, 0.55]})
    by_positions = AlphaZeroConfig(game="connect4", reference_positions=2, publish="best")
    assert best_iteration(history, by_positions) == 3  # a tie goes to the later iteration
    by_baseline = AlphaZeroConfig(game="go:size=7", baselines=["gnugo"], publish="best", publish_margin=0.0)
    assert best_iteration(history, by_baseline) == 0  # the start scored best: it stays published
    within = AlphaZeroConfig(game="go:size=7", baselines=["gnugo"], publish="best", eval_games=10)
    assert best_iteration(history, within) == 3  # 0.55 against 0.6 in 10 games: within one standard error (0.15)
    # 413 references: 2.2% has a standard error of 0.7 points; 2.8% is within it, 4.0% is not
    noisy = pd.DataFrame({"iteration": [0, 1, 2, 3], "mistakes_search": [0.30, 0.022, 0.028, 0.040],
                          "reference_positions": 413})
    assert best_iteration(noisy, by_positions) == 2
    assert best_iteration(noisy, replace(by_positions, publish_margin=0.0)) == 1
    assert best_iteration(history, AlphaZeroConfig(game="connect4", publish="latest")) == 3
    assert best_iteration(history, AlphaZeroConfig(game="connect4", baselines=[])) == 3  # nothing fixed: the latest


def test_publish_settings_are_checked():
    with pytest.raises(SpecError, match="publish must be"):
        AlphaZeroConfig(publish="newest")
    with pytest.raises(SpecError, match="no solved position sets"):
        AlphaZeroConfig(game="tictactoe", reference_positions=5)


def test_a_gated_gumbel_run_measures_the_start_and_publishes_the_best(tmp_path):
    from engines.neural.backend import read_metadata
    from engines.training.alphazero import train_alphazero

    config = AlphaZeroConfig(game="connect4", blocks=1, filters=8, games=2, parallel=2, simulations=4, gumbel=4,
                             batch_size=16, train_steps=1, eval_games=0, eval_simulations=4, previous_games=2,
                             baselines=[], reference_positions=2, publish="best")
    history = train_alphazero(tmp_path, config, iterations=2, progress=False)
    assert list(history["iteration"]) == [0, 1, 2]  # row 0: the starting network, measured
    assert history["reference_positions"].tolist() == [6, 6, 6]
    assert (history["selfplay_evaluations"].iloc[1:] > 2 * 7 * 4).all()  # 2 games, 7+ moves, 4 simulations each
    assert history["device"].iloc[-1] == "CPU" or history["device"].iloc[-1].startswith("GPU (")
    assert history["mistakes_raw"].between(0, 1).all() and history["mistakes_search"].between(0, 1).all()
    best = history["mistakes_search"].min()
    published = int(history["published"].iloc[-1])
    assert history.loc[history["iteration"] == published, "mistakes_search"].iloc[0] == best
    assert read_metadata(tmp_path / "checkpoint.keras")["iteration"] == published
    (tmp_path / "checkpoint.keras").unlink()  # a kill before the copy: resuming puts the published one back
    history = train_alphazero(tmp_path, config, iterations=3, progress=False)
    assert list(history["iteration"]) == [0, 1, 2, 3]
    assert read_metadata(tmp_path / "checkpoint.keras")["iteration"] == int(history["published"].iloc[-1])


def test_value_targets_are_judged_against_the_solver():
    """With exploration all game long, the game's result misjudges positions that the
    result cut at exploratory moves gets right; every target kind covers every position."""
    from engines.training.references import measure_value_targets
    from helpers import ExactEvaluator

    settings = SelfPlaySettings(parallel=8, simulations=24, temperature_moves=9, dirichlet_epsilon=0.0,
                                search_value_weight=0.5)
    judged = {q.target: q for q in measure_value_targets("tictactoe", ExactEvaluator(), settings, 16, seed=0)}
    assert set(judged) == {"result", "search value", "mixed", "greedy return"}
    assert len({q.positions for q in judged.values()}) == 1 and judged["result"].positions >= 16 * 5
    assert judged["greedy return"].right > judged["result"].right
    assert judged["greedy return"].mse < judged["result"].mse
    assert judged["search value"].right > judged["result"].right  # exact leaf values: the search knows more
    assert judged["result"].mse > judged["mixed"].mse  # half the result's noise averaged away
    with pytest.raises(SpecError):
        measure_value_targets("go:size=5", ExactEvaluator(), settings, 1)
