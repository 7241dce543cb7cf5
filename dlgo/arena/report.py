"""Reports from ``games.csv``: ratings, cross-table, plots and a summary.

``ratings.csv``: one row per engine with its Elo, 95% interval (empty where
the games give none; a point, ``elo_low == elo_high == elo``, where the engine is
pinned: held at a given rating, or the anchor), games, score and mean cost per
move. Its numbers are written to :data:`FLOAT_FORMAT`, and the summary and the
facts quote the Elo and the cost as written (rounded once). ``seconds_per_move``
is wall time, measured: the one column (:data:`MEASURED`; with ``compute_per_move``
of an engine whose budget is seconds) that differs between two runs of the same
seed. ``crosstable.csv``: wins/draws/losses per pair.
``strength_vs_compute.png``: Elo against mean seconds per move (log scale), one
line per engine family. ``crosstable.png``: the score matrix as a heatmap.
``summary.md`` embeds both and the ratings table. All files are written atomically.
"""
from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Callable, Mapping, NamedTuple, Protocol, Sequence

import numpy as np
import pandas as pd

from dlgo.arena.ratings import GameResult, cross_table, describe_scale, fit_ratings
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.display.plotting import label_points, new_figure, save_figure
from dlgo.display.words import amount
from dlgo.formats.records import GameRecord, faults_by_engine, faults_text, game_facts, one_game


#: how ratings.csv and crosstable.csv write their numbers; the rows hold them so rounded (:func:`as_written`)
FLOAT_FORMAT = "%.4g"

#: ratings.csv's columns that are measurements of wall time, not results of the games: the same seed gives
#: the same file but for these (``compute_per_move`` too, for an engine whose budget is in seconds)
MEASURED = ("seconds_per_move",)


def as_written(value: float) -> float:
    """``value`` as ratings.csv writes it (:data:`FLOAT_FORMAT`): the summary, the facts and the
    file then quote one number, rounded once (763.45 is written 763.5, so the summary's table says
    764 as the README does, never 763 beside it)."""
    return float(FLOAT_FORMAT % value)


class EngineRow(NamedTuple):
    engine: str
    family: str
    elo: float
    elo_low: float
    elo_high: float
    games: int
    score: float
    seconds_per_move: float
    compute_per_move: float
    unit: str


def family_of(spec: str) -> str:
    """An engine's line in the plots: its name, and ``plain`` apart (the readable
    engine of a name that also has a stronger one: ``mcts`` on Go), and a search
    other than the engine's own apart too (``gumbel=K``: Gumbel AlphaZero's)."""
    name, _, params = spec.partition(":")
    settings = params.split(",")
    if "plain=true" in settings:
        return f"{name} (plain)"
    gumbel = [s for s in settings if s.startswith("gumbel=") and s != "gumbel=0"]
    return f"{name} ({gumbel[0]})" if gumbel else name


class Rated(Protocol):
    """A rating with its interval and games: an :class:`EngineRow`, or a row of a ratings table."""

    @property
    def elo(self) -> float: ...

    @property
    def elo_low(self) -> float: ...

    @property
    def elo_high(self) -> float: ...

    @property
    def games(self) -> int: ...


def is_pinned(row: Rated) -> bool:
    """Is the row's Elo given rather than measured: an engine held at a rating (the course's
    calibration, GNU Go's level 10), or the anchor? Its interval is then a point
    (:func:`~dlgo.arena.ratings.fit_ratings`); a measured rating's never is (NaN where the
    games give none)."""
    return bool(row.elo_low == row.elo_high == row.elo)


def elo_text(row: EngineRow) -> str:
    """The row's Elo for a sentence: ``571``, or ``642, pinned`` where it is given, not measured."""
    return f"{row.elo:.0f}" + (", pinned" if is_pinned(row) else "")


def interval_text(row: Rated, form: str = "{low:.0f} to {high:.0f}") -> str:
    """The row's 95% interval in ``form``; ``pinned`` where its Elo is given, not measured
    (:func:`is_pinned`: no interval, rather than "642 to 642"); ``n/a (N games)`` where its
    games give none."""
    if is_pinned(row):
        return "pinned"
    if math.isnan(row.elo_low):
        return f"n/a ({row.games} games)"
    return form.format(low=row.elo_low, high=row.elo_high)


def engine_rows(records: Sequence[GameRecord], anchor: str = "random", bootstrap: int = 200,
                seed: int = 0, fixed: Mapping[str, float] | None = None) -> list[EngineRow]:
    """Ratings joined with each engine's mean cost per move, strongest first, the figures a
    report's facts carry (Elo, its interval, the cost) as ratings.csv writes them (:func:`as_written`;
    ``fixed``: engines held at given ratings, see :func:`fit_ratings`); a
    :class:`~dlgo.core.errors.RecordError` if the records hold several games."""
    one_game(records, "the records")
    results = [GameResult(r.black, r.white, r.score_for(r.black)) for r in records]
    cost: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    unit: dict[str, str] = {}
    for r in records:
        moves_black, moves_white = r.engine_moves()
        for spec, seconds, compute, n, u in ((r.black, r.black_seconds, r.black_compute, moves_black, r.black_unit),
                                             (r.white, r.white_seconds, r.white_compute, moves_white, r.white_unit)):
            cost[spec][0] += seconds * n
            cost[spec][1] += compute * n
            cost[spec][2] += n
            unit[spec] = u
    rows = []
    for rating in fit_ratings(results, anchor=anchor, bootstrap=bootstrap, seed=seed, fixed=fixed):
        seconds, compute, moves = cost[rating.name]
        rows.append(EngineRow(rating.name, family_of(rating.name), as_written(rating.elo), as_written(rating.lower),
                              as_written(rating.upper), rating.games, rating.score,
                              as_written(seconds / max(moves, 1)), as_written(compute / max(moves, 1)),
                              unit[rating.name]))
    return rows


def write_report(out_dir: str | Path, records: Sequence[GameRecord], title: str = "",
                 anchor: str = "random", bootstrap: int = 200, seed: int = 0,
                 fixed: Mapping[str, float] | None = None, intro: str = "",
                 outro: str | Callable[[list[EngineRow]], str] = "", anchoring: str | None = None,
                 columns: Mapping[str, Mapping[str, str]] | None = None, notes: Mapping[str, str] | None = None,
                 notes_meaning: str = "") -> list[EngineRow]:
    """Write ratings.csv, crosstable.csv, the two plots and summary.md into ``out_dir``
    (``intro``/``outro``: Markdown for the summary, before the ratings table and at the end,
    ``outro`` possibly made from the ratings; ``anchoring``: what fixes the scale, in words,
    if not the default wording; ``columns``: more columns of the summary's table, by
    heading, each engine's text; ``notes``: text beside an engine's point in the plot, ``notes_meaning``
    what they say, under it)."""
    out = Path(out_dir)
    rows = engine_rows(records, anchor, bootstrap, seed, fixed)
    ratings = pd.DataFrame(rows, columns=EngineRow._fields)
    with atomic_write(out / "ratings.csv", newline="") as handle:
        ratings.to_csv(handle, index=False, float_format=FLOAT_FORMAT)
    table = pd.DataFrame([(*row, row.tally.games, row.tally.score) for row in cross_table(
        [GameResult(r.black, r.white, r.score_for(r.black)) for r in records])],
        columns=["engine", "opponent", "wins", "draws", "losses", "games", "score"])
    with atomic_write(out / "crosstable.csv", newline="") as handle:
        table.to_csv(handle, index=False, float_format=FLOAT_FORMAT)
    plot_strength_vs_compute(rows, out / "strength_vs_compute.png", title, notes, notes_meaning)
    plot_crosstable(rows, table, out / "crosstable.png", title)
    anchoring = anchoring or describe_scale([row.engine for row in rows], anchor, fixed=fixed)
    write_summary(out / "summary.md", rows, records, title, anchoring, intro,
                  outro if isinstance(outro, str) else outro(rows), columns)
    update_facts(out, tournament_facts(out))
    return rows


def tournament_facts(folder: str | Path) -> dict[str, object]:
    """A tournament folder's facts (:mod:`dlgo.storage.facts`): ``ratings`` from its
    ``ratings.csv`` (engines best first: elo, whether it is pinned rather than measured,
    seconds and compute a move) and ``games`` from its ``games.csv`` (where the folder keeps
    its games)."""
    out = Path(folder)
    facts: dict[str, object] = {"ratings": [
        {"engine": row.engine, "elo": float(row.elo), "pinned": is_pinned(row),
         "seconds_per_move": float(row.seconds_per_move), "compute_per_move": float(row.compute_per_move)}
        for row in read_ratings(out)]}
    if (out / "games.csv").exists():
        facts["games"] = game_facts(out)
    return facts


class ComputePoint(NamedTuple):
    """An engine on a plot against compute: its measure, the 95% interval's ends
    (NaN: none), and a note beside its label."""

    engine: str
    family: str
    seconds: float
    value: float
    low: float
    high: float
    note: str = ""


def plot_against_compute(points: Sequence[ComputePoint], path: Path, title: str, ylabel: str,
                         floor: float | None = None, notes_meaning: str = "") -> None:
    """Each engine's measure against its mean seconds per move (log scale), with
    its interval, one line per family, each point labelled (its note beside it,
    and under the plot ``notes_meaning``, what the notes say); the y axis starts
    at ``floor`` if given."""
    fig, ax = new_figure((7.5, 4.8))
    families: dict[str, list[ComputePoint]] = defaultdict(list)
    for point in points:
        families[point.family].append(point)
    spots, labels = [], []
    for family, members in sorted(families.items()):
        members.sort(key=lambda p: p.seconds)
        x = [max(p.seconds, 1e-6) for p in members]
        y = [p.value for p in members]
        err = np.nan_to_num([[p.value - p.low for p in members], [p.high - p.value for p in members]])
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=family)
        for p, xi, yi in zip(members, x, y):
            label = p.engine.split(":", 1)[1] if ":" in p.engine else p.engine
            spots.append((xi, yi))
            labels.append(label + (f" ({p.note})" if p.note else ""))
    ax.set_xscale("log")
    ax.set_xlabel("mean seconds per move (log scale)")
    ax.set_ylabel(ylabel)
    if floor is not None:
        ax.set_ylim(bottom=floor)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    if notes_meaning:
        ax.text(0, -0.13, notes_meaning, transform=ax.transAxes, fontsize=7, va="top", color="0.3")
    label_points(ax, spots, labels)
    save_figure(fig, path)


def plot_strength_vs_compute(rows: Sequence[EngineRow], path: Path, title: str = "",
                             notes: Mapping[str, str] | None = None, notes_meaning: str = "") -> None:
    """Elo against seconds per move (``notes``: text beside an engine's label;
    ``notes_meaning``: what they say, under the plot)."""
    notes = notes or {}
    plot_against_compute([ComputePoint(r.engine, r.family, r.seconds_per_move, r.elo, r.elo_low, r.elo_high,
                                       notes.get(r.engine, "")) for r in rows],
                         path, title or "Strength against compute", "Elo (95% interval)",
                         notes_meaning=notes_meaning if notes else "")


def plot_crosstable(rows: Sequence[EngineRow], table: pd.DataFrame, path: Path, title: str = "") -> None:
    names = [r.engine for r in rows]
    index = {n: i for i, n in enumerate(names)}
    scores = np.full((len(names), len(names)), np.nan)
    for t in table.itertuples():
        scores[index[t.engine], index[t.opponent]] = t.score
    fig, ax = new_figure((1.0 + 0.7 * len(names), 0.8 + 0.6 * len(names)))
    image = ax.imshow(scores, cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(scores[i, j]):
                ax.text(j, i, f"{scores[i, j]:.2f}", ha="center", va="center", fontsize=7)
    ax.set_title((title + ": " if title else "") + "score of row against column")
    fig.colorbar(image, ax=ax, fraction=0.046)
    save_figure(fig, path)


#: the head of a summary's ratings table: its standard columns, which :func:`table_row` fills
TABLE_HEAD = "| engine | Elo | 95% interval | games | score | s/move | compute/move |"

#: how many of a ratings table's cells :func:`table_row` writes
TABLE_CELLS = TABLE_HEAD.count("|") - 1


def table_row(r: EngineRow) -> str:
    """The engine's row of the summary's ratings table, its standard columns (engine to compute a move)."""
    return (f"| `{r.engine}` | {r.elo:.0f} | {interval_text(r)} | {r.games} | {r.score:.1%} | "
            f"{r.seconds_per_move:.4f} | {amount(r.compute_per_move, r.unit)} |")


def read_ratings(folder: str | Path) -> list[EngineRow]:
    """The rows of a tournament folder's ``ratings.csv``, as :func:`write_report` wrote them."""
    ratings = pd.read_csv(Path(folder) / "ratings.csv", keep_default_na=False, na_values=[""])
    return [EngineRow(**{**row, "games": int(row["games"])}) for row in ratings.to_dict("records")]


def refresh_ratings_table(folder: str | Path) -> bool:
    """Write the standard columns of the ratings table in ``folder``'s ``summary.md``
    again from its ``ratings.csv``, as :func:`write_summary` writes them now (after their
    wording changed), with the rest of the summary, its scores (ratings.csv rounds them
    once more) and any further columns kept as they are; nothing is played or fitted.
    Returns whether the summary changed."""
    path = Path(folder) / "summary.md"
    rows = {r.engine: r for r in read_ratings(folder)}
    lines = path.read_text().split("\n")
    in_table = False
    for i, line in enumerate(lines):
        in_table = line.startswith(TABLE_HEAD) or (in_table and line.startswith("|"))
        engine = line.split("`")[1] if line.startswith("| `") else None
        if in_table and engine in rows:
            cells = line.split("|")
            score = float(cells[5].strip().rstrip("%")) / 100
            lines[i] = table_row(rows[engine]._replace(score=score)) + "".join(
                f" {cell.strip()} |" for cell in cells[TABLE_CELLS + 1:-1])
    text = "\n".join(lines)
    if text == path.read_text():
        return False
    with atomic_write(path) as handle:
        handle.write(text)
    return True


def write_summary(path: Path, rows: Sequence[EngineRow], records: Sequence[GameRecord], title: str = "",
                  anchoring: str = "", intro: str = "", outro: str = "",
                  columns: Mapping[str, Mapping[str, str]] | None = None) -> None:
    """``anchoring`` says what fixes the scale; ``intro`` (Markdown) goes before the table, ``outro`` at the end;
    ``columns``: more columns of the table (heading -> engine -> text)."""
    columns = columns or {}
    games = {r.game for r in records}
    lines = [f"# {title or 'Tournament report'}", "",
             f"{len(records)} games of {', '.join(sorted(games))} between {len(rows)} engines. "
             "Elo by a maximum-likelihood Bradley-Terry fit of all games (draws count half), "
             f"{anchoring or describe_scale([r.engine for r in rows])}, with 95% bootstrap intervals.", "",
             *([intro, ""] if intro else []),
             "![strength against compute](strength_vs_compute.png)", "",
             TABLE_HEAD + "".join(f" {heading} |" for heading in columns),
             "|---|---:|---|---:|---:|---:|---:|" + "---:|" * len(columns)]
    for r in rows:
        lines.append(table_row(r) + "".join(f" {texts.get(r.engine, '')} |" for texts in columns.values()))
    lines += ["", "![cross-table](crosstable.png)", ""]
    early = [r for r in records if r.note]
    if early:  # an engine failed (an external program died or answered an error)
        lines += [f"## Games ended early ({len(early)})", ""]
        lines += [f"- {r.game_id}: {r.result}, {r.note}" for r in early[:20]]
        lines += [f"- ... and {len(early) - 20} more (the `note` column of games.csv)"] if len(early) > 20 else []
        lines.append("")
    faults = faults_by_engine(records)
    if faults:  # a bot of a user's own broke the contract, or an engine failed: who lost how many games, and how
        lines += ["## Losses by fault", "", "Games lost by the engine's own failure (the `ending` column of "
                  "games.csv says how each game ended, the `note` column what happened).", "",
                  "| engine | games lost by fault | how |", "|---|---:|---|"]
        lines += [f"| `{engine}` | {sum(counts.values())} | {faults_text(counts)} |"
                  for engine, counts in faults.items()]
        lines.append("")
    lines += ["Files: `games.csv` (every game, with its moves), `ratings.csv`, `crosstable.csv`.", ""]
    lines += [outro, ""] if outro else []
    with atomic_write(path) as handle:
        handle.write("\n".join(lines))
