"""PUCT search: the selection formula on hand-made nodes, exact terminal values,
forced wins and blocks found with a plain rollout evaluator, noise at the root only."""
import math

import numpy as np
import pytest

from dlgo.games import new_game
from engines.puct import Node, PUCTSearch, RolloutEvaluator, select_action, terminal_value
from helpers import CountingRollouts, play


class UniformZero:
    """Uniform priors and value 0 everywhere: only exact terminal values inform the search."""

    def evaluate(self, states):
        return np.ones((len(states), states[0].num_actions)), np.zeros(len(states))


def test_puct_scores_follow_the_formula():
    node = Node(new_game("tictactoe"))
    node.expand(np.arange(1, 10, dtype=float))
    node.N[:] = [4, 0, 1, 0, 0, 0, 0, 0, 5]
    node.W[:] = [2, 0, -1, 0, 0, 0, 0, 0, 4]
    c, total = 1.5, 10
    p = np.arange(1, 10) / 45
    expected = [(node.W[i] / node.N[i] if node.N[i] else 0) + c * p[i] * math.sqrt(total) / (1 + node.N[i])
                for i in range(9)]
    np.testing.assert_allclose(node.puct_scores(c), expected)
    assert int(np.argmax(node.puct_scores(c))) == int(np.argmax(expected))


def test_first_play_urgency_values_unvisited_moves_below_the_nodes_mean():
    node = Node(new_game("tictactoe"))
    node.expand(np.ones(9))
    assert np.allclose(node.puct_scores(1.0, fpu=0.2), node.puct_scores(1.0))  # no visits yet: nothing to reduce
    node.N[:2] = [3, 1]
    node.W[:2] = [2.4, 0.8]  # a mean of 0.8 over 4 visits
    unvisited = node.puct_scores(0.0, fpu=0.2)[2:]
    np.testing.assert_allclose(unvisited, 0.8 - 0.2)
    np.testing.assert_allclose(node.puct_scores(0.0)[2:], 0.0)  # without fpu an unvisited move counts 0


def test_first_play_urgency_changes_where_the_search_descends():
    root = Node(new_game("tictactoe"))
    root.expand(np.ones(9))
    root.N[0], root.W[0] = 4, -2.0  # the one move tried so far looks bad (mean -0.5)
    c = 0.01  # nearly no exploration: the Q values decide
    path, _ = PUCTSearch(UniformZero(), c=c).descend(root)
    assert path[0][1] != 0  # an untried move counts 0, better than -0.5
    path, _ = PUCTSearch(UniformZero(), c=c, fpu=0.2).descend(root)
    assert path[0][1] == 0  # an untried move counts -0.5 - 0.2: stay with the move tried


def test_priors_are_renormalised_over_sensible_moves_only():
    state = play(new_game("tictactoe"), "a1", "b2")
    node = Node(state)
    node.expand(np.ones(9))
    assert len(node.actions) == 7 and node.P.sum() == pytest.approx(1)
    assert set(node.actions) == {state.move_to_index(m) for m in state.legal_moves()}


def test_terminal_values_are_exact_and_draws_are_zero():
    won = play(new_game("tictactoe"), "a1", "b1", "a2", "b2", "a3")
    assert terminal_value(won) == -1  # the player to move (white) has lost
    draw = play(new_game("tictactoe"), "a3", "b2", "c3", "b3", "b1", "a1", "a2", "c2", "c1")
    assert draw.is_over() and draw.winner() is None and terminal_value(draw) == 0
    root = PUCTSearch(UniformZero()).run(draw, 10)
    assert root.terminal == 0 and not root.expanded


@pytest.mark.parametrize("batch", [1, 8])
@pytest.mark.parametrize("evaluator", [UniformZero(), RolloutEvaluator(seed=3)])
def test_finds_the_forced_win_and_blocks_the_forced_loss(evaluator, batch):
    win = play(new_game("tictactoe"), "a1", "a2", "b1", "b2")  # X: a1 b1, O: a2 b2; X wins at c1
    root = PUCTSearch(evaluator, seed=1, batch=batch).run(win, 200)
    assert win.index_to_move(select_action(root, 0, np.random.default_rng(0))) == win.parse_move("c1")
    block = play(new_game("tictactoe"), "a1", "a2", "c3", "b2")  # O threatens c2; X has no win
    root = PUCTSearch(evaluator, seed=1, batch=batch).run(block, 400)
    assert block.index_to_move(select_action(root, 0, np.random.default_rng(0))) == block.parse_move("c2")


def test_connect_four_win_in_one_with_rollouts():
    state = play(new_game("connect4"), "1", "7", "2", "7", "3", "6")  # black wins at 4
    root = PUCTSearch(RolloutEvaluator(seed=2), seed=2).run(state, 100)
    assert state.index_to_move(select_action(root, 0, np.random.default_rng(0))) == state.parse_move("4")


def test_dirichlet_noise_only_at_the_root():
    state = new_game("tictactoe")
    search = PUCTSearch(UniformZero(), dirichlet_alpha=0.3, dirichlet_epsilon=0.25, seed=4)
    root = search.run(state, 50, noise=True)
    assert not np.allclose(root.P, 1 / 9) and root.P.sum() == pytest.approx(1)
    for child in root.children.values():
        if child.expanded:
            np.testing.assert_allclose(child.P, 1 / len(child.P))
    quiet = PUCTSearch(UniformZero(), seed=4).run(state, 50, noise=False)
    np.testing.assert_allclose(quiet.P, 1 / 9)


def test_visits_add_up_and_temperature_sampling():
    root = PUCTSearch(RolloutEvaluator(seed=5), seed=5).run(new_game("connect4"), 300)
    assert root.N.sum() == 300
    pi = root.visit_policy(7)
    assert pi.sum() == pytest.approx(1) and pi.argmax() == select_action(root, 0, np.random.default_rng(0))
    rng = np.random.default_rng(6)
    picks = {select_action(root, 1.0, rng) for _ in range(200)}
    assert len(picks) > 1 and picks <= set(root.actions.tolist())



def test_batched_leaves_share_calls_and_leave_no_virtual_loss_behind():
    evaluator = CountingRollouts(seed=7)
    root = PUCTSearch(evaluator, seed=7, batch=8).run(new_game("connect4"), 300)
    assert root.N.sum() == 300  # every simulation counted once, the virtual visits taken back
    assert max(evaluator.batches) == 8 and len(evaluator.batches) < 300 / 4
    stack = [root]
    while stack:  # a node's visits are its children's visits plus the one that expanded it
        node = stack.pop()
        for i, child in node.children.items():
            if child.expanded:
                assert node.N[i] == child.N.sum() + 1 or child.terminal is not None
                assert abs(node.W[i]) <= node.N[i]
                stack.append(child)


def test_forced_playouts_visit_every_visited_child_and_pruning_takes_them_back():
    """KataGo's forced playouts, at a noised root: each child with a visit gets
    at least sqrt(k P sum N) visits (give or take the last one); the pruned
    target keeps the most visited child's visits, never raises another's, and
    drops the losing moves that only the forcing visited."""
    state = play(new_game("tictactoe"), "b2", "a1", "b1")  # O must block at b3; the rest lose
    search = PUCTSearch(RolloutEvaluator(rollouts=4, seed=1), c=1.5, forced_playouts=2.0, seed=1)
    root = search.run(state, 300, noise=True)
    forced = np.sqrt(2.0 * root.P * root.N.sum())
    assert (root.N[root.N > 0] >= np.floor(forced[root.N > 0]) - 1).all()
    pruned = search.pruned_visits(root)
    best = int(np.argmax(root.N))
    block = state.move_to_index(state.parse_move("b3"))
    assert root.actions[best] == block and pruned[best] == root.N[best]
    assert (pruned <= root.N).all() and pruned.sum() < root.N.sum()
    target = search.policy_target(root)
    assert abs(target.sum() - 1) < 1e-9 and target[block] > root.visit_policy(9)[block]


def test_forced_playouts_skip_unvisited_children_and_roots_without_noise():
    """Only a child that has a visit is forced (KataGo), and only at a root
    searched with noise: a plain search, and a fast playout-cap move, is PUCT's."""
    root = Node(new_game("tictactoe"))
    root.expand(np.ones(9))
    root.actions, root.P = root.actions[:3], np.array([0.2, 0.7, 0.1])
    root.N, root.W = np.array([30.0, 0.0, 1.0]), np.array([15.0, 0.0, 0.0])
    search = PUCTSearch(UniformZero(), c=1.5, forced_playouts=2.0)
    assert int(np.argmax(root.puct_scores(1.5))) == 1  # PUCT's choice: the unvisited child
    assert search.descend(root)[0][0][1] == 1  # no noise: PUCT's choice
    root.noised = True  # child 2 has 1 visit of its sqrt(2 * .1 * 31) = 2.5 forced ones; child 1 has none
    assert search.descend(root)[0][0][1] == 2
    quiet = PUCTSearch(RolloutEvaluator(rollouts=4, seed=1), c=1.5, seed=1)
    plain = quiet.run(play(new_game("tictactoe"), "b2", "a1", "b1"), 200)
    forcing = PUCTSearch(RolloutEvaluator(rollouts=4, seed=1), c=1.5, forced_playouts=2.0, seed=1)
    np.testing.assert_array_equal(forcing.run(play(new_game("tictactoe"), "b2", "a1", "b1"), 200).N, plain.N)


def test_policy_target_pruning_by_hand():
    """P = .5 .3 .2, N = 80 15 5, Q = .5 -.8 -1, c = 1.5, k = 2: the best's PUCT
    score is .5 + 1.5 * 10 * .5 / 81; the second child can give back all of its
    sqrt(2 * .3 * 100) = 7.75 forced visits (its score stays below), the third
    would need to keep 0.88 visits: at most one, so it goes."""
    root = Node(new_game("tictactoe"))
    root.expand(np.ones(9))
    root.actions, root.P = root.actions[:3], np.array([0.5, 0.3, 0.2])
    root.N, root.W = np.array([80.0, 15.0, 5.0]), np.array([40.0, -12.0, -5.0])
    search = PUCTSearch(RolloutEvaluator(), c=1.5, forced_playouts=2.0)
    np.testing.assert_allclose(search.pruned_visits(root), [80.0, 15.0 - math.sqrt(60.0), 0.0])
    assert search.policy_target(root)[root.actions[2]] == 0.0
