"""The course's rating scales: Elo that means the same in every report.

Ratings from two tournaments do not compare on their own: each is fitted to its
own games, so an engine's Elo moves with the company it keeps. The course fixes
one scale per game with its calibration ladder (random, MCTS and alpha-beta at
growing budgets, played by ``experiments/crosschecks/calibration.py``), whose
report is committed in ``reports/calibration-<game>/``: its ``ratings.csv`` is
the scale and its ``run.json`` names the game. A tournament rated on the
course's scale holds the ladder's engines that played in it at those ratings
and fits only the others, so an engine rates the same, within its interval, in
the chapters' reports and in a student's own (``dlgo tournament --scale course``).
"""
from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Collection, NamedTuple

from dlgo.core.errors import DlgoError
from dlgo.storage.folders import read_manifest
from dlgo.games import get_game

#: the committed reports, where the course's rating scales are (``reports/calibration-<game>``)
REPORTS = Path(__file__).resolve().parents[2] / "reports"

#: the start of a calibration report's folder name
CALIBRATION = "calibration-"


class CourseScale(NamedTuple):
    """One game's scale: the calibration report's folder and each ladder engine's Elo."""

    folder: Path
    ratings: dict[str, float]

    @property
    def where(self) -> str:
        """The report as the summaries cite it: ``reports/calibration-connect4``."""
        return f"{self.folder.parent.name}/{self.folder.name}"


def scale_folder(game: str) -> str:
    """The name of the calibration report of ``game`` (as typed): ``calibration-connect4``."""
    return CALIBRATION + re.sub(r"[^A-Za-z0-9]+", "-", game).strip("-")


def course_scales() -> list[CourseScale]:
    """Every committed scale, in folder order."""
    scales = []
    for folder in sorted(REPORTS.glob(CALIBRATION + "*")):
        path = folder / "ratings.csv"
        if path.is_file():
            with path.open(newline="") as handle:
                scales.append(CourseScale(folder, {row["engine"]: float(row["elo"]) for row in csv.DictReader(handle)}))
    return scales


def course_scale(game: str) -> CourseScale | None:
    """The course's scale for ``game`` (any spec of it): the calibration report
    whose manifest names the game; None if the course has none."""
    spec = get_game(game).spec
    return next((s for s in course_scales() if read_manifest(s.folder).get("game") == spec), None)


def course_anchors(game: str, players: Collection[str], subjects: Collection[str] = ()) -> tuple[dict[str, float], str]:
    """The engines of ``players`` held on the course's scale of ``game`` (those
    of its ladder, except ``subjects``: the engines a report measures) with their
    ratings, and in words what fixes the scale; empty where none is held."""
    scale = course_scale(game)
    if scale is None:
        return {}, ""
    held = {spec: elo for spec, elo in scale.ratings.items() if spec in players and spec not in subjects}
    words = (f"on the course's {game} scale (`{scale.where}`): "
             + ", ".join(f"`{spec}` held at {elo:.0f}" for spec, elo in held.items())) if held else ""
    return held, words


def require_course_anchors(game: str, players: Collection[str]) -> tuple[dict[str, float], str]:
    """:func:`course_anchors` of every ladder engine among ``players``; a
    :class:`DlgoError` saying what to do where the course has no scale for
    ``game`` or none of its ladder plays."""
    scale = course_scale(game)
    if scale is None:
        known = ", ".join(f"`{s.where}`" for s in course_scales()) or "none"
        raise DlgoError(f"the course has no rating scale for {game} (its scales: {known}); rate without --scale course")
    held, words = course_anchors(game, players)
    if not held:
        ladder = ", ".join(scale.ratings)
        raise DlgoError(f"--scale course holds the engines of the course's ladder at their ratings, and none of them "
                        f"plays here: add one (the ladder, `{scale.where}`: {ladder})")
    return held, words
