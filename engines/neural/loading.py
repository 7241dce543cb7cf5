"""Model files ready to play, loaded once per process: the network on the fastest
runtime at hand (:mod:`engines.neural.inference`), its encoder and its metadata. A
network is named by its path or, for the networks that ship with the suite, by its
name (:mod:`engines.checkpoints`).

TensorFlow is imported on the first load, not before (the suite's one lazy
import), so listing the engines and their parameters stays fast; inside
:func:`metadata_only` nothing loads it at all, and engines built there can be
checked (their files, the game they play) but not played.
"""
from __future__ import annotations

import contextlib
import functools
import os
import threading
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from dlgo.core.errors import DlgoError, ModelFileError
from dlgo.core.game import State
from dlgo.encoders import Encoder, get_encoder_by_name
from engines.checkpoints import SHIPPED, read_metadata, resolve_model_path
from engines.neural.precision import check_precision

if TYPE_CHECKING:
    from engines.neural.inference import FastCall

#: the heads of a network, by the kind its file records (``kind`` in its metadata, written by the trainer)
KIND_HEADS: dict[str, tuple[str, ...]] = {
    "predictor": ("policy",), "pg": ("policy",), "value": ("value",), "q": ("action values",),
    "policy-value": ("policy", "value"), "alphazero": ("policy", "value"), "ac": ("policy", "value")}

#: set inside :func:`metadata_only`
_METADATA_ONLY: ContextVar[bool] = ContextVar("metadata_only", default=False)


class LoadedModel:
    """A model file ready to play: the network, its encoder, its metadata (with
    ``network=False`` the metadata and encoder only, read without TensorFlow);
    ``precision``: the arithmetic it plays in (:data:`~engines.neural.precision.PRECISIONS`).
    Its :meth:`call` runs the network on the fastest runtime at hand
    (:func:`~engines.neural.inference.fast_call`, built on the first call), whose
    name ``inference_path`` gives."""

    def __init__(self, path: str, network: bool = True, precision: str | None = "float32"):
        self.metadata = read_metadata(path)
        encoder = self.metadata.get("encoder")
        if not isinstance(encoder, dict) or not {"name", "game"} <= set(encoder):
            raise ModelFileError(f"{path} has no encoder recorded: it was not saved by dlgo's training")
        self.encoder: Encoder = get_encoder_by_name(encoder["name"], encoder["game"])
        self.precision = precision
        self.model: Any = _backend()[1](path, compile=False)[0] if network else None
        self._fast: FastCall | None = None  # built on the first call
        self._lock = threading.Lock()

    @classmethod
    def from_model(cls, model: Any, encoder: Encoder, metadata: dict[str, Any],
                   precision: str | None = None) -> "LoadedModel":
        """A network in memory (a ``keras.Model`` being trained), ready to play like a loaded
        file, in ``precision`` (None: the model's own); :meth:`refresh` after training it."""
        loaded = cls.__new__(cls)
        loaded.metadata, loaded.encoder, loaded.model, loaded._fast = metadata, encoder, model, None
        loaded.precision, loaded._lock = precision, threading.Lock()
        return loaded

    def call(self, batch: np.ndarray) -> list[np.ndarray]:
        """The network's float32 outputs (policy, value, auxiliary heads: the model's order)
        for a float32 ``batch`` of encoded positions ``(n, rows, cols, planes)``."""
        return self._fast_call()(batch)

    def refresh(self) -> None:
        """The network's weights changed (training, ``set_weights``): the next call
        converts it again (a runtime that reads the weights as they change goes on)."""
        with self._lock:
            if self._fast is not None and not self._fast.follows_weights:
                self._fast = None

    @property
    def inference_path(self) -> str:
        """The runtime and arithmetic the network's calls take (``"openvino bf16"``);
        ``"none"`` for a network read for its metadata only."""
        return "none" if self.model is None else self._fast_call().path

    def _fast_call(self) -> "FastCall":
        if self.model is None:
            raise DlgoError("this network was read for its metadata only (engines.neural.loading.metadata_only)")
        with self._lock:
            if self._fast is None:
                self._fast = _backend()[0](self.model, self.precision)
            return self._fast

    def check(self, state: State) -> None:
        """:class:`ModelFileError` unless this network can play ``state``'s game."""
        self.encoder.check(state.game)


def value_output(outputs: list[np.ndarray]) -> np.ndarray:
    """The value head's answers among a network's ``outputs`` (one per position, for
    the player to move): a value network's one output, or a policy-value network's
    second (auxiliary heads, where it has them, follow it)."""
    return outputs[0 if len(outputs) == 1 else 1][:, 0]


@contextlib.contextmanager
def metadata_only() -> Iterator[None]:
    """Inside the block, :func:`load_network` reads a model file's metadata and
    encoder and not its network (no TensorFlow, milliseconds): an engine built
    there checks its parameters and files, and says which game it plays."""
    token = _METADATA_ONLY.set(True)
    try:
        yield
    finally:
        _METADATA_ONLY.reset(token)


def _backend() -> tuple[Any, Any]:
    """``fast_call`` and ``load_model`` from the Keras backend: TensorFlow's lazy
    import, with a clear error where the ``[neural]`` extra is not installed."""
    try:
        from engines.neural.backend import load_model  # TensorFlow's lazy import
        from engines.neural.inference import fast_call
    except ImportError as err:
        backend = os.environ.get("KERAS_BACKEND", "tensorflow")  # Keras' backend: TensorFlow unless set
        name, install = _BACKENDS.get(backend, (backend, f"pip install keras {backend}"))
        raise DlgoError(f"the neural engines need {name} and Keras ({err}); install them with {install}") from None
    return fast_call, load_model


#: the Keras backends by ``KERAS_BACKEND``: their names and how to install them with Keras
_BACKENDS = {"tensorflow": ("TensorFlow", "pip install -e '.[neural]'"), "jax": ("JAX", "pip install keras jax"),
             "torch": ("PyTorch", "pip install keras torch")}


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime: float, precision: str) -> LoadedModel:
    return LoadedModel(path, precision=precision)


def load_network(path: str | Path, heads: tuple[str, ...] = (), engine: str = "",
                 precision: str = "float32") -> LoadedModel:
    """The model in ``path`` (or a shipped network's name), loaded once per
    process and precision (reloaded if the file changes); a :class:`ModelFileError` if its
    recorded kind lacks one of the ``heads`` the ``engine`` plays by (a value
    network is no move predictor)."""
    check_precision(precision)
    path = resolve_model_path(path)
    loaded = LoadedModel(str(path), network=False) if _METADATA_ONLY.get() else \
        _load(str(path.resolve()), path.stat().st_mtime, precision)
    kind = str(loaded.metadata.get("kind", ""))
    if not kind_has_heads(kind, heads):
        has = KIND_HEADS[kind]
        raise ModelFileError(f"{engine or 'this engine'} plays by a network's {_heads(heads)}; {_shown(path)} "
                             f"has only {'a ' if len(has) == 1 else ''}{_heads(has)} (its kind: {kind})")
    return loaded


def kind_has_heads(kind: str, heads: tuple[str, ...]) -> bool:
    """Whether a network of the recorded ``kind`` has the ``heads`` (an unrecorded kind may)."""
    return kind not in KIND_HEADS or all(head in KIND_HEADS[kind] for head in heads)


def _heads(heads: tuple[str, ...]) -> str:
    return " and ".join(heads) + (" heads" if len(heads) > 1 else " head")


def _shown(path: Path) -> str:
    """A shipped network by its name, any other by its path."""
    return path.stem if path.parent.resolve() == SHIPPED.resolve() else str(path)
