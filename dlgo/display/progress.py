"""Progress for people and for logs: a live bar on a terminal; piped to a file,
plain text with no cursor movement or colour codes.

Every progress bar of the suite is :func:`progress_bar` (tqdm, on stderr), and
every Keras ``fit`` takes its ``verbose`` from :func:`fit_verbosity` (Keras
writes to stdout).
"""
from __future__ import annotations

import sys
from typing import Any, TextIO

from tqdm import tqdm

#: seconds between two updates of a bar written to a log
LOG_INTERVAL = 30.0


def on_terminal(stream: TextIO) -> bool:
    """Is ``stream`` a terminal (not a pipe or a file)?"""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def progress_bar(iterable: Any = None, **options: Any) -> Any:
    """``tqdm(iterable, **options)`` on stderr; into a log, an ASCII bar on one
    line (no moving up for nested bars), updated every ``LOG_INTERVAL`` seconds."""
    if not on_terminal(sys.stderr):
        options = {"ascii": True, "position": 0, "mininterval": LOG_INTERVAL, **options}
    return tqdm(iterable, **options)


def fit_verbosity(progress: bool) -> int:
    """Keras ``fit(verbose=...)``: 0 without progress; its live bar (1) on a
    terminal; one plain line per epoch (2) when stdout is a pipe or a file."""
    if not progress:
        return 0
    return 1 if on_terminal(sys.stdout) else 2
