"""How far engines play from perfect: their moves on solved position sets.

Elo says who beats whom; a solved game says more. On each position of a set
(:mod:`dlgo.formats.positions`: every legal move's exact score) an engine,
seeded per position, picks its move, and the move is a **mistake** where it
changes the position's game-theoretic result (a win into a draw or a loss, a
draw into a loss). Rates are given over all positions and over the
**critical** ones (where some move would change the result; elsewhere no move
can be a mistake), with 95% Wilson intervals, beside the engine's seconds a move.

``mistakes.csv`` holds one row per engine and position, appended as each is
measured (a killed run resumes where it stopped, every position seeded by its
own id); :func:`write_mistakes_report` adds ``mistake_rates.csv`` (per engine,
over all sets and per set) and ``mistakes_vs_compute.png`` (mistakes per 100
critical positions against seconds a move, one line per engine family).
"""
from __future__ import annotations

import csv
import os
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple, Sequence

import pandas as pd

from dlgo.arena.match import AgentFactory, collector_paused, start_agent, warm_up
from dlgo.arena.ratings import wilson_interval
from dlgo.arena.report import ComputePoint, family_of, plot_against_compute
from dlgo.arena.tournament import changed_networks, network_digests, record_networks, task_seed
from dlgo.arena.workers import run_jobs, worker_pool
from dlgo.core.agent import Compute
from dlgo.core.errors import EngineError, RecordError
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.storage.folders import hold_folder
from dlgo.formats.positions import SETS, SolvedPosition, append_row, open_log, position_state
from dlgo.display.progress import progress_bar

VERDICTS = "mistakes.csv"
#: the digests of the networks the verdicts were measured with, and where a changed network's verdicts go
VERDICT_NETWORKS, REPLACED = "mistakes-networks.json", "replaced-mistakes.csv"
COLUMNS = ["engine", "set", "id", "moves", "seed", "action", "mistake", "critical", "seconds", "compute", "unit"]
#: the action recorded for an engine that failed on a position (no move: a mistake)
FAULT = -1
#: positions handed to a worker at once (an engine is made for each, its networks loaded once per worker)
CHUNK = 10


class Verdict(NamedTuple):
    """One engine's move on one solved position."""

    engine: str
    set: str
    id: int
    moves: str  # the position, by the moves that reach it: what a verdict is kept by
    seed: int
    action: int
    mistake: bool
    critical: bool
    seconds: float
    compute: float
    unit: str

    def as_row(self) -> dict[str, object]:
        return {**self._asdict(), "mistake": int(self.mistake), "critical": int(self.critical),
                "seconds": f"{self.seconds:.6g}", "compute": f"{self.compute:.6g}"}


class MistakeRate(NamedTuple):
    """An engine's mistakes over a group of positions (``group``: ``all`` or a set's name)."""

    engine: str
    family: str
    group: str
    positions: int
    mistakes: int
    rate: float
    low: float
    high: float
    critical: int
    critical_mistakes: int
    critical_rate: float
    critical_low: float
    critical_high: float
    seconds_per_move: float


def check_moves(factory: AgentFactory, spec: str, positions: Sequence[SolvedPosition], seed: int) -> list[Verdict]:
    """``spec``'s move on each position, a fresh engine seeded by the position's set and id."""
    verdicts = []
    if positions:
        warm_up(factory, spec, position_state(positions[0]))
    for position in positions:
        agent = factory.create(spec, seed=task_seed(seed, f"{spec} {position.set} #{position.id}"))
        try:
            state = position_state(position)
            start_agent(agent)
            try:
                with collector_paused():
                    move, _, report = agent.decide(state)
                action, compute = state.move_to_index(move), report.compute
            except EngineError:  # a failing engine (a bot of a user's own that raised, hung, ...) plays no move:
                action, compute = FAULT, Compute(0.0, 0, agent.unit)  # a mistake, as an illegal move is
        finally:
            agent.close()
        verdicts.append(Verdict(spec, position.set, position.id, position.moves, seed, action,
                                position.is_mistake(action),
                                position.critical, compute.seconds, compute.amount, compute.unit))
    return verdicts


def _check(job: tuple[AgentFactory, str, list[SolvedPosition], int]) -> list[Verdict]:
    return check_moves(*job)


def read_verdicts(path: Path) -> list[Verdict]:
    """The rows of a ``mistakes.csv`` (for readers: nothing is written)."""
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        return [_verdict(row, path) for row in csv.DictReader(handle) if row.get("engine")]


def _verdict(row: dict[str, str], path: Path) -> Verdict:
    try:
        return Verdict(row["engine"], row["set"], int(row["id"]), row["moves"], int(row["seed"]), int(row["action"]),
                       row["mistake"] == "1",
                       row["critical"] == "1", float(row["seconds"]), float(row["compute"]), row["unit"])
    except (KeyError, TypeError, ValueError) as err:
        raise RecordError(f"{path}: a row that is not an engine's verdict ({err}): {row}") from None


def _rows_of_current_networks(factory: AgentFactory, specs: Sequence[str], folder: Path) -> list[dict[str, str]]:
    """The verdicts of ``folder``'s log still valid: those of a spec whose network file changed
    since they were measured (``alphazero:checkpoint=connect4`` after a new network shipped)
    move to ``replaced-mistakes.csv`` (each once, however often a kill interrupts the move),
    to be measured again (verdicts from before the digests were recorded are trusted). Records
    the networks' digests."""
    path, stamps = folder / VERDICTS, folder / VERDICT_NETWORKS
    rows = open_log(path, COLUMNS)
    current = network_digests(factory, specs)
    changed = changed_networks(stamps, current)
    stale = [row for row in rows if row["engine"] in changed]
    if stale:
        set_aside = open_log(folder / REPLACED, COLUMNS)  # a run killed before the rewrite below set some aside
        for row in stale:
            if row not in set_aside:
                append_row(folder / REPLACED, COLUMNS, row)
        rows = [row for row in rows if row["engine"] not in changed]
        with atomic_write(path, newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    record_networks(stamps, current)
    return rows


def measure_mistakes(factory: AgentFactory, specs: Sequence[str], positions: Sequence[SolvedPosition],
                     out_dir: str | Path, seed: int = 0, workers: int | None = None, progress: bool = True,
                     kind: str = "mistakes") -> list[Verdict]:
    """Every engine of ``specs`` on every position (those not yet in
    ``out_dir/mistakes.csv``), in ``workers`` processes (default all cores);
    returns the verdicts of these engines on these positions. A verdict is kept
    by its engine, position (its moves) and seed, so other sets or seeds never
    reuse it. The folder is held as a run of ``kind`` (a tournament's folder takes
    its engines' verdicts too)."""
    if not positions:
        return []
    start = position_state(positions[0])
    for spec in specs:  # every spec checked on the game before the folder is touched
        agent = factory.create(spec)
        try:
            agent.check_game(start)
        finally:
            agent.close()
    with hold_folder(out_dir, kind) as folder:
        path = folder / VERDICTS
        rows = _rows_of_current_networks(factory, specs, folder)
        done = {(v.engine, v.moves, v.seed): v for v in (_verdict(row, path) for row in rows)}
        todo = [(spec, p) for spec in specs for p in positions if (spec, p.moves, seed) not in done]
        jobs = []
        for spec in specs:
            mine = [p for s, p in todo if s == spec]
            jobs += [(factory, spec, mine[i:i + CHUNK], seed) for i in range(0, len(mine), CHUNK)]
        total = len(specs) * len(positions)
        bar = progress_bar(total=total, initial=total - len(todo), unit="position", desc="mistakes",
                           disable=not progress)

        def keep(verdicts: list[Verdict]) -> None:
            for v in verdicts:
                append_row(path, COLUMNS, v.as_row())
                done[v.engine, v.moves, v.seed] = v
            bar.update(len(verdicts))

        workers = workers or os.cpu_count() or 1
        try:
            if workers == 1 or len(jobs) <= 1:
                run_jobs(_check, jobs, keep)
            else:
                with worker_pool(workers) as pool:
                    run_jobs(_check, jobs, keep, pool)
        except KeyboardInterrupt:
            raise KeyboardInterrupt(f"{len(done)} verdicts kept in {path}; the same command finishes the run") from None
        finally:
            bar.close()
    return [done[spec, p.moves, seed]._replace(set=p.set, id=p.id) for spec in specs for p in positions]


def mistake_rates(verdicts: Sequence[Verdict], by_set: bool = False) -> list[MistakeRate]:
    """Each engine's rates over all its positions (and, ``by_set``, per set too), in the order engines first appear."""
    groups: dict[tuple[str, str], list[Verdict]] = defaultdict(list)
    for v in verdicts:
        groups[v.engine, "all"].append(v)
        if by_set:
            groups[v.engine, v.set].append(v)
    order = {name: i for i, name in enumerate(("all",) + SETS)}
    engines = list(dict.fromkeys(v.engine for v in verdicts))
    rows = []
    for (engine, group), members in sorted(groups.items(), key=lambda g: (engines.index(g[0][0]),
                                                                          order.get(g[0][1], 99), g[0][1])):
        mistakes = sum(v.mistake for v in members)
        critical = [v for v in members if v.critical]
        critical_mistakes = sum(v.mistake for v in critical)
        rate = mistakes / len(members)
        critical_rate = critical_mistakes / len(critical) if critical else float("nan")
        rows.append(MistakeRate(engine, family_of(engine), group, len(members), mistakes, rate,
                                *wilson_interval(rate, len(members)), len(critical), critical_mistakes, critical_rate,
                                *wilson_interval(critical_rate, len(critical)),
                                sum(v.seconds for v in members) / len(members)))
    return rows


def write_mistakes_report(out_dir: str | Path, verdicts: Sequence[Verdict], title: str = "") -> list[MistakeRate]:
    """``mistake_rates.csv`` and ``mistakes_vs_compute.png`` into ``out_dir``;
    returns the rates over all sets, one row per engine."""
    out = Path(out_dir)
    rows = mistake_rates(verdicts, by_set=True)
    with atomic_write(out / "mistake_rates.csv", newline="") as handle:
        pd.DataFrame(rows, columns=MistakeRate._fields).to_csv(handle, index=False, float_format="%.4g")
    overall = [r for r in rows if r.group == "all"]
    plot_mistakes_vs_compute(overall, out / "mistakes_vs_compute.png", title)
    update_facts(out, {"mistakes": mistake_facts(out)})
    return overall


def mistake_facts(folder: str | Path) -> list[dict[str, object]]:
    """The ``mistakes`` section of a report's facts (:mod:`dlgo.storage.facts`): each
    engine's rates over all its solved positions, from ``mistake_rates.csv`` (the critical
    rate exact, not the file's four digits)."""
    table = pd.read_csv(Path(folder) / "mistake_rates.csv")
    table = table[table.group == "all"]
    return [{"engine": row.engine, "family": row.family, "positions": int(row.positions), "critical": int(row.critical),
             "critical_rate": row.critical_mistakes / row.critical if row.critical else float("nan"),
             "critical_low": float(row.critical_low), "critical_high": float(row.critical_high),
             "seconds_per_move": float(row.seconds_per_move)} for row in table.itertuples()]


def plot_mistakes_vs_compute(rows: Sequence[MistakeRate], path: Path, title: str = "") -> None:
    """Mistakes per 100 critical positions against mean seconds a move (log scale), one line per family."""
    plot_against_compute([ComputePoint(r.engine, r.family, r.seconds_per_move, 100 * r.critical_rate,
                                       100 * r.critical_low, 100 * r.critical_high) for r in rows],
                         path, title or "Distance from perfect play",
                         "mistakes per 100 critical positions (95% interval)", floor=0)


def mistakes_table(rows: Sequence[MistakeRate]) -> list[str]:
    """The rates as Markdown table lines."""
    lines = ["| engine | mistakes (all) | 95% interval | mistakes (critical) | 95% interval | positions "
             "(critical) | s/move |", "|---|---:|---|---:|---|---:|---:|"]
    for r in rows:
        critical = (f"{r.critical_rate:.1%} | {r.critical_low:.1%} to {r.critical_high:.1%}" if r.critical
                    else "- | -")
        lines.append(f"| `{r.engine}` | {r.rate:.1%} | {r.low:.1%} to {r.high:.1%} | {critical} | "
                     f"{r.positions} ({r.critical}) | {r.seconds_per_move:.4f} |")
    return lines


def write_mistakes_summary(out_dir: str | Path, verdicts: Sequence[Verdict], title: str = "",
                           intro: str = "") -> list[MistakeRate]:
    """:func:`write_mistakes_report` and a ``summary.md`` of its own (the ``dlgo
    mistakes`` report): each engine over all sets, then per set."""
    overall = write_mistakes_report(out_dir, verdicts, title)
    by_set = [r for r in mistake_rates(verdicts, by_set=True) if r.group != "all"]
    lines = [f"# {title or 'Mistakes on solved positions'}", "",
             "A move is a mistake where it changes the position's game-theoretic result (a win into a draw or a "
             "loss, a draw into a loss); a position is critical where some legal move would. 95% Wilson "
             "intervals.", "", *([intro, ""] if intro else []),
             "![mistakes against compute](mistakes_vs_compute.png)", "", *mistakes_table(overall), "",
             "## Per set", "", "| engine | set | mistakes | critical mistakes | positions (critical) |",
             "|---|---|---:|---:|---:|"]
    lines += [f"| `{r.engine}` | {r.group} | {r.rate:.1%} | {f'{r.critical_rate:.1%}' if r.critical else '-'} | "
              f"{r.positions} ({r.critical}) |" for r in by_set]
    lines += ["", "Files: `mistakes.csv` (every engine's move on every position), `mistake_rates.csv`.", ""]
    with atomic_write(Path(out_dir) / "summary.md") as handle:
        handle.write("\n".join(lines))
    return overall
