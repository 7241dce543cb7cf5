"""The figures in README.md and docs/*.md, written from the committed reports.

    python scripts/docs_figures.py           # rewrite every generated block
    python scripts/docs_figures.py --check   # exit 1 and name the stale blocks (a test runs this)

A generated block sits between ``<!-- figures:NAME -->`` and
``<!-- /figures:NAME -->``; ``NAME`` picks a function of ``scripts/figures/``, which
builds the block's Markdown from the reports' ``facts.json`` (each experiment writes
its headline facts beside its summary: :mod:`dlgo.storage.facts`), from a benchmark's
table or from the engine registry. No block reads a report's CSV files, which have
one reader each, the module that wrote them. Nobody types a measured figure into the
documentation: rerun an experiment or a benchmark, then this script.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import re
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from any folder

from dlgo.storage.atomic import atomic_write  # noqa: E402
from scripts.figures.answers import answers, demo  # noqa: E402
from scripts.figures.course import (course_alphago, course_alphazero_tictactoe, course_mcts, course_minimax,  # noqa: E402
                                    course_predictor, course_predictor_plays, course_random, course_scale)
from scripts.figures.go19 import course_go19, go19_engine  # noqa: E402
from scripts.figures.scaling import course_scaling, scaling  # noqa: E402
from scripts.figures.tables import (alphago_engine, alphazero, benchmark, dead_stones, economies,  # noqa: E402
                                    engines_table, games_table, go_engine, kaggle, reinforcement, solver_opening,
                                    supervised, vs_gnugo, vs_openspiel)

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(<!-- figures:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /figures:(?P=name) -->)", re.S)

BLOCKS: dict[str, Callable[[], str]] = {
    "solver-opening": solver_opening,
    "kaggle": kaggle, "course-alphago": course_alphago, "vs-openspiel": vs_openspiel, "go-engine": go_engine,
    "alphago-engine": alphago_engine,
    "demo": demo, "answers": answers, "engines": engines_table, "games": games_table, "supervised": supervised,
    "alphazero": alphazero, "economies": economies, "vs-gnugo": vs_gnugo, "dead-stones": dead_stones,
    "reinforcement": reinforcement,
    "course-scale": course_scale, "course-minimax": course_minimax, "course-predictor-plays": course_predictor_plays,
    "course-alphazero-tictactoe": course_alphazero_tictactoe, "course-predictor": course_predictor,
    "course-random": course_random, "course-mcts": course_mcts,
    "course-scaling": course_scaling, "scaling": scaling, "course-go19": course_go19, "go19-engine": go19_engine,
    **{f"bench-{name}": benchmark(name) for name in ("playouts", "search", "predictor", "selfplay", "selfplay-tree",
                                                          "selfplay-workers", "inference", "inference-precision",
                                                          "web_engines", "solver", "bots")},
}


def render(text: str, root: str = "") -> str:
    """``text`` with every generated block rebuilt (an unknown block name is an
    error); ``root`` leads from the document's folder to the repository's, so
    that the blocks' links to reports resolve from README.md and docs/ alike."""
    def rebuild(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in BLOCKS:
            raise SystemExit(f"docs_figures: unknown block {name!r}; the blocks are: {', '.join(BLOCKS)}")
        body = BLOCKS[name]().replace("](reports/", f"]({root}reports/")
        return f"{match.group(1)}{body}{match.group(4)}"

    return BLOCK.sub(rebuild, text)


def root_of(path: Path) -> str:
    """The relative way from ``path``'s folder back to the repository root."""
    return "../" * len(path.parent.relative_to(ROOT).parts)


def stale() -> list[str]:
    """The documents whose generated blocks differ from what the reports say now."""
    return [str(path.relative_to(ROOT)) for path in DOCUMENTS
            if render(path.read_text(), root_of(path)) != path.read_text()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block is stale")
    args = parser.parse_args(argv)
    if args.check:
        old = stale()
        for name in old:
            print(f"{name}: generated figures are stale; run python scripts/docs_figures.py", file=sys.stderr)
        return 1 if old else 0
    for path in DOCUMENTS:
        text = path.read_text()
        new = render(text, root_of(path))
        if new != text:
            with atomic_write(path) as handle:
                handle.write(new)
            print(f"updated {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
