"""What every block shares: the reports' facts, read (never their CSV files) and put in words."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from dlgo.arena.ratings import wilson_interval
from dlgo.display.words import plural
from dlgo.formats.records import score_in
from dlgo.storage.facts import read_facts

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "reports"

__all__ = ["REPORTS", "ROOT", "brief_score", "elo", "facts", "mistakes", "plural", "ratings", "score_in",
           "with_interval"]


def facts(folder: str) -> dict[str, Any]:
    """The sections of a report's ``facts.json`` (``folder``: under reports/); a report without
    one is an error that names the command that writes it."""
    found = read_facts(REPORTS / folder)
    if not found:
        raise SystemExit(f"docs_figures: reports/{folder} has no facts.json; rerun its experiment, or "
                         f"`python scripts/refresh_facts.py reports/{folder.split('/')[0]}`")
    return found


def ratings(folder: str) -> dict[str, dict[str, Any]]:
    """A tournament's ratings by engine, best first."""
    return {row["engine"]: row for row in facts(folder)["ratings"]}


def elo(row: dict[str, Any]) -> str:
    """A rating of :func:`ratings` in words: ``1,086``, or ``1,077 (pinned)`` where the report held it
    at a given rating (the course's calibration, GNU Go's level 10) rather than measuring it."""
    return f"{row['elo']:,.0f}" + (" (pinned)" if row.get("pinned") else "")


def mistakes(folder: str) -> dict[str, dict[str, Any]]:
    """A report's mistake rates over all its solved positions by engine (empty where it measured none)."""
    return {row["engine"]: row for row in read_facts(REPORTS / folder).get("mistakes", [])}


def with_interval(value: float, n: int, games: str = "games") -> str:
    """A score in words: ``70.0% of 40 games (95% interval 55% to 82%)``."""
    low, high = wilson_interval(value, n)
    return f"{value:.1%} of {n} {games} (95% interval {max(0.0, low):.0%} to {min(1.0, high):.0%})"


def brief_score(value: float, n: int) -> str:
    """A table cell: ``70% of 40 (55-82%)``, or a dash before any game."""
    if not n:
        return "–"
    low, high = wilson_interval(value, n)
    return f"{value:.0%} of {n} ({max(0.0, low):.0%}–{min(1.0, high):.0%})"
