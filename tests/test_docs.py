"""The documentation tells the truth: its figures are the committed reports', its
Python examples run, and every document it cites is in the repository."""
from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def load_docs_figures():
    spec = importlib.util.spec_from_file_location("docs_figures", ROOT / "scripts" / "docs_figures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    named = {(str(path.relative_to(ROOT)), found) for path, text in texts.items() for found in SCRIPT_PATH.findall(text)}
    assert len({found for _, found in named}) > 20  # the check sees the commands
    missing = sorted(f"{source}: {found}" for source, found in named if not (ROOT / found).is_file())
    assert missing == []


def test_the_script_path_check_sees_a_stale_path():
    text = "Reproduce: `python experiments/ch03_random_go.py --quick`; see experiments/chapters/ch03_random_go.py."
    assert SCRIPT_PATH.findall(text) == ["experiments/ch03_random_go.py", "experiments/chapters/ch03_random_go.py"]
    assert not (ROOT / "experiments/ch03_random_go.py").is_file()
    assert (ROOT / "experiments/chapters/ch03_random_go.py").is_file()


def test_no_file_cites_a_document_outside_the_repository():
    outside = re.compile(r"\.\./shared/|/w[o]rk/|DESIGN\.md")  # spelt so that it does not match itself
    citing = [str(p.relative_to(ROOT)) for p in tracked_files()
              if p.suffix in {".md", ".py", ".toml", ".txt", ".cfg", ".sh", ""} and p.stat().st_size < 2_000_000
              and outside.search(p.read_text(errors="replace"))]
    assert citing == []
