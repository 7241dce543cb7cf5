"""The Go engine (``mcts`` on Go): its tree in flat arrays, its priors, RAVE and
reuse, and what it plays: captures that decide a game, escapes, passing only
when passing wins, resigning lost games; ``plain=true`` is the readable UCT."""
import math

import numpy as np
import pytest

import engines
from dlgo.core.errors import SpecError
from dlgo.core.types import Move, Player, Point
from dlgo.games import new_game
from dlgo.games.go import kernels, playouts
from dlgo.games.go.move_features import played_point
from dlgo.games.go.pattern_kernels import tables_for
from engines import mcts_kernels
from engines.go_search import BANK_MOVES, GUIDE_BATCH, Clock, GoSearch, SearchSettings
from engines.mcts import Node
from engines.rollouts import load_rollout_policy
from helpers import go_position, play

POLICY = load_rollout_policy("go9-rollout")


def expanded_root(state, log_gamma=None, **options):
    """A one-node tree for ``state`` (with move patterns' ``log_gamma``), expanded: (tree, children by move)."""
    settings = SearchSettings(**options).kernel_settings(state.game.komi, 10 * len(state.board.color))
    board, seen, color = playouts.compiled_position(state, room=2000)
    geometry = kernels.geometry_arrays(state.board.num_rows, state.board.num_cols)
    ws = mcts_kernels.new_workspace(kernels.copy_board(board), seen, settings.budget, 1, log_gamma=log_gamma)
    tree = mcts_kernels.new_tree(1000)
    last, passed = played_point(state), state.last_move is not None and state.last_move.is_pass
    assert mcts_kernels.expand(tree, 0, board, geometry, tables_for(POLICY), settings, ws, color, passed, last,
                               played_point(state.previous_state))
    first, k = tree.first_child[0], tree.num_children[0]
    return tree, {int(tree.move[i]): i for i in range(first, first + k)}


def point(state, text):
    return state.board.geometry.index_of(state.parse_move(text).point)


# ----------------------------------------------------------- the tree
def test_expansion_lists_the_legal_moves_but_own_eyes_and_passes_only_after_a_pass():
    s = go_position("""
        . X . . .
        X X . . .
        . . . . .
        . . . O .
        . . . . .
    """)
    tree, children = expanded_root(s)
    assert set(children) == {a for a in s.legal_actions() if a < 25} - {point(s, "A5")}  # A5: black's own eye
    tree, children = expanded_root(play(s, "pass"))  # white to move after black's pass: pass is a child
    assert 25 in children


def test_priors_favour_a_capture_and_frown_on_a_self_atari():
    s = go_position("""
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . X O X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """)  # white D4 (C4 here: col 3) is in atari at its last liberty C3
    tree, children = expanded_root(s)
    rate = lambda p: tree.prior_wins[children[p]] / tree.prior_visits[children[p]]  # noqa: E731
    capture, quiet = point(s, "C3"), point(s, "F6")
    assert tree.prior_visits[children[capture]] > tree.prior_visits[children[quiet]]
    assert rate(capture) > rate(quiet)
    white = go_position("""
        . . . . .
        . X X X .
        X O . O .
        . X X X .
        . . . . .
    """, next_player=Player.white)  # white C3 joins B3 and D3 with one liberty left, E3: a self-atari
    tree, children = expanded_root(white)
    assert tree.prior_wins[children[point(white, "C3")]] / tree.prior_visits[children[point(white, "C3")]] < 0.5
    plain, _ = expanded_root(s, priors=False)
    assert np.all(plain.prior_visits[1:plain.size[0]] == 10.0)  # the even prior alone


def test_move_patterns_priors_are_the_reference_teams_softmax():
    """With move patterns, a play's policy prior is ``prior_policy * sqrt(p)`` for its probability
    ``p`` among the candidate plays by the reference's teams: measured against uniform strengths
    (``p = 1/K``), everything else in the priors being the same."""
    from dlgo.games.go import move_features as mf

    s = play(go_position("""
        . . . . . . .
        . . . . . . .
        . . X . . . .
        . X O X . . .
        . . . . O . .
        . . . . . . .
        . . . . . . .
    """), "F2", "B6")
    log_gamma = np.random.default_rng(5).normal(0, 1, mf.NUM_LEVELS)
    tree, children = expanded_root(s, log_gamma=log_gamma)
    even, _ = expanded_root(s, log_gamma=np.zeros(mf.NUM_LEVELS))
    actions, teams = mf.position_teams(s)
    logits = np.array([log_gamma[t[t >= 0]].sum() for t in teams[:-1]])
    p = np.exp(logits - logits.max())
    p /= p.sum()
    assert sorted(children) == actions[:-1]  # no pass: the opponent has not passed
    prior_policy = SearchSettings().kernel_settings(7.5, 490).prior_policy
    for action, probability in zip(actions, p):
        child = children[action]
        added = tree.prior_visits[child] - even.prior_visits[child]
        assert added == pytest.approx(prior_policy * (math.sqrt(probability) - math.sqrt(1 / len(p))), abs=1e-9)


def test_compaction_keeps_a_subtree_with_its_statistics():
    s = new_game("go:size=5")
    search = GoSearch(SearchSettings(expand=1), POLICY, seed=3)
    search.search(s, rounds=300, seconds=0.0, deadline=float("inf"), reuse=True)
    tree = search.tree
    first, k = tree.first_child[0], tree.num_children[0]
    child = first + int(np.argmax(tree.visits[first:first + k]))
    out = mcts_kernels.new_tree(len(tree.move))
    mcts_kernels.compact(tree, child, out)
    assert out.visits[0] == tree.visits[child] and out.amaf_visits[0] == tree.amaf_visits[child]

    def total(t, node):  # the simulations below a node, summed over its whole subtree
        n = t.visits[node]
        if t.num_children[node]:
            n += sum(total(t, c) for c in range(t.first_child[node], t.first_child[node] + t.num_children[node]))
        return n

    assert total(out, 0) == total(tree, child) and out.size[0] <= tree.size[0]


def test_simulations_are_counted_in_the_path_and_in_amaf():
    s = new_game("go:size=5")
    search = GoSearch(SearchSettings(), POLICY, seed=1)
    result = search.search(s, rounds=500, seconds=0.0, deadline=float("inf"), reuse=True)
    tree = search.tree
    assert tree.visits[0] == 500 and result.visits.sum() == 500 and result.simulations == 500
    first, k = tree.first_child[0], tree.num_children[0]
    assert tree.amaf_visits[first:first + k].sum() > tree.visits[first:first + k].sum()  # AMAF counts more


# ------------------------------------------------------------- playing
def test_it_captures_the_string_that_decides_the_game():
    s = go_position("""
        . O O O .
        O X X X O
        O X X X O
        . O O . .
        . . . . .
    """, next_player=Player.white, komi=0.5)  # black's six stones: one liberty, D2
    for seed in range(3):
        assert engines.create(f"mcts:rounds=1000,seed={seed}").select_move(s) == Move.play(Point(2, 4))


def test_it_saves_its_string_from_atari():
    s = go_position("""
        . . . . . . .
        . . . . . . .
        . . O O O . .
        . O X X X O .
        . . O X O . .
        . . . . . . .
        . . . . . . .
    """)  # black's four stones: one liberty, D2 (black is behind: it must not resign here, only escape)
    for seed in range(3):
        assert engines.create(f"mcts:rounds=2000,seed={seed},resign=0").select_move(s) == Move.play(Point(2, 4))


SETTLED = """
    . . X O .
    . . X O O
    X X X O .
    . . X O O
    . . X O .
"""  # black 15 points, white 10
DEAD_STONE = """
    . X X O .
    O X X O O
    X X X O .
    . . X O O
    . . X O .
"""  # as it stands black 13, white 11 (A5 is nobody's); once A5 takes A4: 15 and 10


def test_after_a_pass_it_passes_when_the_count_wins_and_plays_on_when_it_does_not():
    winning = play(go_position(SETTLED, next_player=Player.white, komi=4.5), "pass")
    agent = engines.create("mcts:rounds=500,seed=1")
    assert agent.select_move(winning) == Move.pass_turn() and agent.last_report.compute.amount == 0  # no search
    capture_first = play(go_position(DEAD_STONE, next_player=Player.white, komi=4.5), "pass")
    for seed in range(3):
        agent = engines.create(f"mcts:rounds=1000,seed={seed}")
        assert agent.select_move(capture_first) == Move.play(Point(5, 1))  # A5 captures, then passing wins


def test_it_resigns_a_lost_game_and_can_be_told_never_to():
    lost = go_position("""
        . O . O .
        O O O O O
        . . O . .
        O O O O O
        . O . O .
    """, komi=7.5)
    assert engines.create("mcts:rounds=500,seed=1").select_move(lost) == Move.resign()
    assert engines.create("mcts:rounds=500,seed=1,resign=0").select_move(lost) != Move.resign()


def test_it_keeps_its_tree_between_moves():
    agent = engines.create("mcts-go:rounds=400,seed=2")
    s = new_game("go:size=7")
    s = s.apply_move(agent.select_move(s))
    s = s.apply_action(agent.last_report.principal_variation[1])  # the reply it expects, which its tree holds
    agent.select_move(s)
    assert agent._search.tree.visits[0] > 400  # the subtree kept its simulations
    fresh = engines.create("mcts-go:rounds=400,seed=2,reuse=false")
    fresh.select_move(new_game("go:size=7"))
    assert fresh._search.tree.visits[0] == 400


def test_the_same_seed_plays_the_same_go_game():
    def game():
        a, b = engines.create("mcts:rounds=300,seed=4"), engines.create("mcts:rounds=300,seed=5")
        s = new_game("go:size=5")
        for _ in range(12):
            if s.is_over():
                break
            s = s.apply_move((a if s.next_player is Player.black else b).select_move(s))
        return s.move_history()

    assert game() == game()


def test_plain_is_the_readable_uct_and_other_games_always_get_it():
    agent = engines.create("mcts:rounds=200,seed=1,plain=true")
    agent.select_move(new_game("go:size=5"))
    assert isinstance(agent.engines["uct"].root, Node) and set(agent.engines) == {"uct"}  # plain: no Go search at all
    c4 = new_game("connect4")
    a, b = engines.create("mcts:rounds=200,seed=7"), engines.create("mcts:rounds=200,seed=7,plain=true")
    assert a.select_move(c4) == b.select_move(c4) and a.engines["mcts-go"]._search is None
    assert [engines.engine_on("mcts", new_game(g).game) for g in ("go:size=5", "connect4")] == ["mcts-go", "uct"]
    assert engines.engine_on("mcts:plain=true", new_game("go:size=5").game) == "uct"


@pytest.mark.parametrize("spec", ["mcts:rounds=200,rave=false", "mcts:rounds=200,priors=false",
                                  "mcts:rounds=200,rollout=random", "mcts:rounds=200,c=0.5,expand=1"])
def test_every_switch_plays_legal_go(spec):
    agent = engines.create(f"{spec},seed=3")
    s = new_game("go:size=5")
    for _ in range(8):
        move = agent.select_move(s)
        assert move.is_resign or s.is_valid_move(move)
        if move.is_resign:
            break
        s = s.apply_move(move)


# ------------------------------------------------------- time management
def searched(rounds=300, **options):
    search = GoSearch(SearchSettings(**options), POLICY, seed=1)
    search.search(new_game("go:size=5"), rounds=rounds, seconds=0.0, deadline=float("inf"), reuse=True)
    return search


def set_root_children(search, visits, wins):
    """Give the root's first children these statistics (the rest none)."""
    tree = search.tree
    first, k = tree.first_child[0], tree.num_children[0]
    tree.visits[first:first + k] = 0
    tree.wins[first:first + k] = 0
    tree.visits[first:first + len(visits)] = visits
    tree.wins[first:first + len(wins)] = wins


def test_a_search_is_decided_when_its_leader_cannot_be_caught():
    search = searched()
    set_root_children(search, [100, 10, 5], [60, 6, 3])
    assert search._decided(done=115, remaining=50)  # 90 ahead, 50 to go
    assert not search._decided(done=115, remaining=200)


def test_a_close_middle_game_whose_leader_is_not_the_best_valued_asks_for_more_time():
    search = searched()
    state = new_game("go:size=5")
    set_root_children(search, [100, 80], [45, 48])  # the leader wins 45%, the runner-up 60%
    assert search._worth_more_time(state)
    set_root_children(search, [100, 80], [55, 40])  # the leader is also the best valued
    assert not search._worth_more_time(state)
    set_root_children(search, [100, 80], [5, 10])  # not close: a lost game
    assert not search._worth_more_time(state)


def test_managed_time_stops_a_decided_search_at_once_and_banks_the_rest():
    forced = go_position("""
        . X . X .
        X X X X X
        . X . X .
        X X X X X
        . X . X X
    """, komi=0.5)  # every empty point is black's own eye: passing is its one move
    engines.create("mcts:rounds=20,seed=1").select_move(forced)  # the kernels loaded before the clock starts
    managed = engines.create("mcts-go:seconds=1,seed=1")
    assert managed.select_move(forced) == Move.pass_turn()
    assert managed.last_compute.amount == 16  # one chunk: nothing could overtake the only move
    assert managed._search.bank > 0.5  # the time it did not need, kept for later moves
    unmanaged = engines.create("mcts-go:seconds=1,seed=1,manage=false")
    unmanaged.select_move(forced)
    assert unmanaged.last_compute.amount > 16
    managed._search.bank = BANK_MOVES * 1.0  # a full bank: still, one move to play needs no more time
    managed.select_move(forced)
    assert managed.last_compute.amount == 16


def test_a_decided_search_stops_early_only_when_the_bank_can_take_the_time_saved():
    import time

    search = searched()
    state = new_game("go:size=5")
    set_root_children(search, [1000, 10], [500, 5])  # decided: 990 simulations ahead

    def clock(room):  # 1 s gone of 1.5 planned: 0.5 s left, about 50 more simulations at 100 done
        return Clock(time.perf_counter() - 1.0, 1.5, float("inf"), managed=True, bank_room=room)

    assert search._time_is_up(clock(1.0), 100, state)  # the bank takes the 0.5 s saved
    assert not search._time_is_up(clock(0.1), 100, state)  # it cannot: search on, for the tree kept
    assert not search._time_is_up(clock(math.inf), 100_000, state)  # not decided at this rate: 50,000 to come


# ------------------------------------------------------------ guidance
class FakeGuide:
    """A network's stand-in (:class:`engines.go_search.Guide`): every position gets the
    same policy and value; it records the planes it was asked about."""

    def __init__(self, size, policy, value=0.0, encoder="simple"):
        from dlgo.encoders import get_encoder_by_name
        from dlgo.encoders.go_kernels import recipe_array

        self.encoder = get_encoder_by_name(encoder, f"go:size={size}")
        self.recipe, self.shape = recipe_array(self.encoder.go_planes()), self.encoder.shape
        self.policy, self.value = np.asarray(policy, np.float32), value
        self.asked: list[np.ndarray] = []

    def evaluate(self, planes):
        self.asked.append(planes.copy())
        return np.repeat(self.policy[None], len(planes), axis=0), np.full(len(planes), self.value, np.float32)


def guided_search(state, guide, rounds, **options):
    search = GoSearch(SearchSettings(**{"guide_after": 16, "prior_net": 300.0, **options}), POLICY, seed=1,
                      guide=guide)
    result = search.search(state, rounds=rounds, seconds=0.0, deadline=float("inf"), reuse=True)
    return search, result


def test_the_network_is_asked_about_the_root_at_once_and_each_node_simulated_guide_after_times():
    s = play(new_game("go:size=5"), "C3")
    guide = FakeGuide(5, np.full(26, 1 / 26))
    search, _ = guided_search(s, guide, rounds=600)
    assert np.array_equal(guide.asked[0][0], guide.encoder.encode(s))  # the root first, encoded as the encoder does
    tree, n = search.tree, search.tree.size[0]
    asked = sum(len(batch) for batch in guide.asked)
    assert asked == np.count_nonzero(tree.guided[:n] == 2) > 5  # every node asked about was answered
    often = (tree.num_children[:n] > 0) & (tree.visits[:n] >= 17)
    unanswered = np.count_nonzero(tree.guided[:n][often] == 0)  # the last batch, short of GUIDE_BATCH: dropped
    assert unanswered < GUIDE_BATCH and not np.any(tree.guided[:n] == 1)  # none left waiting
    again, _ = guided_search(s, FakeGuide(5, np.full(26, 1 / 26)), rounds=600)
    assert np.array_equal(again.tree.visits[:n], tree.visits[:n])  # the network answers after the same simulations


def test_the_policys_favourite_gets_the_simulations_and_the_value_shifts_the_node():
    s = new_game("go:size=5")
    favourite = point(s, "B2")
    policy = np.full(26, 1e-4)
    policy[favourite] = 1.0
    _, result = guided_search(s, FakeGuide(5, policy), rounds=400)
    assert result.move == Move.play(Point(2, 2)) and result.visits[favourite] > 0.5 * result.visits.sum()
    _, unguided = guided_search(s, FakeGuide(5, policy), rounds=400, prior_net=0.0)
    assert unguided.move != Move.play(Point(2, 2)) and unguided.visits[favourite] <= 2
    corner = point(s, "A1")
    policy[favourite], policy[corner] = 1e-4, 1.0
    _, misled = guided_search(s, FakeGuide(5, policy), rounds=400)
    assert misled.move.is_play and misled.move != Move.play(Point(1, 1))  # the playouts overrule the corner of 5x5


    tree, children = expanded_root(s)
    board, seen, color = playouts.compiled_position(s, room=100)
    settings = SearchSettings(guide_after=1, prior_net=100.0, value_share=0.5).kernel_settings(7.5, 250, True)
    guide = FakeGuide(5, policy)
    ws = mcts_kernels.new_workspace(kernels.copy_board(board), seen, 250, 1, guide.recipe, guide.shape, 4)
    before = tree.prior_wins.copy(), tree.prior_visits.copy()
    mcts_kernels.ask_network(tree, 0, board, kernels.geometry_arrays(5, 5), ws, color)
    assert ws.asking_size[0] == 1 and tree.guided[0] == 1
    mcts_kernels.apply_guidance(tree, ws, policy[None].astype(np.float64), np.array([0.5]), settings)
    share = policy[corner] / sum(policy[int(tree.move[c])] for c in children.values())
    assert tree.prior_wins[children[corner]] - before[0][children[corner]] == pytest.approx(100 * np.sqrt(share))
    assert tree.net_value[0] == 0.25  # the player to move expects to win 75%: the node's mover 25%
    assert ws.asking_size[0] == 0 and tree.guided[0] == 2

    # a simulation through the root and one child, won by black: the child's mover; the root is white's
    child = children[corner]
    ws.path[0], ws.path[1], ws.moves[0] = 0, child, corner
    mcts_kernels.backup(tree, ws, 1, 1, int(Player.black), int(Player.black), 25, 0.5)
    assert tree.wins[child] == 1.0  # below the deepest valued node (the root): the result alone
    assert tree.wins[0] == pytest.approx(0.5 * 0.0 + 0.5 * 0.25)  # at it: the mix, for its mover
    tree.net_value[child] = 0.9  # valued deeper: the child's own estimate counts, in both
    mcts_kernels.backup(tree, ws, 1, 1, int(Player.black), int(Player.black), 25, 0.5)
    assert tree.wins[child] == pytest.approx(1.0 + 0.95) and tree.wins[0] == pytest.approx(0.125 + 0.05)
    assert tree.visits[child] == tree.visits[0] == 2


def test_each_search_has_a_name_of_its_own_and_mcts_stands_for_the_games():
    """``uct`` and ``mcts-go`` are one algorithm each, every parameter acting on it; ``mcts``
    keeps its old specs' meaning: the same moves as ``mcts-go`` on Go and ``uct`` elsewhere,
    and a parameter of Go's search alone is an error on another game."""
    go, c4 = new_game("go:size=5"), new_game("connect4")
    assert engines.create("mcts:rounds=200,seed=3").select_move(go) == \
        engines.create("mcts-go:rounds=200,seed=3").select_move(go)
    assert engines.create("mcts:rounds=200,seed=3").select_move(c4) == \
        engines.create("uct:rounds=200,seed=3").select_move(c4)
    assert engines.create("mcts:rounds=200,seed=3,plain=true").select_move(go) == \
        engines.create("uct:rounds=200,seed=3").select_move(go)
    assert {p.name for p in engines.engine_parameters("uct")} == {"rounds", "seconds", "c", "seed", "reuse", "resign",
                                                                  "rollout"}
    with pytest.raises(SpecError, match="mcts-go plays Go, not connect4"):
        engines.check_engine("mcts-go:rounds=10", c4)
    with pytest.raises(SpecError, match="mcts on connect4 is uct, which has no rave, expand"):
        engines.check_engine("mcts:rounds=10,rave=false,expand=2", c4)
    engines.check_engine("mcts:rounds=10,rave=false", go)
    assert engines.engine_class("mcts").alias_of == ("mcts-go", "uct")
