"""Matches of Go engines against GNU Go, played in parts: the missing games of the
parts a run asks for, and the table rows of every part that has games.

A script with parts (``--parts match ablation``) plays only the parts it is asked
for and reports every part it has games of, played now or before
(:func:`games_of`); its reproducing command leaves ``--parts`` out
(:func:`without_parts`). Each engine's row gives its score with a 95% Wilson
interval and what a move cost it (:func:`row`).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, Sequence

from dlgo.arena.match import Task
from dlgo.arena.ratings import wilson_interval
from dlgo.arena.tournament import play_games
from dlgo.formats.records import GameRecord, read_games
from dlgo.storage.facts import update_facts
from engines.registry import ENGINES
from experiments.shared import chapters

#: the header of :func:`row`'s table
TABLE = "| engine | games | score | 95% interval | s/move | compute/move |\n|---|---:|---:|---|---:|---:|"


def score(records: Sequence[GameRecord], spec: str, opponent: str) -> tuple[float, int, float, float]:
    """``spec``'s score against ``opponent`` (draws half), its games and 95% Wilson interval."""
    value, games = chapters.score_against(list(records), spec, opponent)
    low, high = wilson_interval(value, games) if games else (math.nan, math.nan)
    return value, games, max(0.0, low), min(1.0, high)


def per_move(records: Sequence[GameRecord], spec: str) -> tuple[float, float]:
    """``spec``'s mean seconds and simulations (its compute) per move over ``records``."""
    seconds = compute = moves = 0.0
    for r in records:
        black_moves, white_moves = r.engine_moves()
        for side, (spent, work, n) in zip((r.black, r.white), ((r.black_seconds, r.black_compute, black_moves),
                                                                (r.white_seconds, r.white_compute, white_moves))):
            if side == spec:
                seconds, compute, moves = seconds + spent * n, compute + work * n, moves + n
    return seconds / max(moves, 1), compute / max(moves, 1)


def row(records: Sequence[GameRecord], spec: str, opponent: str, label: str = "") -> str:
    """``spec``'s row of :data:`TABLE` against ``opponent``."""
    value, games, low, high = score(records, spec, opponent)
    seconds, compute = per_move(records, spec)
    return (f"| {label or f'`{spec}`'} | {games} | **{value:.1%}** | {low:.0%} to {high:.0%} | {seconds:.2f} | "
            f"{compute:,.0f} |")


def score_bars(ax: Any, records: Sequence[GameRecord], entries: dict[str, str], opponent: str, title: str) -> None:
    """On ``ax``, each of ``entries`` (label: spec) as a bar of its score against ``opponent``
    with its 95% interval, the first on top, and a line at half."""
    names = list(entries)
    scores = [score(records, entries[name], opponent) for name in names]
    ax.barh(range(len(names)), [s[0] for s in scores], capsize=3, color="tab:blue",
            xerr=[[max(0.0, s[0] - s[2]) for s in scores], [max(0.0, s[3] - s[0]) for s in scores]])
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.axvline(0.5, color="grey", linestyle=":")
    ax.set(xlim=(0, 1), xlabel="score (95% interval)", title=title)
    ax.invert_yaxis()


def engine_minutes(records: Sequence[GameRecord]) -> float:
    """The engines' own thinking time in ``records``, in minutes (each side's mean seconds a move times its moves)."""
    return sum((r.black_seconds + r.white_seconds) * (r.plies - r.opening_plies) / 2 for r in records) / 60


def games_of(folder: Path, game: str, tasks: list[Task], args: argparse.Namespace, workers: int,
             opening_plies: int = 2) -> list[GameRecord]:
    """The part's games: played (the missing ones) if ``args.parts`` asks for the
    part whose folder this is, else those already in it (for the summary)."""
    if folder.name in args.parts:
        return play_games(ENGINES, folder, game, tasks, opening_plies=opening_plies, workers=workers)
    return read_games(folder / "games.csv") if (folder / "games.csv").exists() else []


def without_parts(argv: list[str] | None) -> list[str]:
    """The command line without ``--parts`` and its words: which parts a run plays
    is not a setting of the report (every part it has games of is in it)."""
    kept, skipping = [], False
    for word in sys.argv[1:] if argv is None else argv:
        if word.startswith("--"):
            skipping = word == "--parts"
        if not skipping:
            kept.append(word)
    return kept


def add_parts_option(p: argparse.ArgumentParser, parts: Sequence[str]) -> None:
    """``--parts``: which of ``parts`` a run plays (default all; none: only the summary)."""
    p.add_argument("--parts", nargs="*", choices=parts, default=list(parts),
                   help="what to do (default: all; none: only write the summary of what is done)")


def write_report(out: Path, lines: list[str], facts: dict[str, Any]) -> None:
    """The summary of a script with parts (its games' SGF named at the end) and its ``facts``."""
    ending = "Every game is in the parts' `games.csv`, with its SGF beside it."
    chapters.write_lines(out / "summary.md", [*lines, ending])
    update_facts(out, facts)
    print(f"report: {out}/summary.md")
