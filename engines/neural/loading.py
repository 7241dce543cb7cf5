"""Model files ready to play, loaded once per process: the compiled network, its
encoder and its metadata. A network is named by its path or, for the networks
that ship with the suite, by its name (:mod:`engines.checkpoints`).

TensorFlow is imported on the first load, not before (the suite's one lazy
import), so listing the engines and their parameters stays fast; inside
:func:`metadata_only` nothing loads it at all, and engines built there can be
checked (their files, the game they play) but not played.
"""
from __future__ import annotations

import contextlib
import functools
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from dlgo.core.errors import DlgoError, ModelFileError
from dlgo.core.game import State
from dlgo.encoders import Encoder, get_encoder_by_name
from engines.checkpoints import SHIPPED, read_metadata, resolve_model_path
from engines.neural.precision import check_precision

#: the heads of a network, by the kind its file records (``kind`` in its metadata, written by the trainer)
KIND_HEADS: dict[str, tuple[str, ...]] = {
    "predictor": ("policy",), "pg": ("policy",), "value": ("value",), "q": ("action values",),
    "policy-value": ("policy", "value"), "alphazero": ("policy", "value"), "ac": ("policy", "value")}

#: set inside :func:`metadata_only`
_METADATA_ONLY: ContextVar[bool] = ContextVar("metadata_only", default=False)


class LoadedModel:
    """A model file ready to play: the compiled network, its encoder, its metadata
    (with ``network=False`` the metadata and encoder only, read without TensorFlow);
    ``precision``: the arithmetic it plays in (:data:`~engines.neural.precision.PRECISIONS`)."""

    def __init__(self, path: str, network: bool = True, precision: str = "float32"):
        self.metadata = read_metadata(path)
        encoder = self.metadata.get("encoder")
        if not isinstance(encoder, dict) or not {"name", "game"} <= set(encoder):
            raise ModelFileError(f"{path} has no encoder recorded: it was not saved by dlgo's training")
        self.encoder: Encoder = get_encoder_by_name(encoder["name"], encoder["game"])
        self.call: Callable[[np.ndarray], list[np.ndarray]] = _not_loaded
        if network:
            compiled_call, load_model, in_precision = _backend()
            self.call = compiled_call(in_precision(load_model(path, compile=False)[0], precision))

    @classmethod
    def from_model(cls, model: Any, encoder: Encoder, metadata: dict[str, Any]) -> "LoadedModel":
        """A network in memory (a ``keras.Model`` being trained), ready to play like a loaded file."""
        compiled_call, _, _ = _backend()
        loaded = cls.__new__(cls)
        loaded.metadata, loaded.encoder, loaded.call = metadata, encoder, compiled_call(model)
        return loaded

    def check(self, state: State) -> None:
        """:class:`ModelFileError` unless this network can play ``state``'s game."""
        self.encoder.check(state.game)


def value_output(outputs: list[np.ndarray]) -> np.ndarray:
    """The value head's answers among a network's ``outputs`` (one per position, for
    the player to move): a value network's one output, or a policy-value network's
    second (auxiliary heads, where it has them, follow it)."""
    return outputs[0 if len(outputs) == 1 else 1][:, 0]


def _not_loaded(batch: np.ndarray) -> list[np.ndarray]:
    raise DlgoError("this network was read for its metadata only (engines.neural.loading.metadata_only)")


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


def _backend() -> tuple[Any, Any, Any]:
    """``compiled_call``, ``load_model`` and ``in_precision`` from the Keras backend:
    TensorFlow's lazy import, with a clear error where the ``[neural]`` extra is not installed."""
    try:
        from engines.neural.backend import compiled_call, in_precision, load_model  # TensorFlow's lazy import
    except ImportError as err:
        raise DlgoError(f"the neural engines need TensorFlow and Keras ({err}); install them with "
                        "pip install -e '.[neural]'") from None
    return compiled_call, load_model, in_precision


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
