"""What the experiment scripts share. Scripts import this module and the library,
never one another.

Four parts, one per kind of experiment:

1. **Chapter scripts** (``experiments/chNN_*.py``): the shared command line
   (``--seed``, ``--quick``, ``--out``, ``--fresh``, ``--work``: see
   :class:`ExperimentParser`), errors in one line (:func:`script`), the
   reproducing command, game pictures, network pictures and ``summary.md``.
   Each chapter writes to ``runs/<script>/`` (its committed sample:
   ``reports/<script>/``) its CSV files, its pictures and a summary that starts
   with the command that reproduces it and ends with what to look for;
   ``docs/course.md`` strings them together.
2. **Engine ladders** (``strength_per_compute.py``, chapters 4 and 15): MCTS and
   alpha-beta at growing budgets, the shipped AlphaZero networks, one round-robin.
3. **Supervised move prediction** (chapters 6-8, ``supervised_*.py``): the
   teacher's games, the networks trained on them, their accuracy, and the best
   one playing a round-robin.
4. **AlphaZero** (chapter 14, ``alphazero_*.py``): a resumable training run, its
   report and a final match, with the tic-tac-toe and Connect Four runs that the
   chapter scripts repeat.

TensorFlow loads only inside the functions that train (``engines.training.supervised``
and ``engines.training.alphazero``), so a script's ``--help`` and the
classic chapters start at once.
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import re
import shlex
import shutil
import sys
import textwrap
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import pandas as pd

from dlgo.arena.report import EngineRow, write_report
from dlgo.arena.match import Task
from dlgo.arena.ratings import wilson_interval
from dlgo.arena.tournament import play_games, run_tournament, schedule, task_seed
from dlgo.core.agent import Agent
from dlgo.core.errors import DlgoError, RecordError, SettingsMismatchError
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.data.dataset import encode_dataset
from dlgo.data.generate import generate_games
from dlgo.formats.atomic import atomic_write
from dlgo.formats.pictures import render_game, render_position
from dlgo.formats.plotting import plot_learning_curve
from dlgo.formats.folders import hold_folder, remove_run_folder
from dlgo.formats.records import GameRecord, read_games, replay, write_games
from dlgo.games import get_game, new_game
from dlgo.games.solver import perfect_moves
from engines.checkpoints import shipped_network
from engines.training.accuracy import evaluate_predictor, teacher_agreement
from engines.training.alphazero_config import AlphaZeroConfig
from engines.analysis import analyze, render_analysis
from engines.neural.loading import load_network
from engines.training.rl_config import RLConfig
from engines.registry import ENGINES, create
from dlgo.core.arguments import whole


# 1. Chapter scripts ---------------------------------------------------------------------------------------------


#: the network of a supervised ``--quick`` run
QUICK_MODEL = "tiny"

#: chapter 13's shipped 9x9 AlphaGo at 2 s a move, as it played GNU Go level 10 (reports/ch13_alphago)
SHIPPED_ALPHAGO = "alphago:checkpoint=go9,simulations=100000,seconds=2"

#: what a run does when its folder holds a run with other settings
START_OVER = "rerun with the settings that made it, start over with --fresh, or use another --out"


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
    default adds the game to the name (``runs/NAME-go5``). ``--fresh`` deletes
    the run's folders first."""

    def __init__(self, name: str, script: str, doc: str, work: str | None = None):
        super().__init__(prog=f"python experiments/{script}.py", description=doc.split("\n\n")[0],
                         formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc)
        self.name = name
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
                               ") first and start over")

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        parsed = super().parse_args(args, namespace)
        name = variant_name(self.name, getattr(parsed, "game", None), self.get_default("game"))
        out, work = run_folders(name, parsed.quick)
        if parsed.out is None:
            parsed.out = out
        if getattr(parsed, "work", "") is None:
            parsed.work = work
        if parsed.fresh:  # the run's own folders, each checked to hold a run and no other writer
            for folder in (parsed.out, getattr(parsed, "work", None)):
                remove_run_folder(folder)
        return parsed


def parser(script: str, doc: str, name: str | None = None, work: str | None = None) -> ExperimentParser:
    """The command line of the script whose ``__file__`` is ``script`` (its folders
    named ``name``, default the script's name; ``work``: what ``--work`` holds, if
    the script keeps games or networks)."""
    stem = Path(script).stem
    return ExperimentParser(name or stem, stem, doc, work)


class Main(Protocol):
    """A script's entry point: its command line's arguments (default ``sys.argv``) in, the exit status out."""

    def __call__(self, argv: list[str] | None = None) -> int: ...


def script(main: Main) -> Main:
    """A script's ``main``, the errors a user can cause printed as one line (exit
    status 2; 130 after Ctrl-C), never a traceback; a folder holding a run with
    other settings names the ways out."""

    @functools.wraps(main)
    def guarded(argv: list[str] | None = None) -> int:
        try:
            return main(argv)
        except SettingsMismatchError as err:
            print(f"error: {err.problem}; {START_OVER}", file=sys.stderr)
        except DlgoError as err:
            print(f"error: {err}", file=sys.stderr)
        except KeyboardInterrupt as err:
            print(f"interrupted{f': {err}' if str(err) else ''}", file=sys.stderr)
            return 130
        return 2

    return guarded


def command(script: str, argv: Sequence[str] | None, resolved: dict[str, object] | None = None) -> str:
    """The command line that reproduces a run, for the summary: its settings,
    not where it wrote (``--out``, ``--work``) or whether it started over
    (``--fresh``). ``resolved`` options (``{"--workers": 2}``) are written with
    the values the run settled on, in place of whatever was typed for them."""
    resolved = resolved or {}
    dropped = ("--out", "--work", *resolved)  # options followed by a value
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
    kept += [word for option, value in resolved.items() for word in (option, str(value))]
    return " ".join(["python", f"experiments/{Path(script).name}", *map(shlex.quote, kept)])


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
    path = out / "summary.md"
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
    return [f"{label.capitalize()} after `{moves}` ({state.next_player.name} to move): its raw policy and "
            f"value, then where {simulations} simulations of search go (it plays {best}).", "",
            f"![policy]({stem}-policy.png) ![search]({stem}-search.png)", ""]


def predictor_picture(model: str | Path, state: State, path: Path, title: str) -> None:
    """A move predictor's probabilities in ``state``, drawn on the board."""
    render_analysis(state, analyze(load_network(str(model)), state), path, title=title)


def score_against(records: list[GameRecord], spec: str, opponent: str) -> tuple[float, int]:
    """(score of ``spec`` against ``opponent``, games) over their games."""
    games = [r for r in records if {r.black, r.white} == {spec, opponent}]
    return (sum(r.score_for(spec) for r in games) / len(games) if games else float("nan")), len(games)


# 2. Engine ladders ----------------------------------------------------------------------------------------------

#: the committed reports, where the course's rating scales are (``reports/calibration-<game>``)
REPORTS = Path(__file__).resolve().parents[1] / "reports"


def scale_folder(game: str) -> str:
    """The name of ``game``'s calibration report: ``calibration-connect4``."""
    return "calibration-" + re.sub(r"[^A-Za-z0-9]+", "-", game).strip("-")


def course_scale(game: str) -> dict[str, float]:
    """The course's rating scale for ``game``: each engine of the committed
    calibration ladder (``experiments/calibration.py``) and its Elo; empty if
    the game has none."""
    path = REPORTS / scale_folder(game) / "ratings.csv"
    if not path.exists():
        return {}
    table = pd.read_csv(path)
    return {str(engine): float(elo) for engine, elo in zip(table["engine"], table["elo"])}


def write_rated_report(out: str | Path, records: Sequence[GameRecord], game: str, title: str, intro: str = "",
                       outro: str | Callable[[list[EngineRow]], str] = "", subjects: Sequence[str] = ()
                       ) -> list[EngineRow]:
    """:func:`~dlgo.arena.report.write_report` on the course's scale: the engines of
    ``game``'s calibration ladder that played here, except the report's
    ``subjects`` (the engines it measures), are held at their calibrated ratings,
    so that an engine rates the same in every report (within its interval); the
    summary names them. Without a calibration, random = 0."""
    scale = course_scale(game)
    played = {r.black for r in records} | {r.white for r in records}
    held = {spec: elo for spec, elo in scale.items() if spec in played and spec not in subjects}
    if not held:
        return write_report(out, records, title=title, intro=intro, outro=outro)
    anchoring = (f"on the course's {game} scale (`reports/{scale_folder(game)}`): "
                 + ", ".join(f"`{spec}` held at {elo:.0f}" for spec, elo in held.items()))
    return write_report(out, records, title=title, fixed=held, intro=intro, outro=outro, anchoring=anchoring)


def scale_words(rows: Sequence[EngineRow], game: str) -> str:
    """How a report's Elo is fixed, for its own text: the course's scale or random = 0."""
    held = [r.engine for r in rows if r.engine in course_scale(game) and r.elo_low == r.elo_high == r.elo]
    if held == ["random"]:
        return (f"Elo is on the course's {game} scale, anchored at random = 0 (the engines measured here are not "
                "held)")
    if not held:
        return "Elo is anchored at random = 0"
    return (f"Elo is on the course's {game} scale: {', '.join(f'`{e}`' for e in held)} are held at their ratings in "
            f"`reports/{scale_folder(game)}`, the others fitted around them")


def mcts_ladder(maximum: int, start: int = 10) -> list[int]:
    """10, 32, 100, 316, 1000, ... (x sqrt(10) per step) up to ``maximum``."""
    rounds, k = [], 0
    while (r := round(start * math.sqrt(10) ** k)) <= maximum:
        rounds.append(r)
        k += 1
    return rounds


def ladder_specs(mcts_max: int, depth_max: int) -> list[str]:
    """Random, MCTS up to ``mcts_max`` rounds and alpha-beta to ``depth_max`` plies (no node cap)."""
    return (["random"] + [f"mcts:rounds={r}" for r in mcts_ladder(mcts_max)]
            + [f"alphabeta:depth={d},nodes=0" for d in range(1, depth_max + 1)])


def alphazero_specs(game: str, simulations: list[int]) -> list[str]:
    """The shipped AlphaZero network of ``game`` at each simulation count (none
    if the suite ships no network for exactly this game)."""
    if not simulations or shipped_network(game) is None:
        return []
    return [f"alphazero:checkpoint={game},simulations={n}" for n in simulations]


def add_ladder_options(parser: argparse.ArgumentParser, mcts_max: int = 3200, depth_max: int = 5) -> None:
    """The ladder tournament's options (beside the shared ones of :func:`parser`)."""
    parser.add_argument("--game", default="connect4", help="game spec (default connect4)")
    parser.add_argument("--mcts-max", type=int, default=mcts_max,
                        help=f"largest MCTS rounds on the ladder (default {mcts_max})")
    parser.add_argument("--depth-max", type=int, default=depth_max,
                        help=f"deepest alpha-beta on the ladder (default {depth_max})")
    parser.add_argument("--alphazero-simulations", type=int, nargs="*", default=[0, 50],
                        help="the shipped AlphaZero network at these simulations per move (default 0 50; "
                             "none: leave it out)")
    parser.add_argument("--predictor", default=None,
                        help="a supervised move predictor (.keras) to add to the round-robin")
    parser.add_argument("--engines", nargs="*", default=[],
                        help="more engine specs to add to the round-robin (e.g. pg:model=PATH)")
    parser.add_argument("--games-per-pair", type=int, default=10, help="games per pair (default 10)")
    parser.add_argument("--opening-plies", type=int, default=2, help="random opening plies (default 2)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")


def run_ladder(args: argparse.Namespace, intro: str = "", outro: str | Callable[[list[EngineRow]], str] = "",
               on_scale: bool = False, title: str = "Strength against compute") -> list[EngineRow]:
    """Play (or finish) the ladder round-robin and write its report; returns the
    rating rows. ``on_scale``: the ladder's engines are held on the course's
    scale and the rest (networks, ``--engines``) measured against them;
    otherwise every engine is measured, random = 0."""
    specs = ladder_specs(args.mcts_max, args.depth_max) + alphazero_specs(args.game, args.alphazero_simulations)
    if args.predictor:
        specs.append(f"predictor:model={args.predictor}")
    specs += [spec for spec in args.engines if spec not in specs]
    print(f"{len(specs)} engines, {len(specs) * (len(specs) - 1) // 2 * args.games_per_pair} games: "
          + ", ".join(specs), flush=True)
    records = run_tournament(ENGINES, args.out, args.game, specs, args.games_per_pair, seed=args.seed,
                             opening_plies=args.opening_plies, workers=args.workers)
    subjects = [] if on_scale else specs
    rows = write_rated_report(args.out, records, args.game, f"{title}: {args.game}", intro, outro,
                              subjects=subjects)
    for r in rows:
        print(f"{r.engine:<28} Elo {r.elo:6.0f} [{r.elo_low:5.0f}, {r.elo_high:5.0f}]  {r.seconds_per_move:.4f} s/move")
    print(f"\nreport: {args.out}/summary.md")
    return rows


# 3. Supervised move prediction ----------------------------------------------------------------------------------
#
# Steps, each resumable (rerun the same command after a kill and it goes on):
#   1. generate: the teacher engine plays itself (``dlgo generate``);
#   2. train: each (model, encoder) of the preset on the same games (``dlgo train-supervised``);
#   3. evaluate: top-1/top-5 accuracy on held-out games, the uniform baselines and
#      the teacher's agreement with itself;
#   4. play: the best predictor (by test accuracy) in a round-robin against random
#      and an MCTS ladder.
# Reports go to --out (accuracy.csv, learning curves, tournament/, summary.md);
# games and models to --work.


@dataclass
class Preset:
    """One supervised experiment's settings (the defaults of its script)."""

    name: str
    game: str
    teacher: str
    games: int
    runs: list[tuple[str, str]]  # (model, encoder)
    opponents: list[str]
    games_per_pair: int
    epochs: int = 15
    batch_size: int = 128
    opening_plies: int = 2
    teacher_positions: int = 200
    book: list[str] = field(default_factory=list)  # lines of the book comparison
    book_accuracy: float | None = None  # the book's test accuracy, to compare with
    #: a compressed copy of the teacher's games in the report (``--teacher-games`` starts
    #: another run from it), for a teacher whose games take hours
    games_file: str | None = None


#: Chapters 6-7's predictor (Connect Four, imitating MCTS at 300 rounds); chapters 8 and 15 play it.
CHAPTER_PREDICTOR = Preset(name="ch06_07_train_predictor", game="connect4", teacher="mcts:rounds=300", games=300,
                           runs=[("small", "planes")], opponents=[], games_per_pair=0, epochs=10,
                           teacher_positions=100)


def predictor_model_path(quick: bool = False, preset: Preset = CHAPTER_PREDICTOR, game: str | None = None) -> Path:
    """Where the preset's script (by default chapters 6-7's) leaves its last
    run's network in its default work folder (its ``--quick`` run's, with
    ``quick``; its run on ``game``, if not the preset's)."""
    model, encoder = (QUICK_MODEL if quick else preset.runs[-1][0]), preset.runs[-1][1]
    work = run_folders(variant_name(preset.name, game, preset.game), quick)[1]
    return Path(work) / "runs" / f"{model}-{encoder}" / "model.keras"


def supervised_args(preset: Preset, argv: list[str] | None, doc: str, script: str | None = None
                    ) -> argparse.Namespace:
    """The experiment's command line (``script``: the chapter script's ``__file__``, for its name in --help)."""
    return supervised_parser(preset, doc, script).parse_args(argv)


def supervised_parser(preset: Preset, doc: str, script: str | None = None, game_option: bool = True
                      ) -> argparse.ArgumentParser:
    """The options of a supervised experiment, for scripts that add their own
    (``game_option``: whether it offers ``--game``, or plays only the preset's)."""
    p = parser(script or f"{preset.name.replace('-', '_')}.py", doc, name=preset.name,
               work="folder for the teacher's games and the networks")
    if game_option:
        p.add_argument("--game", default=preset.game, help=f"the game (default {preset.game}; e.g. go:size=5)")
    p.add_argument("--games", type=int, default=preset.games, help=f"self-play games (default {preset.games})")
    p.add_argument("--teacher", default=preset.teacher, help=f"engine making the games (default {preset.teacher})")
    p.add_argument("--teacher-games", metavar="FILE",
                   help="start from the games in FILE (a games.csv, or .csv.gz, of an earlier run with the same "
                        "settings): only the games it lacks are played")
    p.add_argument("--epochs", type=int, default=preset.epochs, help=f"most epochs (default {preset.epochs})")
    if preset.opponents:
        p.add_argument("--games-per-pair", type=int, default=preset.games_per_pair,
                       help=f"tournament games per pair (default {preset.games_per_pair})")
    p.add_argument("--teacher-positions", type=int, default=preset.teacher_positions,
                   help=f"positions to measure the teacher's self-agreement on (default {preset.teacher_positions})")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    return p


def quick_preset(preset: Preset, args: argparse.Namespace) -> Preset:
    """Seconds instead of an hour (``--quick``: tests and a first look): the tiny
    preset, with ``args`` set to its settings."""
    preset = replace(preset, teacher=preset.teacher.split(":")[0] + ":rounds=20", games=6,
                     runs=[(QUICK_MODEL, preset.runs[-1][1])], opponents=["random"], games_per_pair=2, epochs=1,
                     teacher_positions=3)
    args.games, args.teacher, args.epochs = preset.games, preset.teacher, preset.epochs
    args.games_per_pair, args.teacher_positions = preset.games_per_pair, preset.teacher_positions
    return preset


def run_supervised(preset: Preset, argv: list[str] | None, doc: str) -> int:
    """All four steps of a supervised experiment, and its summary; returns the exit status."""
    args = supervised_args(preset, argv, doc)
    if args.quick:
        preset = quick_preset(preset, args)
    preset = replace(preset, game=args.game)  # every supervised script but chapter 13's offers --game
    out, work = Path(args.out), Path(args.work)
    table, teacher = generate_and_train(preset, args, out, work)
    best = table.loc[table["top1"].idxmax()]
    predictor, records = play_predictor(preset.game, best["path"], preset.opponents, out / "tournament",
                                        games_per_pair=args.games_per_pair, seed=args.seed,
                                        opening_plies=preset.opening_plies, workers=args.workers)
    scores = {opp: score_against(records, predictor, opp) for opp in preset.opponents}
    write_supervised_summary(out / "summary.md", preset, args, table, teacher, predictor, scores)
    print(f"\nreport: {out}/summary.md")
    return 0


def start_from_games(data: Path, source: Path) -> None:
    """Copy the games in ``source`` into the generation folder ``data`` if it holds
    none yet (the generation that follows checks they were made with its settings)."""
    if not source.is_file():
        raise RecordError(f"{source}: no such games file")
    with hold_folder(data, "generate"):
        if not read_games(data / "games.csv"):
            games = read_games(source)
            write_games(data / "games.csv", games)
            print(f"   {len(games)} games from {source}", flush=True)


def generate_and_train(preset: Preset, args: argparse.Namespace, out: Path, work: Path
                       ) -> tuple[pd.DataFrame, dict]:
    """Steps 1-3: the teacher's games in ``work/games``, each run of the preset
    trained in ``work/runs/<model>-<encoder>`` and evaluated on held-out games.
    Writes ``accuracy.csv``, the learning curves and their histories to ``out``;
    returns the accuracy table (one row per run, with the model's ``path``) and
    the teacher's self-agreement."""
    from engines.training.supervised import best_epoch, train_supervised  # loads TensorFlow

    out.mkdir(parents=True, exist_ok=True)
    data = work / "games"
    if args.teacher_games:
        start_from_games(data, Path(args.teacher_games))
    print(f"1. generate: {args.games} games of {args.teacher} against itself -> {data}", flush=True)
    generate_games(ENGINES, data, preset.game, args.teacher, args.games, seed=args.seed,
                   opening_plies=preset.opening_plies, workers=args.workers)
    if preset.games_file:
        write_games(out / preset.games_file, read_games(data / "games.csv"))

    rows = []
    for model, encoder in preset.runs:
        manifest = encode_dataset(data, encoder)
        run_dir = work / "runs" / f"{model}-{encoder}"
        print(f"2. train: {model} net, {encoder} encoder, {manifest.split_sizes()} positions -> {run_dir}",
              flush=True)
        history = train_supervised(data, run_dir, model=model, encoder=encoder, epochs=args.epochs,
                                   batch_size=preset.batch_size, seed=args.seed)
        metrics = evaluate_predictor(run_dir / "model.keras", data)
        plot_learning_curve(history, out / f"learning_curve-{model}-{encoder}.png",
                            title=f"{model} net, {encoder} encoder, {preset.game}",
                            baselines={"uniform over legal moves": metrics["uniform_legal"]})
        with atomic_write(out / f"history-{model}-{encoder}.csv") as handle:
            history.to_csv(handle, index=False)
        rows.append({"model": model, "encoder": encoder, "epochs": len(history), "best_epoch": best_epoch(history),
                     "train_positions": manifest.split_sizes()["train"], **metrics,
                     "path": str(run_dir / "model.keras")})
        print(f"   test top-1 {metrics['top1']:.1%}, top-5 {metrics['top5']:.1%}", flush=True)
    table = pd.DataFrame(rows)
    print(f"3. evaluate: the teacher's agreement with itself on {args.teacher_positions} test positions", flush=True)
    teacher = teacher_agreement(data, "test", args.teacher_positions, seed=args.seed) \
        if args.teacher_positions else {}
    table["teacher"] = teacher.get("teacher", float("nan"))
    with atomic_write(out / "accuracy.csv") as handle:
        table.drop(columns=["path"]).to_csv(handle, index=False)
    best = table.loc[table["top1"].idxmax()]
    shutil.copyfile(out / f"learning_curve-{best['model']}-{best['encoder']}.png", out / "learning_curve.png")
    return table, teacher


def play_predictor(game: str, model: str | Path, opponents: list[str], arena: Path, *, games_per_pair: int,
                   seed: int, opening_plies: int, workers: int | None) -> tuple[str, list[GameRecord]]:
    """Step 4: the predictor in ``model`` in a round-robin with ``opponents``
    (resumable; its games are played again if the model changed). Writes the tournament's
    report to ``arena``; returns the predictor's spec and every game."""
    predictor = f"predictor:model={model}"
    specs = [predictor, *opponents]
    print(f"4. play: {predictor} against {', '.join(opponents)}", flush=True)
    records = run_tournament(ENGINES, arena, game, specs, games_per_pair, seed=seed, opening_plies=opening_plies,
                             workers=workers)
    write_rated_report(arena, records, game, f"{game}: the move predictor against {', '.join(opponents)}",
                       subjects=[predictor])
    return predictor, records


def write_supervised_summary(path: Path, preset: Preset, args: argparse.Namespace, table: pd.DataFrame,
                             teacher: dict, predictor: str, scores: dict[str, tuple[float, int]]) -> None:
    """A supervised experiment's ``summary.md``: accuracy, baselines, the book's figure, playing strength."""
    pct = "{:.1%}".format
    lines = [f"# Supervised move prediction: {preset.game}", "",
             f"Reproduce: `python experiments/{preset.name.replace('-', '_')}.py"
             + (" --quick" if args.quick else "") + f" --games {args.games} --seed {args.seed}`", "",
             f"Teacher: `{args.teacher}` playing itself, {args.games} games "
             f"({preset.opening_plies} random opening plies each, not used as labels). "
             "Games are split whole into train/validation/test (about 80/10/10).", "",
             "## Accuracy on held-out test games", "",
             "| network | encoder | epochs (best) | train positions | test positions | top-1 | top-5 | top-1 (legal only) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for _, r in table.iterrows():
        lines.append(f"| {r['model']} | {r['encoder']} | {r['epochs']} ({r['best_epoch']}) | {r['train_positions']:,} | "
                     f"{r['positions']:,} | {pct(r['top1'])} | {pct(r['top5'])} | {pct(r['top1_legal'])} |")
    first = table.iloc[0]
    lines += ["", "| baseline | accuracy |", "|---|---:|",
              f"| uniform over the action space (1/points in Go) | {pct(first['uniform'])} |",
              f"| uniform over the legal moves | {pct(first['uniform_legal'])} |"]
    if teacher:
        lines.append(f"| the teacher again with a new seed ({teacher['teacher_positions']} positions) | "
                     f"{pct(teacher['teacher'])} |")
        lines += ["", "The teacher chose its moves in the games with the tree kept from the move before; asked "
                  "again from scratch it has only its own rounds, so its self-agreement is an approximate ceiling."]
    lines += ["", *preset.book]
    best = table.loc[table["top1"].idxmax()]
    if preset.book_accuracy:
        lines += ["", f"**Ours:** {pct(best['top1'])} with the {best['model']} network on the {best['encoder']} "
                  f"encoder, {best['top1'] / preset.book_accuracy:.2f} times the book's {preset.book_accuracy:.2%}."]
        if teacher and teacher["teacher"] > 0:
            lines[-1] += (f" The teacher repeats its own move {pct(teacher['teacher'])} of the time, so the network "
                          f"reaches {best['top1'] / teacher['teacher']:.0%} of what imitating this teacher allows.")
            if teacher["teacher"] < 2 * preset.book_accuracy:
                lines[-1] += (f" Twice the book ({2 * preset.book_accuracy:.2%}) is beyond even that ceiling: it "
                              "would take a more consistent teacher (more rounds per move), not a better network.")
    lines += ["", "![learning curve](learning_curve.png)", "",
              "## Playing strength", "", f"The best network by test accuracy plays as `{predictor}` "
              "(its most likely sensible move, no search; in Go never into its own eye).", "",
              "| opponent | predictor's score | games |", "|---|---:|---:|"]
    for opponent, (score, n) in scores.items():
        lines.append(f"| {opponent} | {pct(score)} | {n} |")
    lines += ["", "The whole round-robin (ratings, cross-table, every game): "
              "[tournament/summary.md](tournament/summary.md).", ""]
    with atomic_write(path) as handle:
        handle.write("\n".join(lines))


# 4. AlphaZero ---------------------------------------------------------------------------------------------------
#
# Each ``experiments/alphazero_<game>.py`` describes its run as an Experiment (the
# game, its AlphaZeroConfig, how many iterations, the opponent of the final
# match, an optional extra check) and calls run_alphazero, which parses the
# common options, trains in --work (a killed run continues where it stopped),
# plays the final match in worker processes (its games.csv also resumes), and
# writes history.csv, learning_curve.png and summary.md to --out.


@dataclass
class Experiment:
    """One game's AlphaZero run and how it is judged."""

    name: str                       # experiments/alphazero_<name>.py, reports/alphazero-<name>
    game: str                       # the game spec, e.g. go:size=5
    title: str
    config: Callable[[int], AlphaZeroConfig]  # seed -> the run's settings
    iterations: int
    opponent: str | None = None     # final match: the network against this engine
    match_games: int = 100
    match_simulations: int = 200
    target: float | None = None     # the final match score the run aims for
    # extra check on the trained agent: (agent spec, simulations) -> (summary lines, console lines)
    check: Callable[[str, int], tuple[list[str], list[str]]] | None = None
    note: str = ""                  # a paragraph for the summary's training section
    # more results after the match: (final checkpoint, --out, the parsed options) -> summary lines
    extra: Callable[[Path, Path, argparse.Namespace], list[str]] | None = None
    # the summary's closing "What to look for" paragraph (chapter scripts): text, or text made from the history
    look_for: str | Callable[[pd.DataFrame], str] = ""
    script: str = ""                # the script's name, if not alphazero_<name> (the chapter scripts)
    folder: str = ""                # reports/<folder> and data/<folder>, if not alphazero-<name>
    # the network the run starts from, made before it: (the parsed options) -> its path (AlphaGo Zero's supervised start)
    prepare: Callable[[argparse.Namespace], str] | None = None
    options: Callable[[argparse.ArgumentParser], None] | None = None  # the script's own options
    quick_opponent: str | None = None  # the final match's opponent with --quick, if not ``opponent``
    quick_iterations: int = 2          # iterations with --quick

    @property
    def slug(self) -> str:
        return self.folder or f"alphazero-{self.name}"

    @property
    def script_name(self) -> str:
        return self.script or f"alphazero_{self.name}"


def quick_config(game: str, seed: int) -> AlphaZeroConfig:
    """Tiny settings that run any game's pipeline in seconds (``--quick``, tests)."""
    return AlphaZeroConfig(game=game, blocks=1, filters=8, games=4, parallel=4, simulations=8, train_steps=3,
                           batch_size=32, eval_games=2, eval_simulations=4, previous_games=2, baselines=["random"],
                           seed=seed)


def alphazero_parser(experiment: Experiment, doc: str) -> argparse.ArgumentParser:
    """An AlphaZero script's command line, its defaults taken from ``experiment``."""
    p = parser(f"{experiment.script_name}.py", doc, name=experiment.slug, work="the training run's folder, resumable")
    p.add_argument("--iterations", type=int, default=experiment.iterations,
                   help=f"training iterations (default {experiment.iterations}); more continues a finished run")
    p.add_argument("--simulations", type=int, default=experiment.match_simulations,
                   help=f"network simulations per move after training (default {experiment.match_simulations})")
    p.add_argument("--games", type=int, default=experiment.match_games,
                   help=f"games of the final match (default {experiment.match_games})")
    p.add_argument("--workers", type=int, default=None,
                   help="processes for self-play and the final match (default: one per core)")
    p.add_argument("--ship", default=None,
                   help=f"copy the final network here, e.g. checkpoints/{experiment.name}.keras")
    if experiment.options:
        experiment.options(p)
    return p


def search_budget(config: AlphaZeroConfig) -> str:
    """The self-play search in words, with playout-cap randomisation and mixed value targets if the run uses them."""
    if not config.fast_simulations:
        words = f"{config.simulations} simulations per move"
    else:
        words = (f"{config.full_fraction:.0%} of the moves searched with {config.simulations} simulations and kept "
                 f"as examples, the rest played after {config.fast_simulations} simulations: playout-cap "
                 "randomisation")
    if config.search_value_weight:
        words += (f"; value targets {1 - config.search_value_weight:g} x the game's result + "
                  f"{config.search_value_weight:g} x the root's search value")
    return words


def run_alphazero(experiment: Experiment, argv: list[str] | None, doc: str) -> int:
    """Train, evaluate and report one experiment; returns the exit status."""
    args = alphazero_parser(experiment, doc).parse_args(argv)
    from engines.training.alphazero import plot_history, train_alphazero  # loads TensorFlow

    config = quick_config(experiment.game, args.seed) if args.quick else experiment.config(args.seed)
    if args.quick:
        args.iterations, args.simulations, args.games = experiment.quick_iterations, 4, 2
        experiment = replace(experiment, opponent=experiment.quick_opponent or experiment.opponent)
    out, work = Path(args.out), Path(args.work)
    out.mkdir(parents=True, exist_ok=True)
    workers = args.workers or os.cpu_count() or 1
    if experiment.prepare:
        config = replace(config, init=experiment.prepare(args))
    history = train_alphazero(work, config, args.iterations, workers=workers)
    history = history[history["iteration"] <= args.iterations]
    checkpoint = work / "checkpoints" / f"iter-{args.iterations:03d}.keras"
    if args.ship:
        Path(args.ship).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(checkpoint, args.ship)
    with atomic_write(out / "history.csv") as handle:
        history.to_csv(handle, index=False)
    scores = [c for c in history.columns if c.startswith("score_vs_")]
    plot_history(history, out / "learning_curve.png", experiment.title)
    agent = f"alphazero:checkpoint={checkpoint},simulations={args.simulations}"
    command_line = command(f"{experiment.script_name}.py", argv,
                           {"--iterations": args.iterations, "--seed": args.seed, "--workers": workers})
    seconds = history["seconds"].sum()  # over all iterations, resumed runs included
    last = history.iloc[-1]
    lines = [f"# {experiment.title}", "", f"Reproduce: `{command_line}`", "",
             f"{len(history)} iterations of {config.games} self-play games ({search_budget(config)}), "
             + (f"a {config.blocks}-block, {config.filters}-filter ResNet" if not config.init else
                f"the network of `{config.init}` (its own shape)")
             + f", {config.train_steps} batches of "
             f"{config.batch_size} per iteration from a replay buffer of the last {config.buffer_games} games: "
             f"**{seconds / 60:.1f} minutes** of training (self-play, learning and the per-iteration scores) on "
             f"this machine, with self-play in {self_play_processes(history)}.", ""]
    console = []
    if experiment.opponent:
        match_lines, score = final_match(experiment, agent, args, out / "match")
        lines += match_lines
        if experiment.target is not None:
            verdict = "met" if score >= experiment.target else "**not met**"
            lines += [f"Target: a score of at least {experiment.target:.0%}: {verdict}.", ""]
        console.append(f"network ({args.simulations} simulations) against {experiment.opponent}: {score:.1%}")
    if experiment.check:
        check_lines, check_console = experiment.check(f"{agent},reuse=false", args.simulations)
        lines += check_lines
        console += check_console
    if experiment.extra:
        lines += experiment.extra(checkpoint, out, args)
    lines += ["## Training", "",
              f"Last iteration: loss {last['loss']:.3f} (policy {last['policy_loss']:.3f}, value "
              f"{last['value_loss']:.3f}); Elo {last['elo']:+.0f} over "
              + ("the network it started from" if config.init else "the untrained network") + " (each iteration "
              f"plays the one before it {config.previous_games} times with {config.eval_simulations} simulations "
              "per move; the Elo differences add up).", "",
              *([experiment.note, ""] if experiment.note else []),
              f"Scores by iteration, against the previous network ({config.previous_games} games) and the "
              f"baselines ({config.eval_games} games each), {config.eval_simulations} simulations per move:", "",
              "| iteration | elo | " + " | ".join(c.removeprefix("score_vs_") for c in scores) + " | minutes |",
              "|---:|---:|" + "---:|" * len(scores) + "---:|"]
    played = history.dropna(subset=scores)  # iterations that played the baselines
    step = max(1, len(played) // 10)
    for _, row in played.iloc[::-1][::step][::-1].iterrows():
        lines.append(f"| {int(row['iteration'])} | {row['elo']:+.0f} | "
                     + " | ".join(f"{row[c]:.0%}" for c in scores) + f" | {row['seconds'] / 60:.1f} |")
    lines += ["", "![learning curve](learning_curve.png)", ""]
    if experiment.look_for:
        look_for = experiment.look_for if isinstance(experiment.look_for, str) else experiment.look_for(history)
        lines += ["## What to look for", "", look_for.strip(), ""]
    with atomic_write(out / "summary.md") as handle:
        handle.write("\n".join(lines))
    for line in console:
        print(line)
    print(f"report: {out}/summary.md")
    return 0


def self_play_processes(history: pd.DataFrame) -> str:
    """How many self-play processes each stretch of iterations used (rows from
    before the ``workers`` column ran in the training process)."""
    used = history["workers"].fillna(1) if "workers" in history else history["iteration"] * 0 + 1
    stretches: list[list[int]] = []  # [workers, first, last]
    for iteration, n in zip(history["iteration"], used.astype(int)):
        if stretches and stretches[-1][0] == n:
            stretches[-1][2] = iteration
        else:
            stretches.append([n, iteration, iteration])

    def name(n: int) -> str:
        return "the training process" if n == 1 else f"{n} worker processes"

    if len(stretches) == 1:
        return name(stretches[0][0])
    return ", ".join(f"{name(n)} (iterations {a}-{b})" for n, a, b in stretches)


def final_match(experiment: Experiment, agent: str, args: argparse.Namespace, folder: Path
                ) -> tuple[list[str], float]:
    """The trained network against the experiment's opponent, colours alternating."""
    assert experiment.opponent is not None
    tasks = schedule([agent, experiment.opponent], args.games, args.seed)
    records = play_games(ENGINES, folder, experiment.game, tasks, opening_plies=0, workers=args.workers)
    records = [r for r in records if {r.black, r.white} == {agent, experiment.opponent}]
    lines = [f"## Against {experiment.opponent}", "",
             f"The final network with {args.simulations} simulations per move against `{experiment.opponent}`, "
             f"{len(records)} games, colours alternating (games in `match/games.csv`):", "",
             "| the network plays | games | won | drawn | lost | score |", "|---|---:|---:|---:|---:|---:|"]
    score = 0.0
    for side, games in (("black (first)", [r for r in records if r.black == agent]),
                        ("white", [r for r in records if r.white == agent]), ("both", records)):
        wins = sum(r.score_for(agent) == 1 for r in games)
        draws = sum(r.score_for(agent) == 0.5 for r in games)
        score = sum(r.score_for(agent) for r in games) / max(1, len(games))
        bold = "**" if side == "both" else ""
        lines.append(f"| {side} | {len(games)} | {wins} | {draws} | {len(games) - wins - draws} | "
                     f"{bold}{score:.1%}{bold} |")
    return lines + [""], score


# AlphaZero on tic-tac-toe (alphazero_tictactoe.py; chapter 14a repeats it) ----------------------------------------


def losses_against_perfect_play(agent: Agent, agent_side: str) -> tuple[int, int]:
    """(games lost, games played) by ``agent`` against every perfect opponent line of tic-tac-toe."""
    lost = played = 0

    def walk(state: State) -> None:
        nonlocal lost, played
        if state.is_over():
            played += 1
            winner = state.winner()
            lost += winner is not None and winner.name != agent_side
            return
        if state.next_player.name == agent_side:
            agent.new_game()  # no tree carried between branches
            walk(state.apply_move(agent.select_move(state)))
        else:
            for move in perfect_moves(state):
                walk(state.apply_move(move))

    walk(new_game("tictactoe"))
    return lost, played


def check_perfect_play(agent_spec: str, simulations: int) -> tuple[list[str], list[str]]:
    """The agent against every perfect opponent line, from both sides."""
    agent = create(agent_spec)
    results = {side: losses_against_perfect_play(agent, side) for side in ("black", "white")}
    lines = ["## Against perfect play", "",
             f"With {simulations} simulations per move, against "
             "every line a perfect opponent can choose:", "",
             "| the network plays | games (perfect lines) | lost |", "|---|---:|---:|"]
    lines += [f"| {side} | {played} | {lost} |" for side, (lost, played) in results.items()]
    verdict = "never loses" if all(lost == 0 for lost, _ in results.values()) else "does lose"
    lines += ["", f"The trained network **{verdict}** to perfect play.", ""]
    console = [f"network as {side}: lost {lost} of {played} games against perfect play"
               for side, (lost, played) in results.items()]
    return lines, console


def tictactoe_config(seed: int = 0) -> AlphaZeroConfig:
    """The tic-tac-toe run's settings."""
    return AlphaZeroConfig(game="tictactoe", blocks=2, filters=32, games=64, parallel=64, simulations=50,
                           buffer_games=1000, batch_size=128, train_steps=100, eval_games=10,
                           eval_simulations=50, baselines=["random", "alphabeta"], learning_rate=2e-3, seed=seed)


ALPHAZERO_TICTACTOE = Experiment(
    name="tictactoe", game="tictactoe", title="AlphaZero on tic-tac-toe", config=tictactoe_config, iterations=20,
    match_simulations=50, check=check_perfect_play,
    note="With 50 simulations per move even the untrained network finds tic-tac-toe's "
         "forced wins and blocks, so from the first iterations nearly every game against the "
         "previous network and against alpha-beta is a draw: the Elo curve is noise around 0 "
         "(each step adds the error of a 20-game score), and the progress shows in the losses "
         "and in the perfect-play check above. Connect Four and 5x5 Go are where Elo climbs.")


# AlphaZero on Connect Four (alphazero_connect4.py; chapter 14b repeats its first iterations) ---------------------


def connect4_config(seed: int = 0) -> AlphaZeroConfig:
    """The Connect Four run's settings (the shipped network's)."""
    return AlphaZeroConfig(game="connect4", blocks=5, filters=64, learning_rate=1e-3, l2=1e-4,
                           learning_rate_drops=[58, 69], learning_rate_drop=0.3,
                           games=128, parallel=128, simulations=100, c=1.5, dirichlet_alpha=1.0,
                           dirichlet_epsilon=0.25, temperature_moves=8, buffer_games=2500, batch_size=256,
                           train_steps=150, eval_games=10, eval_simulations=50, previous_games=20,
                           baselines=["random", "mcts:rounds=1000"], baseline_every=10, search_value_weight=0.5,
                           seed=seed)


ALPHAZERO_CONNECT4 = Experiment(name="connect4", game="connect4", title="AlphaZero on Connect Four",
                                config=connect4_config, iterations=73, opponent="mcts:rounds=1000",
                                match_games=200, match_simulations=200, target=0.9)


# 5. Learning by playing (chapters 9-12) -------------------------------------------------------------------------
#
# A chapter's run trains in --work/run by generations (resumable: rerun the same
# command), then the last network plays --final-games games against each
# opponent and against its own starting network, in --work/final/ (resumable too),
# and the chapter writes history.csv, learning_curve.png, final.csv, a game and
# summary.md to --out.


#: how final.csv names the run's own starting network among the opponents
START = "its starting network"


@dataclass
class RLChapter:
    """One chapter's reinforcement-learning run and how it is judged."""

    script: str                     # experiments/<script>.py, reports/<script>, data/<script>
    title: str
    method: str                     # pg, q or ac
    generations: int
    settings: dict[str, Any]        # RLConfig settings beyond method, game and seed
    look_for: str
    about: str                      # a paragraph on the method, for the summary
    opponents: tuple[str, ...] = ("random", "mcts:rounds=100")
    final_games: int = 200


def rl_parser(chapter: RLChapter, doc: str) -> argparse.ArgumentParser:
    """A learning-by-playing chapter's command line."""
    p = parser(f"{chapter.script}.py", doc, work="the training run's folder, resumable")
    p.add_argument("--game", default="connect4", help="the game (default connect4; try go:size=9)")
    p.add_argument("--generations", type=whole(1), default=chapter.generations,
                   help=f"generations of self-play and learning (default {chapter.generations}); more continues "
                        "a finished run")
    p.add_argument("--final-games", type=whole(1), default=chapter.final_games,
                   help=f"games against each opponent at the end (default {chapter.final_games})")
    p.add_argument("--opponents", default=",".join(chapter.opponents),
                   help=f"engines the last network plays at the end, comma separated (default "
                        f"{','.join(chapter.opponents)})")
    defaults = {**rl_settings(RLConfig()), **chapter.settings}
    for name, value in defaults.items():  # the run's settings, as train-rl's
        flag = f"--{name.replace('_', '-')}"
        if isinstance(value, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=value,
                           help=f"train-rl's {flag} (default {'on' if value else 'off'})")
        elif isinstance(value, list):
            p.add_argument(flag, type=comma_list, default=value,
                           help=f"train-rl's {flag}, comma separated (default {','.join(value) or 'none'})")
        else:
            p.add_argument(flag, type=type(value), default=value, help=f"train-rl's {flag} (default {value})")
    return p


def run_description(config: RLConfig) -> str:
    """What a run's settings make of its chapter's method, in a sentence or two
    (so a summary never describes settings its run did not use)."""
    games = f"{config.games} self-play games a generation"
    if config.sparring:
        games += (f" and {config.sparring_games} against each of {', '.join(f'`{e}`' for e in config.sparring)}, "
                  "learning from its own moves there too")
    result = "the game's result" + (f" discounted by {config.discount:g} per later move" if config.discount < 1 else "")
    if config.bootstrap == 0:
        target = f"{result} (a Monte Carlo target, as in the book)"
    elif config.bootstrap == 1:
        target = "the value of the next position (the one-step target, `--bootstrap 1`)"
    else:
        target = f"{1 - config.bootstrap:g} times {result} plus {config.bootstrap:g} times the next position's value"
    mirror = "; every position learnt under each of the board's symmetries too" if config.symmetries else ""
    return f"**This run**: {games}; targets: {target}{mirror}."


def rl_settings(config: RLConfig) -> dict[str, Any]:
    """The settings a chapter's command line offers: all of train-rl's but the
    method, the game, the seed (options of their own) and ``init``."""
    return {name: value for name, value in vars(config).items() if name not in ("method", "game", "seed", "init")}


def comma_list(text: str) -> list[str]:
    """``a,b`` as ``["a", "b"]`` (an empty text: no items)."""
    return [item for item in text.split(",") if item]


def final_scores(agent: str, opponents: Sequence[str], game: str, games: int, folder: Path, seed: int
                 ) -> tuple[pd.DataFrame, list[GameRecord]]:
    """``agent`` against each opponent, ``games`` games each (colours
    alternating, two random opening plies), played in ``folder`` (resumable),
    network calls batched across games. Returns (one row per opponent with
    the score and its 95% interval, the games)."""
    tasks = []
    for opponent in opponents:
        for k in range(games):
            game_id = f"{opponent} #{k:03d}"
            black, white = (agent, opponent) if k % 2 == 0 else (opponent, agent)
            tasks.append(Task(game_id, black, white, task_seed(seed, game_id)))
    records = play_games(ENGINES, folder, game, tasks, opening_plies=2, batch=games, progress=True)
    rows = []
    for opponent in opponents:
        score, played = score_against(records, agent, opponent)
        low, high = wilson_interval(score, played)
        rows.append({"opponent": opponent, "score": score, "games": played, "low": low, "high": high})
    return pd.DataFrame(rows), records


def rl_quick_settings() -> dict[str, Any]:
    """Tiny settings that run a chapter in seconds (``--quick``, tests)."""
    return {"model": "tiny", "games": 8, "eval_games": 4, "baseline_games": 2, "baselines": ["random"]}


def run_rl_chapter(chapter: RLChapter, args: argparse.Namespace, argv: list[str] | None,
                   extra: Callable[[argparse.Namespace, Path], list[str]] | None = None) -> int:
    """Train, judge and report one chapter with the options ``args`` (from
    :func:`rl_parser`; ``argv`` for the reproducing command); ``extra(args, out)``
    adds a section to the summary (chapter 10's fine-tuning). Returns the exit
    status: 2, with a one-line message, for bad settings or a run folder that
    holds another run."""
    try:
        return _run_rl_chapter(chapter, args, argv, extra)
    except DlgoError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def _run_rl_chapter(chapter: RLChapter, args: argparse.Namespace, argv: list[str] | None,
                    extra: Callable[[argparse.Namespace, Path], list[str]] | None) -> int:
    from engines.training.rl import plot_rl_history, train_rl  # loads TensorFlow

    settings = {name: getattr(args, name) for name in rl_settings(RLConfig())}
    if args.quick:
        settings = rl_quick_settings()
        args.generations, args.final_games = 2, 4
    config = RLConfig(**settings, method=chapter.method, game=args.game, seed=args.seed)
    opponents = [o for o in args.opponents.split(",") if o]
    if args.quick:
        opponents = opponents[:1]
    out, run = Path(args.out), Path(args.work) / "run"
    out.mkdir(parents=True, exist_ok=True)
    print(f"1. learn: {args.generations} generations of {config.games} self-play games"
          f"{f' and {config.sparring_games} sparring games' if config.sparring else ''} -> {run}", flush=True)
    history = train_rl(run, config, args.generations)
    with atomic_write(out / "history.csv") as handle:
        history.to_csv(handle, index=False)
    plot_rl_history(history, out / "learning_curve.png", f"{chapter.method} on {args.game}", config.baseline_games)

    agent = config.player(run / "current.keras", exploring=False)
    start = config.player(run / "checkpoints" / "gen-000.keras", exploring=False)
    print(f"2. judge: {agent} against {', '.join(opponents)} and its start, {args.final_games} games each",
          flush=True)
    table, records = final_scores(agent, [*opponents, start], args.game, args.final_games, Path(args.work) / "final",
                                  seed=args.seed)
    table["opponent"] = [*opponents, START]
    with atomic_write(out / "final.csv") as handle:
        table.to_csv(handle, index=False)

    minutes = history["seconds"].sum() / 60
    mirrored = ", each also under the board's symmetries" if config.symmetries else ""
    sparring = f" and {config.sparring_games} against each of {', '.join(f'`{e}`' for e in config.sparring)}" \
        if config.sparring else ""
    body = [chapter.about, "", run_description(config), "",
            f"**Training**: {len(history)} generations of {config.games} self-play games each{sparring} "
            f"({learnt_moves(history, config):,} moves learned from{mirrored}), {minutes:.0f} minutes of wall time on "
            "this 2-core machine. "
            f"Settings: `{settings_text(config)}`.", "",
            "![learning curve](learning_curve.png)", "",
            f"**The last network** (`{chapter.method}`, greedy, no search) against each opponent, "
            f"{args.final_games} games, colours alternating after two random opening plies:", "",
            "| opponent | score | 95% interval | games |", "|---|---:|---:|---:|"]
    for row in table.itertuples():
        body.append(f"| {row.opponent if row.opponent == START else f'`{row.opponent}`'} | "
                    f"{row.score:.1%} | {row.low:.0%} to {row.high:.0%} | {row.games} |")
    strongest = opponents[-1]
    games = sorted((r for r in records if strongest in (r.black, r.white)), key=lambda r: -r.score_for(agent))
    game = games[0]  # a win if it has one
    body += ["", f"One game against `{strongest}`:", "",
             *draw_game(game, out, "game", f"{chapter.method} vs {strongest}: {game.result}")]
    if extra is not None:
        body += extra(args, out)
    body += ["Play it yourself:", "", f"    dlgo play --game {args.game} --black human --white {agent}"]
    look_for = rl_findings(history, table) + "\n\n" + chapter.look_for
    summary = write_summary(out, chapter.title, command(f"{chapter.script}.py", argv), body, look_for)
    print(table.to_string(index=False))
    print(f"report: {summary}")
    return 0


def rl_findings(history: pd.DataFrame, table: pd.DataFrame) -> str:
    """What this run's curves and final scores show, in words (the chapter's
    explanation follows it)."""
    last = int(history["generation"].iloc[-1])
    curves = []
    for column in [c for c in history.columns if c.startswith("score_vs_") and c != "score_vs_previous"]:
        scores = history[column].dropna()
        if len(scores):
            verb = "rose" if scores.iloc[-1] > scores.iloc[0] else "went"
            curves.append(f"against `{column.removeprefix('score_vs_')}` the score {verb} from {scores.iloc[0]:.0%} "
                          f"(generation {int(history['generation'][scores.index[0]])}) to {scores.iloc[-1]:.0%} "
                          f"(generation {last})")
    significant = int((history["p_value"] < 0.05).sum()) if "p_value" in history else 0
    text = (f"In this run, over {last} generations, " + ("; ".join(curves) + ". " if curves else "")
            + f"Against the generation before, the mean score was {history['score_vs_previous'].mean():.0%}, and "
            f"{significant} of {last} generations beat their predecessor significantly (binomial test, p < 0.05). "
            "At the end, greedy and without search, the network scored "
            + ", ".join(f"{row.score:.0%} against {row.opponent if row.opponent == START else f'`{row.opponent}`'}"
                        for row in table.itertuples()) + ".")
    return "\n".join(textwrap.wrap(text, 78, break_on_hyphens=False))


def learnt_moves(history: pd.DataFrame, config: RLConfig) -> int:
    """The moves a run learnt from (its ``examples`` count each symmetric copy too)."""
    copies = len(get_game(config.game).symmetries()) if config.symmetries else 1
    return int(history["examples"].sum()) // copies


def option(name: str, value: Any) -> str:
    """A setting as a train-rl option: ``--discount 0.95``, ``--symmetries``, ``--baselines random alphabeta``."""
    flag = f"--{name.replace('_', '-')}"
    if isinstance(value, bool):
        return flag if value else f"--no-{flag[2:]}"
    return f"{flag} {' '.join(value) if isinstance(value, list) else value}"


def settings_text(config: RLConfig) -> str:
    """The run's settings that differ from RLConfig's defaults, as train-rl options."""
    default = RLConfig()
    changed = [option(name, value) for name, value in vars(config).items()
               if value != getattr(default, name) and name not in ("seed", "init")]
    return " ".join(changed) or "the defaults"
