"""What every experiment script shares (the chapter scripts first, hence the name):
the command line (``--seed``, ``--quick``, ``--out``, ``--fresh``, ``--work`` and,
for a script with more than one run, ``--preset``: see :class:`ExperimentParser`),
errors in one line (:func:`script`), the reproducing command (:func:`command`),
game and network pictures, and ``summary.md`` (:func:`write_summary`).

Each script writes to ``runs/<name>/`` (its committed sample: ``reports/<name>/``)
its CSV files, its pictures and a summary that starts with the command that
reproduces it and ends with what to look for; ``docs/course.md`` strings the
chapters together. This module is the bottom of :mod:`experiments.shared`: it
imports none of the others.
"""
from __future__ import annotations

import argparse
import functools
import re
import shlex
import sys
from pathlib import Path
from typing import Mapping, Protocol, Sequence

from dlgo.arena.ratings import wilson_interval
from dlgo.core.errors import DlgoError, SettingsMismatchError
from dlgo.core.game import State
from dlgo.core.specs import split_spec
from dlgo.core.types import Player
from dlgo.storage.atomic import atomic_write
from dlgo.storage.folders import claim_folders
from dlgo.display.pictures import render_game, render_position
from dlgo.formats.records import GameRecord, replay
from dlgo.games import new_game
from engines.analysis import analyze, render_analysis
from engines.neural.loading import load_network
from engines.registry import check_engine, engine_on

#: the folder that holds ``experiments/`` (the repository's root, in a checkout)
ROOT = Path(__file__).resolve().parents[2]

def course_spec(spec: str, game: str) -> str:
    """``spec`` as the course means it on ``game``: the course's ``mcts`` is the
    readable UCT of chapter 4, which on Go is ``mcts:...,plain=true`` (``mcts``
    alone searches Go as Go programs do: :mod:`engines.go_search`); any other spec,
    or an ``mcts`` that says ``plain`` either way, is left as it is."""
    name, params = split_spec(spec)
    if name != "mcts" or "plain" in params:
        return spec
    return f"{spec},plain=true" if engine_on(spec, new_game(game).game) == "mcts-go" else spec


#: what a run does when its folder holds a run with other settings
START_OVER = "rerun with the settings that made it, start over with --fresh, or use another --out"


def script_path(script: str | Path) -> str:
    """A script as its commands name it, from the repository's root:
    ``experiments/chapters/ch03_random_go.py`` for its ``__file__`` (a relative
    path is taken as it is)."""
    path = Path(script)
    if path.is_absolute():
        path = path.resolve().relative_to(ROOT)
    return path.as_posix()


def run_folders(name: str, quick: bool = False) -> tuple[str, str]:
    """A run's default report and work folders: ``runs/NAME`` and ``data/NAME``
    (``runs/NAME-quick`` and ``data/NAME-quick`` for a ``--quick`` run); git ignores both."""
    suffix = "-quick" if quick else ""
    return f"runs/{name}{suffix}", f"data/{name}{suffix}"


def game_slug(game: str) -> str:
    """A game spec as a folder name's ending: ``go:size=5`` -> ``go5``."""
    return re.sub(r"[^A-Za-z0-9]+", "-", game.replace(":size=", "").replace("size=", "")).strip("-")


def variant_name(name: str, game: str | None, default_game: str | None) -> str:
    """A script's folder name for ``game``: ``NAME`` for its default game, ``NAME-go5`` for another."""
    return name if game is None or game == default_game else f"{name}-{game_slug(game)}"


class ExperimentParser(argparse.ArgumentParser):
    """A script's command line with the shared options: ``--seed``, ``--quick``,
    ``--out``, ``--fresh`` and, where the script keeps games or networks, ``--work``.

    Runs write to git-ignored folders, ``runs/NAME`` (the report) and
    ``data/NAME`` (the work), ``runs/NAME-quick`` and ``data/NAME-quick`` with
    ``--quick``, so no run touches the committed sample ``reports/NAME`` unless
    asked to (``--out reports/NAME``); a script's ``--game`` other than its
    default adds the game to the name (``runs/NAME-go5``). The script takes its
    folders with :func:`take_folders` once it has checked every argument;
    ``--fresh`` deletes them then, each only if it is this script's (its
    ``run.json`` names the script). ``script``: the script's path as
    :func:`script_path` gives it."""

    def __init__(self, name: str, script: str, doc: str, work: str | None = None):
        super().__init__(prog=f"python {script}", description=doc.split("\n\n")[0],
                         formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc)
        self.name = name
        self.script = script
        self.add_argument("--seed", type=int, default=0, help="seed for every random choice (default 0)")
        self.add_argument("--quick", action="store_true",
                          help="tiny settings: runs in seconds (for tests and a first look), in folders of its own")
        self.add_argument("--out", default=None,
                          help=f"report folder (default runs/{name}, or runs/{name}-quick with --quick; "
                               f"--out reports/{name} updates the committed sample)")
        if work:
            self.add_argument("--work", default=None,
                              help=f"{work} (default data/{name}, or data/{name}-quick with --quick)")
        self.add_argument("--fresh", action="store_true",
                          help="delete this run's folders (--out" + (" and --work" if work else "") +
                               ") first and start over: only folders this script made")

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        parsed = super().parse_args(args, namespace)
        name = variant_name(self.name, getattr(parsed, "game", None), self.get_default("game"))
        out, work = run_folders(name, parsed.quick)
        if parsed.out is None:
            parsed.out = out
        if getattr(parsed, "work", "") is None:
            parsed.work = work
        parsed.script = self.script  # whose folders these are: take_folders claims them
        _untaken.append(parsed)
        return parsed


#: command lines parsed and not yet given to :func:`take_folders` (a script that
#: never takes its folders is a bug that :func:`script` reports)
_untaken: list[argparse.Namespace] = []


def check_engines(specs: Sequence[str], game: str) -> None:
    """Each engine spec checked in full on ``game`` (its parameters, the files it
    names, that it plays the game; in milliseconds: no network loaded, no program
    started), so that a bad one stops the run before :func:`take_folders`."""
    state = new_game(game)
    for spec in specs:
        check_engine(spec, state)


def take_folders(args: argparse.Namespace) -> None:
    """The run's folders (``--out`` and, where the script has one, ``--work``),
    taken once the script has checked every argument and before it writes
    anything: with ``--fresh`` deleted first, each only if its ``run.json`` names
    this script (:func:`~dlgo.storage.folders.claim_folders`); a new folder is
    marked as the script's."""
    claim_folders([args.out, getattr(args, "work", None)], args.script, fresh=args.fresh)
    _untaken[:] = [parsed for parsed in _untaken if parsed is not args]


def parser(script: str, doc: str, name: str | None = None, work: str | None = None) -> ExperimentParser:
    """The command line of the script whose ``__file__`` is ``script`` (its folders
    named ``name``, default the script's name; ``work``: what ``--work`` holds, if
    the script keeps games or networks)."""
    return ExperimentParser(name or Path(script).stem, script_path(script), doc, work)


# A script with more than one run (a chapter and the suite's full run of the same
# experiment) names them with --preset: the first preset is the default, and each
# has its own defaults and report folder.


def chosen_preset(presets: Sequence[str], argv: Sequence[str] | None) -> str:
    """The preset that ``--preset`` names in ``argv`` (default ``sys.argv``), or the
    first of ``presets``, so that a script can build its command line with that
    preset's defaults (the command line itself refuses a name it does not know)."""
    early = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    early.add_argument("--preset", default=presets[0])
    try:
        named = str(early.parse_known_args(argv)[0].preset)
    except argparse.ArgumentError:  # ``--preset`` without a name: the command line says so
        return presets[0]
    return named if named in presets else presets[0]


def add_preset_option(p: argparse.ArgumentParser, presets: Mapping[str, str]) -> None:
    """``--preset``, one of ``presets`` (name -> what that run is; the first is the default)."""
    first = next(iter(presets))
    p.add_argument("--preset", choices=list(presets), default=first,
                   help="which run: " + "; ".join(f"{name}, {about}" for name, about in presets.items())
                        + f" (default {first})")


class Main(Protocol):
    """A script's entry point: its command line's arguments (default ``sys.argv``) in, the exit status out."""

    def __call__(self, argv: list[str] | None = None) -> int: ...


def script(main: Main) -> Main:
    """A script's ``main``, the errors a user can cause printed as one line (exit
    status 2; 130 after Ctrl-C), never a traceback; a folder holding a run with
    other settings names the ways out. A run that ends without having taken its
    folders (:func:`take_folders`) is a bug in the script, and fails."""

    @functools.wraps(main)
    def guarded(argv: list[str] | None = None) -> int:
        _untaken.clear()
        try:
            status = main(argv)
            if status == 0 and _untaken:
                raise AssertionError(f"{_untaken[0].script} wrote its run without take_folders(args)")
            return status
        except SettingsMismatchError as err:
            print(f"error: {err.problem}; {START_OVER}", file=sys.stderr)
        except DlgoError as err:
            print(f"error: {err}", file=sys.stderr)
        except KeyboardInterrupt as err:
            print(f"interrupted{f': {err}' if str(err) else ''}", file=sys.stderr)
            return 130
        return 2

    return guarded


def command(script: str, argv: Sequence[str] | None, resolved: dict[str, object] | None = None,
            preset: str | None = None) -> str:
    """The command line that reproduces a run, for the summary: its settings,
    not where it wrote (``--out``, ``--work``) or whether it started over
    (``--fresh``). ``resolved`` options (``{"--workers": 2}``) are written with
    the values the run settled on, in place of whatever was typed for them;
    ``preset``, a script's run other than its default, comes first (``--preset full``)."""
    leading = {"--preset": preset} if preset else {}
    resolved = resolved or {}
    dropped = ("--out", "--work", *leading, *resolved)  # options followed by a value
    args = list(sys.argv[1:] if argv is None else argv)
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in dropped:
            skip = True
        elif arg != "--fresh" and not arg.startswith(tuple(f"{option}=" for option in dropped)):
            kept.append(arg)
    first = [word for option, value in leading.items() for word in (option, str(value))]
    kept += [word for option, value in resolved.items() for word in (option, str(value))]
    return " ".join(["python", script_path(script), *first, *map(shlex.quote, kept)])


def draw_game(record: GameRecord, out: Path, stem: str, title: str = "") -> list[str]:
    """``stem.png`` (the final position) and ``stem.gif`` (the whole game) of a
    recorded game in ``out``; returns the Markdown that shows them."""
    states = replay(record.game, record.moves)
    title = title or f"{record.black} (first) vs {record.white}: {record.result}"
    players = {Player.black: record.black, Player.white: record.white}
    render_position(states[-1], out / f"{stem}.png", title=title, players=players)
    render_game(states, out / f"{stem}.gif", title=title if len(title) < 40 else "", players=players)
    return [f"![{title}]({stem}.png)", "", f"The whole game, move by move: [{stem}.gif]({stem}.gif).", ""]


def write_summary(out: Path, title: str, command_line: str, body: Sequence[str], look_for: str) -> Path:
    """``out/summary.md``: the title, the command, the chapter's results and
    what to look for in them. Returns its path."""
    lines = [f"# {title}", "", f"Reproduce: `{command_line}`", "", *body, "", "## What to look for", "",
             look_for.strip(), ""]
    return write_lines(out / "summary.md", lines)


def write_lines(path: Path, lines: Sequence[str]) -> Path:
    """``lines`` as the Markdown file ``path``, written whole or not at all. Returns its path."""
    with atomic_write(path) as handle:
        handle.write("\n".join(lines))
    return path


def network_pictures(checkpoint: str | Path, game: str, moves: str, out: Path, stem: str,
                     simulations: int, label: str = "the network") -> list[str]:
    """``stem-policy.png`` (a network's raw policy and value) and
    ``stem-search.png`` (where ``simulations`` PUCT simulations go) for the
    position after ``moves``; returns the Markdown that shows them."""
    loaded = load_network(str(checkpoint))
    state = replay(game, moves)[-1]
    searched = analyze(loaded, state, simulations)
    raw = searched._replace(visits=None, q=None)  # the same network call, drawn without the search
    render_analysis(state, raw, out / f"{stem}-policy.png", title=f"{label}: policy")
    render_analysis(state, searched, out / f"{stem}-search.png", title=f"{label}: search")
    assert searched.visits is not None  # a search's report has its visits
    best = state.format_move(state.index_to_move(int(searched.visits.argmax())))
    side = state.game.side_name(state.next_player)
    return [f"{label.capitalize()} after `{moves}` ({side} to move): its raw policy and "
            f"value, then where {simulations} simulations of search go (it plays {best}).", "",
            f"![policy]({stem}-policy.png) ![search]({stem}-search.png)", ""]


def predictor_picture(model: str | Path, state: State, path: Path, title: str) -> None:
    """A move predictor's probabilities in ``state``, drawn on the board."""
    render_analysis(state, analyze(load_network(str(model)), state), path, title=title)


def rate_cell(rate: float, n: int) -> str:
    """A rate measured over ``n`` trials with its 95% Wilson interval: ``11.3% (8.8%-14.2%)``."""
    low, high = wilson_interval(rate, n)
    return f"{rate:.1%} ({low:.1%}-{high:.1%})"


def score_against(records: list[GameRecord], spec: str, opponent: str) -> tuple[float, int]:
    """(score of ``spec`` against ``opponent``, games) over their games."""
    games = [r for r in records if {r.black, r.white} == {spec, opponent}]
    return (sum(r.score_for(spec) for r in games) / len(games) if games else float("nan")), len(games)
