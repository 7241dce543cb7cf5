"""Network files by path or by name, without TensorFlow.

The trained networks that ship with the suite live in ``checkpoints/``; an
engine spec may name one (``alphazero:checkpoint=connect4``) from any folder.
Tournaments fingerprint the files a spec plays with (:func:`network_files`),
so this module must stay cheap to import.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from dlgo.core.errors import ModelFileError
from dlgo.core.specs import split_spec
from dlgo.storage.atomic import atomic_write

#: The trained networks that ship with the suite (``checkpoints/<name>.keras``, and
#: Go rollout policies, ``checkpoints/<name>.npz``).
SHIPPED = Path(__file__).resolve().parents[1] / "checkpoints"

#: the spec parameters that name a network (or rollout policy, or move patterns) file
NETWORK_PARAMETERS = ("checkpoint", "model", "policy", "value", "rollout", "patterns")
#: the network parameters whose files are numpy archives (``.npz``), not Keras networks
NPZ_PARAMETERS = ("rollout", "patterns")
#: the entry of a ``.keras`` archive that holds dlgo's metadata (its encoder, its game, how it was trained)
METADATA = "dlgo.json"


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file (False for a name no file can have: too long, a NUL byte)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def resolve_model_path(path: str | Path, suffix: str = ".keras", kind: str = "") -> Path:
    """``path`` itself if it exists, else the shipped file of that name:
    ``connect4``, ``connect4.keras`` or ``checkpoints/connect4.keras`` (from any
    folder) -> the suite's ``checkpoints/connect4.keras`` (``suffix`` names the
    kind of file: ``.npz`` for rollout policies and move patterns; ``kind`` says
    it in errors). Longer paths are never redirected."""
    path = Path(path)
    if is_file(path):
        return path
    shipped = SHIPPED / (path.name if path.suffix == suffix else f"{path.name}{suffix}")
    if len(path.parts) <= 2 and is_file(shipped):
        return shipped
    names = ", ".join(sorted(p.stem for p in SHIPPED.glob(f"*{suffix}"))) or "none"
    kind = kind or ("model file" if suffix == ".keras" else "rollout policy file")
    raise ModelFileError(f"no {kind} {path} (shipped {kind}s: {names})")


#: the files of a set named by a prefix (``alphago:checkpoint=go9``): role -> the end of its file name
SET_FILES = {"policy": "-policy.keras", "value": "-value.keras", "rollout": "-rollout.npz",
             "patterns": "-patterns.npz"}
#: the files of a complete set, AlphaGo's three (move patterns are a set's option)
ALPHAGO_ROLES = ("policy", "value", "rollout")


def checkpoint_set(prefix: str) -> dict[str, str]:
    """The files of the set ``prefix`` that exist, by role: ``go9`` -> the shipped
    ``checkpoints/go9-policy.keras``, ``go9-value.keras`` and ``go9-rollout.npz`` (and a set's
    move patterns, ``-patterns.npz``, where it has them);
    ``runs/ag/go9`` -> ``runs/ag/go9-policy.keras``, ... A :class:`ModelFileError`
    if it has no policy file."""
    found = {}
    short = len(Path(prefix).parts) <= 2  # as for single files: longer paths are never redirected
    for role, ending in SET_FILES.items():
        candidates = [Path(prefix + ending)] + ([SHIPPED / (Path(prefix).name + ending)] if short else [])
        existing = [c for c in candidates if is_file(c)]
        if existing:
            found[role] = str(existing[0])
    if "policy" not in found:
        sets = sorted(p.name[:-len(SET_FILES["policy"])] for p in SHIPPED.glob(f"*{SET_FILES['policy']}"))
        raise ModelFileError(f"no checkpoint set {prefix} (no {prefix}{SET_FILES['policy']}; shipped sets: "
                             f"{', '.join(sets) or 'none'})")
    return found


def complete_set(prefix: str) -> bool:
    """Whether the set ``prefix`` has AlphaGo's three files (policy, value and rollout)."""
    try:
        return set(ALPHAGO_ROLES) <= set(checkpoint_set(prefix))
    except ModelFileError:
        return False


def shipped_network(game: str) -> Path | None:
    """The shipped network trained for exactly the game spec ``game``, if any."""
    path = SHIPPED / f"{game}.keras"
    return path if path.exists() else None


def parameter_suffix(parameter: str) -> str:
    """The file suffix of the network parameter ``parameter`` (``.npz`` or ``.keras``)."""
    return ".npz" if parameter in NPZ_PARAMETERS else ".keras"


def network_files(spec: str) -> list[Path]:
    """The network files an engine spec plays with (its ``checkpoint=``, ``model=``,
    ``policy=``, ``value=``, ``rollout=`` or ``patterns=``, and the files of a checkpoint set)."""
    _, params = split_spec(spec)
    files: list[Path] = []
    if params.get("checkpoint"):
        try:
            files.extend(Path(f) for f in checkpoint_set(params["checkpoint"]).values())
        except ModelFileError:
            pass  # not a set: a single file
    for key in NETWORK_PARAMETERS:
        if params.get(key):
            try:
                files.append(resolve_model_path(params[key], parameter_suffix(key)))
            except ModelFileError:
                pass  # a missing file fails with its own message when the engine is built
    return files


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``dlgo.json`` entry of a model file ({} for a plain Keras file), read
    without TensorFlow; :class:`ModelFileError` for a file that is not a model."""
    path = Path(path)
    if not is_file(path):
        raise ModelFileError(f"no model file {path}")
    try:
        with zipfile.ZipFile(path) as archive:
            if METADATA not in archive.namelist():
                return {}
            metadata = json.loads(archive.read(METADATA))
    except (OSError, zipfile.BadZipFile, ValueError):
        raise ModelFileError(f"{path} is not a .keras model file") from None
    if not isinstance(metadata, dict):
        raise ModelFileError(f"{path} has damaged dlgo metadata")
    return metadata


def publish_copy(checkpoint: Path, published: Path, key: str, value: int) -> None:
    """Make ``published`` an atomic copy of ``checkpoint``, unless its metadata
    already says ``key`` = ``value`` (the trainers' "the network to play": the
    best epoch, the last generation, the published iteration), so that a run
    killed between its history and the copy is put right when it resumes."""
    if published.exists() and read_metadata(published).get(key) == value:
        return
    with atomic_write(published, "wb") as handle:
        handle.write(checkpoint.read_bytes())
