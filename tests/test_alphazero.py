"""AlphaZero: the policy-value ResNet (shapes, outputs in range, compiled = eager,
save/load, a fit that learns) and the engine that searches with it."""
import math

import numpy as np
import pytest

backend = pytest.importorskip("engines.neural.backend")

from dlgo.encoders import get_encoder_by_name  # noqa: E402
from engines.neural.resnet import build_resnet  # noqa: E402


@pytest.mark.parametrize("game", ["tictactoe", "connect4", "go:size=5"])
def test_heads_fit_the_game(game):
    enc = get_encoder_by_name(None, game)
    model = build_resnet(enc.shape, enc.num_moves, blocks=1, filters=8)
    x = np.random.default_rng(0).integers(0, 2, size=(3,) + enc.shape).astype(np.float32)
    policy, value = backend.compiled_call(model)(x)
    assert policy.shape == (3, enc.num_moves) and value.shape == (3, 1)
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, rtol=1e-5)
    assert (np.abs(value) <= 1).all()
    eager = model(x, training=False)
    np.testing.assert_allclose(policy, backend.keras.ops.convert_to_numpy(eager[0]), rtol=1e-5, atol=1e-6)


def test_blocks_filters_and_l2_are_what_was_asked():
    model = build_resnet((6, 7, 3), 7, blocks=3, filters=16, l2=1e-3)
    assert sum(1 for layer in model.layers if layer.name.endswith("_add")) == 3
    assert model.get_layer("block3b_conv").filters == 16
    assert len(model.losses) > 0  # the L2 penalties
    with pytest.raises(ValueError, match="blocks >= 0"):
        build_resnet((3, 3, 3), 9, blocks=-1)


def test_save_load_round_trip_and_a_fit_that_learns(tmp_path):
    keras = backend.keras
    model = build_resnet((3, 3, 3), 9, blocks=1, filters=8, l2=0.0)
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01),
                  loss=[keras.losses.CategoricalCrossentropy(), keras.losses.MeanSquaredError()])
    rng = np.random.default_rng(1)
    x = rng.integers(0, 2, size=(64, 3, 3, 3)).astype(np.float32)
    target_policy = np.eye(9, dtype=np.float32)[x[:, :, :, 0].reshape(64, 9).argmax(axis=1)]
    target_value = np.where(x[:, 1, 1, 0] > 0, 1.0, -1.0).astype(np.float32)[:, None]
    first = model.evaluate(x, [target_policy, target_value], verbose=0)[0]
    model.fit(x, [target_policy, target_value], epochs=30, batch_size=16, verbose=0)
    assert model.evaluate(x, [target_policy, target_value], verbose=0)[0] < 0.5 * first
    backend.save_model(model, tmp_path / "az.keras", {"kind": "alphazero"})
    loaded, meta = backend.load_model(tmp_path / "az.keras")
    assert meta == {"kind": "alphazero"}
    for a, b in zip(backend.compiled_call(model)(x), backend.compiled_call(loaded)(x)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def untrained_ttt(tmp_path_factory):
    enc = get_encoder_by_name(None, "tictactoe")
    path = tmp_path_factory.mktemp("az") / "ttt.keras"
    backend.save_model(build_resnet(enc.shape, enc.num_moves, blocks=1, filters=8), path,
                       {"kind": "alphazero", "encoder": enc.config()})
    return path


def test_untrained_network_with_search_finds_the_win_and_blocks_the_loss(untrained_ttt):
    """Exact terminal values inside the tree are enough, whatever the network says."""
    import engines
    from dlgo.games import new_game
    from helpers import play

    agent = engines.create(f"alphazero:checkpoint={untrained_ttt},simulations=300,seed=1")
    win = play(new_game("tictactoe"), "a1", "a2", "b1", "b2")
    assert agent.select_move(win) == win.parse_move("c1")
    assert agent.last_compute.unit == "evaluations" and 0 < agent.last_compute.amount <= 301
    agent.new_game()
    block = play(new_game("tictactoe"), "a1", "a2", "c3", "b2")
    assert agent.select_move(block) == block.parse_move("c2")


def test_symmetry_averaging_makes_the_evaluation_symmetric(untrained_ttt):
    """Averaged over the 8 symmetries, a position and any of its images get the same
    value and the same priors, moved along; the bare untrained network does not."""
    from dlgo.games import new_game
    from engines.alphazero import NetworkEvaluator
    from engines.neural.loading import load_network

    loaded = load_network(untrained_ttt)
    start = new_game("tictactoe")
    moves = [start.move_to_index(start.parse_move(m)) for m in ("a1", "b3")]

    def position(actions):
        state = start
        for a in actions:
            state = state.apply_move(state.index_to_move(int(a)))
        return state

    syms = start.game.symmetries()
    images = [position(sym.actions[moves]) for sym in syms]
    averaged, bare = NetworkEvaluator(loaded, symmetries=True), NetworkEvaluator(loaded)
    policies, values = averaged.evaluate(images)
    for sym, policy, value in zip(syms, policies, values):
        np.testing.assert_allclose(policy[sym.actions], policies[0], rtol=1e-4, atol=1e-6)
        assert value == pytest.approx(values[0], abs=1e-5)
    assert averaged.evaluations == len(images)
    bare_policies, bare_values = bare.evaluate(images)
    spread = max(np.abs(policy[sym.actions] - bare_policies[0]).max() for sym, policy in zip(syms, bare_policies))
    assert max(spread, np.ptp(bare_values)) > 1e-3


def test_raw_policy_and_tree_reuse(untrained_ttt, monkeypatch):
    """The readable search's tree reuse (the compiled tree's: tests/test_forest.py)."""
    import engines
    from dlgo.games import new_game
    from engines import alphazero
    from engines.forest import NodeForest

    monkeypatch.setattr(alphazero, "make_forest", lambda search, game: NodeForest(search))

    raw = engines.create(f"alphazero:checkpoint={untrained_ttt},simulations=0")
    state = new_game("tictactoe")
    assert state.is_valid_move(raw.select_move(state)) and raw.last_compute.amount == 1
    agent = engines.create(f"alphazero:checkpoint={untrained_ttt},simulations=50,seed=2")
    move = agent.select_move(state)
    kept = agent.root  # the node after our move, with the replies it has searched
    assert kept is not None and kept.state.zobrist_hash() == state.apply_move(move).zobrist_hash()
    i = max(kept.children, key=lambda k: kept.N[k])
    after = kept.children[i].state
    node = agent._reusable_node(after)
    assert node is kept.children[i]
    visits_before = node.N.sum()
    agent.select_move(after)
    assert node.N.sum() == visits_before + 50  # the search went on from the kept visits
    with pytest.raises(ValueError, match="needs checkpoint=PATH"):
        engines.create("alphazero")


def test_a_training_iteration_with_playout_cap_randomisation_keeps_fewer_positions(tmp_path):
    from engines.training.alphazero import AlphaZeroConfig, train_alphazero
    from engines.training.replay import ReplayBuffer

    config = AlphaZeroConfig(game="connect4", blocks=1, filters=8, games=4, parallel=4, simulations=8,
                             fast_simulations=2, full_fraction=0.3, batch_size=16, train_steps=2, eval_games=2,
                             eval_simulations=4, previous_games=2, publish="latest")
    history = train_alphazero(tmp_path, config, iterations=1, progress=False, workers=2)
    buffer = ReplayBuffer.load(tmp_path / "buffer-001.npz")
    assert len(buffer.games) == 4
    assert history["examples"].iloc[0] == sum(len(g[1]) for g in buffer.games)
    assert history["examples"].iloc[0] < 4 * 7  # a Connect Four game has at least 7 moves; most went unrecorded


def test_a_tiny_training_iteration_runs_and_resumes_with_the_same_buffer(tmp_path):
    from dlgo.arena.ratings import elo_from_score
    from engines.training.alphazero import AlphaZeroConfig, train_alphazero
    from engines.training.replay import ReplayBuffer

    config = AlphaZeroConfig(game="tictactoe", blocks=1, filters=8, games=4, parallel=4, simulations=8,
                             buffer_games=6, batch_size=16, train_steps=3, eval_games=2, eval_simulations=4,
                             learning_rate_drops=[2], learning_rate_drop=0.5, publish="latest")
    history = train_alphazero(tmp_path, config, iterations=1, progress=False)
    assert list(history["iteration"]) == [1]
    assert {"loss", "policy_loss", "value_loss", "score_vs_random", "score_vs_previous", "elo"} <= set(history.columns)
    assert 0 <= history["score_vs_previous"].iloc[0] <= 1
    assert (tmp_path / "checkpoints" / "iter-000.keras").exists()  # the untrained network: Elo 0
    assert (tmp_path / "checkpoint.keras").exists() and (tmp_path / "buffer-001.npz").exists()
    buffer_after_one = ReplayBuffer.load(tmp_path / "buffer-001.npz")
    assert len(buffer_after_one.games) == 4
    # A second call continues: iteration 2 starts from iteration 1's network and buffer
    # (its self-play in two worker processes, which load iteration 1's checkpoint).
    history = train_alphazero(tmp_path, config, iterations=2, progress=False, workers=2)
    assert list(history["iteration"]) == [1, 2]
    assert list(history["learning_rate"]) == pytest.approx([1e-3, 5e-4])  # the drop at iteration 2
    elo_gain = elo_from_score(history["score_vs_previous"].iloc[1], config.previous_games)
    assert history["elo"].iloc[1] == pytest.approx(history["elo"].iloc[0] + elo_gain)
    buffer = ReplayBuffer.load(tmp_path / "buffer-002.npz")
    assert len(buffer.games) == 6  # capacity: the two oldest of 8 games dropped
    for a, b in zip(list(buffer_after_one.games)[2:], list(buffer.games)[:2]):
        np.testing.assert_array_equal(a[1], b[1])
    assert not (tmp_path / "buffer-001.npz").exists()
    with pytest.raises(ValueError, match="other settings"):
        train_alphazero(tmp_path, AlphaZeroConfig(game="tictactoe", blocks=2), iterations=3, progress=False)
    import engines
    agent = engines.create(f"alphazero:checkpoint={tmp_path / 'checkpoint.keras'},simulations=4")
    from dlgo.games import new_game
    assert new_game("tictactoe").is_valid_move(agent.select_move(new_game("tictactoe")))


def test_a_run_stopped_and_resumed_learns_exactly_what_an_unbroken_run_learns(tmp_path):
    """Each iteration draws its games and its training batches from its own
    seed, so a resumed run repeats the unbroken one weight for weight."""
    from engines.neural.backend import load_model
    from engines.training.alphazero import AlphaZeroConfig, train_alphazero

    config = AlphaZeroConfig(game="tictactoe", blocks=1, filters=8, games=4, parallel=4, simulations=8,
                             batch_size=16, train_steps=3, eval_games=0, previous_games=2, eval_simulations=4,
                             baselines=[])
    train_alphazero(tmp_path / "unbroken", config, iterations=3, progress=False)
    train_alphazero(tmp_path / "resumed", config, iterations=1, progress=False)
    train_alphazero(tmp_path / "resumed", config, iterations=2, progress=False)
    weights = [load_model(tmp_path / run / "checkpoints" / "iter-002.keras")[0].get_weights()
               for run in ("unbroken", "resumed")]
    assert all(np.array_equal(a, b) for a, b in zip(*weights))
    # packed (its resume state alone, as a later session finds it committed), the run folder gone:
    # the pack goes on as the run would have
    import shutil

    from dlgo.app.cli import main

    assert main(["pack-run", str(tmp_path / "resumed"), str(tmp_path / "packed"), "--keep", "1"]) == 0
    packed = sorted(p.relative_to(tmp_path / "packed").as_posix() for p in (tmp_path / "packed").rglob("*")
                    if p.is_file() and p.name != ".lock")
    assert packed == ["buffer-002.npz", "checkpoint.keras", "checkpoints/iter-001.keras", "checkpoints/iter-002.keras",
                      "config.json", "history.csv", "run.json"]

    def optimizer(name: str):
        return getattr(load_model(tmp_path / "packed" / "checkpoints" / name)[0], "optimizer", None)

    assert optimizer("iter-001.keras") is None and optimizer("iter-002.keras") is not None  # only what is trained on
    shutil.rmtree(tmp_path / "resumed")
    train_alphazero(tmp_path / "packed", config, iterations=3, progress=False)
    weights = [load_model(tmp_path / run / "checkpoints" / "iter-003.keras")[0].get_weights()
               for run in ("unbroken", "packed")]
    assert all(np.array_equal(a, b) for a, b in zip(*weights))
    assert main(["pack-run", str(tmp_path / "packed"), str(tmp_path / "again")]) == 0  # iteration 3's state
    assert not (tmp_path / "again" / "checkpoints" / "iter-001.keras").exists()
    assert main(["pack-run", str(tmp_path / "unbroken"), str(tmp_path / "again")]) == 0  # brought up to date
    assert (tmp_path / "again" / "buffer-003.npz").exists()
    assert main(["pack-run", str(tmp_path / "nothing"), str(tmp_path / "elsewhere")]) != 0  # not a run
    assert not (tmp_path / "elsewhere").exists()


def test_the_shipped_tictactoe_checkpoint_holds_alpha_beta_from_both_sides():
    from pathlib import Path

    from dlgo.arena.match import play_match
    from engines import ENGINES

    checkpoint = Path(__file__).resolve().parent.parent / "checkpoints" / "tictactoe.keras"
    spec = f"alphazero:checkpoint={checkpoint},simulations=50"
    for black, white in ((spec, "alphabeta"), ("alphabeta", spec)):
        record = play_match(ENGINES, "tictactoe", black, white, seed=1)
        assert record.score_for(spec) == 0.5, record.moves  # perfect play on both sides: a draw


def test_analyze_prints_and_plots_policy_and_value(tmp_path, capsys):
    from pathlib import Path

    from dlgo.app.cli import main
    from dlgo.encoders import get_encoder_by_name as encoder_for

    checkpoint = Path(__file__).resolve().parent.parent / "checkpoints" / "tictactoe.keras"
    assert main(["analyze", "--model", str(checkpoint), "--moves", "a1 b2 c3", "--plot", str(tmp_path / "p.png")]) == 0
    out = capsys.readouterr().out
    assert "O to move; value" in out and out.count("%") == 5  # tic-tac-toe's names for its sides
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    enc = encoder_for(None, "connect4")  # a Connect Four network: bars per column
    path = tmp_path / "c4.keras"
    backend.save_model(build_resnet(enc.shape, enc.num_moves, blocks=1, filters=4), path,
                       {"kind": "alphazero", "encoder": enc.config()})
    assert main(["analyze", "--model", str(path), "--moves", "4 4", "--plot", str(tmp_path / "c4.png")]) == 0
    assert (tmp_path / "c4.png").stat().st_size > 1000
    assert main(["analyze", "--model", str(checkpoint), "--moves", "a1 a1"]) == 2  # an illegal move: clear error
    assert "occupied" in capsys.readouterr().err
    # the search's visit counts: with one move winning at once, the search puts nearly all its visits there
    assert main(["analyze", "--model", "tictactoe", "--moves", "a1 b1 a2 b2", "--simulations", "200",
                 "--plot", str(tmp_path / "visits.png")]) == 0
    out = capsys.readouterr().out
    assert "after 200 simulations" in out
    best = out.split("after 200 simulations")[1].splitlines()[1].split()
    assert best[0] == "a3" and int(best[1]) > 150
    assert (tmp_path / "visits.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_shipped_networks_load_by_name_from_anywhere(tmp_path, monkeypatch):
    import engines
    from engines.checkpoints import SHIPPED, resolve_model_path

    monkeypatch.chdir(tmp_path)  # not the repository: the name still finds checkpoints/
    assert resolve_model_path("tictactoe") == SHIPPED / "tictactoe.keras"
    assert resolve_model_path("checkpoints/tictactoe.keras") == SHIPPED / "tictactoe.keras"
    agent = engines.create("alphazero:checkpoint=tictactoe,simulations=8")
    from dlgo.games import new_game
    assert new_game("tictactoe").is_valid_move(agent.select_move(new_game("tictactoe")))
    with pytest.raises(ValueError, match="shipped model files: .*tictactoe"):
        resolve_model_path("chess")


@pytest.mark.parametrize("name, board", [("connect-5x4", "connectn:columns=5,rows=4,n=4"),
                                         ("connect-6x4", "connectn:columns=6,rows=4,n=4"),
                                         ("connect-6x5", "connectn:columns=6,rows=5,n=4")])
def test_the_shipped_small_board_networks_play_their_boards_and_take_a_win(name, board):
    """checkpoints/connect-5x4.keras, connect-6x4.keras and connect-6x5.keras (the scaling lab's recipe runs, the
    6x5 one trained on): found by name, each for its own board, well under 1 MB (weights stored in half precision),
    and it wins where a move wins."""
    import engines
    from dlgo.formats.positions import replay
    from engines.checkpoints import SHIPPED

    assert (SHIPPED / f"{name}.keras").stat().st_size < 800_000
    agent = engines.create(f"alphazero:checkpoint={name},simulations=64")
    state = replay(board, "1 1 2 2 3 3")[-1]  # red's 1, 2, 3 on the bottom row: 4 wins
    assert state.format_move(agent.select_move(state)) == "4"
    with pytest.raises(ValueError, match=board.split(",n=")[0]):
        agent.select_move(replay("connect4", "")[-1])  # another board: a clear error


def test_self_play_in_worker_processes_gives_whole_games():
    from engines.checkpoints import SHIPPED
    from engines.training.replay import ReplayBuffer
    from engines.training.selfplay import SelfPlayPool, SelfPlaySettings

    with SelfPlayPool(2) as pool:
        examples = pool.self_play("tictactoe", SHIPPED / "tictactoe.keras", 5,
                                  SelfPlaySettings(parallel=4, simulations=8), seed=3)
        workers = list(pool.pool._processes.values())
    # the idle workers exit normally (a killed worker leaves its semaphores behind, and a warning at exit)
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert len(examples.lengths) == 5 and sum(examples.lengths) == len(examples.values) == len(examples.features)
    assert all(5 <= n <= 9 for n in examples.lengths)  # tic-tac-toe lasts 5 to 9 moves
    np.testing.assert_allclose(examples.policies.sum(axis=1), 1.0, rtol=1e-5)
    # each game's results alternate in sign from the mover's view, ending with the winner's +1 (or all 0)
    start = 0
    for n in examples.lengths:
        z = examples.values[start:start + n]
        assert (z == 0).all() or (z[-1] == 1 and all(z[k] == -z[k + 1] for k in range(n - 1)))
        start += n
    buffer = ReplayBuffer(10)
    buffer.add(examples)
    assert len(buffer) == len(examples.values)


def test_the_shipped_connect4_network_takes_a_win_and_blocks_a_loss():
    import engines
    from dlgo.games import new_game

    agent = engines.create("alphazero:checkpoint=connect4,simulations=50")

    def after(moves: str):
        state = new_game("connect4")
        for token in moves.split():
            state = state.apply_move(state.parse_move(token))
        return state

    # Black has three in a row in column 1..3 of the bottom row and is to move: 4 wins.
    win = after("1 1 2 2 3 3")
    assert win.format_move(agent.select_move(win)) == "4"
    agent.new_game()
    # White to move must block black's three in column 4 (a fourth on top would win).
    block = after("4 1 4 2 4")
    assert block.format_move(agent.select_move(block)) == "4"


def test_the_shipped_connect4_network_beats_mcts_from_both_sides():
    from dlgo.arena.match import play_match
    from engines import ENGINES

    spec = "alphazero:checkpoint=connect4,simulations=50"
    for k, (black, white) in enumerate(((spec, "mcts:rounds=300"), ("mcts:rounds=300", spec))):
        assert play_match(ENGINES, "connect4", black, white, seed=k).score_for(spec) == 1.0


def test_the_learning_rate_steps_down_at_each_drop():
    from engines.training.alphazero_config import AlphaZeroConfig

    config = AlphaZeroConfig(learning_rate=1e-3, learning_rate_drops=[40, 60], learning_rate_drop=0.3)
    assert [config.learning_rate_at(i) for i in (1, 39, 40, 59, 60, 99)] == pytest.approx(
        [1e-3, 1e-3, 3e-4, 3e-4, 9e-5, 9e-5])
    assert AlphaZeroConfig().learning_rate_at(500) == AlphaZeroConfig().learning_rate


def test_train_alphazero_options_read_lists_with_their_item_types():
    from dlgo.app.cli import build_parser

    args = build_parser().parse_args(["train-alphazero", "--out", "x", "--learning-rate-drops", "30", "45",
                                      "--baselines", "random", "mcts:rounds=100", "--baseline-every", "5"])
    assert args.learning_rate_drops == [30, 45] and args.baselines == ["random", "mcts:rounds=100"]
    assert args.baseline_every == 5
    alone = build_parser().parse_args(["train-alphazero", "--out", "x", "--baselines", "--learning-rate-drops"])
    assert alone.baselines == [] and alone.learning_rate_drops == []  # the option alone: none


def test_train_alphazero_like_starts_from_another_runs_settings_changed_by_the_options(tmp_path):
    from dlgo.app.cli import build_parser
    from dlgo.app.cli.shared import config_from_args
    from dlgo.core.errors import DlgoError
    from dlgo.storage.folders import record_settings
    from engines.training.alphazero import saved_config
    from engines.training.alphazero_config import AlphaZeroConfig

    record_settings(tmp_path, AlphaZeroConfig(game="connect4", games=7, simulations=9, learning_rate_drops=[5]))
    parse = build_parser().parse_args
    args = parse(["train-alphazero", "--out", "new", "--like", str(tmp_path), "--simulations", "64",
                  "--learning-rate-drops"])
    config = config_from_args(args, AlphaZeroConfig, saved_config)
    assert (config.game, config.games, config.simulations, config.learning_rate_drops) == ("connect4", 7, 64, [])
    with pytest.raises(DlgoError, match="drop --like"):
        config_from_args(parse(["train-alphazero", "--out", "new", "--resume", "--like", str(tmp_path)]),
                         AlphaZeroConfig, saved_config)
    with pytest.raises(DlgoError, match="no AlphaZero run"):
        config_from_args(parse(["train-alphazero", "--out", "new", "--like", str(tmp_path / "nowhere")]),
                         AlphaZeroConfig, saved_config)


def test_go_self_play_games_are_kept_as_sgf(tmp_path):
    from dlgo.formats.sgf import read_sgf, sgf_to_state
    from engines.training.alphazero import AlphaZeroConfig, train_alphazero

    config = AlphaZeroConfig(game="go:size=5,komi=0.5", blocks=1, filters=8, games=2, parallel=2, simulations=4,
                             buffer_games=4, batch_size=8, train_steps=1, eval_games=0, previous_games=2,
                             eval_simulations=2, baselines=[])
    train_alphazero(tmp_path, config, iterations=1, progress=False, sgf=True)
    files = sorted((tmp_path / "selfplay-sgf" / "iter-001").glob("*.sgf"))
    assert len(files) == 2
    for path in files:
        record = read_sgf(path.read_bytes())
        assert record.size == 5 and record.black == "alphazero iteration 0" and record.result
        assert sgf_to_state(record).is_over()


def test_the_replay_window_grows_as_katago_s_and_sample_reuse_sets_the_batches(tmp_path):
    """KataGo's window: c * (1 + 0.4 * ((n / c) ** alpha - 1) / alpha) games once n > c
    have been played; sample reuse: each new position drawn about k times."""
    from engines.training.alphazero import AlphaZeroConfig, train_alphazero
    from engines.training.replay import ReplayBuffer

    window = AlphaZeroConfig(buffer_games=100, window_alpha=0.75)
    assert window.window_games(50) == window.window_games(100) == 100
    assert window.window_games(1000) == int(100 * (1 + 0.4 * (10 ** 0.75 - 1) / 0.75)) == 346
    assert AlphaZeroConfig(buffer_games=100).window_games(10 ** 6) == 100  # alpha 0: fixed
    reuse = AlphaZeroConfig(batch_size=256, sample_reuse=4.0, train_steps=7)
    assert reuse.training_batches(1000) == 16 and reuse.training_batches(1) == 1
    assert AlphaZeroConfig(train_steps=7).training_batches(1000) == 7
    config = AlphaZeroConfig(game="tictactoe", blocks=1, filters=8, games=4, parallel=4, simulations=4,
                             buffer_games=4, window_alpha=0.75, sample_reuse=2.0, batch_size=8, eval_games=0,
                             previous_games=0, eval_simulations=2, baselines=[])
    history = train_alphazero(tmp_path, config, iterations=2, progress=False)
    assert list(history["buffer_games"]) == [4, 5]  # 8 games played: the window holds 5
    assert history[["score_vs_previous", "elo"]].isna().all().all()  # no match against the previous network
    assert len(ReplayBuffer.load(tmp_path / "buffer-002.npz").games) == 5
    assert history["train_steps"].iloc[0] == math.ceil(2.0 * history["examples"].iloc[0] / 8)  # all new


def test_a_network_in_bfloat16_answers_as_in_float32_and_plays(tmp_path):
    """Mixed precision (the weights float32, the arithmetic bfloat16): the answers
    within a few hundredths of float32's, as float32 arrays; the engine still
    takes the win; a bad precision is a one-line error."""
    import engines
    from dlgo.core.errors import SpecError
    from dlgo.games import new_game
    from engines.neural.loading import load_network

    state = new_game("connect4")
    for move in ["1", "2", "1", "2", "1", "2"]:  # the first player wins in column 1
        state = state.apply_move(state.parse_move(move))
    states = [state, new_game("connect4")]
    f32, bf16 = load_network("connect4"), load_network("connect4", precision="bfloat16")
    enc = f32.encoder
    a, b = f32.call(enc.encode_batch(states)), bf16.call(enc.encode_batch(states))
    assert all(o.dtype == np.float32 for o in b)
    np.testing.assert_allclose(a[0], b[0], atol=0.05)
    np.testing.assert_allclose(a[1], b[1], atol=0.05)
    bots = [engines.create(f"alphazero:checkpoint=connect4,simulations=50,precision={p}")
            for p in ("float32", "bfloat16")]
    assert [state.format_move(bot.select_move(state)) for bot in bots] == ["1", "1"]
    np.testing.assert_array_equal(bots[0].last_report.visits, bots[1].last_report.visits)
    with pytest.raises(SpecError, match="precision must be one of"):
        engines.create("alphazero:checkpoint=connect4,precision=int8")


def test_self_play_in_bfloat16_trains_the_float32_network(tmp_path):
    from engines.training.alphazero import AlphaZeroConfig, open_run, train_alphazero

    config = AlphaZeroConfig(game="tictactoe", blocks=1, filters=8, games=2, parallel=2, simulations=4,
                             precision="bfloat16", batch_size=8, train_steps=2, eval_games=0, previous_games=2,
                             eval_simulations=2, baselines=[])
    history = train_alphazero(tmp_path, config, iterations=1, progress=False)
    assert history["iteration"].tolist() == [1] and history["selfplay_evaluations"].iloc[0] > 0
    history = train_alphazero(tmp_path, config, iterations=2, progress=False, workers=2)  # workers load it in bfloat16
    assert history["iteration"].tolist() == [1, 2]
    run = open_run(tmp_path, config, progress=False)
    assert run.playing_network is not run.model and run.model.layers[1].dtype_policy.name == "float32"
    assert run.playing_network.layers[1].dtype_policy.name == "mixed_bfloat16"


def test_a_gated_run_publishes_only_what_its_sequential_test_accepts(tmp_path):
    """``publish="gate"``: each iteration's network plays the published one in colour-swapped
    pairs until the SPRT decides; the run publishes the last one it accepted, else the start."""
    import pandas as pd

    from dlgo.core.errors import SpecError
    from engines.training.alphazero import AlphaZeroConfig, best_iteration, train_alphazero

    config = AlphaZeroConfig(game="tictactoe", blocks=1, filters=8, games=4, parallel=4, simulations=8,
                             buffer_games=8, batch_size=16, train_steps=3, eval_games=0, eval_simulations=4,
                             previous_games=0, baselines=[], publish="gate", gate_pairs=6, gate_elo1=200.0)
    history = train_alphazero(tmp_path, config, iterations=2, progress=False)
    assert {"gate_against", "gate_pairs", "gate_score", "gate_llr", "gate_accepted"} <= set(history.columns)
    gates = history[history["iteration"] > 0]
    assert list(gates["gate_against"]) == [0, 1 if gates["gate_accepted"].iloc[0] == 1 else 0]
    for row in gates.itertuples():
        games = pd.read_csv(tmp_path / "gates" / f"iter-{row.iteration:03d}.csv")
        assert len(games) == 2 * row.gate_pairs and games["score"].mean() == pytest.approx(row.gate_score)
        assert games["opening"].nunique() == row.gate_pairs  # a distinct opening a pair, once each colour
        assert row.gate_low <= row.gate_score <= row.gate_high
    assert int(history["published"].iloc[-1]) == best_iteration(history, config)
    (tmp_path / "gates" / "iter-003.csv").write_text("left by a killed attempt at iteration 3\n")
    history = train_alphazero(tmp_path, config, iterations=3, progress=False)  # its network's gate, not the stale one
    assert len(pd.read_csv(tmp_path / "gates" / "iter-003.csv")) == 2 * history["gate_pairs"].iloc[-1]
    made_up = pd.DataFrame({"iteration": [0, 1, 2, 3], "gate_accepted": [float("nan"), 0.0, 1.0, 0.0]})
    assert best_iteration(made_up, config) == 2  # the last accepted, not the latest
    assert best_iteration(made_up.iloc[:2], config) == 0  # none accepted: the start
    with pytest.raises(SpecError, match="gate_elo1"):
        AlphaZeroConfig(game="tictactoe", publish="gate", gate_elo1=0.0)
    with pytest.raises(SpecError, match="distinct openings"):  # refused before a run folder records it
        AlphaZeroConfig(game="tictactoe", publish="gate", gate_pairs=20, gate_opening_plies=1)


def test_match_openings_are_the_shipped_balanced_ones_or_distinct_seeded_random_ones():
    from dlgo.core.errors import SpecError
    from dlgo.data.solved import balanced_openings
    from engines.training.paired_match import match_openings

    assert [s.moves_text() for s in match_openings("connect4", 5, 4, seed=1)] == \
        [s.moves_text() for s in balanced_openings("connect4")[:5]]
    go = match_openings("go:size=5", 20, 3, seed=1)
    assert len({s.moves_text() for s in go}) == 20 and all(s.num_moves_played == 3 for s in go)
    assert [s.moves_text() for s in go] == [s.moves_text() for s in match_openings("go:size=5", 20, 3, seed=1)]
    with pytest.raises(SpecError, match="distinct openings"):
        match_openings("tictactoe", 10, 1, seed=1)  # nine first moves
    mixed = match_openings("connectn:columns=7,rows=6,n=4", 503, 4, seed=1)  # the 500 shipped, then 3 more
    assert len({s.moves_text() for s in mixed}) == 503 and all(s.num_moves_played == 4 for s in mixed[500:])


def test_a_run_trains_on_the_teachers_games_until_its_own_fill_the_buffer(tmp_path):
    """The teacher's games take the places self-play's have not, and a resumed run takes them from its own copy."""
    from dlgo.formats.records import GameRecord, write_games
    from engines.training.alphazero import AlphaZeroConfig, train_alphazero
    from engines.training.replay import ReplayBuffer

    games = ["a1 a2 b1 b2 c1", "b2 a1 c3 a3 a2 c1 b1 b3 c2", "c3 b2 a1 c1 a3 a2 b3"]
    write_games(tmp_path / "teacher.csv", [
        GameRecord("t", f"#{k}", "tictactoe", "teacher", "teacher", "", "black", len(moves.split()), 0, 0, 0, 0, "",
                   "", 0, 0, moves) for k, moves in enumerate(games)])
    config = AlphaZeroConfig(game="tictactoe", blocks=1, filters=8, games=2, parallel=2, simulations=4,
                             buffer_games=6, batch_size=8, train_steps=1, eval_games=0, previous_games=0,
                             baselines=[], publish="latest", teacher_games=str(tmp_path / "teacher.csv"))
    history = train_alphazero(tmp_path / "run", config, iterations=2, progress=False)
    own = [len(ReplayBuffer.load(tmp_path / "run" / "buffer-002.npz").games[k][2]) for k in range(4)]
    # iteration 1: its two games and the three teacher games; iteration 2: its four and the first two teacher games
    assert list(history["examples"]) == [own[0] + own[1] + 5 + 9 + 7, sum(own) + 5 + 9]
    # with three places kept for them, all three teacher games stay beside self-play's four (the same four:
    # iteration 1 trained on the same examples), the buffer's six places then seven games
    from dataclasses import replace

    from dlgo.core.errors import SpecError

    kept = train_alphazero(tmp_path / "kept", replace(config, teacher_keep=3), iterations=2, progress=False)
    assert list(kept["examples"]) == [own[0] + own[1] + 5 + 9 + 7, sum(own) + 5 + 9 + 7]
    with pytest.raises(SpecError, match="more places than the buffer's 6"):
        replace(config, teacher_keep=7)
    # stopped after iteration 1 and resumed, the teacher's file gone meanwhile: the run's own copy fills
    # its buffer again, and it learns exactly what the unbroken run learnt
    from engines.neural.backend import load_model

    train_alphazero(tmp_path / "resumed", config, iterations=1, progress=False)
    (tmp_path / "teacher.csv").write_text((tmp_path / "teacher.csv").read_text().splitlines()[0] + "\n")
    train_alphazero(tmp_path / "resumed", config, iterations=2, progress=False)
    weights = [load_model(tmp_path / run / "checkpoints" / "iter-002.keras")[0].get_weights()
               for run in ("run", "resumed")]
    assert all(np.array_equal(a, b) for a, b in zip(*weights))
