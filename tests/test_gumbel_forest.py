"""Gumbel search in the compiled forest (engines/forest.py: GumbelForest) against the readable
one over Node objects (engines.forest.NodeForest with the same GumbelSearch): the same
noise, visits and moves, simulation for simulation, so the same self-play games and
improved-policy targets, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from dlgo.games import new_game
from engines import forest as forests
from engines.forest import NodeForest
from engines.gumbel import GumbelSearch
from engines.forest import GumbelForest
from engines.training import selfplay
from engines.training.selfplay import (MatchSettings, SelfPlaySettings, _play_batched, play_batched_match,
                                       search_moves, search_targets)
from test_forest import HashedEvaluator

GAMES = ["connect4", "tictactoe", "connectn:columns=5,rows=4,n=4", "mnk:m=4,n=4,k=3"]


def gumbel_forest(search, game):
    """The compiled forest for a Gumbel search where the game and the evaluator allow it, else None."""
    evaluator = search.evaluator
    if isinstance(search, GumbelSearch) and hasattr(evaluator, "evaluate_planes") \
            and evaluator.stone_planes() is not None:
        rules = game.compiled_rules()
        if rules is not None and rules.family == "line":
            return GumbelForest(search, evaluator, rules, game.num_actions)
    return None


@pytest.fixture
def made(monkeypatch):
    """Self-play's forests, a Gumbel search's compiled wherever ``compiled`` allows (as
    ``make_forest`` will pick them); the forests made, in order."""
    forests_made: list = []
    plain = forests.make_forest

    def make_forest(search, game, compiled=True):
        forest = plain(search, game, compiled)
        if compiled and isinstance(forest, NodeForest):
            forest = gumbel_forest(search, game) or forest
        forests_made.append(forest)
        return forest

    monkeypatch.setattr(selfplay, "make_forest", make_forest)
    return forests_made


def _self_play(game: str, compiled: bool, simulations: int, considered: int, games: int = 10,
               noise: bool = True, temperature_moves: int = 4):
    evaluator = HashedEvaluator(game)
    search = GumbelSearch(evaluator, considered=considered, seed=7)
    settings = SelfPlaySettings(parallel=4, simulations=simulations, temperature_moves=temperature_moves,
                                gumbel=considered, compiled=compiled)
    played = _play_batched(game, [search], lambda index, player: 0, games, settings, noise=noise,
                           rng=np.random.default_rng(11), progress=False, desc="self-play")
    return played, evaluator


def _assert_same_games(compiled, readable) -> None:
    assert [g.state.moves_text() for g in compiled] == [g.state.moves_text() for g in readable]
    for a, b in zip(compiled, readable):
        assert len(a.positions) == len(b.positions)
        for (state_a, pi_a, q_a), (state_b, pi_b, q_b) in zip(a.positions, b.positions):
            assert state_a.zobrist_hash() == state_b.zobrist_hash()
            np.testing.assert_array_equal(pi_a, pi_b)  # the improved policies: equal to the bit
            assert q_a == q_b
        assert a.played == b.played


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("simulations, considered", [(16, 16), (8, 4), (30, 16), (3, 16), (20, 2)])
def test_compiled_gumbel_self_play_is_the_readable_one_bit_for_bit(made, game, simulations, considered):
    readable, slow = _self_play(game, False, simulations, considered)
    compiled, fast = _self_play(game, True, simulations, considered)
    assert isinstance(made[0], NodeForest) and isinstance(made[1], GumbelForest)
    _assert_same_games(compiled, readable)
    assert fast.calls == slow.calls  # the same leaves a step went to the network together
    assert fast.evaluations == slow.evaluations


@pytest.mark.parametrize("game", ["connect4", "tictactoe"])
def test_without_noise_and_at_temperature_0_the_games_are_the_same(made, game):
    readable, _ = _self_play(game, False, 12, 8, games=6, noise=False, temperature_moves=0)
    compiled, _ = _self_play(game, True, 12, 8, games=6, noise=False, temperature_moves=0)
    assert isinstance(made[1], GumbelForest)
    _assert_same_games(compiled, readable)


@pytest.mark.parametrize("game", ["connect4", "tictactoe"])
def test_batched_gumbel_matches_are_the_same_with_either_forest(made, game):
    def match(compiled: bool) -> list[float]:
        return play_batched_match(game, HashedEvaluator(game, 0), HashedEvaluator(game, 5), 8,
                                  MatchSettings(parallel=4, simulations=10, gumbel=6, compiled=compiled), seed=2)

    scores = match(True)
    assert all(isinstance(forest, GumbelForest) for forest in made)
    assert scores == match(False) and len(scores) == 8
    assert len(set(scores)) > 1 or game == "tictactoe"  # not one game eight times over


def _positions(game: str, count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = new_game(game)
        for _ in range(int(rng.integers(0, 8))):
            state = state.apply_action(int(rng.choice(state.sensible_actions())))
            if state.is_over():
                break
        if not state.is_over():
            states.append(state)
    return states


@pytest.mark.parametrize("game", ["connect4", "tictactoe"])
@pytest.mark.parametrize("noise", [True, False], ids=["noise", "plain"])
def test_search_targets_and_moves_are_the_same_with_either_forest(made, monkeypatch, game, noise):
    states = _positions(game, 120, seed=5)

    def searched(compiled: bool):
        with monkeypatch.context() as patch:
            if not compiled:
                patch.setattr(selfplay, "make_forest", lambda search, game, compiled=True: NodeForest(search))
            made.clear()
            targets = search_targets(GumbelSearch(HashedEvaluator(game, 3), considered=8, seed=13), states, 14,
                                     parallel=32, noise=noise)
            moves = search_moves(GumbelSearch(HashedEvaluator(game, 3), considered=4, seed=1), states, 9,
                                 parallel=16)
            assert len(made) == (2 if compiled else 0) and all(isinstance(f, GumbelForest) for f in made)
            return targets, moves

    ((pi_a, v_a), moves_a), ((pi_b, v_b), moves_b) = searched(True), searched(False)
    np.testing.assert_array_equal(pi_a, pi_b)
    np.testing.assert_array_equal(v_a, v_b)
    assert moves_a == moves_b


def _begun(forest, search, states, planned: list[int], noise: bool) -> None:
    for key, state in enumerate(states):
        forest.plant(key, state)
    forest.expand_roots(range(len(states)))
    for key, simulations in enumerate(planned):
        root = forest.root(key)
        search.begin(root, noise, simulations)
        forest.store(key, root)


@pytest.mark.parametrize("game", ["connect4", "tictactoe"])
@pytest.mark.parametrize("noise", [True, False], ids=["noise", "plain"])
def test_searches_past_the_schedule_are_the_same(game, noise):
    """More simulations than ``begin`` planned (the schedule runs out: the root then
    takes the interior choice), and a search resumed in a second call."""
    states = _positions(game, 24, seed=9)
    planned = [int(n) for n in np.random.default_rng(2).integers(1, 12, len(states))]
    budgets = [n + extra for n, extra in zip(planned, np.random.default_rng(3).integers(0, 40, len(states)))]
    roots = {}
    for compiled in (True, False):
        search = GumbelSearch(HashedEvaluator(game, 1), considered=6, seed=4)
        forest = gumbel_forest(search, new_game(game).game) if compiled else NodeForest(search)
        _begun(forest, search, states, planned, noise)
        forest.search(range(len(states)), [b // 2 for b in budgets])
        forest.search(range(len(states)), [b - b // 2 for b in budgets])
        found = [forest.root(key) for key in range(len(states))]
        roots[compiled] = [(r.N.tolist(), r.W.tolist(), search.policy_target(r).tolist(), search.search_value(r),
                            search.play(r, 0.0, np.random.default_rng(0))) for r in found]
        assert [r.N.sum() for r in found] == budgets
        assert not search.plans  # every move's plan ended by its play
    assert roots[True] == roots[False]


def test_the_root_view_is_the_node_its_search_began():
    """``GumbelSearch`` finds a move's plan by its root's identity: from ``store`` to
    the next move, ``root`` returns that node, its visits up to date; a fresh root
    drops the earlier move's visits and children."""
    evaluator = HashedEvaluator("connect4")
    search = GumbelSearch(evaluator, considered=4, seed=0)
    forest = gumbel_forest(search, new_game("connect4").game)
    start = new_game("connect4")
    forest.plant(0, start)
    forest.expand_roots([0])
    before = forest.root(0)
    assert forest.root(0) is not before  # no move begun: a copy each time
    search.begin(before, True, 8)
    forest.store(0, before)
    forest.search([0], [8])
    root = forest.root(0)
    assert root is before and root.N.sum() == 8 and np.count_nonzero(root.N) == 4
    action = search.play(root, 0.0, np.random.default_rng(0))
    forest.advance(0, action, start.apply_action(action))
    child = forest.root(0)
    assert child is not root and child.N.sum() > 0  # the subtree's visits, until the next move begins
    evaluations = evaluator.evaluations
    search.begin(child, False, 3)
    forest.store(0, child)
    assert forest.root(0).N.sum() == 0
    forest.search([0], [3])
    assert evaluator.evaluations == evaluations + 3  # the dropped children evaluated again
    search.play(forest.root(0), 0.0, np.random.default_rng(0))


def test_a_search_past_its_deadline_stops_after_one_step():
    import time

    search = GumbelSearch(HashedEvaluator("tictactoe"), considered=4, seed=0)
    forest = gumbel_forest(search, new_game("tictactoe").game)
    _begun(forest, search, _positions("tictactoe", 3, seed=1), [50, 50, 50], noise=True)
    forest.search(range(3), [50, 50, 50], deadline=time.perf_counter())
    assert [forest.root(key).N.sum() for key in range(3)] == [1, 1, 1]


def test_a_pool_that_fills_compacts_and_grows_and_searches_the_same(made, monkeypatch):
    monkeypatch.setattr(forests, "NODES_PER_GAME", 1)  # room for one node: every move compacts or grows
    readable, _ = _self_play("connect4", False, 16, 16, games=6)
    compiled, _ = _self_play("connect4", True, 16, 16, games=6)
    assert isinstance(made[1], GumbelForest)
    _assert_same_games(compiled, readable)
