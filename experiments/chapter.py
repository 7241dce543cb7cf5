"""What the numbered chapter scripts (``experiments/chNN_*.py``) share.

Each chapter script has a ``--help``, a ``--seed``, a ``--quick`` flag (seconds:
tiny settings for CI and a first look) and writes to ``reports/<script>/``: its
CSV files, its pictures and a ``summary.md`` that starts with the command that
reproduces it and ends with what to look for. ``docs/course.md`` strings them
together.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Sequence

from dlgo.formats.records import GameRecord, replay
from dlgo.formats.atomic import atomic_write


def parser(script: str, doc: str, out: str | None = None) -> argparse.ArgumentParser:
    """The chapter's command line with the shared options (``script`` is its
    ``__file__``; ``out``: the report folder, default ``reports/<script>``)."""
    name = Path(script).stem
    out = out or f"reports/{name}"
    p = argparse.ArgumentParser(prog=f"python experiments/{name}.py", description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc)
    p.add_argument("--seed", type=int, default=0, help="seed for every random choice (default 0)")
    p.add_argument("--quick", action="store_true", help="tiny settings: runs in seconds (for tests and a first look)")
    p.add_argument("--out", default=out, help=f"report folder (default {out})")
    return p


def command(script: str, argv: Sequence[str] | None) -> str:
    """The command line that reproduces a run, for the summary."""
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["python", f"experiments/{Path(script).name}", *map(shlex.quote, args)])


def draw_game(record: GameRecord, out: Path, stem: str, title: str = "") -> list[str]:
    """``stem.png`` (the final position) and ``stem.gif`` (the whole game) of a
    recorded game in ``out``; returns the Markdown that shows them."""
    from dlgo.formats.pictures import render_game, render_position

    states = replay(record.game, record.moves)
    title = title or f"{record.black} (first) vs {record.white}: {record.result}"
    render_position(states[-1], out / f"{stem}.png", title=title)
    render_game(states, out / f"{stem}.gif", title=title if len(title) < 40 else "")
    return [f"![{title}]({stem}.png)", "", f"The whole game, move by move: [{stem}.gif]({stem}.gif).", ""]


def write_summary(out: Path, title: str, command_line: str, body: Sequence[str], look_for: str) -> Path:
    """``out/summary.md``: the title, the command, the chapter's results and
    what to look for in them. Returns its path."""
    lines = [f"# {title}", "", f"Reproduce: `{command_line}`", "", *body, "", "## What to look for", "",
             look_for.strip(), ""]
    path = out / "summary.md"
    with atomic_write(path) as handle:
        handle.write("\n".join(lines))
    return path


def network_pictures(checkpoint: str | Path, game: str, moves: str, out: Path, stem: str,
                     simulations: int, label: str = "the network") -> list[str]:
    """``stem-policy.png`` (a network's raw policy and value) and
    ``stem-search.png`` (where ``simulations`` PUCT simulations go) for the
    position after ``moves``; returns the Markdown that shows them."""
    from dlgo.games import new_game
    from engines.neural.analysis import analyze, render_analysis
    from engines.neural.loading import load_network

    loaded = load_network(str(checkpoint))
    state = new_game(game)
    for text in moves.split():
        state = state.apply_move(state.parse_move(text))
    searched = analyze(loaded, state, simulations)
    raw = searched._replace(visits=None, q=None)  # the same network call, drawn without the search
    render_analysis(state, raw, out / f"{stem}-policy.png", title=f"{label}: policy")
    render_analysis(state, searched, out / f"{stem}-search.png", title=f"{label}: search")
    best = state.format_move(state.index_to_move(int(searched.visits.argmax())))
    return [f"{label.capitalize()} after `{moves}` ({state.next_player.name} to move): its raw policy and "
            f"value, then where {simulations} simulations of search go (it plays {best}).", "",
            f"![policy]({stem}-policy.png) ![search]({stem}-search.png)", ""]
