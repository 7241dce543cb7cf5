"""Gumbel AlphaZero's search (engines/gumbel.py): perfect moves with a perfect
evaluator and few simulations, the simulation budget, the improved policy."""
from __future__ import annotations

import random

import numpy as np
import pytest

from dlgo.games import new_game
from dlgo.games.solvers.brute_force import perfect_actions
from engines.gumbel import GumbelSearch, completed_q, improved_policy
from engines.puct import Node
from helpers import ExactEvaluator, play


def random_positions(games: int, seed: int):
    rng = random.Random(seed)
    for _ in range(games):
        state = new_game("tictactoe")
        while not state.is_over():
            yield state
            state = state.apply_action(rng.choice(state.legal_actions()))


def test_with_a_perfect_evaluator_one_simulation_per_move_plays_perfectly():
    search = GumbelSearch(ExactEvaluator(), considered=16, gumbel_scale=0.0)  # no noise: the best by value
    checked = 0
    for state in random_positions(20, seed=1):
        actions = state.sensible_actions()
        _, action = search.run(state, simulations=len(actions))  # every action visited once
        assert action in perfect_actions(state), state.moves_text()
        checked += 1
    assert checked > 60


def test_the_search_spends_its_budget_on_the_considered_actions():
    evaluator = ExactEvaluator()
    search = GumbelSearch(evaluator, considered=4, seed=3)
    root, action = search.run(new_game("tictactoe"), simulations=20)
    assert root.N.sum() == 20 and evaluator.evaluations <= 21
    assert np.count_nonzero(root.N) == 4  # Gumbel-top-4 of the 9 moves, the rest never visited
    assert action in root.actions[root.N > 0]
    few = GumbelSearch(ExactEvaluator(), considered=16, seed=3).run(new_game("tictactoe"), simulations=2)[0]
    assert few.N.sum() == 2 and np.count_nonzero(few.N) == 2  # fewer simulations than actions: that many considered


def test_seeded_searches_repeat_and_noise_off_is_deterministic():
    state = play(new_game("tictactoe"), "b2", "a1")
    a = GumbelSearch(ExactEvaluator(), seed=7).run(state, 12)
    b = GumbelSearch(ExactEvaluator(), seed=7).run(state, 12)
    assert a[1] == b[1] and np.array_equal(a[0].N, b[0].N)
    plain = {GumbelSearch(ExactEvaluator(), gumbel_scale=0.0, seed=s).run(state, 12)[1] for s in range(5)}
    assert len(plain) == 1


def test_the_improved_policy_moves_towards_the_better_values():
    state = play(new_game("tictactoe"), "b2", "a1", "b1")  # O must block at b3; every other move loses
    search = GumbelSearch(ExactEvaluator(), considered=16, gumbel_scale=0.0)
    root, action = search.run(state, simulations=len(state.sensible_actions()))
    target = search.policy_target(root)
    block = state.move_to_index(state.parse_move("b3"))
    assert action == block and abs(target.sum() - 1) < 1e-9
    assert target[block] > 0.9 and np.argmax(target) == block
    q = completed_q(root)
    assert q[list(root.actions).index(block)] == max(q)


def test_an_unvisited_action_takes_the_mixed_value():
    root = Node(new_game("tictactoe"))
    root.expand(np.ones(9))
    root.value = 0.5
    assert np.allclose(completed_q(root), 0.5)  # no visits: the node's own value
    root.N[0], root.W[0] = 2.0, -2.0  # one action visited twice, value -1
    q = completed_q(root)
    assert q[0] == -1.0 and np.allclose(q[1:], (0.5 + 2 * -1.0) / 3)
    assert np.isclose(improved_policy(root).sum(), 1.0) and improved_policy(root)[0] < 1 / 9


def test_the_search_value_follows_the_improved_policy_not_the_halving_visits():
    """Sequential halving visits a blunder as often as the best move; the value
    the search reports (a value target's share) is the improved policy's, near
    the best move's, where the visits' mean would be 0."""
    root = Node(new_game("tictactoe"))
    root.expand(np.ones(9))
    root.actions, root.P = root.actions[:2], np.array([0.5, 0.5])
    root.N, root.W = np.array([4.0, 4.0]), np.array([4.0, -4.0])
    assert root.mean_value() == 0.0
    pi = improved_policy(root)  # softmax(log .5 + (50 + 4) * 0.1 * [1, 0])
    assert GumbelSearch(ExactEvaluator()).search_value(root) == pytest.approx(pi[0] - pi[1]) and pi[0] > 0.99


def test_a_search_past_its_deadline_stops_after_one_simulation():
    """A clock's deadline (GTP's time_left, a game's time limit) ends the search:
    one already past leaves one simulation and still a legal move."""
    import time

    state = new_game("tictactoe")
    root, action = GumbelSearch(ExactEvaluator(), considered=4).run(state, 500, deadline=time.perf_counter())
    assert root.N.sum() == 1 and action in state.legal_actions()


def test_the_gumbel_engine_searches_and_old_alphazero_specs_still_name_it():
    """``gumbel`` is Gumbel AlphaZero, its parameters all its own; ``alphazero:gumbel=K`` (the
    specs from before it had a name) is ``gumbel:considered=K``, and ``gumbel=0`` is PUCT."""
    import engines
    from dlgo.core.errors import SpecError

    state = play(new_game("tictactoe"), "b2", "a1", "b1")  # O must block at b3
    bot = engines.create("gumbel:checkpoint=tictactoe,simulations=12,considered=8")
    move = bot.select_move(state)
    report = bot.last_report
    assert state.format_move(move) == "b3" and report.visits.sum() == 12
    assert np.count_nonzero(report.visits) <= 8 and abs(report.policy.sum() - 1) < 1e-6
    assert report.compute.amount <= 13  # one network call per simulation, and the root's
    old = engines.create("alphazero:checkpoint=tictactoe,simulations=12,gumbel=8")
    assert old.spec == "gumbel:checkpoint=tictactoe,simulations=12,considered=8"
    assert old.select_move(state) == move and np.array_equal(old.last_report.visits, report.visits)
    assert engines.create("alphazero:checkpoint=tictactoe,gumbel=0").name == "alphazero"
    assert "gumbel" not in {p.name for p in engines.engine_parameters("alphazero")}
    assert "c" not in {p.name for p in engines.engine_parameters("gumbel")}
    with pytest.raises(SpecError, match="gumbel: considered"):
        engines.create("alphazero:checkpoint=tictactoe,gumbel=-1")
    assert engines.create("alphazero:checkpoint=tictactoe,gumbel=00").name == "alphazero"  # a number, 0
    kept = engines.create("alphazero:checkpoint=tictactoe,simulations=12,gumbel=8,c=2,batch=4,reuse=false")
    assert kept.spec == old.spec  # PUCT's settings, which Gumbel search ignored, are dropped as before


class CountingExact(ExactEvaluator):
    """The exact evaluator, recording the size of every call."""

    def __init__(self):
        self.batches: list[int] = []

    def evaluate(self, states):
        self.batches.append(len(states))
        return super().evaluate(states)


def test_the_schedule_halves_the_considered_actions():
    from engines.gumbel import considered_visits

    assert considered_visits(4, 20) == (0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7)  # mctx's own
    assert considered_visits(1, 3) == (0, 1, 2)
    assert considered_visits(16, 2) == (0, 0)


def test_gumbel_self_play_with_a_perfect_evaluator_learns_the_improved_policy():
    """Self-play searched as Gumbel AlphaZero: batched, seeded, varied by the
    Gumbel noise, and its targets (improved policies) put most of their mass on
    the perfect moves, far more than the uniform priors do."""
    from dlgo.encoders import get_encoder_by_name
    from engines.training.selfplay import SelfPlaySettings, self_play

    enc = get_encoder_by_name(None, "tictactoe")
    evaluator = CountingExact()
    settings = SelfPlaySettings(parallel=4, simulations=16, gumbel=9, temperature_moves=0)
    ex = self_play("tictactoe", evaluator, enc, 6, settings, seed=2)
    assert len(ex.games) == 6 and max(evaluator.batches) > 1
    np.testing.assert_allclose(ex.policies.sum(axis=1), 1.0, rtol=1e-6)
    states = [s for g in ex.games for s in list(g.history())[:-1]]
    assert len(states) == len(ex.policies)
    assert all((ex.policies[k][~s.legal_action_mask()] == 0).all() for k, s in enumerate(states))
    on_perfect = np.mean([ex.policies[k][perfect_actions(s)].sum() for k, s in enumerate(states)])
    uniform = np.mean([len(perfect_actions(s)) / len(s.legal_actions()) for s in states])
    assert uniform < 0.6 and on_perfect > 0.9
    assert len({g.moves_text() for g in ex.games}) > 1  # the Gumbel noise varies the games
    again = self_play("tictactoe", CountingExact(), enc, 6, settings, seed=2)
    assert [g.moves_text() for g in again.games] == [g.moves_text() for g in ex.games]


def test_a_gumbel_match_without_noise_keeps_the_result():
    """Perfect values, one simulation per move and no noise against uniform rollouts:
    the perfect side never loses, from either colour."""
    from engines.puct import RolloutEvaluator
    from engines.training.selfplay import MatchSettings, play_batched_match

    scores = play_batched_match("tictactoe", ExactEvaluator(), RolloutEvaluator(seed=1), 8,
                                MatchSettings(parallel=8, simulations=9, gumbel=9, temperature_moves=0), seed=3)
    assert len(scores) == 8 and min(scores) >= 0.5 and max(scores) == 1.0


def test_a_runs_network_plays_with_the_search_it_learnt_with():
    """The per-iteration baselines and the final match name the run's own search: Gumbel for a
    Gumbel run (its considered moves kept), PUCT otherwise."""
    from dlgo.core.specs import split_spec
    from engines.registry import resolve
    from engines.training.alphazero_config import AlphaZeroConfig

    gumbel = AlphaZeroConfig(game="tictactoe", gumbel=8).engine_spec("net.keras", 50)
    assert resolve(*split_spec(gumbel)) == ("gumbel", {"checkpoint": "net.keras", "considered": "8",
                                                       "simulations": "50"})
    puct = AlphaZeroConfig(game="tictactoe").engine_spec("net.keras", 50)
    assert resolve(*split_spec(puct)) == ("alphazero", {"checkpoint": "net.keras", "simulations": "50"})
