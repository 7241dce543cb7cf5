"""The compiled Go forest (every game's PUCT tree in flat arrays, the positions on
Go's compiled board) against the readable search over Node objects: the same
visits, simulation for simulation, on the same evaluations, so the same
self-play games and training targets, bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from dlgo.core.errors import ModelFileError
from dlgo.core.types import Player
from dlgo.games import new_game
from engines import forest as forests
from engines.forest import GoForest, NodeForest, go_planes_of, make_forest
from engines.puct import PUCTSearch
from engines.training.selfplay import SelfPlaySettings, _play_batched
from test_forest import HashedEvaluator


class GoHashedEvaluator(HashedEvaluator):
    """test_forest's network stand-in on Go: it reads the planes of the game's
    encoder (``simple``: stones by liberties, who is to move, ko) and says how
    they read a Go position, as the compiled forest asks (``go_planes``)."""

    def go_planes(self):
        return self.encoder.go_planes()


def compiled_forest(search, game) -> GoForest:
    """The forest self-play and the engines take for a Go search (make_forest): the compiled one."""
    forest = make_forest(search, game)
    assert isinstance(forest, GoForest)
    return forest


def _self_play(game: str, compiled: bool, games: int, simulations: int, opening_moves: int = 0, **search):
    evaluator = GoHashedEvaluator(game)
    puct = PUCTSearch(evaluator, c=1.5, seed=7, **search)
    settings = SelfPlaySettings(parallel=4, simulations=simulations, temperature_moves=4, compiled=compiled,
                                opening_moves=opening_moves)
    played = _play_batched(game, [puct], lambda index, player: 0, games, settings, noise=True,
                           rng=np.random.default_rng(11), progress=False, desc="self-play")
    return played, evaluator


def _assert_the_same(compiled, readable) -> None:
    assert [g.state.moves_text() for g in compiled] == [g.state.moves_text() for g in readable]
    for a, b in zip(compiled, readable):
        assert len(a.positions) == len(b.positions)
        for (state_a, pi_a, q_a), (state_b, pi_b, q_b) in zip(a.positions, b.positions):
            assert state_a.zobrist_hash() == state_b.zobrist_hash()
            np.testing.assert_array_equal(pi_a, pi_b)  # the visits (and, forced, their pruning): equal
            assert q_a == q_b
        assert a.played == b.played


@pytest.mark.parametrize("game, games, simulations", [("go:size=5", 8, 24), ("go:size=9", 4, 10)], ids=["5x5", "9x9"])
@pytest.mark.parametrize("search", [{}, {"fpu": 0.3, "forced_playouts": 2.0}], ids=["plain", "fpu-forced"])
def test_compiled_go_self_play_is_the_readable_self_play_bit_for_bit(game, games, simulations, search):
    readable, slow = _self_play(game, False, games, simulations, **search)
    compiled, fast = _self_play(game, True, games, simulations, **search)
    _assert_the_same(compiled, readable)
    assert fast.calls == slow.calls  # the same leaves a step went to the network together
    for g in compiled:
        assert g.state.is_over() and [m.is_pass for m in g.state.move_history()[-2:]] == [True, True]
    if game == "go:size=5":  # what the rules are about was played: captures, and ko points in the planes
        assert sum(g.state.board.captures[Player.black] + g.state.board.captures[Player.white] for g in compiled)
        assert any(state.ko_points() for g in compiled for state, _, _ in g.positions)


def test_games_from_openings_the_same():
    """Games that start after random moves: each root put on the compiled board by replaying its game."""
    readable, _ = _self_play("go:size=5", False, 6, 16, opening_moves=8)
    compiled, _ = _self_play("go:size=5", True, 6, 16, opening_moves=8)
    _assert_the_same(compiled, readable)


def test_a_pool_and_superko_sets_that_fill_grow_and_search_the_same(monkeypatch):
    monkeypatch.setattr(forests, "NODES_PER_GAME", 1)  # room for one node: every move compacts or grows
    monkeypatch.setattr(forests, "FIRST_ROOM", 1)  # and each game's positions outgrow their set
    readable, _ = _self_play("go:size=5", False, 5, 20, fpu=0.2)
    compiled, _ = _self_play("go:size=5", True, 5, 20, fpu=0.2)
    _assert_the_same(compiled, readable)


def _positions(spec: str, count: int, seed: int) -> list:
    """Positions of random games (the sensible actions, passes now and then), one game after another."""
    rng = np.random.default_rng(seed)
    positions, state = [], new_game(spec)
    while len(positions) < count:
        actions = state.sensible_actions()
        pass_index = state.num_actions - 1
        action = pass_index if rng.random() < 0.08 else int(rng.choice(actions))
        state = state.apply_action(action if action in actions or action == pass_index else actions[0])
        if state.is_over():
            state = new_game(spec)
            continue
        positions.append(state)
    return positions


@pytest.mark.parametrize("spec", ["go:size=5", "go:size=7,handicap=2,komi=0.5", "go:size=9"])
def test_the_roots_edges_and_planes_are_the_references(spec):
    """Each position's edges are its sensible actions (superko, eyes, passes) and its planes the encoder's."""
    evaluator = GoHashedEvaluator(spec)
    game = new_game(spec).game
    forest = compiled_forest(PUCTSearch(evaluator), game)
    states = _positions(spec, 300, seed=3)
    assert any(state.ko_points() for state in states)
    for key, state in enumerate(states):
        forest.plant(key, state)
    rows = np.array([forest.slot[key] for key in range(len(states))], np.int64)
    nodes = forest.roots[rows]
    planes = np.full((len(states), *evaluator.encoder.shape), 7.0, np.float32)
    forest.go.prepare_roots(forest.pool, forest.games, forest.tables, rows, nodes, forest.legal, planes, forest.recipe)
    np.testing.assert_array_equal(planes, evaluator.encoder.encode_batch(states))
    for state, node in zip(states, nodes):
        assert forest.pool.action[node, :forest.pool.slots[node]].tolist() == state.sensible_actions()


def test_a_root_that_is_not_the_move_played_is_set_up_afresh():
    evaluator = GoHashedEvaluator("go:size=5")
    forest = compiled_forest(PUCTSearch(evaluator, seed=1), new_game("go:size=5").game)
    start = new_game("go:size=5")
    forest.plant(0, start)
    forest.expand_roots([0])
    forest.search([0], [12])
    elsewhere = start.apply_action(3).apply_action(7)
    forest.advance(0, 12, elsewhere)  # not where the move 12 leads: a new tree at the state given
    assert not forest.root(0).expanded
    forest.expand_roots([0])
    assert forest.root(0).actions.tolist() == elsewhere.sensible_actions()


def test_a_wrong_games_network_is_refused():
    nine = new_game("go:size=9").game
    forest = compiled_forest(PUCTSearch(GoHashedEvaluator("go:size=5")), nine)
    with pytest.raises(ModelFileError):
        forest.plant(0, new_game("go:size=9"))
    with pytest.raises(TypeError):  # rules of another family
        GoForest(PUCTSearch(GoHashedEvaluator("go:size=5")), GoHashedEvaluator("go:size=5"),
                 new_game("connect4").game.compiled_rules(), 82)
    with pytest.raises(ValueError):  # an encoder that does not read Go compiled
        GoForest(PUCTSearch(HashedEvaluator("connect4")), HashedEvaluator("connect4"), nine.compiled_rules(), 82)


def test_the_go_planes_are_found_on_the_evaluator_or_its_networks_encoder():
    evaluator = GoHashedEvaluator("go:size=5")
    assert go_planes_of(evaluator) == evaluator.encoder.go_planes()

    class Loaded:
        encoder = evaluator.encoder

    class Network:
        loaded = Loaded()

    assert go_planes_of(Network()) == evaluator.encoder.go_planes()
    assert go_planes_of(object()) is None


@pytest.fixture(scope="module")
def tiny_network(tmp_path_factory):
    """A real (tiny, untrained) network for 5x5 Go, saved: its path and its encoder."""
    pytest.importorskip("keras")
    from dlgo.encoders import get_encoder_by_name
    from engines.neural.backend import save_model
    from engines.neural.resnet import build_resnet

    encoder = get_encoder_by_name(None, "go:size=5")
    path = tmp_path_factory.mktemp("go-net") / "net.keras"
    save_model(build_resnet(encoder.shape, encoder.num_moves, blocks=1, filters=8), path,
               {"kind": "alphazero", "encoder": encoder.config()})
    return path, encoder


def test_a_network_self_plays_the_same_go_games_in_either_forest(tiny_network, monkeypatch):
    """A real network's float32 answers, its encoder's Go reading found through it
    (``loaded.encoder``): self-play takes the compiled Go forest by default."""
    from engines.alphazero import NetworkEvaluator
    from engines.neural.loading import load_network
    from engines.training import selfplay

    path, encoder = tiny_network
    network = load_network(path)
    forests_made: list = []

    def recorded(search, game, compiled=True):
        forests_made.append(make_forest(search, game, compiled))
        return forests_made[-1]

    monkeypatch.setattr(selfplay, "make_forest", recorded)

    def play(compiled: bool):
        return selfplay.self_play("go:size=5", NetworkEvaluator(network), encoder, 3,
                                  SelfPlaySettings(parallel=3, simulations=8, compiled=compiled), seed=4)

    fast = play(True)
    assert forests_made and all(isinstance(forest, GoForest) for forest in forests_made)
    slow = play(False)
    assert not isinstance(forests_made[-1], GoForest)
    assert fast.moves == slow.moves
    np.testing.assert_array_equal(fast.policies, slow.policies)
    np.testing.assert_array_equal(fast.values, slow.values)
    assert fast.evaluations == slow.evaluations


def test_the_alphazero_engine_plays_the_same_go_game_in_a_compiled_tree(tiny_network, monkeypatch):
    """The engine at play (its tree kept between moves, a clock's deadline checked, its
    report's line read from the tree): the same moves, visits and lines as its readable search."""
    import engines
    from engines import alphazero

    path, _ = tiny_network

    def game() -> tuple[list, bool]:
        agent = engines.create(f"alphazero:checkpoint={path},simulations=24,temperature=1,seed=5")
        opponent = engines.create(f"alphazero:checkpoint={path},simulations=6,temperature=1,seed=3")
        state, reports = new_game("go:size=5"), []
        while not state.is_over():
            mover = agent if len(reports) % 2 == 0 else opponent
            move = mover.select_move(state)
            if mover is agent:
                report = agent.last_report
                reports.append((state.format_move(move), report.visits.tolist(), report.principal_variation))
            else:
                reports.append(state.format_move(move))
            state = state.apply_move(move)
        return reports, isinstance(agent.forest, GoForest)

    compiled = game()
    monkeypatch.setattr(alphazero, "make_forest", lambda search, game: NodeForest(search))
    readable = game()
    assert compiled == (readable[0], True) and not readable[1]
    assert any(len(entry[2]) > 1 for entry in compiled[0] if isinstance(entry, tuple))  # lines from the tree
