"""A benchmark's result table: printed row by row as it is measured, then saved as
Markdown under ``reports/benchmarks/`` (``scripts/docs_figures.py`` copies it into
the README and ``docs/performance.md``)."""
from __future__ import annotations

import platform
import shlex
import sys
from pathlib import Path

from dlgo.storage.atomic import atomic_write

DEFAULT_FOLDER = "reports/benchmarks"


class Table:
    """A Markdown table with the command that measured it and the machine it ran on."""

    def __init__(self, header: list[str], numeric: list[bool], setting: str) -> None:
        command = " ".join(["python", f"benchmarks/{Path(sys.argv[0]).name}", *map(shlex.quote, sys.argv[1:])])
        self.lines = [f"Measured by `{command}`: Python {platform.python_version()} on {platform.machine()}, "
                      f"{setting}.", "",
                      "| " + " | ".join(header) + " |",
                      "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
        print("\n".join(self.lines), flush=True)

    def row(self, *cells: str) -> None:
        line = "| " + " | ".join(cells) + " |"
        self.lines.append(line)
        print(line, flush=True)

    def save(self, path: str | Path) -> None:
        """Write the table to ``path`` (atomically: a killed run leaves the old table)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as handle:
            handle.write("\n".join(self.lines) + "\n")
        print(f"\nsaved: {path}")
