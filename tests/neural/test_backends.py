"""Keras' backends (``engines.neural.backend``): the networks, training and
self-play on JAX as on TensorFlow. A tiny AlphaZero run trained under JAX with
TensorFlow unimportable (a machine without it), its checkpoint played here; one
saved network answering alike under both backends, whichever wrote it; JAX's
compiled call following the weights as they train, at every batch size; the
library and the classic engines importing no TensorFlow under JAX.

JAX runs in a fresh Python (``KERAS_BACKEND`` is read once, when Keras is first
imported); this process has the backend of the test session, TensorFlow unless
``KERAS_BACKEND`` says otherwise."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

backend = pytest.importorskip("engines.neural.backend")
pytest.importorskip("jax", reason="JAX is not installed (pip install jax): the JAX backend's tests need it")

from dlgo.encoders import get_encoder_by_name  # noqa: E402
from engines.neural.resnet import build_resnet  # noqa: E402


def blocking(*packages: str) -> str:
    """Code that makes ``packages`` unimportable, as on a machine without them."""
    return f"""
import sys
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {packages!r}:
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Blocked())
"""


def run_python(code: str, tensorflow: bool = False) -> dict:
    """Run ``code`` in a fresh Python on JAX (without TensorFlow unless
    ``tensorflow``); what it printed last, as JSON."""
    env = {**os.environ, "KERAS_BACKEND": "jax"}
    source = ("" if tensorflow else blocking("tensorflow")) + "import json\n" + textwrap.dedent(code)
    run = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


def outputs_of(path: Path, x: np.ndarray) -> list[np.ndarray]:
    """The network in ``path`` on ``x``, loaded and compiled in this process."""
    model, _ = backend.load_model(path, compile=False)
    return backend.compiled_call(model)(x)


def boards(game: str, n: int = 5) -> np.ndarray:
    enc = get_encoder_by_name(None, game)
    return np.random.default_rng(0).integers(0, 2, size=(n,) + enc.shape).astype(np.float32)


def test_alphazero_trains_under_jax_without_tensorflow_and_its_network_plays_here(tmp_path):
    """Two iterations (self-play, training, the match against the previous network)
    on JAX; history.csv records the backend and device; the checkpoint answers
    here as it did there and plays a legal move."""
    import pandas as pd

    import engines
    from dlgo.games import new_game

    run, x = tmp_path / "run", boards("tictactoe")
    np.save(tmp_path / "x.npy", x)
    there = run_python(f"""
        import numpy as np
        from engines.neural.backend import backend_name, compiled_call, load_model
        from engines.training.alphazero import AlphaZeroConfig, train_alphazero

        config = AlphaZeroConfig(game="tictactoe", blocks=1, filters=8, games=2, parallel=2, simulations=4,
                                 batch_size=8, train_steps=2, eval_games=0, previous_games=2, eval_simulations=2,
                                 baselines=[], publish="latest")
        history = train_alphazero({str(run)!r}, config, iterations=2, progress=False)
        model, _ = load_model({str(run / "checkpoint.keras")!r}, compile=False)
        policy, value = compiled_call(model)(np.load({str(tmp_path / "x.npy")!r}))
        np.savez({str(tmp_path / "jax.npz")!r}, policy=policy, value=value)
        print(json.dumps({{"backend": backend_name(), "iterations": history["iteration"].tolist(),
                          "tensorflow": "tensorflow" in sys.modules}}))
    """)
    assert there == {"backend": "jax", "iterations": [1, 2], "tensorflow": False}
    history = pd.read_csv(run / "history.csv")
    assert history["backend"].tolist() == ["jax", "jax"]
    assert history["device"].str.fullmatch(r"CPU|GPU \(.+\)").all() and history["selfplay_evaluations"].gt(0).all()
    answers = np.load(tmp_path / "jax.npz")
    for here, jax_answer in zip(outputs_of(run / "checkpoint.keras", x), (answers["policy"], answers["value"])):
        np.testing.assert_allclose(here, jax_answer, rtol=1e-5, atol=1e-5)
    agent = engines.create(f"alphazero:checkpoint={run / 'checkpoint.keras'},simulations=4")
    assert new_game("tictactoe").is_valid_move(agent.select_move(new_game("tictactoe")))


def test_a_network_saved_here_answers_the_same_under_jax_and_halved_there_loads_here(tmp_path):
    """A ``.keras`` file is the backend's business only while it runs: saved on
    this process's backend, loaded, exported with halved weights and answered on
    JAX; both files give the same answers here."""
    x, enc = boards("connect4"), get_encoder_by_name(None, "connect4")
    model = build_resnet(enc.shape, enc.num_moves, blocks=1, filters=8)
    backend.save_model(model, tmp_path / "net.keras", {"kind": "alphazero", "encoder": enc.config()})
    np.save(tmp_path / "x.npy", x)
    there = run_python(f"""
        import numpy as np
        from engines.neural.backend import compiled_call, export_model, load_model

        x = np.load({str(tmp_path / "x.npy")!r})
        export_model({str(tmp_path / "net.keras")!r}, {str(tmp_path / "half.keras")!r}, half_weights=True)
        answers = {{name: compiled_call(load_model({str(tmp_path)!r} + f"/{{name}}.keras")[0])(x)
                   for name in ("net", "half")}}
        np.savez({str(tmp_path / "jax.npz")!r}, **{{f"{{name}}{{k}}": out for name, outs in answers.items()
                                                 for k, out in enumerate(outs)}})
        print(json.dumps({{"tensorflow": "tensorflow" in sys.modules}}))
    """)
    assert there == {"tensorflow": False}
    jax_answers = np.load(tmp_path / "jax.npz")
    for name in ("net", "half"):
        for k, here in enumerate(outputs_of(tmp_path / f"{name}.keras", x)):
            np.testing.assert_allclose(here, jax_answers[f"{name}{k}"], rtol=1e-5, atol=1e-5)
    assert backend.read_metadata(tmp_path / "half.keras")["encoder"] == enc.config()


def test_jax_compiled_call_follows_the_weights_at_every_batch_size():
    """The compiled call reads the weights at each call: new weights and training
    change its answers with no new compiled function, which always equal the
    model's own (eager) answers, whatever the batch size (padded to a few sizes);
    bfloat16 answers in float32 arrays; the threads are limited before JAX starts."""
    there = run_python("""
        import os
        import numpy as np
        from engines.neural.backend import (backend_name, compiled_call, device_name, in_precision, keras,
                                            limit_threads)
        from engines.neural.resnet import build_resnet

        limited = limit_threads(1)  # before the first network runs
        threads = os.environ.get("NPROC")
        model = build_resnet((3, 3, 3), 9, blocks=1, filters=8)
        model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.05),
                      loss=[keras.losses.CategoricalCrossentropy(), keras.losses.MeanSquaredError()])
        call = compiled_call(model)
        x = np.random.default_rng(0).integers(0, 2, size=(7, 3, 3, 3)).astype(np.float32)

        def gap():  # the compiled call against the model itself, on 7 boards and on fewer
            eager = [keras.ops.convert_to_numpy(out) for out in model(x, training=False)]
            return max(float(np.abs(a[:n] - b).max()) for n in (1, 5, 7) for a, b in zip(eager, call(x[:n])))

        first, gaps = call(x)[0], [gap()]
        model.set_weights([w * 1.5 for w in model.get_weights()])
        scaled, gaps = call(x)[0], gaps + [gap()]
        for _ in range(5):
            model.train_on_batch(x, [np.eye(9, dtype=np.float32)[np.arange(7)], np.ones((7, 1), np.float32)])
        trained, gaps = call(x)[0], gaps + [gap()]
        half = compiled_call(in_precision(model, "bfloat16"))(x)
        print(json.dumps({"backend": backend_name(), "device": device_name(), "limited": limited,
                          "threads": threads, "again": limit_threads(1), "gaps": gaps,
                          "moved": [float(np.abs(scaled - first).max()), float(np.abs(trained - scaled).max())],
                          "half_dtypes": [str(out.dtype) for out in half],
                          "half_gap": float(np.abs(half[0] - trained).max())}))
    """)
    assert there["backend"] == "jax" and (there["device"] == "CPU" or there["device"].startswith("GPU ("))
    assert there["limited"] and there["threads"] == "1" and not there["again"]  # too late once JAX has started
    assert max(there["gaps"]) < 1e-5
    assert min(there["moved"]) > 1e-3  # new weights, then training, changed the answers
    assert there["half_dtypes"] == ["float32", "float32"] and there["half_gap"] < 0.05


def test_a_few_padded_sizes_serve_every_batch():
    sizes = [backend.padded_size(n) for n in range(1, 300)]
    assert all(n <= size <= 1.5 * n for n, size in zip(range(1, 300), sizes))
    assert sorted(set(sizes)) == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384]


def test_the_library_and_classic_engines_import_no_tensorflow_under_jax_nor_does_a_network():
    """With TensorFlow installed and importable: nothing of dlgo or the classic
    engines loads Keras, and on JAX Keras itself does not load TensorFlow, not
    even to save or clone a network."""
    there = run_python("""
        import sys
        import dlgo, engines
        from dlgo.app.cli import build_parser
        from dlgo.games import new_game

        build_parser()
        move = engines.create("mcts:rounds=5,seed=1").select_move(new_game("connect4"))
        before = ["tensorflow" in sys.modules, "keras" in sys.modules]

        import tempfile
        from engines.neural.backend import in_precision, load_model, save_model
        from engines.neural.resnet import build_resnet

        model = build_resnet((3, 3, 3), 9, blocks=1, filters=8)
        with tempfile.TemporaryDirectory() as folder:
            save_model(model, folder + "/net.keras", {})
            in_precision(load_model(folder + "/net.keras")[0], "bfloat16")
        print(json.dumps({"before": before, "after": "tensorflow" in sys.modules}))
    """, tensorflow=True)
    assert there == {"before": [False, False], "after": False}


def test_a_missing_backend_is_named_in_one_line():
    there = run_python(blocking("jax", "jaxlib") + textwrap.dedent("""
        from dlgo.core.errors import DlgoError
        from engines.neural.loading import load_network

        try:
            load_network("tictactoe")
            message = "loaded"
        except DlgoError as error:
            message = str(error)
        print(json.dumps({"message": message}))
    """))
    assert there["message"].startswith("the neural engines need JAX and Keras (")
    assert "pip install keras jax" in there["message"]
