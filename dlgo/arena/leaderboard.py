"""A league's leaderboard: Markdown for the repository, one self-contained HTML page
for the class (its pictures inside it), from the league's games and verdicts.

Each bot's row: its Elo with 95% interval (on the course's scale where the game has
one), games and score, its score against each reference, its mistakes on solved
positions (where the game has them), its seconds a move, and its games lost by fault,
with what happened. The references follow, then the faults in full.
"""
from __future__ import annotations

import base64
import html
import math
from collections import Counter
from pathlib import Path
from typing import NamedTuple, Sequence

from dlgo.arena.mistakes import MistakeRate, Verdict, mistake_rates
from dlgo.arena.report import EngineRow, interval_text, write_report
from dlgo.arena.roster import LeagueBot
from dlgo.formats.records import GameRecord, faults_by_engine, faults_text, is_fault
from dlgo.storage.atomic import atomic_write

#: the leaderboard's files
MARKDOWN, PAGE = "leaderboard.md", "leaderboard.html"
#: the pictures the page holds (write_report draws them)
PICTURES = (("strength_vs_compute.png", "Strength against seconds a move"),
            ("crosstable.png", "Score of each row against each column"))
#: how many notes of a bot's faults the leaderboard quotes
QUOTED = 3


class BoardRow(NamedTuple):
    """One bot's line of the leaderboard."""

    rank: int  # 0 for a bot that finished no game under the rules (not rated)
    bot: LeagueBot
    rating: EngineRow | None
    against: dict[str, tuple[float, int]]  # reference -> (score, games)
    mistakes: MistakeRate | None
    faults: Counter[str]
    notes: list[str]


def board_rows(records: Sequence[GameRecord], ratings: Sequence[EngineRow], bots: Sequence[LeagueBot],
               references: Sequence[str], verdicts: Sequence[Verdict] = ()) -> list[BoardRow]:
    """The bots' lines, strongest first, then those that finished no game (:func:`unfinished`),
    unrated; a bot that played no game is left out."""
    by_engine = {r.engine: r for r in ratings}
    rates = {r.engine: r for r in mistake_rates(verdicts)}
    faults = faults_by_engine(records)
    played = {p for r in records for p in (r.black, r.white)}
    rated = sorted((b for b in bots if b.id in by_engine), key=lambda b: -by_engine[b.id].elo)
    rows: list[BoardRow] = []
    for bot in rated + [b for b in bots if b.id in played and b.id not in by_engine]:
        against = {}
        for reference in references:
            games = [r for r in records if {r.black, r.white} == {bot.id, reference}]
            against[reference] = (sum(r.score_for(bot.id) for r in games) / len(games) if games else math.nan,
                                  len(games))
        notes = list(dict.fromkeys(r.note.split(": ", 1)[-1] for r in records if r.note and _lost(r, bot.id)))
        rating = by_engine.get(bot.id)
        rows.append(BoardRow(len(rows) + 1 if rating else 0, bot, rating, against, rates.get(bot.id),
                             faults.get(bot.id, Counter()), notes[:QUOTED]))
    return rows


def unfinished(records: Sequence[GameRecord], bots: Sequence[LeagueBot]) -> set[str]:
    """The bots that finished no game under the rules: each game they played ended by a
    fault (a file that does not load, a bot that hangs at its first move), theirs or a broken
    opponent's that came first. Their games rate nobody: a bot that never plays has no Elo."""
    finished = {p for r in records if not is_fault(r.ending) for p in (r.black, r.white)}
    return {b.id for b in bots if b.id not in finished and any(b.id in (r.black, r.white) for r in records)}


def _lost(record: GameRecord, spec: str) -> bool:
    return record.score_for(spec) == 0.0 and spec in (record.black, record.white)


def write_leaderboard(out_dir: str | Path, records: Sequence[GameRecord], bots: Sequence[LeagueBot],
                      references: Sequence[str], *, title: str, fixed: dict[str, float] | None = None,
                      anchoring: str = "", verdicts: Sequence[Verdict] = (), about: str = "",
                      reproduce: str = "") -> list[BoardRow]:
    """Write the tournament report (ratings.csv, crosstable, plots, summary.md) and
    ``leaderboard.md`` and ``leaderboard.html`` into ``out_dir``; ``about``: a sentence on
    how the league was played (limits, positions); ``reproduce``: the command that plays it."""
    out = Path(out_dir)
    again = f"Reproduce: `{reproduce}` (a rerun plays only what is missing, and a changed bot's games)." \
        if reproduce else ""
    broken = unfinished(records, bots)
    rated = [r for r in records if r.black not in broken and r.white not in broken] or list(records)
    left_out = (f" The games of {', '.join(sorted(b.name for b in bots if b.id in broken))}, which finished none "
                "under the rules, rate nobody; games.csv holds them.") if broken else ""
    ratings = write_report(out, rated, title=title, fixed=fixed, anchoring=anchoring or None,
                           intro="The league's leaderboard: [leaderboard.md](leaderboard.md)." + left_out,
                           outro=again)
    rows = board_rows(records, ratings, bots, references, verdicts)
    scale = anchoring or "random held at 0"
    referenced = [r for r in ratings if r.engine in references]
    with atomic_write(out / MARKDOWN) as handle:
        handle.write(markdown(title, rows, referenced, references, bool(verdicts), scale, about, len(records))
                     + (f"\n{again}\n" if again else ""))
    with atomic_write(out / PAGE) as handle:
        handle.write(page(title, rows, referenced, references, bool(verdicts), scale, about, len(records), out))
    return rows


def _score(score: float, games: int) -> str:
    return "-" if not games else f"{score:.0%} of {games}"


def _mistakes(rate: MistakeRate | None) -> str:
    return "-" if rate is None else f"{rate.rate:.0%} of {rate.positions}"


def _elo(value: float) -> str:
    """An Elo rounded, never ``-0``."""
    return str(round(value) or 0)


def _cells(row: BoardRow, references: Sequence[str], with_mistakes: bool) -> list[str]:
    r = row.rating
    cells = ([str(row.rank), row.bot.name, _elo(r.elo), interval_text(r), str(r.games), f"{r.score:.0%}"] if r else
             ["-", row.bot.name, "-", "finished no game", "-", "-"])
    cells += [_score(*row.against[ref]) for ref in references]
    cells += [_mistakes(row.mistakes)] if with_mistakes else []
    cells += [f"{r.seconds_per_move:.4f}" if r else "-",
              f"{sum(row.faults.values())} ({faults_text(row.faults)})" if row.faults else "0"]
    return cells


#: the columns of the leaderboard's table of bots: which version of each played
BOT_HEADS = ("bot", "played as", "file", "SHA-256")


def _bot_cells(row: BoardRow) -> list[str]:
    return [row.bot.name, row.bot.id, Path(row.bot.file).name, row.bot.digest[:16]]


def _heads(references: Sequence[str], with_mistakes: bool) -> list[str]:
    return (["#", "bot", "Elo", "95% interval", "games", "score"] + [f"vs {ref}" for ref in references]
            + (["mistakes"] if with_mistakes else []) + ["s/move", "lost by fault"])


def markdown(title: str, rows: Sequence[BoardRow], referenced: Sequence[EngineRow], references: Sequence[str],
             with_mistakes: bool, scale: str, about: str, games: int) -> str:
    """The leaderboard as Markdown."""
    heads = _heads(references, with_mistakes)
    lines = [f"# {title}", "", f"{len(rows)} bots, {games} games. Elo {scale}, with 95% bootstrap intervals."
             + (f" {about}" if about else ""), "",
             "| " + " | ".join(heads) + " |", "|" + "|".join("---" if h == "bot" else "---:" for h in heads) + "|"]
    for row in rows:
        cells = _cells(row, references, with_mistakes)
        cells[1] = f"**{cells[1]}**"
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## References", "", "| engine | Elo | 95% interval | games |", "|---|---:|---:|---:|"]
    lines += [f"| `{r.engine}` | {_elo(r.elo)} | {interval_text(r)} | {r.games} |" for r in referenced]
    faulty = [row for row in rows if row.faults]
    if faulty:
        lines += ["", "## Losses by fault", ""]
        for row in faulty:
            lines.append(f"- **{row.bot.name}**: {faults_text(row.faults)}")
            lines += [f"  - {note}" for note in row.notes]
    lines += ["", "## The bots", "", "| " + " | ".join(BOT_HEADS) + " |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(f"`{cell}`" if i else cell for i, cell in enumerate(_bot_cells(row))) + " |"
              for row in rows]
    lines += ["", *[f"![{what}]({file})" for file, what in PICTURES], "",
              "Files: `games.csv` (every game; `ending` says how it ended), `ratings.csv`, `crosstable.csv`, "
              + ("`mistakes.csv`, " if with_mistakes else "") + "`leaderboard.html` (this page, for the web), "
              "`bots/` (the code each bot played with).", ""]
    return "\n".join(lines)


def page(title: str, rows: Sequence[BoardRow], referenced: Sequence[EngineRow], references: Sequence[str],
         with_mistakes: bool, scale: str, about: str, games: int, out: Path) -> str:
    """The leaderboard as one HTML page that holds everything it shows (its pictures inline)."""
    e = html.escape

    def table(heads: Sequence[str], body: Sequence[Sequence[str]]) -> str:
        head = "".join(f"<th>{e(h)}</th>" for h in heads)
        lines = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>" for cells in body)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{lines}</tbody></table>"

    parts = [f"<h1>{e(title)}</h1>",
             f"<p>{len(rows)} bots, {games} games. Elo {e(scale.replace('`', ''))}, with 95% bootstrap intervals."
             + (f" {e(about.replace('`', ''))}" if about else "") + "</p>",
             table(_heads(references, with_mistakes), [_cells(row, references, with_mistakes) for row in rows]),
             "<h2>References</h2>",
             table(["engine", "Elo", "95% interval", "games"],
                   [[r.engine, _elo(r.elo), interval_text(r), str(r.games)] for r in referenced])]
    faulty = [row for row in rows if row.faults]
    if faulty:
        parts.append("<h2>Losses by fault</h2><ul>" + "".join(
            f"<li><b>{e(row.bot.name)}</b>: {e(faults_text(row.faults))}<ul>"
            + "".join(f"<li>{e(note)}</li>" for note in row.notes) + "</ul></li>" for row in faulty) + "</ul>")
    parts += ["<h2>The bots</h2>", table(BOT_HEADS, [_bot_cells(row) for row in rows])]
    for file, what in PICTURES:
        picture = out / file
        if picture.is_file():
            data = base64.b64encode(picture.read_bytes()).decode()
            parts.append(f"<h2>{e(what)}</h2><img alt=\"{e(what)}\" src=\"data:image/png;base64,{data}\">")
    style = ("body{font-family:system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}"
             "table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;"
             "text-align:right}td:nth-child(2),th:nth-child(2){text-align:left}thead{background:#f3f3f3}"
             "img{max-width:100%}")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{e(title)}</title>"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>{style}</style></head>"
            f"<body>{''.join(parts)}</body></html>\n")
