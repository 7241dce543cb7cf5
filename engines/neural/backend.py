"""Keras, imported once with quiet logs, on any of its backends; model files
that carry their encoder; compiled inference.

The backend is Keras 3's: ``KERAS_BACKEND=jax`` (or ``torch``) before the first
import, TensorFlow by default. Nothing on the network path needs TensorFlow
itself (a machine with JAX alone trains and plays): :func:`compiled_call`,
:func:`device_name` and :func:`limit_threads` do what each backend needs, and
``tf`` is TensorFlow only where it is the backend (else ``None``).

A ``.keras`` file is a zip archive, the same whatever the backend that wrote it.
:func:`save_model` adds one entry, ``dlgo.json``, holding what is needed to use
the network (its encoder, the game, how it was trained), so :func:`load_model`
needs only the path. Files are written to a temporary name and moved into place,
never left half written.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator

import h5py  # Keras' own dependency: its weights file
import numpy as np

from dlgo.core.errors import ModelFileError
from dlgo.storage.atomic import temporary_path
from engines.checkpoints import METADATA, read_metadata  # read without TensorFlow; kept here for the trainers
from engines.neural.precision import PRECISIONS

# No C++ log lines above the board (a CPU-only machine gets "failed call to cuInit"
# as an error); a Python exception still says what went wrong. Set
# TF_CPP_MIN_LOG_LEVEL=0 to see them all.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")


@contextlib.contextmanager
def quiet_native_stderr() -> Iterator[None]:
    """Hide what native code writes to the process's stderr (file descriptor 2)
    inside the block: TensorFlow's start-up lines come before its logging reads
    TF_CPP_MIN_LOG_LEVEL. If the block raises, what was hidden is shown."""
    if os.environ["TF_CPP_MIN_LOG_LEVEL"] == "0":
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as hidden:
        os.dup2(hidden.fileno(), 2)
        try:
            yield
        except BaseException:
            os.dup2(saved, 2)
            hidden.seek(0)
            sys.stderr.write(hidden.read().decode("utf-8", "replace"))
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)


with quiet_native_stderr():
    import keras  # noqa: E402

    #: TensorFlow, where it is the backend (for TensorFlow's own settings), else None
    tf: Any = importlib.import_module("tensorflow") if keras.backend.backend() == "tensorflow" else None

if tf is None:
    # Keras imports TensorFlow where it is installed, whatever the backend, to recognise its objects
    # (saving a model, cloning one, seeding): 2.5 s and 0.45 GB a process, its start-up lines on stderr.
    # Told it is not there, Keras works as on a machine without it (the networks never meet TensorFlow's objects).
    _lazy_tensorflow: Any = getattr(importlib.import_module("keras.src.utils.module_utils"), "tensorflow", None)
    if getattr(_lazy_tensorflow, "_available", False) is None:
        _lazy_tensorflow._available = False


def _cache_jax_compilations() -> None:
    """JAX compiles each operation it first meets (on a CPU 0.3 to 1 s each: a process's
    first network build, load and call take seconds, every self-play worker's too): kept
    in ``~/.cache/dlgo/jax``, later processes read them back. ``JAX_COMPILATION_CACHE_DIR``
    (JAX's own setting) names another folder; an unwritable one leaves the cache off."""
    import jax

    if "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return
    try:
        folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dlgo" / "jax"
        folder.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # no home folder, or none to write in
        return
    jax.config.update("jax_compilation_cache_dir", str(folder))
    if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)  # JAX's default: 1 s and more


if keras.backend.backend() == "jax":
    _cache_jax_compilations()

__all__ = ["keras", "tf", "backend_name", "save_model", "load_model", "read_metadata", "compiled_call",
           "export_model", "device_name", "limit_threads"]


#: The archive's weights (Keras' HDF5 file inside the ``.keras`` zip).
WEIGHTS = "model.weights.h5"


def save_model(model: "keras.Model", path: str | Path, metadata: dict[str, Any], half_weights: bool = False) -> None:
    """Save ``model`` (with its optimizer state) and ``metadata`` to ``path`` atomically.
    ``half_weights`` stores the float32 weights in float16 (see :func:`halve_weights`)."""
    path = Path(path)
    if path.suffix != ".keras":
        raise ModelFileError(f"model files end in .keras, got {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path).with_suffix(".tmp.keras")  # Keras insists on the suffix
    try:
        model.save(tmp)
        if half_weights:
            halve_weights(tmp)
        with zipfile.ZipFile(tmp, "a") as archive:
            archive.writestr(METADATA, json.dumps(metadata, indent=2))
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def load_model(path: str | Path, compile: bool = True) -> tuple["keras.Model", dict[str, Any]]:
    """The model in ``path`` and its metadata."""
    metadata = read_metadata(path)
    try:
        model = keras.saving.load_model(path, compile=compile)
    except (OSError, KeyError, ValueError, TypeError) as err:  # a damaged or foreign archive
        raise ModelFileError(f"cannot load {path}: {err}") from None
    return model, metadata


def export_model(source: str | Path, dest: str | Path, half_weights: bool = False) -> None:
    """Copy the network in ``source`` to ``dest`` without its optimizer state
    (a third of the size: what ships in ``checkpoints/``), metadata kept;
    ``half_weights`` halves the size again (:func:`halve_weights`)."""
    model, metadata = load_model(source, compile=False)
    save_model(model, dest, metadata, half_weights=half_weights)


def halve_weights(path: Path) -> None:
    """Rewrite the ``.keras`` archive at ``path`` with its float32 weights stored
    as float16, compressed: under half the size. Keras (and :func:`load_model`)
    load them back into float32 variables, so the network computes as before
    with each weight rounded to 11 significant bits (outputs move by about 1e-3,
    as in many shipped engines' half-precision weight files). An optimizer's
    state, a variable Keras marks with a dtype of its own and one float16 cannot
    hold (beyond 65,504) are copied as they are."""
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    halved = io.BytesIO()
    with h5py.File(io.BytesIO(entries[WEIGHTS]), "r") as full, h5py.File(halved, "w") as half:
        def copy(name: str, item: Any) -> None:
            if isinstance(item, h5py.Group):
                half.require_group(name).attrs.update(item.attrs)  # a group comes before its members
            elif halvable(name, item):
                half.create_dataset(name, data=item[()].astype(np.float16)).attrs.update(item.attrs)
            else:
                full.copy(item, half, name=name)

        half.attrs.update(full.attrs)
        full.visititems(copy)
    entries[WEIGHTS] = halved.getvalue()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)


def halvable(name: str, dataset: "h5py.Dataset") -> bool:
    """Can :func:`halve_weights` store this weights-file dataset in float16?"""
    if dataset.dtype != np.float32 or name.startswith("optimizer") or "dtype" in dataset.attrs:
        return False
    return bool(np.all(np.abs(dataset[()]) <= np.finfo(np.float16).max))


def backend_name() -> str:
    """The Keras backend the networks run on: ``tensorflow``, ``jax`` or ``torch``
    (``KERAS_BACKEND``, read when Keras was first imported)."""
    return str(keras.backend.backend())


def device_name() -> str:
    """Where the backend runs the networks: ``GPU (NVIDIA H100 ...)`` when it sees an
    accelerator (a CUDA build of the backend: TensorFlow's ``pip install -e '.[gpu]'``,
    ``jax[cuda12]``, PyTorch's CUDA wheels), else ``CPU``."""
    backend = backend_name()
    if backend == "tensorflow":
        gpus = tf.config.list_physical_devices("GPU")
        if not gpus:
            return "CPU"
        details = tf.config.experimental.get_device_details(gpus[0])
        return _accelerator("GPU", details.get("device_name", gpus[0].name), len(gpus))
    if backend == "jax":
        import jax

        devices = jax.devices()
        if devices[0].platform == "cpu":
            return "CPU"
        return _accelerator(devices[0].platform.upper(), devices[0].device_kind, len(devices))
    if backend == "torch":
        torch = importlib.import_module("torch")  # not installed with the suite
        if torch.cuda.is_available():
            return _accelerator("GPU", torch.cuda.get_device_name(0), torch.cuda.device_count())
        if torch.backends.mps.is_available():
            return "GPU (Apple MPS)"
    return "CPU"


def _accelerator(kind: str, name: str, count: int) -> str:
    """``GPU (NVIDIA H200)``, ``GPU (NVIDIA H200 x8)``."""
    return f"{kind} ({name}" + (f" x{count})" if count > 1 else ")")


def limit_threads(threads: int) -> bool:
    """At most ``threads`` threads for the networks' arithmetic in this process (a
    self-play worker: one, the worker processes sharing the cores). Call it before
    the first network runs here: TensorFlow's threading settings; JAX's: ``NPROC``,
    which XLA reads for the size of its CPU thread pool when JAX starts its devices
    (and ``XLA_PYTHON_CLIENT_PREALLOCATE=false`` unless set: workers sharing a GPU
    do not each take three quarters of its memory); PyTorch's
    ``torch.set_num_threads``. Best effort: False where the backend had already
    started (it keeps the threads it has, as a Ray worker's second task finds it)."""
    backend = backend_name()
    if backend == "tensorflow":
        try:
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(threads)
        except RuntimeError:  # already initialised
            return False
        return True
    if backend == "jax":
        from jax._src import xla_bridge  # no public way to ask whether the devices have started

        os.environ["NPROC"] = str(threads)
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        return not xla_bridge.backends_are_initialized()
    if backend == "torch":
        torch = importlib.import_module("torch")
        torch.set_num_threads(threads)
        try:
            torch.set_num_interop_threads(threads)
        except RuntimeError:  # already initialised
            return False
        return True
    return False


def in_precision(model: "keras.Model", precision: str) -> "keras.Model":
    """``model`` to play in ``precision`` (:data:`~engines.neural.precision.PRECISIONS`):
    itself for float32, else a copy whose layers compute in bfloat16 or float16
    (mixed precision: the weights, copied now, stay float32). A copy does not
    follow later training of ``model``: copy the weights again (``set_weights``)."""
    if PRECISIONS[precision] == "float32":
        return model
    copy = keras.models.clone_model(model)
    copy.set_weights(model.get_weights())
    for layer in copy.layers:
        layer.dtype_policy = keras.DTypePolicy(PRECISIONS[precision])
    return copy


def compiled_call(model: "keras.Model") -> Callable[[np.ndarray], list[np.ndarray]]:
    """``model`` as a compiled function of a float32 batch, returning float32 numpy
    outputs (whatever the precision it computed in). It reads the model's weights
    at each call: training them needs no new compiled function. TensorFlow: a
    graph (about 1 ms per call here against 45 ms for ``model.predict``), one trace
    for every batch size; JAX: :func:`jax.jit` of the model's pure function of its
    weights, a trace for each of a few batch sizes (:func:`padded_size`); other
    backends (PyTorch): the model called without gradients."""
    backend = backend_name()
    if backend == "tensorflow":
        return _tensorflow_call(model)
    if backend == "jax":
        return _jax_call(model)
    return _eager_call(model)


def _tensorflow_call(model: "keras.Model") -> Callable[[np.ndarray], list[np.ndarray]]:
    shape = tuple(model.inputs[0].shape[1:])

    @tf.function(input_signature=[tf.TensorSpec((None,) + shape, tf.float32)], reduce_retracing=True)
    def call(batch):
        return _listed(model(batch, training=False))

    def run(batch: np.ndarray) -> list[np.ndarray]:
        return _float32(call(tf.convert_to_tensor(batch, tf.float32)))

    return run


def _jax_call(model: "keras.Model") -> Callable[[np.ndarray], list[np.ndarray]]:
    import jax

    variables = [*model.trainable_variables, *model.non_trainable_variables]

    @jax.jit
    def call(values, batch):  # traced once for each batch shape: the weights are arguments, not constants
        value_of = {id(variable): value for variable, value in zip(variables, values)}
        out, _ = model.stateless_call([value_of[id(v)] for v in model.trainable_variables],
                                      [value_of[id(v)] for v in model.non_trainable_variables], batch,
                                      training=False)
        return _listed(out)

    def run(batch: np.ndarray) -> list[np.ndarray]:
        batch, n = np.asarray(batch, np.float32), len(batch)
        if padded_size(n) > n:
            batch = np.concatenate([batch, np.zeros((padded_size(n) - n, *batch.shape[1:]), np.float32)])
        return [out[:n] for out in _float32(call([v.value for v in variables], batch))]

    return run


def padded_size(n: int) -> int:
    """The batch size a JAX network runs ``n`` positions at (zeros fill the rest):
    the next of 1, 2, 3, 4, 6, 8, 12, 16, 24, ... (powers of two and halfway
    between), so a few traces serve every batch (each costs about half a second
    for a 5-block network on a CPU; self-play's batches vary as its games end),
    with at most a third of the work wasted."""
    if n <= 2:
        return n
    power = 1 << (n - 1).bit_length()  # the power of two from n up
    return power * 3 // 4 if n <= power * 3 // 4 else power


def _eager_call(model: "keras.Model") -> Callable[[np.ndarray], list[np.ndarray]]:
    no_grad = importlib.import_module("torch").no_grad if backend_name() == "torch" else contextlib.nullcontext

    def run(batch: np.ndarray) -> list[np.ndarray]:
        with no_grad():
            return _float32(_listed(model(np.asarray(batch, np.float32), training=False)))

    return run


def _listed(out: Any) -> list[Any]:
    """A model's outputs as a list (a one-headed model answers a tensor)."""
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _float32(outputs: list[Any]) -> list[np.ndarray]:
    """A backend's tensors as float32 numpy arrays."""
    return [np.asarray(keras.ops.convert_to_numpy(o)).astype(np.float32, copy=False) for o in outputs]
