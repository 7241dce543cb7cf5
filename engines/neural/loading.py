"""Model files ready to play, loaded once per process: the compiled network, its
encoder and its metadata. TensorFlow is imported on the first load, not before,
so engine modules can import this freely.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable

import numpy as np

from dlgo.game import GameStateBase


class LoadedModel:
    """A model file ready to play: the compiled network, its encoder, its metadata."""

    def __init__(self, path: str):
        from dlgo.encoders import get_encoder_by_name
        from engines.neural.backend import compiled_call, load_model

        model, self.metadata = load_model(path, compile=False)
        encoder = self.metadata.get("encoder")
        if not encoder:
            raise ValueError(f"{path} has no encoder recorded: it was not saved by dlgo's training")
        self.encoder = get_encoder_by_name(encoder["name"], encoder["game"])
        self.call: Callable[[np.ndarray], list[np.ndarray]] = compiled_call(model)

    @classmethod
    def from_model(cls, model, encoder, metadata: dict) -> "LoadedModel":
        """A network in memory (one being trained), ready to play like a loaded file."""
        from engines.neural.backend import compiled_call

        loaded = cls.__new__(cls)
        loaded.metadata, loaded.encoder, loaded.call = metadata, encoder, compiled_call(model)
        return loaded

    def check(self, state: GameStateBase) -> None:
        enc = self.encoder
        rows, cols = state.board.num_rows, state.board.num_cols
        if (rows, cols, state.num_actions) != (enc.rows, enc.cols, enc.num_moves) or \
                type(state) is not type(enc.start):
            raise ValueError(f"this model plays {enc.game}, not this {rows}x{cols} {state.game_name}")


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> LoadedModel:
    return LoadedModel(path)


#: The trained networks that ship with the suite (``checkpoints/<name>.keras``).
SHIPPED = Path(__file__).resolve().parents[2] / "checkpoints"


def resolve_model_path(path: str | Path) -> Path:
    """``path`` itself if it exists, else the shipped network of that name:
    ``connect4``, ``connect4.keras`` or ``checkpoints/connect4.keras`` (from any
    folder) -> the suite's ``checkpoints/connect4.keras``. Longer paths are
    never redirected."""
    path = Path(path)
    if path.exists():
        return path
    shipped = SHIPPED / (path.name if path.suffix == ".keras" else f"{path.name}.keras")
    if len(path.parts) <= 2 and shipped.exists():
        return shipped
    names = ", ".join(sorted(p.stem for p in SHIPPED.glob("*.keras"))) or "none"
    raise ValueError(f"no model file {path} (shipped networks: {names})")


def load_network(path: str | Path) -> LoadedModel:
    """The model in ``path`` (or a shipped network's name), loaded once per
    process (reloaded if the file changes)."""
    path = resolve_model_path(path)
    return _load(str(path.resolve()), path.stat().st_mtime)
