"""One writer per run folder, and a folder that says what it holds.

Every command that writes results into a folder (a tournament, ``dlgo
generate``, a training run) holds it with :func:`hold_folder`:

* **a lock**: ``.lock`` in the folder, locked with ``flock`` for as long as the
  run lasts. The kernel drops the lock when the process dies, however it dies,
  so a stale lock cannot block a folder; a second run on the folder stops at once
  with a message naming the process that holds it.
* **no leftovers**: temporary files of atomic writes whose process died are
  removed when a writer takes the folder.
* **a manifest**: ``run.json`` records the kind of run (``tournament``,
  ``generate``, ``train-alphazero``, ...) and the facts it must keep (a game, a
  model). A run of another kind, or with other facts, stops before writing
  anything.
* **an owner**: an experiment script's folders (``--out``, ``--work``) name the
  script in the manifest when the script creates them, and ``--fresh`` deletes
  only a folder that names it (:func:`claim_folders`).
* **nobody else's files**: a run writes into a folder only if it is new, empty or
  holds a manifest of that run (of its kind, or naming its script); a folder of a
  person's own files (no manifest) is refused before anything is written, and so
  is the top of ``reports/``, ``runs/`` and ``data/``, which hold runs' folders
  and are never one (``--out reports`` is a typo for ``--out reports/NAME``).

Readers (ratings, replays, renders, reports) take no lock and write nothing.
"""
from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import shutil
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

from dlgo.core.errors import RecordError, SettingsMismatchError
from dlgo.storage.atomic import atomic_write, remove_orphaned_temporary_files

T = TypeVar("T")

LOCK = ".lock"
MANIFEST = "run.json"

_held: dict[Path, int] = {}  # folders this process holds: nested holds are free

#: the folders that hold runs' folders, at the top of a project: never a run's folder themselves
COLLECTIONS = ("reports", "runs", "data")

#: the suite's own project folder (a checkout), whose collections are refused wherever the command runs
PROJECT = Path(__file__).resolve().parents[2]


def named_path(name: str | Path, what: str = "output folder") -> Path:
    """``name`` as a path; a :class:`RecordError` if it is empty (``--out ''``,
    which a path would read as the current folder)."""
    if not str(name).strip():
        raise RecordError(f"the {what} is empty: name one")
    return Path(name)


def check_output_folder(folder: str | Path) -> Path:
    """``folder`` as a path a run can write to, created if missing; a
    :class:`RecordError` if it is empty, names a file or cannot be created or written."""
    path = named_path(folder)
    if path.exists() and not path.is_dir():
        raise RecordError(f"{path} is a file, not a folder: choose another output folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RecordError(f"cannot create the folder {path}: {err.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise RecordError(f"cannot write in the folder {path}: permission denied")
    return path


def check_run_folder(folder: str | Path) -> Path:
    """``folder`` as a path a run may take: a :class:`RecordError` if it is the top
    of ``reports/``, ``runs/`` or ``data/`` (in the current folder or the suite's
    project), which hold runs' folders and are never one."""
    path = named_path(folder)
    resolved = path.resolve()
    if resolved.name in COLLECTIONS and resolved.parent in (Path.cwd().resolve(), PROJECT):
        raise RecordError(f"{path} holds the runs' folders and is not one itself; nothing written: "
                          f"name a folder inside it, e.g. {path / 'NAME'}")
    return path


def holds_files(path: Path) -> bool:
    """Whether the folder ``path`` exists and holds anything but a writer's lock."""
    return path.is_dir() and any(entry.name != LOCK for entry in path.iterdir())


def check_output_file(file: str | Path, suffixes: tuple[str, ...]) -> Path:
    """``file`` as a path a command can write when its work is done, checked
    before the work starts: its suffix one of ``suffixes``, its folder existing
    and writable, and not itself a folder. A :class:`RecordError` otherwise."""
    path = named_path(file, "output file")
    if path.suffix.lower() not in suffixes:
        raise RecordError(f"{path}: the file name must end in {' or '.join(suffixes)}")
    if path.is_dir():
        raise RecordError(f"{path} is a folder; name a file")
    folder = path.parent
    if not folder.is_dir():
        raise RecordError(f"cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise RecordError(f"cannot write {path}: permission denied")
    return path


def read_settings(folder: str | Path, cls: Callable[..., T], what: str) -> T:
    """The settings a training run saved in ``folder/config.json``, rebuilt as
    ``cls(**saved)`` (which checks them; a setting it did not record yet takes its
    value before a changed default, ``cls.FORMER_DEFAULTS``, else today's default); a
    :class:`RecordError` naming ``what`` if there are none or they cannot be read."""
    path = Path(folder) / "config.json"
    if not path.exists():
        raise RecordError(f"{folder} holds no {what} run to resume (no config.json)")
    try:
        return cls(**{**getattr(cls, "FORMER_DEFAULTS", {}), **json.loads(path.read_text())})
    except (TypeError, ValueError) as err:  # a SpecError is a ValueError: it names the setting
        raise RecordError(f"{path} does not hold {what} settings ({err}); it is kept as it is") from None


def record_settings(folder: str | Path, settings: Any) -> None:
    """Write a run's settings (a dataclass) to ``folder/config.json``, or refuse a
    folder that holds a run with other settings (a :class:`SettingsMismatchError`
    naming each change; settings added since that run was started count at their
    defaults then (``FORMER_DEFAULTS``, else today's), so the dataclass must be
    buildable without arguments)."""
    path = Path(folder) / "config.json"
    wanted = dataclasses.asdict(settings)
    if not path.exists():
        with atomic_write(path) as handle:
            json.dump(wanted, handle, indent=2)
        return
    try:
        old = {**dataclasses.asdict(type(settings)()), **getattr(settings, "FORMER_DEFAULTS", {}),
               **json.loads(path.read_text())}
    except ValueError as err:
        raise RecordError(f"{path} cannot be read ({err}); it is kept as it is: use another folder") from None
    if old != wanted:
        changed = {k: (old.get(k), v) for k, v in wanted.items() if old.get(k) != v}
        raise SettingsMismatchError(f"{folder} holds a run with other settings {changed}")


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """What a run folder says it holds (empty if it says nothing)."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        return {}
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise RecordError(f"{path} cannot be read ({err}); it is kept as it is: move it away") from None
    if not isinstance(manifest, dict):
        raise RecordError(f"{path} is not a run manifest; it is kept as it is: move it away")
    return manifest


#: the manifest's entry that names the experiment script whose folder it is (see :func:`claim_folders`)
OWNER = "experiment"


def claim_folders(folders: Iterable[str | Path | None], owner: str, fresh: bool = False) -> None:
    """Take the folders of one run of ``owner`` (an experiment script, by its
    path), every one checked before any is touched. A folder the run creates
    (or finds empty) gets ``owner`` in its manifest; one that holds files is
    used only if its manifest names ``owner``, and refused otherwise (a person's
    own folder, another script's or another command's run), as is the top of
    ``reports/``, ``runs/`` or ``data/``. With ``fresh`` (``--fresh``) each
    existing folder is deleted first, and only if its own manifest names
    ``owner``, it does not hold the current folder and no writer holds it or a
    folder inside it. A :class:`RecordError` names the first folder refused,
    and nothing is written or deleted. None in ``folders`` is skipped."""
    paths = list(dict.fromkeys(check_run_folder(folder) for folder in folders if folder is not None))
    with contextlib.ExitStack() as locks:  # the folders' locks held from the checks to the deletion
        for path in paths:
            _check_owner(path, owner, fresh, locks)
        for path in paths:
            if fresh and path.exists():  # checked above; a folder inside another may be gone already
                shutil.rmtree(path)
    for path in paths:
        new = not path.exists() or not any(path.iterdir())
        check_output_folder(path)
        if new:
            with atomic_write(path / MANIFEST) as handle:
                json.dump({OWNER: owner}, handle, indent=1, sort_keys=True)


def _check_owner(path: Path, owner: str, fresh: bool, locks: contextlib.ExitStack) -> None:
    """A :class:`RecordError` unless ``owner`` may use ``path`` (and, with ``fresh``,
    delete it: a folder, not a link to one, whose writers' locks are taken into
    ``locks`` until it is gone)."""
    if fresh and path.is_symlink():
        raise RecordError(f"{path} is a link; nothing deleted: name the folder itself, or delete it yourself")
    if not path.exists():
        return
    if not path.is_dir():
        raise RecordError(f"{path} is a file, not a folder; nothing deleted" if fresh else
                          f"{path} is a file, not a folder: choose another output folder")
    if not holds_files(path):
        return
    manifest = read_manifest(path)
    named = manifest.get(OWNER)
    if named not in (None, owner):
        raise RecordError(f"{path} holds a run of {named}, not of {owner}; "
                          f"{'nothing deleted' if fresh else 'nothing written'}: use another folder")
    if named != owner:
        why = f"its {MANIFEST} does not name it" if manifest else f"it has no {MANIFEST}"
        raise RecordError(f"{path} holds no run of {owner} ({why}); " + (
            "nothing deleted: delete it yourself if you mean to, or use another folder" if fresh else
            "nothing written: use a new or empty folder"))
    if not fresh:
        return
    if Path.cwd().resolve().is_relative_to(path.resolve()):
        raise RecordError(f"{path} holds the current folder; nothing deleted")
    for lock in path.rglob(LOCK):
        handle = locks.enter_context(lock.open("a+"))  # its lock released when closed, after the deletion
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RecordError(f"{lock.parent} is in use by another run; nothing deleted") from None


def check_folder(folder: str | Path, kind: str, assumed: Mapping[str, Any] | None = None, **facts: Any) -> None:
    """The checks :func:`hold_folder` makes before it touches ``folder``, for a run
    that has work to do before it holds it: a :class:`RecordError` if the folder
    may not hold this run (a person's files, a run of another kind or with other
    facts, the top of ``reports/``), and nothing written."""
    if check_run_folder(folder).is_dir():
        _check_manifest(Path(folder), str(folder), kind, {k: v for k, v in facts.items() if v is not None},
                        assumed, record=False)


@contextmanager
def hold_folder(folder: str | Path, kind: str, assumed: Mapping[str, Any] | None = None,
                **facts: Any) -> Iterator[Path]:
    """Hold ``folder`` for one run of ``kind`` (created if missing): lock it
    against other writers and check (or write) its manifest. Facts set to None
    are not recorded; ``assumed`` gives the value a fact had before manifests
    recorded it (a manifest without it is read as having that value). Nested
    holds of one folder in one process are free. A folder that holds files and
    no manifest (a person's own), and the top of ``reports/``, ``runs/`` or
    ``data/``, are refused before anything is written."""
    facts = {k: v for k, v in facts.items() if v is not None}
    check_folder(folder, kind, assumed, **facts)
    path = check_output_folder(folder).resolve()
    if path in _held:
        _check_manifest(path, str(folder), kind, facts, assumed)
        _held[path] += 1
        try:
            yield path
        finally:
            _held[path] -= 1
        return
    handle = (path / LOCK).open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise RecordError(f"{folder} is in use by {holder}; wait for it to finish, or use another folder") from None
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()} ({' '.join(Path(a).name for a in sys.argv[:2])}) since "
                     f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n")
        handle.flush()
        _check_manifest(path, str(folder), kind, facts, assumed)
        remove_orphaned_temporary_files(path)
        _held[path] = 1
        try:
            yield path
        finally:
            del _held[path]
    finally:
        handle.close()  # releases the lock


def _check_manifest(path: Path, name: str, kind: str, facts: dict[str, Any],
                    assumed: Mapping[str, Any] | None = None, record: bool = True) -> None:
    """A :class:`RecordError` if ``path`` holds another kind of run or other
    facts (a fact it lacks read as its ``assumed`` value); with ``record``,
    write what the manifest lacks."""
    manifest = read_manifest(path)
    if not manifest:
        if holds_files(path):
            raise RecordError(f"{name} holds files that no run wrote (it has no {MANIFEST}); nothing written: "
                              "use a new or empty folder")
        if not record:
            return
        with atomic_write(path / MANIFEST) as handle:
            json.dump({"kind": kind, **facts}, handle, indent=1, sort_keys=True)
        return
    if manifest.get("kind", kind) != kind:  # a manifest from before kinds: adopted
        raise SettingsMismatchError(f"{name} holds a {manifest.get('kind')} run, not a {kind}")
    made = {**(assumed or {}), **manifest}  # a manifest from before a fact was recorded: its assumed value
    for key, value in facts.items():
        if key in made and made[key] != value:
            raise SettingsMismatchError(f"{name} holds a {kind} run with {key} {made[key]!r}, not {value!r}")
    if record and ("kind" not in manifest or any(key not in manifest for key in facts)):
        with atomic_write(path / MANIFEST) as handle:
            json.dump({"kind": kind, **facts, **manifest}, handle, indent=1, sort_keys=True)
