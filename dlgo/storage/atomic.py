"""Write files so that a crash never leaves half a file behind."""
from __future__ import annotations

import contextlib
import logging
import os
import re
from pathlib import Path
from typing import IO, Iterator

log = logging.getLogger(__name__)

#: a temporary file of an atomic write: ``.NAME.PID.tmp`` (``.NAME.PID.tmp.keras`` for model files)
TEMPORARY = re.compile(r"^\..+\.(\d+)\.tmp(\.\w+)?$")


def temporary_path(path: Path) -> Path:
    """Where an atomic write of ``path`` by this process writes first."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def remove_orphaned_temporary_files(folder: Path) -> list[Path]:
    """Delete the temporary files under ``folder`` whose writing process is gone
    (atomic writes a kill cut short); returns them."""
    orphans = [p for p in folder.rglob(".*.tmp*")
               if (m := TEMPORARY.match(p.name)) and int(m[1]) != os.getpid() and not _alive(int(m[1]))]
    for orphan in orphans:
        log.info("removing %s, left by a killed run", orphan)
        orphan.unlink(missing_ok=True)
    return orphans


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """Write to a temporary file next to ``path``, sync it, then ``os.replace`` it
    over ``path``: readers see the old file or the new one, never a torn one."""
    path = Path(path)
    tmp = temporary_path(path)
    try:
        with open(tmp, mode, **open_kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_copy(source: str | Path, target: str | Path) -> None:
    """Copy ``source`` to ``target`` (its folder made if missing) by an atomic write:
    a shipped network or a figure is the old file or the new one, never half of one."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(target, "wb") as handle:
        handle.write(Path(source).read_bytes())
