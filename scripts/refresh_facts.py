"""Derive a report folder's ``facts.json`` again from its files (:mod:`dlgo.storage.facts`).

Every experiment writes its facts as it writes its report; this command does the same
for reports already written (after a section gains a figure, say), without playing or
training anything:

    python scripts/refresh_facts.py reports/*/

Each folder gets the sections its files hold (``ratings`` and ``games`` of a tournament,
``mistakes`` of solved positions; a subfolder with its own ``summary.md`` gets its own
facts), then the sections of the experiment its ``run.json`` names, from that script's
``facts(out)``. Sections nothing here can derive (a check's result that only its run
knew) are kept. With ``--tables``, each tournament's ``summary.md`` also gets the standard
columns of its ratings table written again from its ``ratings.csv``, as reports write them
now (after their wording changed: a pinned rating, a singular unit), the rest of its text kept:

    python scripts/refresh_facts.py --tables reports/*/
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from any folder

from dlgo.arena.mistakes import mistake_facts  # noqa: E402
from dlgo.arena.report import refresh_ratings_table, tournament_facts  # noqa: E402
from dlgo.storage.facts import update_facts  # noqa: E402
from dlgo.storage.folders import read_manifest  # noqa: E402

def experiment_facts(folder: Path) -> Callable[[Path], dict[str, Any]] | None:
    """The ``facts`` function of the script that wrote the folder, the one its ``run.json`` names
    (each experiment's folder records its script when the script takes it; None: a folder no
    experiment wrote, such as a league's, or a script without ``facts``)."""
    script = read_manifest(folder).get("experiment")
    if script is None:
        return None
    module = importlib.import_module(str(script).removesuffix(".py").replace("/", "."))
    return getattr(module, "facts", None)


def derived(folder: Path, experiment: bool = True) -> dict[str, Any]:
    """The sections ``folder``'s files hold: a tournament's, solved positions' and (``experiment``)
    those of the experiment its summary names."""
    sections: dict[str, Any] = {}
    if (folder / "ratings.csv").exists():
        sections.update(tournament_facts(folder))
    if (folder / "mistake_rates.csv").exists():
        sections["mistakes"] = mistake_facts(folder)
    facts = experiment_facts(folder) if experiment else None
    if facts is not None:
        sections.update(facts(folder))
    return sections


def report_folders(folder: Path) -> list[Path]:
    """``folder``'s subfolders with a report of their own (a ``summary.md``), a tournament's say."""
    return sorted(path for path in folder.iterdir() if path.is_dir() and (path / "summary.md").exists())


def refresh(folder: Path, experiment: bool = True, tables: bool = False) -> list[str]:
    """Write ``folder``'s facts (and its report subfolders', from their files alone) again,
    and with ``tables`` its summary's ratings table; returns the sections written."""
    sections = derived(folder, experiment)
    if sections:
        update_facts(folder, sections)
    written = list(sections)
    if tables and (folder / "ratings.csv").exists() and (folder / "summary.md").exists() \
            and refresh_ratings_table(folder):
        written.append("the ratings table")
    for sub in report_folders(folder):
        written += [f"{sub.name}/{name}" for name in refresh(sub, experiment=False, tables=tables)]
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="report folders")
    parser.add_argument("--tables", action="store_true",
                        help="also write each summary's ratings table again from ratings.csv (its standard columns)")
    args = parser.parse_args(argv)
    for folder in args.folders:
        if not folder.is_dir():
            print(f"error: {folder} is not a report folder", file=sys.stderr)
            return 2
        print(f"{folder}: {', '.join(refresh(folder, tables=args.tables)) or 'nothing to derive'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
