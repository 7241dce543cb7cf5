"""Network files by path or by name, without TensorFlow.

The trained networks that ship with the suite live in ``checkpoints/``; an
engine spec may name one (``alphazero:checkpoint=connect4``) from any folder.
Tournaments fingerprint the files a spec plays with (:func:`network_files`),
so this module must stay cheap to import.
"""
from __future__ import annotations

from pathlib import Path

from dlgo.core.errors import ModelFileError
from dlgo.core.specs import split_spec

#: The trained networks that ship with the suite (``checkpoints/<name>.keras``).
SHIPPED = Path(__file__).resolve().parents[1] / "checkpoints"

#: the spec parameters that name a network file
NETWORK_PARAMETERS = ("checkpoint", "model")


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
    raise ModelFileError(f"no model file {path} (shipped networks: {names})")


def shipped_network(game: str) -> Path | None:
    """The shipped network trained for exactly the game spec ``game``, if any."""
    path = SHIPPED / f"{game}.keras"
    return path if path.exists() else None


def network_files(spec: str) -> list[Path]:
    """The network files an engine spec plays with (its ``checkpoint=`` or ``model=``)."""
    _, params = split_spec(spec)
    files = []
    for key in NETWORK_PARAMETERS:
        if params.get(key):
            try:
                files.append(resolve_model_path(params[key]))
            except ModelFileError:
                pass  # a missing file fails with its own message when the engine is built
    return files
