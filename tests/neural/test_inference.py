"""The fast inference path (engines.neural.inference): the same answers as Keras
float32 on every runtime (within each precision's tolerance), for any batch size
and every head; the fall back to Keras without the optional runtimes or when a
conversion fails; LoadedModel's use of it, rebuilt after training. Tiny networks;
no timing is ever asserted (benchmarks/inference.py measures the speed)."""
from __future__ import annotations

import logging
import sys

import numpy as np
import pytest

backend = pytest.importorskip("engines.neural.backend")

from dlgo.core.errors import SpecError  # noqa: E402
from dlgo.encoders import get_encoder_by_name  # noqa: E402
from engines.neural import inference  # noqa: E402
from engines.neural.loading import LoadedModel  # noqa: E402
from engines.neural.resnet import build_resnet  # noqa: E402

#: the largest difference from Keras float32 allowed: float32 must compute in float32 (a bf16
#: computation differs by about 1e-3 here), bfloat16 keeps 8 significant bits
TOLERANCE = {"float32": 1e-5, "bfloat16": 0.05}
BATCHES = (1, 2, 7, 33)  # one position, odd sizes, more than a SIMD width
ENCODER = get_encoder_by_name(None, "connect4")  # (6, 7, 3): not square, so a transposed board shows

tensorflow_only = pytest.mark.skipif(backend.keras.backend.backend() != "tensorflow",
                                     reason="the runtimes convert TensorFlow's graph")


@pytest.fixture(autouse=True)
def auto_runtime(monkeypatch):
    """Each test starts from the default: DLGO_INFERENCE unset, no thread limit."""
    monkeypatch.delenv(inference.ENVIRONMENT, raising=False)
    monkeypatch.setattr(inference, "_threads", None)


@pytest.fixture(scope="module")
def model():
    """A tiny policy-value ResNet with every auxiliary head (five outputs, one of them a board)."""
    backend.keras.utils.set_random_seed(0)
    return build_resnet(ENCODER.shape, ENCODER.num_moves, blocks=1, filters=8,
                        auxiliary=("moves_left", "score", "ownership"))


def positions(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2, size=(n, *ENCODER.shape)).astype(np.float32)


def keras_answers(model, batch: np.ndarray) -> list[np.ndarray]:
    return [backend.keras.ops.convert_to_numpy(out) for out in model(batch, training=False)]


def assert_same_answers(call, model, tolerance: float) -> None:
    for n in BATCHES:
        batch = positions(n, seed=n)
        answers, expected = call(batch), keras_answers(model, batch)
        assert len(answers) == len(expected) == 5
        for answer, exact in zip(answers, expected):
            assert answer.dtype == np.float32 and answer.shape == exact.shape
            np.testing.assert_allclose(answer, exact, atol=tolerance, rtol=tolerance)


@tensorflow_only
@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_openvino_answers_as_keras_float32_does(model, precision):
    pytest.importorskip("openvino")
    call = inference.openvino_call(model, precision)
    assert call.path.startswith("openvino")
    assert_same_answers(call, model, TOLERANCE[precision])


@tensorflow_only
def test_openvino_float32_really_computes_in_float32(model):
    pytest.importorskip("openvino")
    call = inference.openvino_call(model, "float32")
    assert call.path == "openvino f32"  # not the bfloat16 OpenVINO picks by itself on a CPU that has it
    batch = positions(16)
    worst = max(float(np.max(np.abs(a - e))) for a, e in zip(call(batch), keras_answers(model, batch)))
    assert worst < 1e-5


@tensorflow_only
def test_onnxruntime_answers_as_keras_float32_does(model):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tf2onnx")
    call = inference.onnxruntime_call(model)
    assert call.path == "onnxruntime f32"
    assert_same_answers(call, model, TOLERANCE["float32"])


@tensorflow_only
def test_the_fast_path_is_openvino_where_it_is_installed(model):
    pytest.importorskip("openvino")
    call = inference.fast_call(model)
    assert call.path == "openvino f32" and not call.follows_weights
    assert inference.fast_call(model, "bfloat16").path in ("openvino bf16", "openvino f32")  # f32: a CPU without bf16
    inference.set_threads(1)
    assert inference.fast_call(model).path == "openvino f32 (1 thread)"
    assert_same_answers(inference.fast_call(model), model, TOLERANCE["float32"])


def test_without_the_optional_runtimes_keras_answers(model, monkeypatch):
    monkeypatch.setitem(sys.modules, "openvino", None)  # import openvino: ImportError
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    inference._openvino_core.cache_clear()
    try:
        call = inference.fast_call(model)
    finally:
        inference._openvino_core.cache_clear()
    assert call.path == f"keras float32 ({backend.keras.backend.backend()})" and call.follows_weights
    assert_same_answers(call, model, TOLERANCE["float32"])


@tensorflow_only
def test_a_failed_conversion_falls_back_with_a_warning(model, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("unsupported operation")

    monkeypatch.setattr(inference, "openvino_call", broken)
    monkeypatch.setattr(inference, "onnxruntime_call", broken)
    with caplog.at_level(logging.WARNING, logger=inference.__name__):
        call = inference.fast_call(model)
    assert call.path.startswith("keras")
    assert "openvino could not run the network (RuntimeError: unsupported operation)" in caplog.text
    assert_same_answers(call, model, TOLERANCE["float32"])


def test_dlgo_inference_forces_a_runtime(model, monkeypatch):
    monkeypatch.setenv(inference.ENVIRONMENT, "keras")
    assert inference.fast_call(model).path.startswith("keras float32")
    assert inference.fast_call(model, "bfloat16").path.startswith("keras mixed_bfloat16")
    monkeypatch.setenv(inference.ENVIRONMENT, "tensorrt")
    with pytest.raises(SpecError, match="DLGO_INFERENCE must be one of auto, openvino"):
        inference.fast_call(model)


@tensorflow_only
def test_a_mixed_precision_copy_runs_in_its_precision(model):
    pytest.importorskip("openvino")
    copy = backend.in_precision(model, "bfloat16")
    assert inference.model_precision(copy) == "bfloat16" and inference.model_precision(model) == "float32"
    assert inference.fast_call(copy).path in ("openvino bf16", "openvino f32")
    assert_same_answers(inference.fast_call(copy, "float32"), model, TOLERANCE["float32"])  # its float32 twin


def test_refresh_follows_set_weights_and_training():
    backend.keras.utils.set_random_seed(1)
    net = build_resnet(ENCODER.shape, ENCODER.num_moves, blocks=1, filters=8, auxiliary=("moves_left",))
    net.compile(optimizer=backend.keras.optimizers.SGD(learning_rate=0.1),
                loss=["categorical_crossentropy", "mse", "mse"], run_eagerly=True)  # one step: no graph to trace
    loaded = LoadedModel.from_model(net, ENCODER, {"kind": "alphazero", "encoder": ENCODER.config()})
    batch = positions(5)
    before = loaded.call(batch)
    net.set_weights([w * 1.5 for w in net.get_weights()])
    loaded.refresh()
    after = loaded.call(batch)
    assert not np.allclose(before[0], after[0], atol=1e-4)
    for answer, exact in zip(after, keras_answers(net, batch)):
        np.testing.assert_allclose(answer, exact, atol=TOLERANCE["float32"], rtol=TOLERANCE["float32"])
    targets = [np.eye(ENCODER.num_moves, dtype=np.float32)[[0] * 5], np.ones((5, 1), np.float32),
               np.zeros((5, 1), np.float32)]
    net.train_on_batch(batch, targets)
    loaded.refresh()
    assert not np.allclose(after[0], loaded.call(batch)[0], atol=1e-4)
    for answer, exact in zip(loaded.call(batch), keras_answers(net, batch)):
        np.testing.assert_allclose(answer, exact, atol=TOLERANCE["float32"], rtol=TOLERANCE["float32"])


def test_a_model_file_plays_on_the_fast_path(tmp_path, model):
    path = tmp_path / "net.keras"
    backend.save_model(model, path, {"kind": "alphazero", "encoder": ENCODER.config()})
    loaded = LoadedModel(str(path))
    expected = "openvino f32" if _has("openvino") and backend.keras.backend.backend() == "tensorflow" else "keras"
    assert loaded.inference_path.startswith(expected)
    assert_same_answers(loaded.call, model, TOLERANCE["float32"])
    half = LoadedModel(str(path), precision="bfloat16")
    assert half.inference_path.split()[0] in ("openvino", "onnxruntime", "keras")
    assert_same_answers(half.call, model, TOLERANCE["bfloat16"])
    assert LoadedModel(str(path), network=False).inference_path == "none"


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def test_a_runtime_given_a_thread_count_leaves_its_threads_unpinned(model, monkeypatch):
    """Self-play workers get one thread each: pinned, OpenVINO would put every
    process's thread on the same first core (two workers ran as fast as one)."""
    pytest.importorskip("openvino")
    core, configs = inference._openvino_core(), []

    class Recording:
        def __getattr__(self, name):
            return getattr(core, name)

        def compile_model(self, network, device, config):
            configs.append(dict(config))
            return core.compile_model(network, device, config)

    monkeypatch.setattr(inference, "_openvino_core", lambda: Recording())
    inference.openvino_call(model, threads=1)
    inference.openvino_call(model)
    assert configs[0]["INFERENCE_NUM_THREADS"] == 1 and configs[0]["ENABLE_CPU_PINNING"] is False
    assert "ENABLE_CPU_PINNING" not in configs[1]  # all cores, this process alone: OpenVINO's default
