"""The compiled forest (a batch of PUCT trees in flat arrays) against the readable
search over Node objects: the same visits, simulation for simulation, on the same
evaluations, so the same self-play games and training targets, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from dlgo.encoders import get_encoder_by_name
from dlgo.games import new_game
from engines import forest as forests
from engines.forest import CompiledForest, NodeForest, make_forest
from engines.gumbel import GumbelSearch
from engines.puct import Evaluator, PUCTSearch, RolloutEvaluator
from engines.training.selfplay import MatchSettings, SelfPlaySettings, _play_batched, play_batched_match


class HashedEvaluator(Evaluator):
    """A network stand-in that answers from the encoded planes alone: priors and
    values that differ from position to position, and ``salt`` to make another."""

    def __init__(self, game: str, salt: int = 0):
        self.encoder = get_encoder_by_name(None, game)
        self.salt = salt
        self.evaluations = 0
        self.calls: list[int] = []

    def check(self, state) -> None:
        self.encoder.check(state.game)

    def stone_planes(self):
        return self.encoder.stone_planes()

    def planes_shape(self):
        return self.encoder.shape

    def evaluate(self, states):
        return self.evaluate_planes(self.encoder.encode_batch(list(states)))

    def evaluate_planes(self, planes):
        n = len(planes)
        self.evaluations += n
        self.calls.append(n)
        flat = planes.reshape(n, -1).astype(np.float64)
        weights = np.arange(1, flat.shape[1] + 1, dtype=np.float64) ** 2 + self.salt
        h = (flat @ weights).astype(np.int64) * 2654435761 % (1 << 31)
        moves = self.encoder.num_moves
        priors = np.exp(np.sin(h[:, None] * (np.arange(moves) + 1.0) * 1e-3)).astype(np.float32)
        priors /= priors.sum(axis=1, keepdims=True)
        values = np.tanh(np.cos(h * 1e-4 + self.salt)).astype(np.float32)  # any float32: the sums must still agree
        return priors, values


def _self_play(game: str, compiled: bool, games: int = 12, **search):
    evaluator = HashedEvaluator(game)
    puct = PUCTSearch(evaluator, c=1.5, seed=7, **search)
    settings = SelfPlaySettings(parallel=5, simulations=30, temperature_moves=4, compiled=compiled)
    played = _play_batched(game, [puct], lambda index, player: 0, games, settings, noise=True,
                           rng=np.random.default_rng(11), progress=False, desc="self-play")
    return played, evaluator


@pytest.mark.parametrize("game", ["connect4", "tictactoe", "connectn:columns=5,rows=4,n=4", "mnk:m=4,n=4,k=3"])
@pytest.mark.parametrize("search", [{}, {"fpu": 0.3, "forced_playouts": 2.0}], ids=["plain", "fpu-forced"])
def test_compiled_self_play_is_the_readable_self_play_bit_for_bit(game, search):
    readable, slow = _self_play(game, compiled=False, **search)
    compiled, fast = _self_play(game, compiled=True, **search)
    assert [g.state.moves_text() for g in compiled] == [g.state.moves_text() for g in readable]
    for a, b in zip(compiled, readable):
        assert len(a.positions) == len(b.positions)
        for (state_a, pi_a, q_a), (state_b, pi_b, q_b) in zip(a.positions, b.positions):
            assert state_a.zobrist_hash() == state_b.zobrist_hash()
            np.testing.assert_array_equal(pi_a, pi_b)  # the visits (and, forced, their pruning): equal
            assert q_a == q_b
        assert a.played == b.played
    assert fast.calls == slow.calls  # the same leaves a step went to the network together


def test_a_pool_that_fills_compacts_and_grows_and_searches_the_same(monkeypatch):
    monkeypatch.setattr(forests, "NODES_PER_GAME", 1)  # room for one node: every move compacts or grows
    readable, _ = _self_play("connect4", compiled=False, games=6)
    compiled, _ = _self_play("connect4", compiled=True, games=6)
    assert [g.state.moves_text() for g in compiled] == [g.state.moves_text() for g in readable]
    assert [[pi.tolist() for _, pi, _ in g.positions] for g in compiled] == \
        [[pi.tolist() for _, pi, _ in g.positions] for g in readable]


def test_a_compacted_pool_keeps_the_live_trees_whole():
    """Compaction drops the finished games' nodes and the moves played; the trees
    kept answer as before, renumbered."""
    evaluator = HashedEvaluator("connect4")
    forest = make_forest(PUCTSearch(evaluator, seed=1), new_game("connect4").game)
    assert isinstance(forest, CompiledForest)
    start = new_game("connect4")
    for key in range(4):
        forest.plant(key, start.apply_action(key))
    forest.expand_roots(range(4))
    forest.search(range(4), [40, 10, 25, 3])
    forest.fell(1)
    forest.advance(2, int(forest.root(2).actions[np.argmax(forest.root(2).N)]),
                   start.apply_action(2).apply_action(int(forest.root(2).actions[np.argmax(forest.root(2).N)])))
    before = {key: forest.root(key) for key in (0, 2, 3)}
    used = forest.nodes
    forest._make_room(forest.capacity)  # more than is free: compacts (and grows)
    assert forest.nodes < used
    for key, root in before.items():
        after = forest.root(key)
        np.testing.assert_array_equal(after.N, root.N)
        np.testing.assert_array_equal(after.W, root.W)
        np.testing.assert_array_equal(after.P, root.P)
    forest.search([0, 2, 3], [5, 5, 5])  # and the search goes on in them
    assert forest.root(0).N.sum() == 45


def test_the_leaves_are_encoded_as_the_encoder_encodes_them():
    rng = np.random.default_rng(3)
    for game in ("connect4", "tictactoe"):
        evaluator = HashedEvaluator(game)
        forest = make_forest(PUCTSearch(evaluator), new_game(game).game)
        states = []
        for key in range(20):
            state = new_game(game)
            for _ in range(int(rng.integers(0, 6))):
                state = state.apply_action(int(rng.choice(state.legal_actions())))
            states.append(state)
            forest.plant(key, state)
        from engines import forest_kernels

        nodes = np.array([forest.roots[forest.slot[key]] for key in range(20)], np.int32)
        planes = np.full((20, *evaluator.encoder.shape), 7.0, np.float32)
        forest_kernels.encode_leaves(forest.pool, forest.tables, nodes, 20, planes, forest.recipe)
        np.testing.assert_array_equal(planes, evaluator.encoder.encode_batch(states))


def test_batched_matches_are_the_same_with_either_forest():
    def match(compiled: bool) -> list[float]:
        return play_batched_match("connect4", HashedEvaluator("connect4", 0), HashedEvaluator("connect4", 5), 8,
                                  MatchSettings(parallel=4, simulations=12, compiled=compiled), seed=2)

    scores = match(True)
    assert scores == match(False)
    assert len(scores) == 8


def test_the_compiled_forest_plays_where_it_can_and_the_readable_one_elsewhere():
    connect4 = new_game("connect4").game
    assert isinstance(make_forest(PUCTSearch(HashedEvaluator("connect4")), connect4), CompiledForest)
    assert isinstance(make_forest(PUCTSearch(HashedEvaluator("connect4")), connect4, compiled=False), NodeForest)
    from engines.forest import GumbelForest

    assert isinstance(make_forest(GumbelSearch(HashedEvaluator("connect4")), connect4), GumbelForest)
    assert isinstance(make_forest(GumbelSearch(HashedEvaluator("connect4")), connect4, compiled=False), NodeForest)
    assert isinstance(make_forest(PUCTSearch(RolloutEvaluator()), connect4), NodeForest)  # reads no planes
    pie = new_game("connectn:columns=7,rows=6,n=4,pie_rule=true").game
    assert pie.compiled_rules() is None  # the swap: not in the kernels
    assert new_game("gomoku").game.compiled_rules() is None  # 225 cells: more than a word


def test_a_wrong_games_network_is_refused_at_the_first_game():
    from dlgo.core.errors import ModelFileError

    forest = make_forest(PUCTSearch(HashedEvaluator("connect4")), new_game("tictactoe").game)
    with pytest.raises(ModelFileError):
        forest.plant(0, new_game("tictactoe"))


def test_pairwise_sum_adds_up_as_numpy_does():
    from engines.forest_kernels import pairwise_sum

    rng = np.random.default_rng(0)
    for n in [*range(0, 140), *range(240, 260), *range(480, 500), 626, 968]:
        a = rng.standard_normal(n)
        assert pairwise_sum(a, n) == a.sum()  # bit for bit, past 128 numbers too (a 19x19 board has 362 actions)


def test_a_network_self_plays_the_same_games_in_either_forest(tmp_path):
    """A real (tiny, untrained) network's float32 answers: the same games either way."""
    pytest.importorskip("keras")
    from engines.alphazero import NetworkEvaluator
    from engines.neural.backend import save_model
    from engines.neural.loading import load_network
    from engines.neural.resnet import build_resnet
    from engines.training.selfplay import self_play

    encoder = get_encoder_by_name(None, "connect4")
    path = tmp_path / "net.keras"
    save_model(build_resnet(encoder.shape, encoder.num_moves, blocks=1, filters=8), path,
               {"kind": "alphazero", "encoder": encoder.config()})
    network = load_network(path)

    def play(compiled: bool):
        return self_play("connect4", NetworkEvaluator(network), encoder, 4,
                         SelfPlaySettings(parallel=4, simulations=10, compiled=compiled), seed=4)

    fast, slow = play(True), play(False)
    assert fast.moves == slow.moves
    np.testing.assert_array_equal(fast.policies, slow.policies)
    np.testing.assert_array_equal(fast.values, slow.values)
    assert fast.evaluations == slow.evaluations


@pytest.mark.parametrize("engine", ["alphazero:simulations=30", "gumbel:simulations=20,considered=4"])
def test_the_network_engines_play_the_same_game_in_a_compiled_tree(engine, tmp_path, monkeypatch):
    """The engines at play: the same moves, visits and lines as their readable searches
    (alphazero's tree kept between moves, gumbel's fresh each move)."""
    pytest.importorskip("keras")
    import engines
    from engines import alphazero
    from engines.neural.backend import save_model
    from engines.neural.resnet import build_resnet

    encoder = get_encoder_by_name(None, "connect4")
    path = tmp_path / "net.keras"
    save_model(build_resnet(encoder.shape, encoder.num_moves, blocks=1, filters=8), path,
               {"kind": "alphazero", "encoder": encoder.config()})

    def game(spec: str) -> list:
        agent, opponent = engines.create(spec), engines.create("alphazero:checkpoint=" + str(path) +
                                                              ",simulations=7,temperature=1,seed=3")
        state, reports = new_game("connect4"), []
        while not state.is_over():
            mover = agent if len(reports) % 2 == 0 else opponent
            move = mover.select_move(state)
            if mover is agent:
                report = agent.last_report
                reports.append((state.format_move(move), report.visits.tolist(), report.principal_variation))
            else:
                reports.append(state.format_move(move))
            state = state.apply_move(move)
        return reports, agent.forest is not None

    name, settings = engine.split(":")
    spec = f"{name}:checkpoint={path},{settings},temperature=1,seed=5"
    compiled = game(spec)
    monkeypatch.setattr(alphazero, "make_forest", lambda search, game: NodeForest(search))
    readable = game(spec)
    assert compiled == (readable[0], True) and not readable[1]
    assert any(len(line) > 1 for entry in compiled[0] if isinstance(entry, tuple) for line in [entry[2]])
