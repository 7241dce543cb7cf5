"""The alphago engine: PUCT with a policy network's priors, leaves valued by a
value network and fast rollouts mixed by lam (``plain=true``), and on Go the
compiled Go search guided by the same networks; tiny networks on 5x5 Go."""
import shutil

import numpy as np
import pytest

from dlgo.core.errors import ModelFileError, SpecError
from dlgo.core.types import Player
from dlgo.games import new_game
from dlgo.games.go.patterns import NUM_FEATURES, PatternPolicy
from engines import registry
from engines.puct import PUCTAgent
from engines.rollouts import save_rollout_policy
from engines.checkpoints import SET_FILES, checkpoint_set, network_files
from helpers import go_position

pytest.importorskip("engines.neural.backend")


@pytest.fixture(scope="module")
def go5_set(tmp_path_factory):
    """``PREFIX-policy.keras``, ``PREFIX-value.keras`` and ``PREFIX-rollout.npz`` for 5x5 Go."""
    from dlgo.encoders import get_encoder_by_name
    from engines.neural.backend import keras, save_model
    from engines.neural.models import build_model

    folder = tmp_path_factory.mktemp("alphago")
    encoder = get_encoder_by_name("simple", "go:size=5")
    keras.utils.set_random_seed(0)
    for role, head in (("policy", "policy"), ("value", "value")):
        save_model(build_model("tiny", encoder.shape, encoder.num_moves, head=head), folder / f"go5-{role}.keras",
                   {"kind": "predictor" if head == "policy" else "value", "encoder": encoder.config()})
    save_rollout_policy(PatternPolicy(np.zeros(NUM_FEATURES)), folder / "go5-rollout.npz")
    return str(folder / "go5")


class FakeNetwork:
    """Answers every position with the same outputs (a LoadedModel's interface)."""

    def __init__(self, outputs):
        self.outputs = outputs
        self.encoder = self

    def encode_batch(self, states):
        return np.zeros((len(states), 1))

    def config(self):
        return {"name": "fake"}

    def call(self, batch):
        return [np.repeat(o[None], len(batch), axis=0) for o in self.outputs]


class MoverWins:
    def check(self, state):
        pass

    def playout(self, state, rng):
        return state.next_player


def test_a_leaf_is_valued_by_the_network_and_the_rollout_mixed_by_lam():
    from engines.alphago import AlphaGoEvaluator

    state = new_game("go:size=5")
    policy = FakeNetwork([np.full(26, 1 / 26)])
    value = FakeNetwork([np.array([0.8])])
    evaluator = AlphaGoEvaluator(policy, value, MoverWins(), lam=0.25)
    priors, values = evaluator.evaluate([state, state])
    assert priors.shape == (2, 26) and values.tolist() == pytest.approx([0.85, 0.85])  # 0.75 * 0.8 + 0.25 * 1
    assert evaluator.evaluations == 2 and evaluator.rollouts_played == 2
    alone = AlphaGoEvaluator(policy, None, MoverWins(), lam=0.25)  # no value network: rollouts alone
    assert alone.evaluate([state])[1].tolist() == [1.0]
    network_only = AlphaGoEvaluator(policy, value, MoverWins(), lam=0.0)
    assert network_only.evaluate([state])[1].tolist() == pytest.approx([0.8]) and network_only.rollouts_played == 0


def test_alphago_plays_legal_moves_from_a_checkpoint_set(go5_set):
    agent = registry.create(f"alphago:checkpoint={go5_set},simulations=40,plain=true", seed=1)
    state = new_game("go:size=5")
    agent.check_game(state)
    for _ in range(6):
        move = agent.select_move(state)
        assert state.is_valid_move(move)
        state = state.apply_move(move)
    report = agent.last_report
    assert report.visits is not None and report.visits.sum() >= 40  # 40 new simulations, and the kept tree's
    assert 30 <= agent.last_compute.amount <= 41  # one evaluation a simulation (none at a finished game)


def test_on_go_the_compiled_search_asks_the_networks_about_the_nodes_it_simulates_often(go5_set):
    agent = registry.create(f"alphago-go:checkpoint={go5_set},simulations=2000,guide=50", seed=1)
    state = new_game("go:size=5")
    for _ in range(4):
        move = agent.select_move(state)
        assert state.is_valid_move(move)
        state = state.apply_move(move)
    tree, n = agent._go.tree, agent._go.tree.size[0]
    asked = int(np.count_nonzero(tree.guided[:n] == 2))
    assert asked >= 2 and agent.evaluator.evaluations >= asked  # the root and the nodes simulated 50 times
    assert agent.last_compute.amount == 2000 and agent.last_compute.unit == "simulations"
    assert agent.last_report.visits.sum() >= 2000 and not isinstance(agent, PUCTAgent)  # no PUCT tree at all


class WhiteCenterLives:
    """A stand-in rollout with a known answer: white wins while it has a stone on C3."""

    def check(self, state):
        pass

    def playout(self, state, rng):
        return Player.white if state.board.get(state.parse_move("C3").point) == Player.white else Player.black


def test_alphago_finds_the_capture_that_wins(go5_set):
    state = go_position("""
        . . . . .
        . X X X .
        . O O O X
        . X X X .
        . . . . .
    """)  # black A3 takes the three white stones; any other move lets white A3 save them
    for batch in (1, 8):
        agent = registry.create(f"alphago-puct:checkpoint={go5_set},simulations=300,lam=1,batch={batch}", seed=3)
        agent.evaluator.rollouts = WhiteCenterLives()
        assert state.format_move(agent.select_move(state)) == "A3"
    compiled = registry.create(f"alphago:checkpoint={go5_set},simulations=1000", seed=3)  # its own playouts
    assert state.format_move(compiled.select_move(state)) == "A3"


def test_without_search_it_plays_the_policy_networks_move(go5_set):
    from engines.neural.loading import load_network

    state = new_game("go:size=5")
    agent = registry.create(f"alphago:checkpoint={go5_set},simulations=0,lam=0.5")  # with the value network
    predictor = registry.create(f"predictor:model={go5_set}-policy.keras")
    assert agent.select_move(state) == predictor.select_move(state)
    report = agent.last_report
    assert report.value is not None and -1 <= report.value <= 1
    assert report.policy is not None and np.allclose(report.policy, load_network(f"{go5_set}-policy.keras").call(
        load_network(f"{go5_set}-policy.keras").encoder.encode_batch([state]))[0][0])


def test_a_time_budget_stops_the_search(go5_set):
    agent = registry.create(f"alphago:checkpoint={go5_set},simulations=100000,seconds=0.05", seed=0)
    agent.select_move(new_game("go:size=5"))
    assert 1 <= agent.last_compute.amount < 100000


def test_bad_settings_get_one_clear_error(go5_set):
    with pytest.raises(SpecError, match="needs policy=PATH"):
        registry.create("alphago")
    with pytest.raises(SpecError, match="there is none"):
        registry.create(f"alphago:policy={go5_set}-policy.keras,lam=0.5")
    registry.create(f"alphago:policy={go5_set}-policy.keras,lam=1")  # rollouts alone need no value network
    with pytest.raises(SpecError, match="lam"):
        registry.create(f"alphago:checkpoint={go5_set},lam=1.5")
    with pytest.raises(ModelFileError, match="no checkpoint set"):
        registry.create("alphago:checkpoint=nowhere/none")
    with pytest.raises(ModelFileError, match="plays go:size=5"):
        registry.create(f"alphago:checkpoint={go5_set}").check_game(new_game("connect4"))


def test_a_checkpoint_set_is_fingerprinted_file_by_file(go5_set):
    files = checkpoint_set(go5_set)
    assert set(files) == {"policy", "value", "rollout"}
    assert sorted(map(str, network_files(f"alphago:checkpoint={go5_set}"))) == sorted(files.values())


def test_alphago_speaks_gtp_and_keeps_to_the_clock(go5_set):
    from dlgo.app.gtp_server import GtpFrontend
    from dlgo.gtp.protocol import parse_vertex

    frontend = GtpFrontend(registry.create(f"alphago:checkpoint={go5_set},simulations=100000", seed=0), size=5)
    assert frontend.handle("time_settings 60 0 0") == "=\n\n"  # a minute each, no byo-yomi
    assert frontend.handle("time_left b 1 0") == "=\n\n"  # one second left for the whole game
    reply = frontend.handle("genmove b")
    assert reply.startswith("= ") and frontend.state.last_move == parse_vertex(reply[2:].strip(), 5)
    assert frontend.agent.last_compute.amount < 100000  # the clock, not the simulations, ended the search
    with pytest.raises(ValueError, match="plays go:size=5"):
        GtpFrontend(registry.create(f"alphago:checkpoint={go5_set}"), size=9)


def test_a_set_is_complete_only_with_all_three_files(go5_set, tmp_path):
    from engines.checkpoints import complete_set

    assert complete_set(go5_set)
    assert not complete_set(str(tmp_path / "nothing"))  # no policy: no set, and no error
    partial = tmp_path / "partial"
    shutil.copyfile(checkpoint_set(go5_set)["policy"], f"{partial}-policy.keras")
    assert not complete_set(str(partial))


def test_the_shipped_go9_set_plays_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # found by name in checkpoints/, not by a path
    bot = registry.create("alphago:checkpoint=go9,simulations=96,seed=1")
    opening = bot.select_move(new_game("go:size=9"))
    assert opening.is_play and 3 <= opening.point.row <= 7 and 3 <= opening.point.col <= 7  # near the centre
    assert bot.last_report.visits.sum() >= 95 and -1 < bot.last_report.value < 1


def test_the_compiled_search_needs_networks_that_read_positions_alike(go5_set, tmp_path):
    from dlgo.encoders import get_encoder_by_name
    from engines.neural.backend import save_model
    from engines.neural.models import build_model

    encoder = get_encoder_by_name("sevenplane", "go:size=5")
    other = tmp_path / "seven-value.keras"
    save_model(build_model("tiny", encoder.shape, encoder.num_moves, head="value"), other,
               {"kind": "value", "encoder": encoder.config()})
    with pytest.raises(SpecError, match="read positions alike"):
        registry.create(f"alphago:policy={go5_set}-policy.keras,value={other},lam=0.5")
    registry.create(f"alphago:policy={go5_set}-policy.keras,value={other},plain=true")  # the PUCT search encodes apart
    guided = registry.create(f"alphago:policy={go5_set}-policy.keras,value={other}")  # lam=1 there: no value network
    assert guided.engines["alphago-go"].evaluator.value is None and guided.engines["alphago-go"].evaluator.lam == 1
    assert registry.create(f"alphago:checkpoint={go5_set},plain=true").engines["alphago-puct"].evaluator.lam == 0.5


def test_each_alphago_search_has_a_name_and_alphago_stands_for_the_networks_game(go5_set, tmp_path):
    """``alphago-go`` (Go's compiled search guided by the networks) and ``alphago-puct`` (the
    book's PUCT, any game) list only their own parameters; ``alphago`` keeps its old specs'
    meaning: with Go networks the guided search, with plain=true the PUCT one."""
    from dlgo.encoders import get_encoder_by_name
    from engines.neural.backend import save_model
    from engines.neural.models import build_model

    state = new_game("go:size=5")
    old, new = (registry.create(f"{name}:checkpoint={go5_set},simulations=300", seed=3)
                for name in ("alphago", "alphago-go"))
    assert old.select_move(state) == new.select_move(state) and new.unit == old.unit == "simulations"
    old, new = (registry.create(f"{name}:checkpoint={go5_set},simulations=40{extra}", seed=1)
                for name, extra in (("alphago", ",plain=true"), ("alphago-puct", "")))
    assert old.select_move(state) == new.select_move(state) and new.evaluator.lam == 0.5
    assert {"guide", "prior", "plain"}.isdisjoint(p.name for p in registry.engine_parameters("alphago-puct"))
    assert {"c", "fpu", "batch", "plain"}.isdisjoint(p.name for p in registry.engine_parameters("alphago-go"))
    encoder = get_encoder_by_name(None, "tictactoe")
    save_model(build_model("tiny", encoder.shape, encoder.num_moves, head="policy"), tmp_path / "ttt.keras",
               {"kind": "predictor", "encoder": encoder.config()})
    with pytest.raises(SpecError, match="alphago-go plays Go: its networks play tictactoe"):
        registry.create(f"alphago-go:policy={tmp_path / 'ttt.keras'},lam=1")
    assert registry.engine_class("alphago").alias_of == ("alphago-go", "alphago-puct")


def test_move_patterns_give_the_compiled_search_its_first_priors(go5_set, tmp_path):
    """``patterns=`` reaches the guided Go search (its log strengths in the rollout policy's
    place); the PUCT search, whose priors are the policy network's, refuses it."""
    from dlgo.games.go.move_features import LEVEL_NAMES
    from engines.rollouts import MovePatterns, save_move_patterns

    gammas = np.linspace(0.5, 3.0, len(LEVEL_NAMES))
    save_move_patterns(MovePatterns(gammas), tmp_path / "patterns.npz")
    agent = registry.create(f"alphago-go:checkpoint={go5_set},simulations=300,patterns={tmp_path / 'patterns.npz'}",
                            seed=1)
    state = new_game("go:size=5")
    for _ in range(3):
        move = agent.select_move(state)
        assert state.is_valid_move(move)
        state = state.apply_move(move)
    assert np.allclose(agent._go.log_gamma, np.log(gammas))
    with pytest.raises(SpecError, match="PUCT"):
        registry.create(f"alphago:checkpoint={go5_set},plain=true,patterns={tmp_path / 'patterns.npz'}")
    with pytest.raises(ModelFileError, match="not a move patterns file"):
        registry.create(f"alphago-go:checkpoint={go5_set},patterns={go5_set}-rollout.npz")
    own = tmp_path / "own"  # a set with its patterns: checkpoint= alone takes them
    for role, file in checkpoint_set(go5_set).items():
        shutil.copyfile(file, f"{own}{SET_FILES[role]}")
    shutil.copyfile(tmp_path / "patterns.npz", f"{own}-patterns.npz")
    assert str(tmp_path / "own-patterns.npz") in map(str, network_files(f"alphago:checkpoint={own}"))
    with_set = registry.create(f"alphago-go:checkpoint={own},simulations=50", seed=1)
    with_set.select_move(new_game("go:size=5"))
    assert np.allclose(with_set._go.log_gamma, np.log(gammas))
