"""The supervised pipeline on tiny data: generate, encode, train, resume,
save/load, evaluate and play. Tiny nets, a few seconds each."""
import numpy as np
import pytest

from dlgo.formats.records import read_games, write_games
from dlgo.data.dataset import SPLITS, encode_dataset, split_of
from dlgo.data.generate import generate_games
from dlgo.encoders import get_encoder_by_name
from dlgo.games import new_game
from dlgo.goboard import Move
from dlgo.gotypes import Player
from engines import ENGINES
from helpers import go_position, play

keras_backend = pytest.importorskip("engines.neural.backend")


@pytest.fixture(scope="module")
def ttt_data(tmp_path_factory):
    out = tmp_path_factory.mktemp("data") / "ttt"
    generate_games(ENGINES, out, "tictactoe", "mcts:rounds=30", 24, seed=1, opening_plies=1, workers=1, progress=False)
    return out


@pytest.fixture(scope="module")
def ttt_run(ttt_data, tmp_path_factory):
    from engines.training.supervised import train_supervised

    out = tmp_path_factory.mktemp("runs") / "tiny"
    history = train_supervised(ttt_data, out, model="tiny", epochs=3, batch_size=16, learning_rate=3e-3,
                               patience=10, seed=0, progress=False)
    return out, history


def test_generate_is_resumable_and_extendable(ttt_data, tmp_path):
    records = read_games(ttt_data / "games.csv")
    assert len(records) == 24 and all(r.black == r.white == "mcts:rounds=30" for r in records)
    before = (ttt_data / "games.csv").read_text()
    again = generate_games(ENGINES, ttt_data, "tictactoe", "mcts:rounds=30", 24, seed=1, opening_plies=1, workers=1,
                           progress=False)
    assert len(again) == 24 and (ttt_data / "games.csv").read_text() == before  # nothing replayed
    with pytest.raises(ValueError, match="holds a generate run with engine 'mcts:rounds=30'"):
        generate_games(ENGINES, ttt_data, "tictactoe", "mcts:rounds=31", 25, seed=1, opening_plies=1, workers=1,
                       progress=False)
    # Asking for more games later plays only the new ones, with the same ids and seeds.
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "games.csv").write_text(before)
    (copy / "run.json").write_text((ttt_data / "run.json").read_text())
    more = generate_games(ENGINES, copy, "tictactoe", "mcts:rounds=30", 26, seed=1, opening_plies=1, workers=1,
                          progress=False)
    assert len(more) == 26 and (copy / "games.csv").read_text().startswith(before)


def test_encoded_chunks_split_by_game(ttt_data):
    manifest = encode_dataset(ttt_data, progress=False)
    records = read_games(ttt_data / "games.csv")
    expected = sum(r.plies - r.opening_plies for r in records)
    sizes = manifest.split_sizes()
    assert sum(sizes.values()) == expected and sizes["train"] > 0
    numbers = {}
    for split in SPLITS:
        arrays = manifest.load(split)
        assert arrays.features.dtype == np.int8 and arrays.features.shape[1:] == (3, 3, 3)
        assert arrays.legal[np.arange(len(arrays.labels)), arrays.labels].all()  # labels are legal moves
        for g in set(arrays.games.tolist()):
            assert split_of(manifest.game_ids[g]) == split
            numbers.setdefault(g, split)
    assert len(numbers) == len(records)
    again = encode_dataset(ttt_data, progress=False)  # up to date: reused, not re-encoded
    assert again.digest == manifest.digest and again.chunks == manifest.chunks


class ResigningTeacher:
    """A factory whose teacher ``resigner`` resigns everywhere; any other spec is the suite's."""

    def create(self, spec, seed=None):
        if spec != "resigner":
            return ENGINES.create(spec, seed)
        from dlgo.core.agent import Agent, Decision

        class Resigner(Agent):
            name = "resigner"

            def choose(self, state):
                return Decision(Move.resign(), 1)

        agent = Resigner()
        agent.spec = spec
        return agent

    def network_files(self, spec):
        return []


def test_labelled_positions_train_as_one_game_and_a_resignation_is_no_label(ttt_data, tmp_path):
    """dlgo label-games on tic-tac-toe: each labelled position encodes as one training
    position in its source game's split; one the teacher resigns in is kept (a rerun does
    not ask again) and gives no label."""
    from dlgo.data.dataset import source_game
    from dlgo.data.labels import label_games

    sources = read_games(ttt_data / "games.csv")[:3]
    write_games(tmp_path / "source.csv", sources)
    labelled = label_games(ENGINES, tmp_path / "source.csv", tmp_path / "ab", "alphabeta", progress=False)
    assert len(labelled) == sum(r.plies - r.opening_plies for r in sources)
    assert all(split_of(r.game_id) == split_of(source_game(r.game_id)) for r in labelled)
    assert sum(encode_dataset(tmp_path / "ab", progress=False).split_sizes().values()) == len(labelled)

    resigned = label_games(ResigningTeacher(), tmp_path / "source.csv", tmp_path / "resigned", "resigner",
                           progress=False)
    assert len(resigned) == len(labelled) and all(r.moves.split()[-1] == "resign" for r in resigned)
    again = label_games(ResigningTeacher(), tmp_path / "source.csv", tmp_path / "resigned", "resigner",
                        progress=False)
    assert again == resigned  # nothing asked again
    assert sum(encode_dataset(tmp_path / "resigned", progress=False).split_sizes().values()) == 0


def test_only_a_labelled_positions_id_is_cut_to_its_game():
    from dlgo.data.dataset import source_game
    from dlgo.data.labels import labelled_id

    assert source_game(labelled_id("self-play #000007", 41)) == "self-play #000007"
    assert source_game("kgs @night.sgf") == "kgs @night.sgf"  # an imported file's name, kept whole
    assert source_game("a @3 b") == "a @3 b"


def test_chunk_sequence_streams_every_position_once_per_epoch(ttt_data):
    from engines.training.supervised import split_sequence

    manifest = encode_dataset(ttt_data, progress=False)
    seq = split_sequence(manifest, "train", 7, seed=3)
    labels = np.concatenate([seq[i][1] for i in range(len(seq))])
    assert sorted(labels.tolist()) == sorted(manifest.load("train").labels.tolist())
    x, y = seq[0]
    assert x.dtype == np.float32 and x.shape[1:] == (3, 3, 3) and len(x) == len(y) <= 7


def test_training_lowers_the_loss_and_resumes(ttt_data, ttt_run):
    from engines.training.supervised import train_supervised

    out, history = ttt_run
    assert list(history["epoch"]) == [1, 2, 3]
    assert history["loss"].iloc[-1] < history["loss"].iloc[0]
    assert (out / "model.keras").exists() and (out / "checkpoints" / "epoch-003.keras").exists()
    # Rerunning with more epochs continues from epoch 3 and keeps the earlier rows.
    longer = train_supervised(ttt_data, out, model="tiny", epochs=4, batch_size=16, learning_rate=3e-3,
                              patience=10, seed=0, progress=False)
    assert list(longer["epoch"]) == [1, 2, 3, 4]
    assert longer["loss"].iloc[:3].tolist() == pytest.approx(history["loss"].tolist())
    with pytest.raises(ValueError, match="holds a train-supervised run with model .tiny., not .small."):
        train_supervised(ttt_data, out, model="small", epochs=5, progress=False)


def test_chunks_carry_each_positions_result_for_the_player_to_move(ttt_data):
    manifest = encode_dataset(ttt_data, progress=False)
    records = {r.game_id: r for r in read_games(ttt_data / "games.csv")}
    arrays = manifest.load("train")
    for g in set(arrays.games.tolist()):
        record, values = records[manifest.game_ids[g]], arrays.values[arrays.games == g].tolist()
        if record.winner == "draw":
            assert set(values) == {0}
        else:  # the players alternate, and the first position's mover is black after an odd opening
            assert values == [(-1) ** k * values[0] for k in range(len(values))] and values[0] in (1, -1)
            mover = "black" if record.opening_plies % 2 == 0 else "white"
            assert values[0] == (1 if record.winner == mover else -1)


def test_an_encoding_from_before_values_is_made_again(ttt_data, tmp_path):
    import json
    import shutil

    copy = tmp_path / "old"
    shutil.copytree(ttt_data, copy)
    manifest = encode_dataset(copy, progress=False)
    path = copy / "encoded" / manifest.encoder / "manifest.json"
    old = json.loads(path.read_text())
    del old["version"]
    path.write_text(json.dumps(old))
    assert encode_dataset(copy, progress=False).version == manifest.version == 2


def test_per_game_selection_keeps_the_same_few_positions_of_each_game():
    from engines.training.supervised import per_game_selection

    games = np.array([0, 0, 0, 0, 1, 1, 2, 3, 3, 3])
    rows = per_game_selection(games, 2, seed=5)
    assert sorted(np.bincount(games[rows]).tolist()) == [1, 2, 2, 2]
    assert rows.tolist() == per_game_selection(games, 2, seed=5).tolist() == sorted(rows.tolist())
    assert len(per_game_selection(games, 1, seed=5)) == 4


def test_a_value_network_learns_results_from_one_position_per_game(ttt_data, tmp_path):
    from engines.training.accuracy import evaluate_value
    from engines.neural.backend import read_metadata
    from engines.neural.loading import load_network
    from engines.training.supervised import split_sequence, train_supervised

    manifest = encode_dataset(ttt_data, progress=False)
    seq = split_sequence(manifest, "train", 4, target="value", per_game=1, selection_seed=0)
    games_in_train = len(set(manifest.load("train").games.tolist()))
    values = np.concatenate([seq[i][1] for i in range(len(seq))])
    assert len(values) == games_in_train and set(values.tolist()) <= {-1.0, 0.0, 1.0}
    out = tmp_path / "value"
    history = train_supervised(ttt_data, out, model="tiny", epochs=2, batch_size=8, target="value",
                               positions_per_game=1, progress=False)
    assert "winner_accuracy" in history and read_metadata(out / "model.keras")["kind"] == "value"
    again = train_supervised(ttt_data, out, model="tiny", epochs=3, batch_size=8, target="value",
                             positions_per_game=1, progress=False)  # resumes, custom metric and all
    assert list(again["epoch"]) == [1, 2, 3]
    with pytest.raises(ValueError, match="positions_per_game"):
        train_supervised(ttt_data, out, model="tiny", epochs=4, batch_size=8, target="value", positions_per_game=2,
                         progress=False)
    value = load_network(out / "model.keras").call(np.zeros((2, 3, 3, 3), np.float32))
    assert value[0].shape == (2, 1) and np.all(np.abs(value[0]) <= 1)
    metrics = evaluate_value(out / "model.keras", ttt_data)
    assert metrics["positions"] > 0 and 0 <= metrics["winner"] <= 1 and metrics["mse"] >= 0


def test_one_network_learns_moves_and_results_and_alphazero_starts_from_it(ttt_data, tmp_path):
    from engines.training.accuracy import evaluate_predictor
    from engines.training.alphazero_config import AlphaZeroConfig
    from engines.training.alphazero import train_alphazero
    from engines.neural.backend import compiled_call, load_model
    from engines.training.supervised import train_supervised

    out = tmp_path / "both"
    history = train_supervised(ttt_data, out, model="tiny", epochs=2, batch_size=8, target="both", progress=False)
    assert {"policy_accuracy", "value_winner_accuracy", "val_loss"} <= set(history.columns)
    assert evaluate_predictor(out / "model.keras", ttt_data)["positions"] > 0
    config = dict(game="tictactoe", blocks=1, filters=4, games=2, parallel=2, simulations=4, buffer_games=4,
                  batch_size=8, train_steps=1, eval_games=1, previous_games=1, eval_simulations=2)
    run = tmp_path / "az"
    train_alphazero(run, AlphaZeroConfig(**config, init=str(out / "model.keras")), iterations=1, progress=False)
    x = np.random.default_rng(0).integers(0, 2, size=(3, 3, 3, 3)).astype(np.float32)
    start, _ = load_model(run / "checkpoints" / "iter-000.keras", compile=False)
    given, _ = load_model(out / "model.keras", compile=False)
    for a, b in zip(compiled_call(start)(x), compiled_call(given)(x)):  # it starts from the given weights
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    predictor = tmp_path / "predictor"
    train_supervised(ttt_data, predictor, model="tiny", epochs=1, batch_size=8, progress=False)
    with pytest.raises(ValueError, match="a policy and a value is needed"):
        train_alphazero(tmp_path / "az2", AlphaZeroConfig(**config, init=str(predictor / "model.keras")),
                        iterations=1, progress=False)
    with pytest.raises(ValueError, match="no such network file"):
        AlphaZeroConfig(**config, init=str(tmp_path / "missing.keras"))
    with pytest.raises(ValueError, match="nor a shipped network's name"):
        AlphaZeroConfig(**config, init="no-such-network")
    # a shipped network's name starts a run from any folder (the settings it records travel between clones)
    assert AlphaZeroConfig(**{**config, "game": "connectn:columns=5,rows=4,n=4"}, init="connect-5x4").init == \
        "connect-5x4"
    from dlgo.encoders import get_encoder_by_name
    from engines.training.alphazero import starting_network

    shipped = starting_network("connect-5x4", get_encoder_by_name(None, "connectn:columns=5,rows=4,n=4"))
    assert [tuple(output.shape[1:]) for output in shipped.outputs] == [(5,), (1,)]
    with pytest.raises(ValueError, match="--target both"):
        train_supervised(ttt_data, tmp_path / "resnet", model="resnet", epochs=1, progress=False)


def test_alphazero_adds_the_auxiliary_heads_to_a_supervised_resnet_start(ttt_data, tmp_path):
    """A supervised ResNet (the recipe's heads) starts a run that learns auxiliary targets:
    the heads join its tower fresh and its policy and value are the start's; a network that
    is not AlphaZero's ResNet is refused before the run folder records anything."""
    from dataclasses import fields

    import pandas as pd

    from engines.neural.backend import compiled_call, load_model
    from engines.training.alphazero import train_alphazero
    from engines.training.alphazero_config import AlphaZeroConfig
    from engines.training.supervised import RESNETS, train_supervised

    defaults = {f.name: f.default for f in fields(AlphaZeroConfig)}
    assert RESNETS["resnet"][2:] == (defaults["policy_filters"], defaults["value_filters"])
    start = tmp_path / "resnet"
    train_supervised(ttt_data, start, model="resnet", target="both", epochs=1, batch_size=8, progress=False)
    config = dict(game="tictactoe", games=2, parallel=2, simulations=4, buffer_games=4, batch_size=8, train_steps=1,
                  eval_games=1, previous_games=1, eval_simulations=2, auxiliary=["all"])
    run = tmp_path / "az"
    train_alphazero(run, AlphaZeroConfig(**config, init=str(start / "model.keras")), iterations=1, progress=False)
    first, _ = load_model(run / "checkpoints" / "iter-000.keras", compile=False)
    given, _ = load_model(start / "model.keras", compile=False)
    assert [tuple(o.shape[1:]) for o in first.outputs] == [(9,), (1,), (1,)]  # policy, value, moves_left
    x = np.random.default_rng(0).integers(0, 2, size=(3, 3, 3, 3)).astype(np.float32)
    for a, b in zip(compiled_call(first)(x)[:2], compiled_call(given)(x)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert "moves_left_loss" in pd.read_csv(run / "history.csv").columns
    other = tmp_path / "tiny"
    train_supervised(ttt_data, other, model="tiny", epochs=1, batch_size=8, target="both", progress=False)
    with pytest.raises(ValueError, match="adds its heads to AlphaZero's ResNet"):
        AlphaZeroConfig(**config, init=str(other / "model.keras"))
    with pytest.raises(ValueError, match="it has auxiliary heads already"):  # refused before a folder records it
        AlphaZeroConfig(**config, init=str(run / "checkpoints" / "iter-001.keras"))


def test_save_and_load_give_identical_predictions(tmp_path):
    from engines.neural.backend import compiled_call, load_model, read_metadata, save_model
    from engines.neural.models import build_model

    enc = get_encoder_by_name("sevenplane", "go:size=5")
    model = build_model("tiny", enc.shape, enc.num_moves)
    x = np.random.default_rng(0).integers(0, 2, size=(4,) + enc.shape).astype(np.float32)
    save_model(model, tmp_path / "m.keras", {"encoder": enc.config()})
    loaded, metadata = load_model(tmp_path / "m.keras")
    assert metadata == {"encoder": {"name": "sevenplane", "game": "go:size=5"}}
    np.testing.assert_allclose(compiled_call(loaded)(x)[0], keras_backend.keras.ops.convert_to_numpy(model(x)),
                               rtol=1e-6, atol=1e-7)
    assert read_metadata(tmp_path / "m.keras") == metadata
    with pytest.raises(ValueError, match="end in .keras"):
        save_model(model, tmp_path / "m.h5", {})
    from engines.neural.backend import export_model

    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    model.fit(x, np.zeros(4), epochs=1, verbose=0)  # an optimizer with state, as a trained network has
    save_model(model, tmp_path / "trained.keras", {"encoder": enc.config()})
    export_model(tmp_path / "trained.keras", tmp_path / "shipped.keras")
    assert (tmp_path / "shipped.keras").stat().st_size < (tmp_path / "trained.keras").stat().st_size
    shipped, metadata = load_model(tmp_path / "shipped.keras", compile=False)
    np.testing.assert_allclose(compiled_call(shipped)(x)[0], compiled_call(model)(x)[0], rtol=1e-6, atol=1e-7)
    assert metadata == {"encoder": {"name": "sevenplane", "game": "go:size=5"}}
    export_model(tmp_path / "trained.keras", tmp_path / "half.keras", half_weights=True)
    assert (tmp_path / "half.keras").stat().st_size < 0.6 * (tmp_path / "shipped.keras").stat().st_size
    half, metadata = load_model(tmp_path / "half.keras", compile=False)
    assert {w.dtype for w in half.weights} == {"float32"}  # stored in float16, computed in float32
    np.testing.assert_allclose(compiled_call(half)(x)[0], compiled_call(model)(x)[0], rtol=1e-2, atol=1e-3)
    assert not np.array_equal(half.get_weights()[0], model.get_weights()[0])  # rounded: the file did change
    assert metadata == {"encoder": {"name": "sevenplane", "game": "go:size=5"}}
    save_model(model, tmp_path / "resumable.keras", {}, half_weights=True)  # an optimizer's state stays float32
    resumed, _ = load_model(tmp_path / "resumable.keras")
    assert len(resumed.optimizer.variables) == len(model.optimizer.variables) > 2
    for kept, original in zip(resumed.optimizer.variables, model.optimizer.variables):
        np.testing.assert_array_equal(keras_backend.keras.ops.convert_to_numpy(kept),
                                      keras_backend.keras.ops.convert_to_numpy(original))
    assert not list(tmp_path.glob(".*tmp*"))  # no temporary files left behind


@pytest.mark.parametrize("name", ["ch6", "small", "medium", "large"])
def test_book_models_build_for_any_board(name):
    from engines.neural.models import build_model

    model = build_model(name, (9, 9, 7), 82)
    assert model.output_shape == (None, 82)
    with pytest.raises(ValueError, match="unknown model"):
        build_model("huge", (9, 9, 7), 82)


def test_evaluation_reports_accuracy_and_baselines(ttt_data, ttt_run):
    from engines.training.accuracy import evaluate_predictor

    out, _ = ttt_run
    metrics = evaluate_predictor(out / "model.keras", ttt_data, split="train", teacher_positions=5)
    assert metrics["positions"] == encode_dataset(ttt_data, progress=False).split_sizes()["train"]
    assert 0 <= metrics["top1"] <= metrics["top1_legal"] <= 1 and metrics["top1"] <= metrics["top5"]
    assert metrics["uniform"] == pytest.approx(1 / 9)
    assert 1 / 9 < metrics["uniform_legal"] < 1
    assert metrics["teacher_engine"] == "mcts:rounds=30" and metrics["teacher_positions"] == 5


def test_predictor_plays_tournament_games(ttt_run):
    import engines
    from dlgo.arena.match import play_match

    out, _ = ttt_run
    agent = engines.create(f"predictor:model={out / 'model.keras'}")
    state = new_game("tictactoe")
    move = agent.select_move(state)
    assert state.is_valid_move(move) and agent.last_compute.amount == 1
    assert agent.last_compute.unit == "evaluations"
    record = play_match(ENGINES, "tictactoe", f"predictor:model={out / 'model.keras'}", "random", seed=4)
    assert record.winner in ("black", "white", "draw") and record.black_compute == 1.0
    sampler = engines.create(f"predictor:model={out / 'model.keras'},temperature=1,seed=3")
    assert state.is_valid_move(sampler.select_move(state))
    with pytest.raises(ValueError, match="plays tictactoe, not this 6x7 connect4"):
        agent.select_move(new_game("connect4"))
    with pytest.raises(ValueError, match="needs model=PATH"):
        engines.create("predictor")


@pytest.fixture(scope="module")
def go_model(tmp_path_factory):
    """An untrained 5x5 predictor: enough to test how the agent uses any policy."""
    from engines.neural.backend import save_model
    from engines.neural.models import build_model

    enc = get_encoder_by_name("simple", "go:size=5")
    path = tmp_path_factory.mktemp("go") / "go5.keras"
    save_model(build_model("tiny", enc.shape, enc.num_moves), path, {"kind": "predictor", "encoder": enc.config()})
    return path


def test_go_predictor_never_fills_its_own_eye_and_passes_when_ahead(go_model):
    import engines

    agent = engines.create(f"predictor:model={go_model}")
    # Black's only legal plays are its own eyes (A1, C1 ... are surrounded by black).
    eyes_only = go_position("""
        X X X X X
        X . X . X
        X X X X X
        X . X . X
        X X X X X
    """)
    assert agent.select_move(eyes_only) == Move.pass_turn()
    # White has passed and black leads on the board (15 points to 10 + 0.5): black passes and wins.
    wall = """
        . . X O .
        . . X O .
        . . X O .
        . . X O .
        . . X O .
    """
    ahead = play(go_position(wall, Player.white, komi=0.5), "pass")
    assert agent.select_move(ahead) == Move.pass_turn()
    # Behind on the board after the opponent's pass: play on, never into its own eye.
    behind = play(go_position(wall.replace("X", "x").replace("O", "X").replace("x", "O"), Player.white,
                              komi=0.5), "pass")
    move = agent.select_move(behind)
    assert move.is_play and not behind.board.is_eye(behind.board.geometry.index_of(move.point), 1)
    # Without the opponent's pass, it plays on even when ahead.
    assert agent.select_move(go_position(wall, komi=0.5)).is_play


def test_sgf_import_reads_handicap_and_passes(tmp_path):
    from dlgo.data.sgf_import import import_sgf_folder

    games = tmp_path / "sgf"
    (games / "sub").mkdir(parents=True)
    (games / "sub" / "h2.sgf").write_text(
        "(;FF[4]GM[1]SZ[9]KM[0.5]HA[2]AB[cc][gg]PB[Ann]PW[Bob]RE[W+3.5];W[ee];B[ge];W[];B[dd])")
    (games / "plain.sgf").write_text("(;FF[4]GM[1]SZ[9]KM[7.5]RE[B+R];B[ee];W[ce])")
    (games / "big.sgf").write_text("(;FF[4]GM[1]SZ[19]KM[7.5];B[pd])")
    (games / "broken.sgf").write_text("this is not SGF")
    out = tmp_path / "data"
    assert import_sgf_folder(games, out, size=9, progress=False) == (2, 2)
    records = {r.game_id: r for r in read_games(out / "games.csv")}
    h2 = records["sub/h2.sgf"]
    # Two handicap stones with a white pass between them, then the game: W E5, B G5, W pass, B D6.
    assert h2.moves == "G3 pass C7 E5 G5 pass D6" and h2.opening_plies == 3
    assert (h2.black, h2.white, h2.result, h2.winner, h2.game) == ("Ann", "Bob", "W+3.5", "white", "go:size=9,komi=0.5")
    assert records["plain.sgf"].winner == "black" and records["plain.sgf"].opening_plies == 0
    # A rerun imports nothing twice; the games encode with labels only after the setup.
    assert import_sgf_folder(games, out, size=9, progress=False) == (0, 2)
    manifest = encode_dataset(out, "sevenplane", progress=False)
    assert sum(manifest.split_sizes().values()) == 4 + 2


def test_parallel_tournament_with_a_network_matches_the_serial_one(ttt_run, tmp_path):
    """Workers are spawned fresh, so they are safe after this process started
    TensorFlow, and a game depends only on its seed, not on the worker."""
    from dlgo.arena.tournament import run_tournament

    out, _ = ttt_run
    specs = [f"predictor:model={out / 'model.keras'},temperature=1", "random"]
    serial = run_tournament(ENGINES, tmp_path / "serial", "tictactoe", specs, 2, seed=5, workers=1, progress=False)
    parallel = run_tournament(ENGINES, tmp_path / "parallel", "tictactoe", specs, 2, seed=5, workers=2, progress=False)
    assert sorted((r.game_id, r.moves) for r in serial) == sorted((r.game_id, r.moves) for r in parallel)


def test_the_full_board_tower_keeps_its_heads_thin():
    """``resnet6``: six blocks of 64 filters and AlphaGo Zero's 2- and 1-plane heads, so that on 19x19
    it stays under a million weights (the 9x9 ``resnet``'s 32-plane heads would hold five million)."""
    from dlgo.core.errors import SpecError
    from engines.training.supervised import RESNETS, build_network

    network = build_network("resnet6", (19, 19, 11), 362, 0.0, "both")
    assert network.get_layer("policy_conv").filters == 2 and network.get_layer("value_conv").filters == 1
    assert sum(1 for layer in network.layers if layer.name.endswith("_add")) == 6
    assert 0.5e6 < network.count_params() < 1e6
    wide = build_network("resnet", (19, 19, 11), 362, 0.0, "both")
    assert wide.count_params() > 4e6 and RESNETS["resnet6"].blocks == 6
    with pytest.raises(SpecError, match="--target both"):
        build_network("resnet6", (19, 19, 11), 362, 0.0, "move")
