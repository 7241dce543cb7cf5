"""The full board's findings (reports/go19): the course's step 16 and the README's answer."""
from __future__ import annotations

from typing import Any

from dlgo.storage.facts import read_facts
from scripts.figures import common
from scripts.figures.common import brief_score, score_in, with_interval

GO19 = "go19"
GO19_COMMAND = "python experiments/headline/go19.py --out reports/go19 --ship"


def go19_facts() -> dict[str, Any]:
    """The run's facts so far (empty before its first report)."""
    return read_facts(common.REPORTS / GO19)


def match_engine(games: dict[str, Any]) -> str:
    """The engine a part's games measure: the one that is not GNU Go."""
    return next(row[0] for row in games["results"] if not row[0].startswith("gnugo"))


def levels_played(games: dict[str, Any]) -> list[str]:
    """GNU Go's levels in a part's games, weakest first."""
    return sorted({row[1] for row in games["results"] if row[1].startswith("gnugo")},
                  key=lambda spec: int(spec.split("=")[1]))


def go19_answer() -> str:
    """The match against GNU Go in one cell, with what the engine learnt from and the compute it took."""
    found = go19_facts()
    match, teacher, compute = found["match"], found["teacher"], found["compute"]
    engine = match_engine(match)
    scores = [(level, *score_in(match, engine, level)) for level in levels_played(match)]
    *weaker, (strongest, score, games) = scores
    others = "; ".join(f"level {level.split('=')[1]} {s:.0%} of {n}" for level, s, n in weaker)
    return (f"`{engine}` (the compiled search guided by a network and move patterns learnt from "
            f"{teacher['games']:,} of GNU Go's games, {compute['core_hours']:.0f} core-hours in all) won "
            f"{with_interval(score, games, 'even games')} against GNU Go level {strongest.split('=')[1]}"
            + (f"; {others}" if others else ""))


def course_go19() -> str:
    """Step 16: what the committed run has measured so far, part by part."""
    found = go19_facts()
    if "teacher" not in found:
        return f"*The run has not been committed yet: `{GO19_COMMAND}`.*\n"
    teacher, compute = found["teacher"], found["compute"]
    lines = [f"The committed run ([reports/go19](../reports/go19/summary.md)) has {teacher['games']:,} games of "
             f"`{teacher['teacher']}` against itself ({teacher['plies']:.0f} plies on average, "
             f"{teacher['core_hours']:.1f} core-hours, {teacher['bytes_per_game']:,.0f} bytes a game)."]
    if found.get("learning"):
        lines.append("On held-out games, the share of the teacher's moves each model names first: " + ", ".join(
            f"the {name} {row['top1']:.1%}" for name, row in found["learning"].items()) + ".")
    lines.append(f"The data and the models took {compute['core_hours']:.1f} core-hours, of a budget of 24.")
    for part, title in (("ablation", "The ablation"), ("match", "The match")):
        if part in found:
            lines += ["", title + ":", "", *score_table(found[part])]
    if "match" not in found:
        lines += ["", f"*The games against GNU Go are still to be played: `{GO19_COMMAND}`.*"]
    return "\n".join(lines) + "\n"


def score_table(games: dict[str, Any]) -> list[str]:
    """Each engine's score against each GNU Go level in a part's games, with 95% intervals (an
    engine by its row name where the part's facts give one, ``labels``)."""
    levels = levels_played(games)
    engines = list(dict.fromkeys(row[0] for row in games["results"] if not row[0].startswith("gnugo")))
    labels = games.get("labels", {})
    rows = ["| engine | " + " | ".join(f"against `{level}`" for level in levels) + " | s/move |",
            "|---|" + "---:|" * (len(levels) + 1)]
    for engine in engines:
        cells = [brief_score(*score_in(games, engine, level)) for level in levels]
        name = labels.get(engine, f"`{engine}`")
        rows.append(f"| {name} | " + " | ".join(cells) + f" | {games['seconds_per_move'][engine]:.2f} |")
    return rows


def go19_engine() -> str:
    """docs/engines.md's 19x19 figures: the ablation's and the match's scores, as far as played."""
    found = go19_facts()
    if not {"ablation", "match"} & set(found):
        return f"*Not measured yet: `{GO19_COMMAND}`.*\n"
    lines = []
    for part, title in (("ablation", "What each learned piece adds"), ("match", "The full engine")):
        if part in found:
            lines += [f"{title}, 19x19, komi 7.5, colours alternating ([reports/go19](../reports/go19/summary.md)):",
                      "", *score_table(found[part]), ""]
    return "\n".join(lines)
