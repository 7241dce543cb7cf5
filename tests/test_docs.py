"""The documentation tells the truth: its figures are the committed reports', its
Python examples run, and every document it cites is in the repository."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from dlgo.storage.facts import read_facts
from helpers import load_script

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def load_docs_figures():
    return load_script("docs_figures")


def load_scaling_blocks():
    """The scaling lab's blocks (scripts/figures/scaling.py), on the import path docs_figures sets."""
    load_docs_figures()
    from scripts.figures import common, scaling

    return common, scaling


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:  # not a git checkout: every file but the virtual environment's
        return [p for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts and ".git" not in p.parts]
    return [ROOT / line for line in out.stdout.splitlines() if (ROOT / line).is_file()]


def test_every_figure_block_is_what_the_committed_reports_say():
    figures = load_docs_figures()
    assert figures.stale() == []


def test_every_document_has_its_figure_blocks_filled():
    figures = load_docs_figures()
    names = {m["name"] for path in DOCUMENTS for m in figures.BLOCK.finditer(path.read_text())}
    assert names == set(figures.BLOCKS)  # every block is used, and only known blocks
    for path in DOCUMENTS:
        for match in figures.BLOCK.finditer(path.read_text()):
            assert match["body"].strip(), f"{path.name}: block {match['name']} is empty"


def as_json(sections: dict) -> str:
    return json.dumps(json.loads(json.dumps(sections)), sort_keys=True)


def test_every_reports_facts_are_what_its_files_say():
    """facts.json cannot go stale: each committed report's facts are those its own files give
    (derived by the modules that wrote them), and every report the docs read has them."""
    refresh = load_script("refresh_facts")
    stale, checked = [], 0
    for top in sorted(path for path in (ROOT / "reports").iterdir() if path.is_dir()):
        for folder, experiment in [(top, True), *((sub, False) for sub in refresh.report_folders(top))]:
            sections = refresh.derived(folder, experiment)
            kept = read_facts(folder)
            checked += bool(sections)
            if as_json(sections) != as_json({name: kept.get(name) for name in sections}):
                stale.append(str(folder.relative_to(ROOT)))
    assert stale == [] and checked > 40, "rerun: python scripts/refresh_facts.py " + " ".join(stale)


def write_scaling_report(folder, boards, exchange, budgets=(1, 8, 64), student=True):
    """A scaling lab report with two boards of two network sizes, and its facts (written by the
    lab's own reader of its files) for the docs' blocks to read."""
    import pandas as pd

    from dlgo.storage.facts import update_facts
    from experiments.shared.scaling_report import facts

    folder.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(boards).to_csv(folder / "boards.csv", index=False)
    pd.DataFrame([exchange]).to_csv(folder / "exchange.csv", index=False)
    rows = [{"board": board, "net": net, "iteration": iteration, "simulations": simulations,
             "train_flops": 1e11 * iteration, "train_seconds": 60.0 * iteration,
             "elo": 100.0 * iteration + {1: 0, 8: 90, 64: 150}[simulations], "elo_low": 0.0, "elo_high": 900.0}
            for board in ("5x4-4", "6x5-4") for net in ("1x16", "2x32" if student else "4x64") for iteration in (0, 16)
            for simulations in budgets]
    pd.DataFrame(rows).to_csv(folder / "points.csv", index=False)
    pd.DataFrame([row for row in rows if row["simulations"] == budgets[-1]][:2]).to_csv(folder / "frontier.csv",
                                                                                         index=False)
    (folder / "summary.md").write_text("# summary\n")
    update_facts(folder, facts(folder))


def test_the_course_reads_the_scaling_labs_findings(tmp_path, monkeypatch):
    common, figures = load_scaling_blocks()
    monkeypatch.setattr(common, "REPORTS", tmp_path)
    assert "not been committed yet" in figures.course_scaling() and "not been committed yet" in figures.scaling()
    nan = float("nan")
    board = {"board": "5x4-4", "cells": 20, "elo_per_decade": 200.0, "elo_per_decade_low": 150.0,
             "elo_per_decade_high": 250.0, "plateau": 600.0, "plateau_flops": 2e13, "plateau_flops_low": 5e12,
             "plateau_flops_high": 6e13, "solver_elo": 560.0,
             "plateau_at_solver": True,
             "flops_to_5pct": 2e12, "flops_to_1pct": nan, "fewest_mistakes": 0.023, "train_hours": 0.4}
    larger = {**board, "board": "6x5-4", "cells": 30, "elo_per_decade_low": 180.0, "elo_per_decade_high": 220.0,
              "plateau": nan, "plateau_flops": nan, "solver_elo": 700.0, "plateau_at_solver": False,
              "flops_to_5pct": 3e13, "fewest_mistakes": 0.04,
              "train_hours": 2.0}
    trade = {"slope": -1.0, "slope_low": -1.5, "slope_high": -0.5, "points": 6, "training_per_10x_search": 10.0}
    write_scaling_report(tmp_path / figures.SCALING, [board, larger], trade)
    text = figures.course_scaling()
    assert "5x4-4 (20 points): 200 (150 to 250)" in text
    assert ("`2x32` network on 5x4-4 after 16 iterations, what the course's command trains (16 minutes of training "
            "there, 1.6e+12 FLOPs), rates **1750**") in text
    assert "turns flat at Elo 600 from 2e+13 FLOPs, 12.5x further on" in text
    assert "about **60 Elo**" in text and "wins 59%" in text  # 200 per 10x is 60 per doubling
    assert "**30** from 1 to 8, **20** from 8 to 64" in text  # 90 Elo over 3 doublings, 60 over 3
    assert "replaces **10.0x** the training compute (95% interval 3.2x to 31.6x, 6 points)" in text
    assert "stands in for 2.0x" in text
    assert "5x4-4 200 (150 to 250), 6x5-4 200 (180 to 220)" in figures.scaling_answer()
    table = figures.scaling()
    assert ("| 5x4-4 | 200 (150 to 250) | 2e+13 (5e+12 to 6e+13) at Elo 600 (solver 560) | 2e+12 | not reached "
            "| 2.3% | 0.4 |") in table
    assert "| 6x5-4 | 200 (180 to 220) | no plateau | 3e+13 | not reached | 4.0% | 2.0 |" in table

    # a run too short for a fit or a trade, at one budget, without the course's network: no sentence about them
    bare = {**board, "elo_per_decade": nan, "plateau": nan, "plateau_flops": nan, "fewest_mistakes": nan}
    write_scaling_report(tmp_path / figures.SCALING, [bare, larger], {**trade, "slope": nan, "points": 0},
                         budgets=(64,), student=False)
    text = figures.course_scaling()
    assert "5x4-4 (20 points): too few points" in text and "nan" not in text
    assert "The full run's" not in text and "Each doubling of the search" not in text
    assert "too few iso-Elo crossings" in text and "about **60 Elo**" in text  # the other board's fit remains
    assert "| 5x4-4 | too few points | no plateau | 2e+12 | not reached | not measured | 0.4 |" in figures.scaling()
    write_scaling_report(tmp_path / figures.SCALING, [board, larger], {**trade, "slope": 0.2, "slope_high": 0.6})
    assert "no measurable trade" in figures.course_scaling()
    stall = {**larger, "plateau": 650.0, "plateau_flops": 1e13, "plateau_flops_low": 4e12, "plateau_flops_high": 3e13}
    write_scaling_report(tmp_path / figures.SCALING, [{**board, "plateau_at_solver": False}, stall], trade)
    assert "its frontier stalls below the solver, at Elo 600" in figures.course_scaling()
    assert "1e+13 (4e+12 to 3e+13) at Elo 650 (solver 700: a stall below it)" in figures.scaling()


def test_an_unknown_figure_block_is_an_error():
    figures = load_docs_figures()
    with pytest.raises(SystemExit, match="unknown block 'nope'"):
        figures.render("<!-- figures:nope -->\n<!-- /figures:nope -->")


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_python_examples_run(path, tmp_path, monkeypatch, capsys):
    blocks = PYTHON_BLOCK.findall(path.read_text())
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    for k, code in enumerate(blocks):
        exec(compile(code, f"{path.name}, python block {k + 1}", "exec"), {"__name__": "__doc_example__"})


def test_the_readme_shows_the_api_in_python():
    assert PYTHON_BLOCK.findall((ROOT / "README.md").read_text())


def markdown_files() -> list[Path]:
    return [p for p in tracked_files() if p.suffix == ".md"]


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown file."""
    headings = re.findall(r"^#+ (.*)$", path.read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_link_in_a_document_resolves_inside_the_repository():
    broken = []
    for path in markdown_files():
        for target in LINK.findall(path.read_text()):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            file, _, anchor = target.partition("#")
            resolved = (path.parent / file).resolve() if file else path
            if not resolved.exists() or ROOT not in resolved.parents:
                broken.append(f"{path.relative_to(ROOT)}: {target}")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                broken.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


#: a script named by its path from the repository's root: ``experiments/chapters/ch03_random_go.py``
SCRIPT_PATH = re.compile(r"\bexperiments/[\w/]+\.py\b")


def test_every_experiment_script_named_in_the_documents_and_reports_exists():
    """The README, docs/, the committed reports (their "Reproduce" commands) and the Makefile's
    commands name only scripts that are there: a script that moves must take its commands along."""
    reports = [p for p in tracked_files() if p.suffix == ".md" and p.relative_to(ROOT).parts[0] == "reports"]
    texts = {path: path.read_text() for path in [*DOCUMENTS, *reports]}
    texts[ROOT / "Makefile"] = " ".join(re.findall(r"python3? experiments/\S+", (ROOT / "Makefile").read_text()))
    named = {(str(path.relative_to(ROOT)), found)
             for path, text in texts.items() for found in SCRIPT_PATH.findall(text)}
    assert len({found for _, found in named}) > 20  # the check sees the commands
    missing = sorted(f"{source}: {found}" for source, found in named if not (ROOT / found).is_file())
    assert missing == []


def test_the_script_path_check_sees_a_stale_path():
    text = "Reproduce: `python experiments/ch03_random_go.py --quick`; see experiments/chapters/ch03_random_go.py."
    assert SCRIPT_PATH.findall(text) == ["experiments/ch03_random_go.py", "experiments/chapters/ch03_random_go.py"]
    assert not (ROOT / "experiments/ch03_random_go.py").is_file()
    assert (ROOT / "experiments/chapters/ch03_random_go.py").is_file()


#: a command of a report's Reproduce: a span in backticks
COMMAND = re.compile(r"`([^`]+)`")
#: a file or folder a command names, alone or after ``=``, ``,`` or ``:`` (``predictor:model=data/...``)
NAMED_PATH = re.compile(r"(?:^|[=,:])((?:data|runs|checkpoints|reports)/[^\s,]*)")
#: the options whose value is what a command writes
OUTPUT_OPTIONS = ("--out", "--work", "--ship")


def reproduce_text(summary: str) -> str | None:
    """A summary's Reproduce: the paragraph that starts with it and, where that ends with a colon,
    the list below it."""
    paragraphs = re.split(r"\n\s*\n", summary)
    start = next((i for i, text in enumerate(paragraphs) if text.startswith("Reproduce")), None)
    if start is None:
        return None
    listed = paragraphs[start].rstrip().endswith(":") and start + 1 < len(paragraphs)
    return "\n\n".join(paragraphs[start:start + 1 + listed])


def unmade_inputs(reproduce: str, in_repository) -> list[str]:
    """The files a Reproduce's commands read that a fresh clone lacks: each path a command
    names that is neither in the repository (``in_repository``) nor written by an earlier
    command (its ``--out``, ``--work`` or ``--ship``, or a path inside one)."""
    made: list[str] = []
    missing = []
    for command in COMMAND.findall(reproduce):
        words = shlex.split(command)
        writes = [value for option, value in zip(words, words[1:] + [""])
                  if option in OUTPUT_OPTIONS and value and not value.startswith("-")]
        for word in words:
            for path in NAMED_PATH.findall(word):
                if path in writes or in_repository(path) or any(
                        path == out or path.startswith(out.rstrip("/") + "/") for out in made):
                    continue
                missing.append(path)
        made += writes
    return missing


def test_every_reports_reproduce_runs_on_a_fresh_clone():
    """Every committed report says how to make it again (``Reproduce:``), and what its commands
    read is in a fresh clone or made by an earlier command of the same Reproduce (a predictor
    trained first, say): nothing only a course's prose makes."""
    tracked = {str(p.relative_to(ROOT)) for p in tracked_files()}

    def in_repository(path: str) -> bool:
        return path in tracked or any(t.startswith(path.rstrip("/") + "/") for t in tracked)

    reports = sorted(p for p in (ROOT / "reports").iterdir() if p.is_dir())
    without = [str(p.relative_to(ROOT)) for p in reports
               if reproduce_text((p / "summary.md").read_text() if (p / "summary.md").exists() else "") is None]
    assert without == []
    checked, unmade = 0, []
    for summary in sorted((ROOT / "reports").glob("**/summary.md")):
        reproduce = reproduce_text(summary.read_text())
        if reproduce is not None:
            checked += 1
            unmade += [f"{summary.parent.relative_to(ROOT)}: {path}"
                       for path in unmade_inputs(reproduce, in_repository)]
    assert checked > 40 and unmade == []


def test_the_reproduce_check_sees_a_file_no_step_makes():
    def nothing(path):
        return False

    alone = "Reproduce: `python x.py --opponents random,predictor:model=data/net/model.keras --out reports/x`"
    assert unmade_inputs(reproduce_text(alone), nothing) == ["data/net/model.keras"]
    made = ("Reproduce (first the network): `dlgo train-supervised --data data/games --out data/net`, then "
            "`python x.py --opponents random,predictor:model=data/net/model.keras --out reports/x`")
    assert unmade_inputs(reproduce_text(made), nothing) == ["data/games"]  # the games come from nowhere
    listed = ("# t\n\nReproduce (two steps):\n\n- `dlgo positions --out data/p`\n"
              "- `dlgo mistakes --positions data/p/p.csv`\n")
    assert unmade_inputs(reproduce_text(listed), nothing) == []
    assert unmade_inputs(reproduce_text(listed.replace("--out data/p", "--out data/q")), nothing) == ["data/p/p.csv"]


def test_the_benchmarks_summary_names_each_tables_command():
    """reports/benchmarks/summary.md reproduces every table with the command that measured it."""
    folder = ROOT / "reports" / "benchmarks"
    commands = COMMAND.findall(reproduce_text((folder / "summary.md").read_text()) or "")
    tables = sorted(p for p in folder.glob("*.md") if p.name != "summary.md")
    measured = {p.name: COMMAND.search(p.read_text()).group(1) for p in tables}
    assert len(measured) >= 7 and {name: command in commands for name, command in measured.items()} == {
        name: True for name in measured}


def test_no_file_cites_a_document_outside_the_repository():
    outside = re.compile(r"\.\./shared/|/w[o]rk/|DESIGN\.md")  # spelt so that it does not match itself
    citing = [str(p.relative_to(ROOT)) for p in tracked_files()
              if p.suffix in {".md", ".py", ".toml", ".txt", ".cfg", ".sh", ""} and p.stat().st_size < 2_000_000
              and outside.search(p.read_text(errors="replace"))]
    assert citing == []


def test_the_full_board_blocks_read_what_the_go19_run_has_measured(tmp_path, monkeypatch):
    """Step 16, docs/engines.md's 19x19 block and the README's row (scripts/figures/go19.py) say what
    the run has measured so far: nothing, then the teacher's games and models, then the games."""
    from dlgo.storage.facts import read_facts, update_facts

    load_docs_figures()
    from scripts.figures import answers, go19

    for module in (go19, answers):  # the other reports stay the committed ones
        monkeypatch.setattr(module, "go19_facts", lambda: read_facts(tmp_path / go19.GO19))
    assert "not been committed yet" in go19.course_go19() and "Not measured yet" in go19.go19_engine()
    assert "19x19" not in answers.answers()
    report = tmp_path / go19.GO19
    report.mkdir()
    teacher = {"games": 2000, "teacher": "gnugo:level=0", "plies": 260.0, "core_hours": 10.3, "bytes_per_game": 390.0}
    learning = {"move patterns": {"top1": 0.31}, "network": {"top1": 0.42}}
    update_facts(report, {"teacher": teacher, "learning": learning, "compute": {"core_hours": 18.2}})
    course = go19.course_go19()
    assert "2,000 games of `gnugo:level=0`" in course and "the network 42.0%" in course and "18.2 core-hours" in course
    assert "still to be played" in course and "19x19" not in answers.answers()
    engine, search, game = "alphago:checkpoint=go19,seconds=5", "mcts:seconds=2", "go:size=19,komi=7.5"
    level1, level10 = "gnugo:level=1", "gnugo:level=10"
    match = {"games": 40, "last": [], "seconds_per_move": {engine: 4.6, level1: 0.1, level10: 0.5},
             "results": [[engine, level10, game, "black", 12.0, 15], [engine, level10, game, "white", 9.0, 15],
                         [engine, level1, game, "black", 5.0, 5], [engine, level1, game, "white", 5.0, 5],
                         [level10, engine, game, "white", 9.0, 30], [level1, engine, game, "white", 0.0, 10]]}
    ablation = {"games": 2, "last": [], "seconds_per_move": {search: 1.9, level1: 0.1},
                "results": [[search, level1, game, "black", 1.0, 1], [level1, search, game, "white", 0.0, 1]],
                "labels": {search: "search alone (9x9 rollout policy)"}}
    update_facts(report, {"match": match, "ablation": ablation})
    row = next(line for line in answers.answers().splitlines() if "19x19" in line)
    assert f"`{engine}`" in row and "70.0% of 30 even games" in row and "level 10" in row
    assert "level 1 100% of 10" in row
    assert "| search alone (9x9 rollout policy) | 100% of 1 " in go19.go19_engine()
    assert f"| `{engine}` | 100% of 10 (72%–100%) | 70% of 30 (52%–83%) | 4.60 |" in go19.course_go19()


#: the folders of code the map's "What lives where" covers, every module of them named there
MAPPED = ("dlgo", "engines", "experiments", "scripts", "benchmarks")
#: files the map need not name: a package's marker, ``python -m``'s door, each script folder's guard
UNMAPPED = {"__init__.py", "__main__.py", "which_python.py"}


def map_section() -> str:
    """The text of docs/architecture.md's "What lives where"."""
    return (ROOT / "docs" / "architecture.md").read_text().split("## What lives where", 1)[1].split("\n## ", 1)[0]


def map_rows(section: str) -> dict[str, str]:
    """The map's rows by the folder each covers (``dlgo/core``, ``engines``: two rows joined;
    the book's names are ``dlgo``'s own modules), each row's text."""
    rows: dict[str, str] = {}
    for line in section.splitlines():
        cells = line.split(" | ")
        if not line.startswith("| ") or len(cells) < 3 or cells[0] in ("| package", "|---"):
            continue
        found = re.search(r"`([\w./]+)`", cells[0])
        folder = found[1].replace(".", "/").rstrip("/") if found else "dlgo"  # the book's names
        rows[folder] = rows.get(folder, "") + " " + " ".join(cells[1:])
    return rows


def unnamed_modules(section: str, modules: list[Path]) -> list[str]:
    """The ``modules`` (paths from the root) whose file name the map's row for their folder (the
    longest that holds them) never writes, neither in full nor inside a range of files written
    `` `first.py` to `last.py` ``."""
    rows = map_rows(section)
    unnamed = []
    for path in modules:
        folders = [f for f in rows if path.parent.as_posix() == f or path.parent.as_posix().startswith(f + "/")]
        text = rows[max(folders, key=len)] if folders else ""
        ranges = re.findall(r"`(?:[\w/]+/)?(\w+\.py)` to `(?:[\w/]+/)?(\w+\.py)`", text)
        if path.name not in re.findall(r"[\w.]+\.(?:py|sh)\b", text) and \
                not any(first <= path.name <= last for first, last in ranges):
            unnamed.append(str(path))
    return unnamed


def test_the_map_names_every_module():
    """docs/architecture.md's map names every module of the code in its folder's row (a new one
    is added to it in the same commit), and names no module that is gone."""
    modules = [p.relative_to(ROOT) for folder in MAPPED for p in sorted((ROOT / folder).rglob("*.py"))
               if p.name not in UNMAPPED and ".venv" not in p.parts]
    assert unnamed_modules(map_section(), modules) == []
    here = {p.name for folder in MAPPED + ("tests",) for p in (ROOT / folder).rglob("*.py")}
    gone = {name for name in re.findall(r"`(?:[\w/]+/)?(\w+\.py)`", map_section())} - here
    assert gone == set()


def test_the_map_check_sees_a_module_it_does_not_name():
    section = ("| package | what | modules |\n|---|---|---|\n| `pkg` | things | `a.py`, `ex1_a.py` to `ex3_c.py` |\n"
               "| `pkg.sub` | more | `b.py` |\n")
    modules = [Path("pkg/a.py"), Path("pkg/ex2_b.py"), Path("pkg/b.py"), Path("pkg/ex4_d.py"), Path("pkg/sub/b.py"),
               Path("pkg/sub/a.py"), Path("other/a.py")]
    # b.py is named in pkg.sub's row, not pkg's; a.py in pkg's, not pkg.sub's; other/ has no row
    assert unnamed_modules(section, modules) == ["pkg/b.py", "pkg/ex4_d.py", "pkg/sub/a.py", "other/a.py"]


def engine_notes() -> dict[str, str]:
    """docs/engines.md's notes under the generated table: each engine's bullet, by its name."""
    text = (ROOT / "docs" / "engines.md").read_text()
    notes = text.split("<!-- /figures:engines -->", 1)[1].split("\n#", 1)[0]
    bullet = re.compile(r"^- `(?P<name>[\w-]+)`: (?P<text>.*?)(?=^- |\Z)", re.S | re.M)
    return {m["name"]: m["text"] for m in bullet.finditer(notes)}


def unknown_parameters(notes: dict[str, str]) -> dict[str, list[str]]:
    """The parameters written as `key=value` in each engine's note that the engine (or, for an
    alias, the engines it stands for) does not take; a spec of another kind (`game:...`, a call) aside."""
    import engines

    unknown = {}
    for name, text in notes.items():
        alias_of = engines.engine_class(name).alias_of
        taken = {p.name for engine in alias_of or [name] for p in engines.engine_parameters(engine)}
        taken |= {"plain"} if alias_of else set()
        written = {key for token in re.findall(r"`([^`:(]*)`", text) for key in re.findall(r"(?:^|,)(\w+)=", token)}
        if written - taken:
            unknown[name] = sorted(written - taken)
    return unknown


def test_the_engine_notes_name_registered_engines_and_their_parameters():
    """Each note under docs/engines.md's generated table is a registered engine's, and every
    `key=value` it writes is a parameter that engine takes: the notes cannot drift from the code."""
    import engines

    notes = engine_notes()
    assert set(notes) <= set(engines.engine_names()) and len(notes) >= 15
    assert unknown_parameters(notes) == {}


def test_the_engine_notes_check_sees_a_parameter_that_is_gone():
    notes = {"uct": "`rounds=10` and `sims=5`, `c=1.4,seeds=2`, `connectn:columns=5` and `go(board_size=N)`",
             "mcts": "`plain=true`"}
    assert unknown_parameters(notes) == {"uct": ["seeds", "sims"]}
