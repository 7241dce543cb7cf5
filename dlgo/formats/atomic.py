"""Write files so that a crash never leaves half a file behind."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO, Iterator


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """Write to a temporary file next to ``path``, sync it, then ``os.replace`` it
    over ``path``: readers see the old file or the new one, never a torn one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, mode, **open_kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
