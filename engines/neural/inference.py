"""A network's forward pass at the processor's speed: the fastest inference
runtime at hand, built from a Keras model.

:func:`fast_call` takes the first of these that works, fastest first as
``benchmarks/inference.py`` measures them side by side:

- ``openvino``: the network frozen (its weights as constants) and compiled by
  OpenVINO's CPU plugin, in float32 or with bfloat16 arithmetic where the CPU
  has it;
- ``onnxruntime``: the frozen network converted by tf2onnx and run by ONNX
  Runtime (float32 only);
- ``keras``: :func:`~engines.neural.backend.compiled_call`, the Keras backend's
  compiled call (TensorFlow's graph): always there, and the one for a GPU.

OpenVINO, ONNX Runtime and tf2onnx are optional and imported only when tried:
without them, or where a conversion fails (with a logged warning), the network
runs on Keras as before. ``DLGO_INFERENCE`` (``auto``, the default, ``openvino``,
``onnxruntime`` or ``keras``) names the runtime to use. A frozen network does not
follow later training of the model: build it again (``LoadedModel.refresh``).
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

import numpy as np

from dlgo.core.errors import SpecError
from engines.neural.backend import compiled_call, device_name, in_precision, keras, tf
from engines.neural.precision import PRECISIONS, check_precision

log = logging.getLogger(__name__)

#: the environment variable naming the runtime, and its values
ENVIRONMENT = "DLGO_INFERENCE"
RUNTIMES = ("auto", "openvino", "onnxruntime", "keras")

#: the largest difference from Keras float32 a new runtime may show on a check batch (absolute + relative):
#: tight for float32, loose for the half precisions (there it only catches a broken conversion)
TOLERANCE = {"float32": 1e-3, "bfloat16": 0.1, "float16": 0.1}

#: OpenVINO's names for the precisions (its CPU plugin computes f16 in bf16 where the CPU lacks f16 arithmetic)
OPENVINO_PRECISION = {"float32": "f32", "bfloat16": "bf16", "float16": "f16"}

Batch = np.ndarray
Outputs = list[np.ndarray]

_threads: int | None = None


def set_threads(threads: int | None) -> None:
    """The threads each later-built runtime computes with (``None``: all cores):
    one in each self-play worker process, so that the processes share the cores."""
    global _threads
    _threads = threads


class FastCall:
    """A network's forward pass: a float32 batch ``(n, rows, cols, planes)`` to its
    float32 outputs in the Keras model's order; ``path`` says which runtime and
    arithmetic compute it (``"openvino bf16"``); ``follows_weights``: whether it reads
    the model's variables as they change (only the Keras path on the model itself)."""

    def __init__(self, run: Callable[[Batch], Outputs], path: str, follows_weights: bool = False) -> None:
        self.run, self.path, self.follows_weights = run, path, follows_weights

    def __call__(self, batch: Batch) -> Outputs:
        return self.run(batch)

    def __repr__(self) -> str:
        return f"FastCall({self.path!r})"


def fast_call(model: "keras.Model", precision: str | None = None, threads: int | None = None,
              runtime: str | None = None) -> FastCall:
    """The fastest forward pass of ``model`` that works here. ``precision`` (None: the
    model's own, float32 unless it is a mixed-precision copy from ``in_precision``);
    ``threads`` (None: :func:`set_threads`' number, else TensorFlow's intra-op
    setting where one was made, else all cores); ``runtime`` (None: ``DLGO_INFERENCE``,
    default ``auto``) one of :data:`RUNTIMES`."""
    precision = precision or model_precision(model)
    check_precision(precision)
    runtime = runtime or os.environ.get(ENVIRONMENT, "auto") or "auto"
    if runtime not in RUNTIMES:
        raise SpecError(f"{ENVIRONMENT} must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
    threads = thread_count(threads)
    for name in _candidates(runtime, precision):
        built = _try(name, model, precision, threads, warn=runtime != "auto")
        if built is not None:
            return built
    return keras_call(model, precision)


def _candidates(runtime: str, precision: str) -> list[str]:
    """The runtimes to try, fastest first (:data:`RUNTIMES`; Keras is the last resort)."""
    if runtime != "auto":
        return [runtime]
    if keras.backend.backend() != "tensorflow" or device_name() != "CPU":  # a GPU: TensorFlow's own
        return []
    return ["openvino"] + (["onnxruntime"] if precision == "float32" else [])


def _try(runtime: str, model: "keras.Model", precision: str, threads: int | None, warn: bool) -> FastCall | None:
    """``runtime``'s forward pass of ``model``, checked against Keras float32; None (and a
    log line) where it is not installed or its conversion fails."""
    if runtime == "keras":
        return keras_call(model, precision)
    builder = openvino_call if runtime == "openvino" else onnxruntime_call
    try:
        reference = float32_model(model)
        built = builder(reference, precision, threads)
        check_answers(built, reference, precision)
        return built
    except ImportError as err:  # an optional runtime that is not installed: expected in auto
        (log.warning if warn else log.debug)("%s is not installed (%s): the network runs without it", runtime, err)
    except Exception as err:  # noqa: BLE001 - any failure of a converter means: the next runtime
        log.warning("%s could not run the network (%s: %s); using the next runtime", runtime,
                    type(err).__name__, err)
    return None


def thread_count(threads: int | None = None) -> int | None:
    """The threads a runtime gets: ``threads``, else :func:`set_threads`' number, else
    TensorFlow's intra-op setting where one was made, else None (all cores)."""
    if threads is not None:
        return threads
    if _threads is not None:
        return _threads
    return (tf.config.threading.get_intra_op_parallelism_threads() or None) if tf is not None else None


def model_precision(model: "keras.Model") -> str:
    """The precision ``model``'s layers compute in (``bfloat16`` for an ``in_precision`` copy)."""
    computed = {layer.dtype_policy.compute_dtype for layer in model.layers}
    return next((p for p in ("bfloat16", "float16") if p in computed), "float32")


def float32_model(model: "keras.Model") -> "keras.Model":
    """``model`` computing in float32: itself, or a copy of a mixed-precision one (its weights, now)."""
    if model_precision(model) == "float32":
        return model
    copy = keras.models.clone_model(model)
    for layer in copy.layers:
        layer.dtype_policy = keras.DTypePolicy("float32")
    copy.set_weights(model.get_weights())
    return copy


class FrozenGraph(NamedTuple):
    """A network's float32 forward pass as a TensorFlow graph with its weights as constants."""

    graph: Any            # the GraphDef
    board: str            # its input tensor: a batch of any size
    outputs: list[str]    # its output tensors, in the Keras model's order (a converter may reorder them)


def frozen_graph(model: "keras.Model") -> FrozenGraph:
    """``model``'s float32 forward pass (:func:`float32_model`), its weights as they are now, frozen."""
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    model = float32_model(model)
    spec = tf.TensorSpec((None, *model.inputs[0].shape[1:]), tf.float32, name="board")

    @tf.function(input_signature=[spec])
    def forward(batch):
        return _listed(model(batch, training=False))

    frozen = convert_variables_to_constants_v2(forward.get_concrete_function())
    return FrozenGraph(frozen.graph.as_graph_def(), frozen.inputs[0].name, [out.name for out in frozen.outputs])


def keras_call(model: "keras.Model", precision: str) -> FastCall:
    """The Keras backend's compiled call of ``model`` in ``precision`` (a mixed-precision model in its own)."""
    playing = in_precision(model, precision) if model_precision(model) == "float32" else model
    path = f"keras {PRECISIONS[model_precision(playing)]} ({keras.backend.backend()})"
    return FastCall(compiled_call(playing), path, follows_weights=playing is model)


@functools.cache
def _openvino_core() -> Any:
    return importlib.import_module("openvino").Core()


def openvino_call(model: "keras.Model", precision: str = "float32", threads: int | None = None,
                  batch_size: int | None = None) -> FastCall:
    """``model`` frozen, read by OpenVINO (through a temporary file, removed at once)
    and compiled for the CPU, computing in ``precision`` (an explicit hint: OpenVINO
    would pick bfloat16 on a CPU that has it) with a latency hint (one synchronous
    call a batch: twice the throughput hint's speed here), for batches of any size
    or of ``batch_size`` only (no faster, as measured: the benchmark's comparison)."""
    core = _openvino_core()
    frozen = frozen_graph(model)
    with tempfile.TemporaryDirectory(prefix="dlgo-openvino-") as folder:
        file = Path(folder) / "network.pb"
        file.write_bytes(frozen.graph.SerializeToString())
        converted = core.read_model(str(file))
    if batch_size:
        converted.reshape([batch_size, *model.inputs[0].shape[1:]])
    config: dict[str, Any] = {"INFERENCE_PRECISION_HINT": OPENVINO_PRECISION[precision], "PERFORMANCE_HINT": "LATENCY"}
    if threads:  # a share of the cores, beside other processes: OpenVINO's pinning would put every
        # process's threads on the same first cores (two self-play workers on one core)
        config["INFERENCE_NUM_THREADS"] = threads
        config["ENABLE_CPU_PINNING"] = False
    compiled = core.compile_model(converted, "CPU", config)
    ports = {name: port for port in compiled.outputs for name in port.get_names()}
    outputs = [ports[name] for name in frozen.outputs]
    request, lock = compiled.create_infer_request(), threading.Lock()

    def run(batch: Batch) -> Outputs:
        with lock:  # one request, reused: not to be shared by two threads at once
            answers = request.infer([np.ascontiguousarray(batch, np.float32)])
            return [np.asarray(answers[port], np.float32) for port in outputs]

    computed = compiled.get_property("INFERENCE_PRECISION_HINT").to_string()
    return FastCall(run, f"openvino {computed}" + _threads_note(threads))


def onnxruntime_call(model: "keras.Model", precision: str = "float32", threads: int | None = None) -> FastCall:
    """``model`` frozen, converted in memory by tf2onnx and run by ONNX Runtime on the CPU (float32 only)."""
    if precision != "float32":
        raise ValueError(f"ONNX Runtime computes in float32 on a CPU, not {precision}")
    onnxruntime = importlib.import_module("onnxruntime")
    tf2onnx = importlib.import_module("tf2onnx")  # optional, untyped: imported when tried
    frozen = frozen_graph(model)
    with _quiet_loggers("tf2onnx", "tensorflow"):  # its every step, and TensorFlow's deprecation notices for it
        proto, _ = tf2onnx.convert.from_graph_def(frozen.graph, input_names=[frozen.board],
                                                  output_names=frozen.outputs)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads or 0
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])

    def run(batch: Batch) -> Outputs:
        answers = session.run(frozen.outputs, {frozen.board: np.ascontiguousarray(batch, np.float32)})
        return [np.asarray(a, np.float32) for a in answers]

    return FastCall(run, "onnxruntime f32" + _threads_note(threads))


@contextlib.contextmanager
def _quiet_loggers(*names: str) -> Iterator[None]:
    """Only errors from the loggers ``names`` inside the block."""
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def _listed(outputs: Any) -> list[Any]:
    """A model's outputs as a list (a one-headed model answers a tensor)."""
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def _threads_note(threads: int | None) -> str:
    return f" ({threads} thread{'s' if threads > 1 else ''})" if threads else ""


def check_answers(call: FastCall, model: "keras.Model", precision: str, size: int = 5) -> None:
    """A ValueError unless ``call`` answers a random batch as ``model`` (float32) does
    (the same outputs, shapes and values within :data:`TOLERANCE` for ``precision``)."""
    reference = float32_model(model)
    batch = np.random.default_rng(0).random((size, *reference.inputs[0].shape[1:]), dtype=np.float32)
    expected = [keras.ops.convert_to_numpy(e) for e in _listed(reference(batch, training=False))]
    answers = call(batch)
    if [a.shape for a in answers] != [e.shape for e in expected]:
        raise ValueError(f"outputs of shapes {[a.shape for a in answers]}, Keras' {[e.shape for e in expected]}")
    tolerance = TOLERANCE[precision]
    for i, (answer, exact) in enumerate(zip(answers, expected)):
        if not np.allclose(answer, exact, rtol=tolerance, atol=tolerance):
            raise ValueError(f"output {i} differs from Keras' by {float(np.max(np.abs(answer - exact))):.3g}")
