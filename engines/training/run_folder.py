"""A training run's folder: where its files lie, and its resume state packed
to carry across sessions and machines.

A run of ``dlgo train-alphazero`` resumes from its folder: its settings
(``config.json``), its manifest (``run.json``), ``history.csv``, and the
network and replay buffer of its last finished iteration
(:func:`engines.training.alphazero.train_alphazero`). Every other iteration's
network is kept for measuring, not for resuming, and a long run's folder grows
to hundreds of megabytes. A *pack* is the same folder holding only what the run
needs to go on (a few megabytes on the small boards): the resume state, the
published network, and the iterations named to keep (those a report will
measure), these without their optimizer's state (a third of the size). It is
itself a run folder: resume it where it lies, or copy it back over a run folder
that is gone.

    dlgo pack-run data/recipe-ablation/6x5-4/openings-s0 resume/recipe-ablation/6x5-4/openings-s0 --keep 192

Both folders are held while the pack is written (:func:`~dlgo.storage.folders.hold_folder`),
so a run cannot write while it is packed; each file is copied atomically, and
the pack's files from an earlier pack that the run no longer needs are removed.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterable

from dlgo.core.errors import RecordError
from dlgo.storage.atomic import atomic_write
from dlgo.storage.folders import MANIFEST, hold_folder, read_manifest

#: the teacher's games a run's replay buffer is filled with, copied at its first start (``teacher_games``)
TEACHER_GAMES = "teacher-games.csv"
#: the run's own records, each copied where it exists
RECORDS = ("config.json", MANIFEST, "history.csv", "checkpoint.keras", TEACHER_GAMES)
#: the manifest's kind of a train-alphazero run folder
RUN_KIND = "train-alphazero"


def checkpoint_name(iteration: int) -> str:
    """An iteration's network in a run folder (``checkpoints/iter-007.keras``)."""
    return f"checkpoints/iter-{iteration:03d}.keras"


def buffer_name(iteration: int) -> str:
    """The replay buffer after an iteration (``buffer-007.npz``)."""
    return f"buffer-{iteration:03d}.npz"


def iteration_checkpoint(run: str | Path, iteration: int) -> Path:
    """The network after ``iteration`` of the run in folder ``run`` (0: its untrained start)."""
    return Path(run) / checkpoint_name(iteration)


def iteration_buffer(run: str | Path, iteration: int) -> Path:
    """The replay buffer of the run in folder ``run`` after ``iteration``."""
    return Path(run) / buffer_name(iteration)


def last_iterations(run: Path) -> tuple[int, int]:
    """(the last finished iteration, the published one) by ``run/history.csv``;
    a :class:`RecordError` for a folder with no finished iteration."""
    path = run / "history.csv"
    rows = []
    if path.is_file():
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
    if not rows or int(rows[-1]["iteration"]) < 1:
        raise RecordError(f"{run}: no finished iteration in history.csv; nothing to pack")
    last = rows[-1]
    return int(last["iteration"]), int(float(last.get("published") or last["iteration"]))


def resume_files(run: Path, keep: Iterable[int] = ()) -> list[str]:
    """The files (relative to ``run``) a pack of it holds: its records, the last
    iteration's network and buffer, the published network and those of ``keep``
    that exist. A :class:`RecordError` if something the run needs to resume is missing."""
    done, published = last_iterations(run)
    needed = [checkpoint_name(done), buffer_name(done)]
    missing = [name for name in needed + ["config.json"] if not (run / name).is_file()]
    if missing:
        raise RecordError(f"{run}: {', '.join(missing)} missing; the run cannot resume from it, so it is not packed")
    kept = [checkpoint_name(i) for i in sorted({published, *keep} - {done}) if (run / checkpoint_name(i)).is_file()]
    return [name for name in RECORDS if (run / name).is_file()] + needed + kept


def pack_run(run: str | Path, pack: str | Path, keep: Iterable[int] = ()) -> list[Path]:
    """Copy ``run``'s resume state (:func:`resume_files`) into ``pack``, every
    network but the one the run resumes from without its optimizer's state (a
    third of the size), and remove the networks and buffers an earlier pack
    there held that this one does not; the files of the pack, in order."""
    from engines.neural.backend import export_model  # TensorFlow: networks are saved again, lighter

    run, pack = Path(run), Path(pack)
    manifest = read_manifest(run)
    if manifest.get("kind") != RUN_KIND:
        raise RecordError(f"{run} is not a train-alphazero run folder (its run.json would say so); nothing packed")
    if run.resolve() == pack.resolve():
        raise RecordError(f"{pack} is the run folder itself: pack it into another folder")
    facts = {k: v for k, v in manifest.items() if k != "kind"}
    with hold_folder(run, RUN_KIND, **facts), hold_folder(pack, RUN_KIND, **facts):
        names = resume_files(run, keep)
        resumed_from = checkpoint_name(last_iterations(run)[0])  # the one network trained on further
        for name in names:
            target = pack / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith(".keras") and name != resumed_from:  # played and measured, never trained on
                export_model(run / name, target)
            else:
                with atomic_write(target, "wb") as handle:
                    handle.write((run / name).read_bytes())
        for stale in [*pack.glob("buffer-*.npz"), *pack.glob("checkpoints/iter-*.keras")]:
            if stale.relative_to(pack).as_posix() not in names:
                stale.unlink()
    return [pack / name for name in names]
