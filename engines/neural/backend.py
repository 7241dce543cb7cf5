"""Keras, imported once with quiet logs; model files that carry their encoder;
compiled inference.

A ``.keras`` file is a zip archive. :func:`save_model` adds one entry,
``dlgo.json``, holding what is needed to use the network (its encoder, the game,
how it was trained), so :func:`load_model` needs only the path. Files are
written to a temporary name and moved into place, never left half written.
"""
from __future__ import annotations

import contextlib
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
    import tensorflow as tf  # noqa: E402

__all__ = ["keras", "tf", "save_model", "load_model", "read_metadata", "compiled_call", "export_model"]


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


def device_name() -> str:
    """Where TensorFlow runs the networks: ``GPU (NVIDIA H100 ...)`` when it sees an
    accelerator (TensorFlow's CUDA build: ``pip install -e '.[gpu]'``), else ``CPU``."""
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        return "CPU"
    details = tf.config.experimental.get_device_details(gpus[0])
    return f"GPU ({details.get('device_name', gpus[0].name)}" + (f" x{len(gpus)})" if len(gpus) > 1 else ")")


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
    """``model`` as a graph-compiled function of a float32 batch, returning numpy
    outputs. About 1 ms per call here against 45 ms for ``model.predict``; one
    trace serves every batch size."""
    shape = tuple(model.inputs[0].shape[1:])

    @tf.function(input_signature=[tf.TensorSpec((None,) + shape, tf.float32)], reduce_retracing=True)
    def call(batch):
        out = model(batch, training=False)
        return out if isinstance(out, (list, tuple)) else [out]

    def run(batch: np.ndarray) -> list[np.ndarray]:  # float32 answers, whatever the precision it computed in
        return [o.numpy().astype(np.float32, copy=False) for o in call(tf.convert_to_tensor(batch, tf.float32))]

    return run
