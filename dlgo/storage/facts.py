"""A report's headline facts: ``facts.json`` beside its ``summary.md``.

Each module that writes a report's files also says, once, what they amount to: a
section of ``facts.json`` (``"ratings"``, ``"games"``, ``"mistakes"``, an
experiment's own). Whoever renders a report elsewhere (the documentation, a web
page) reads these sections and never parses the report's CSV files again, so each
file format has one reader: the module that wrote it.

    update_facts(out, {"mistakes": mistake_facts(out)})  # a writer, after its files
    read_facts(out)["ratings"]                          # a renderer

JSON keeps Python's ``NaN`` (a figure not measured), as :mod:`json` does by default.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from dlgo.storage.atomic import atomic_write

FACTS = "facts.json"


def read_facts(folder: str | Path) -> dict[str, Any]:
    """The sections of ``folder``'s ``facts.json`` (empty where it has none)."""
    path = Path(folder) / FACTS
    if not path.exists():
        return {}
    facts = json.loads(path.read_text())
    if not isinstance(facts, dict):
        raise ValueError(f"{path}: not a facts file (a JSON object of sections)")
    return facts


def update_facts(folder: str | Path, sections: Mapping[str, Any]) -> None:
    """Replace ``sections`` in ``folder``'s ``facts.json`` (atomically), keeping its others.
    The folder's one writer calls it after writing the files a section sums up."""
    facts = read_facts(folder)
    facts.update(sections)
    with atomic_write(Path(folder) / FACTS) as handle:
        json.dump(facts, handle, indent=1)
        handle.write("\n")
