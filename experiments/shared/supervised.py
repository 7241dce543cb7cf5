"""Supervised move prediction (chapters 6-8 and 13, ``experiments/headline/supervised_*.py``):
the teacher's games, the networks trained on them, their accuracy, and the best
one playing a round-robin.

Steps, each resumable (rerun the same command after a kill and it goes on):

1. generate: the teacher engine plays itself (``dlgo generate``);
2. train: each (model, encoder) of the preset on the same games (``dlgo train-supervised``);
3. evaluate: top-1/top-5 accuracy on held-out games, the uniform baselines and
   the teacher's agreement with itself;
4. play: the best predictor (by test accuracy) in a round-robin against random
   and an MCTS ladder.

Reports go to --out (accuracy.csv, learning curves, tournament/, summary.md);
games and models to --work. TensorFlow loads only inside the step that trains.
Imports :mod:`~experiments.shared.chapters` and :mod:`~experiments.shared.ladders`.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from dlgo.arena.tournament import run_tournament
from dlgo.core.arguments import count
from dlgo.core.errors import RecordError
from dlgo.data.dataset import encode_dataset
from dlgo.data.generate import generate_games
from dlgo.storage.atomic import atomic_copy, atomic_write
from dlgo.storage.facts import update_facts
from dlgo.storage.folders import hold_folder
from dlgo.display.plotting import plot_learning_curve
from dlgo.formats.records import GameRecord, read_games, write_games
from engines.registry import ENGINES
from engines.training.accuracy import evaluate_predictor, teacher_agreement
from experiments.shared.chapters import (check_engines, course_spec, parser, run_folders, score_against, script_path,
                                         take_folders, variant_name, write_lines)
from experiments.shared.ladders import write_rated_report

#: the network of a supervised ``--quick`` run
QUICK_MODEL = "tiny"


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


def supervised_args(preset: Preset, argv: list[str] | None, doc: str, script: str) -> argparse.Namespace:
    """The experiment's command line (``script``: the script's ``__file__``, for its name in --help)."""
    return supervised_parser(preset, doc, script).parse_args(argv)


def supervised_parser(preset: Preset, doc: str, script: str, game_option: bool = True) -> argparse.ArgumentParser:
    """The options of a supervised experiment, for scripts that add their own
    (``game_option``: whether it offers ``--game``, or plays only the preset's)."""
    p = parser(script, doc, name=preset.name, work="folder for the teacher's games and the networks")
    if game_option:
        p.add_argument("--game", default=preset.game, help=f"the game (default {preset.game}; e.g. go:size=5)")
    p.add_argument("--games", type=count("games"), default=preset.games,
                   help=f"self-play games (default {preset.games})")
    p.add_argument("--teacher", default=preset.teacher, help=f"engine making the games (default {preset.teacher})")
    p.add_argument("--teacher-games", metavar="FILE",
                   help="start from the games in FILE (a games.csv, or .csv.gz, of an earlier run with the same "
                        "settings): only the games it lacks are played")
    p.add_argument("--epochs", type=count("steps"), default=preset.epochs,
                   help=f"most epochs (default {preset.epochs})")
    if preset.opponents:
        p.add_argument("--games-per-pair", type=count("games", 0), default=preset.games_per_pair,
                       help=f"tournament games per pair (default {preset.games_per_pair})")
    p.add_argument("--teacher-positions", type=count("positions", 0), default=preset.teacher_positions,
                   help=f"positions to measure the teacher's self-agreement on (default {preset.teacher_positions})")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    return p


def facts(out: Path) -> dict[str, Any]:
    """The experiment's headline facts (:mod:`dlgo.storage.facts`): ``accuracy`` (each network's
    test accuracy, the uniform guess's and the teacher's self-agreement, from ``accuracy.csv``) and
    ``predictor`` (the best network's spec and its score and games against ``random`` and against
    100 rounds of MCTS, from ``tournament/games.csv``)."""
    accuracy = pd.read_csv(out / "accuracy.csv")
    records = read_games(out / "tournament" / "games.csv")
    predictor = next(r.black for r in records if r.black.startswith("predictor:"))
    mcts = course_spec("mcts:rounds=100", records[0].game)
    against = {name: score_against(records, predictor, opponent)
               for name, opponent in (("random", "random"), ("mcts100", mcts))}
    return {"accuracy": [{"model": row.model, "encoder": row.encoder, "top1": float(row.top1), "top5": float(row.top5),
                          "uniform_legal": float(row.uniform_legal), "teacher": float(row.teacher)}
                         for row in accuracy.itertuples()],
            "predictor": {"spec": predictor, **{name: list(value) for name, value in against.items()}}}


def quick_preset(preset: Preset, args: argparse.Namespace) -> Preset:
    """Seconds instead of an hour (``--quick``: tests and a first look): the tiny
    preset, with ``args`` set to its settings."""
    preset = replace(preset, teacher=preset.teacher.split(":")[0] + ":rounds=20", games=6,
                     runs=[(QUICK_MODEL, preset.runs[-1][1])], opponents=["random"], games_per_pair=2, epochs=1,
                     teacher_positions=3)
    args.games, args.teacher, args.epochs = preset.games, preset.teacher, preset.epochs
    args.games_per_pair, args.teacher_positions = preset.games_per_pair, preset.teacher_positions
    return preset


def run_supervised(preset: Preset, argv: list[str] | None, doc: str, script: str) -> int:
    """All four steps of the supervised experiment of the script whose
    ``__file__`` is ``script``, and its summary; returns the exit status."""
    args = supervised_args(preset, argv, doc, script)
    if args.quick:
        preset = quick_preset(preset, args)
    preset = replace(preset, game=args.game)  # every supervised script but chapter 13's offers --game
    args.teacher = course_spec(args.teacher, preset.game)
    preset = replace(preset, opponents=[course_spec(o, preset.game) for o in preset.opponents])
    take_supervised_folders(preset.game, args)
    out, work = Path(args.out), Path(args.work)
    table, teacher = generate_and_train(preset, args, out, work)
    best = table.loc[table["top1"].idxmax()]
    predictor, records = play_predictor(preset.game, best["path"], preset.opponents, out / "tournament",
                                        games_per_pair=args.games_per_pair, seed=args.seed,
                                        opening_plies=preset.opening_plies, workers=args.workers)
    scores = {opp: score_against(records, predictor, opp) for opp in preset.opponents}
    write_supervised_summary(out / "summary.md", script, preset, args, table, teacher, predictor, scores)
    update_facts(out, facts(out))
    print(f"\nreport: {out}/summary.md")
    return 0


def take_supervised_folders(game: str, args: argparse.Namespace) -> None:
    """The run's folders taken (:func:`~experiments.shared.chapters.take_folders`)
    once what every supervised script shares is checked: the teacher on ``game``
    and the ``--teacher-games`` file."""
    check_engines([args.teacher], game)
    if args.teacher_games:
        check_games_file(Path(args.teacher_games))
    take_folders(args)


def check_games_file(source: Path) -> None:
    """A :class:`RecordError` unless ``source`` is a file (games to start from)."""
    if not source.is_file():
        raise RecordError(f"{source}: no such games file")


def start_from_games(data: Path, source: Path) -> None:
    """Copy the games in ``source`` into the generation folder ``data`` if it holds
    none yet (the generation that follows checks they were made with its settings)."""
    check_games_file(source)
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
    out.mkdir(parents=True, exist_ok=True)
    data = work / "games"
    if args.teacher_games:
        start_from_games(data, Path(args.teacher_games))
    print(f"1. generate: {args.games} games of {args.teacher} against itself -> {data}", flush=True)
    generate_games(ENGINES, data, preset.game, args.teacher, args.games, seed=args.seed,
                   opening_plies=preset.opening_plies, workers=args.workers)
    if preset.games_file:
        write_games(out / preset.games_file, read_games(data / "games.csv"))
    table = pd.DataFrame([train_one(preset, args, data, work / "runs" / f"{model}-{encoder}", out, model, encoder)
                          for model, encoder in preset.runs])
    print(f"3. evaluate: the teacher's agreement with itself on {args.teacher_positions} test positions", flush=True)
    teacher = teacher_agreement(data, "test", args.teacher_positions, seed=args.seed) \
        if args.teacher_positions else {}
    table["teacher"] = teacher.get("teacher", float("nan"))
    with atomic_write(out / "accuracy.csv") as handle:
        table.drop(columns=["path"]).to_csv(handle, index=False)
    best = table.loc[table["top1"].idxmax()]
    atomic_copy(out / f"learning_curve-{best['model']}-{best['encoder']}.png", out / "learning_curve.png")
    return table, teacher


def train_one(preset: Preset, args: argparse.Namespace, data: Path, run_dir: Path, out: Path, model: str,
              encoder: str) -> dict:
    """Step 2 for one (model, encoder): train it on the games in ``data`` into
    ``run_dir``, measure it on the held-out games, draw its learning curve to
    ``out``; returns its row of the accuracy table."""
    from engines.training.supervised import best_epoch, train_supervised  # loads TensorFlow

    manifest = encode_dataset(data, encoder)
    print(f"2. train: {model} net, {encoder} encoder, {manifest.split_sizes()} positions -> {run_dir}", flush=True)
    history = train_supervised(data, run_dir, model=model, encoder=encoder, epochs=args.epochs,
                               batch_size=preset.batch_size, seed=args.seed)
    metrics = evaluate_predictor(run_dir / "model.keras", data)
    plot_learning_curve(history, out / f"learning_curve-{model}-{encoder}.png",
                        title=f"{model} net, {encoder} encoder, {preset.game}",
                        baselines={"uniform over legal moves": metrics["uniform_legal"]})
    with atomic_write(out / f"history-{model}-{encoder}.csv") as handle:
        history.to_csv(handle, index=False)
    print(f"   test top-1 {metrics['top1']:.1%}, top-5 {metrics['top5']:.1%}", flush=True)
    return {"model": model, "encoder": encoder, "epochs": len(history), "best_epoch": best_epoch(history),
            "train_positions": manifest.split_sizes()["train"], **metrics, "path": str(run_dir / "model.keras")}


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


def write_supervised_summary(path: Path, script: str, preset: Preset, args: argparse.Namespace,
                             table: pd.DataFrame, teacher: dict, predictor: str,
                             scores: dict[str, tuple[float, int]]) -> None:
    """A supervised experiment's ``summary.md`` (``script``: its ``__file__``):
    accuracy, baselines, the book's figure, playing strength."""
    lines = [f"# Supervised move prediction: {preset.game}", "",
             f"Reproduce: `python {script_path(script)}"
             + (" --quick" if args.quick else "") + f" --games {args.games} --seed {args.seed}`", "",
             f"Teacher: `{args.teacher}` playing itself, {args.games} games "
             f"({preset.opening_plies} random opening plies each, not used as labels). "
             "Games are split whole into train/validation/test (about 80/10/10).", "",
             *accuracy_lines(table, teacher), "", *preset.book, *book_comparison(preset, table, teacher),
             "", "![learning curve](learning_curve.png)", "",
             "## Playing strength", "", f"The best network by test accuracy plays as `{predictor}` "
             "(its most likely sensible move, no search; in Go never into its own eye).", "",
             "| opponent | predictor's score | games |", "|---|---:|---:|"]
    lines += [f"| {opponent} | {score:.1%} | {n} |" for opponent, (score, n) in scores.items()]
    lines += ["", "The whole round-robin (ratings, cross-table, every game): "
              "[tournament/summary.md](tournament/summary.md).", ""]
    write_lines(path, lines)


def accuracy_lines(table: pd.DataFrame, teacher: dict) -> list[str]:
    """The accuracy of each network on held-out games, and the baselines beside it."""
    pct = "{:.1%}".format
    lines = ["## Accuracy on held-out test games", "",
             "| network | encoder | epochs (best) | train positions | test positions | top-1 | top-5 "
             "| top-1 (legal only) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for _, r in table.iterrows():
        lines.append(f"| {r['model']} | {r['encoder']} | {r['epochs']} ({r['best_epoch']}) "
                     f"| {r['train_positions']:,} | {r['positions']:,} | {pct(r['top1'])} | {pct(r['top5'])} "
                     f"| {pct(r['top1_legal'])} |")
    first = table.iloc[0]
    lines += ["", "| baseline | accuracy |", "|---|---:|",
              f"| uniform over the action space (1/points in Go) | {pct(first['uniform'])} |",
              f"| uniform over the legal moves | {pct(first['uniform_legal'])} |"]
    if teacher:
        lines.append(f"| the teacher again with a new seed ({teacher['teacher_positions']} positions) | "
                     f"{pct(teacher['teacher'])} |")
        lines += ["", "The teacher chose its moves in the games with the tree kept from the move before; asked "
                  "again from scratch it has only its own rounds, so its self-agreement is an approximate ceiling."]
    return lines


def book_comparison(preset: Preset, table: pd.DataFrame, teacher: dict) -> list[str]:
    """The best network's accuracy against the book's figure, if the preset has one."""
    if not preset.book_accuracy:
        return []
    pct = "{:.1%}".format
    best = table.loc[table["top1"].idxmax()]
    text = (f"**Ours:** {pct(best['top1'])} with the {best['model']} network on the {best['encoder']} "
            f"encoder, {best['top1'] / preset.book_accuracy:.2f} times the book's {preset.book_accuracy:.2%}.")
    if teacher and teacher["teacher"] > 0:
        text += (f" The teacher repeats its own move {pct(teacher['teacher'])} of the time, so the network "
                 f"reaches {best['top1'] / teacher['teacher']:.0%} of what imitating this teacher allows.")
        if teacher["teacher"] < 2 * preset.book_accuracy:
            text += (f" Twice the book ({2 * preset.book_accuracy:.2%}) is beyond even that ceiling: it "
                     "would take a more consistent teacher (more rounds per move), not a better network.")
    return ["", text]
