"""The supervised move-predictor experiment (the book's chapters 6-8), shared by
``supervised_go9.py`` and ``supervised_connect4.py``.

Steps, each resumable (rerun the same command after a kill and it goes on):

1. **generate**: the teacher engine plays itself (``dlgo generate``);
2. **train**: each (model, encoder) of the preset on the same games (``dlgo train-supervised``);
3. **evaluate**: top-1/top-5 accuracy on held-out games, the uniform baselines
   and the teacher's agreement with itself;
4. **play**: the best predictor (by test accuracy) in a round-robin against
   random and an MCTS ladder.

Writes to ``--out``: ``accuracy.csv``, ``learning_curve.png`` (and one per run),
the round-robin in ``tournament/`` (games, ratings, plots), and ``summary.md`` with
the book's figure next to ours. Data and models go to ``--work``.
"""
from __future__ import annotations

import argparse
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from dlgo.formats.records import GameRecord
from dlgo.arena.report import write_report
from dlgo.arena.tournament import run_tournament
from dlgo.formats.atomic import atomic_write
from dlgo.data.dataset import encode_dataset
from dlgo.data.generate import generate_games
from engines.registry import ENGINES


@dataclass
class Preset:
    """One experiment's settings (the defaults of its script)."""

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



def parse_args(preset: Preset, argv: list[str] | None, doc: str, script: str | None = None) -> argparse.Namespace:
    """The experiment's command line (``script``: the chapter script's ``__file__``, for its name in --help)."""
    from experiments.chapter import parser as chapter_parser

    parser = chapter_parser(script or f"{preset.name.replace('-', '_')}.py", doc, out=f"reports/{preset.name}")
    parser.add_argument("--games", type=int, default=preset.games, help=f"self-play games (default {preset.games})")
    parser.add_argument("--teacher", default=preset.teacher, help=f"engine making the games (default {preset.teacher})")
    parser.add_argument("--epochs", type=int, default=preset.epochs, help=f"most epochs (default {preset.epochs})")
    if preset.opponents:
        parser.add_argument("--games-per-pair", type=int, default=preset.games_per_pair,
                            help=f"tournament games per pair (default {preset.games_per_pair})")
    parser.add_argument("--teacher-positions", type=int, default=preset.teacher_positions,
                        help=f"positions to measure the teacher's self-agreement on (default {preset.teacher_positions})")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    parser.add_argument("--work", default=f"data/{preset.name}", help="folder for the games and the models")
    return parser.parse_args(argv)


def run(preset: Preset, argv: list[str] | None, doc: str) -> int:
    args = parse_args(preset, argv, doc)
    if args.quick:
        preset = quick_args(preset, args)
    out, work = Path(args.out), Path(args.work)
    table, teacher = generate_and_train(preset, args, out, work)
    best = table.loc[table["top1"].idxmax()]
    predictor, records = play_predictor(preset.game, best["path"], preset.opponents, out / "tournament",
                                        games_per_pair=args.games_per_pair, seed=args.seed,
                                        opening_plies=preset.opening_plies, workers=args.workers)
    scores = {opp: score_against(records, predictor, opp) for opp in preset.opponents}
    write_summary(out / "summary.md", preset, args, table, teacher, predictor, scores)
    print(f"\nreport: {out}/summary.md")
    return 0


def quick_args(preset: Preset, args: argparse.Namespace) -> Preset:
    """Seconds instead of an hour (``--quick``: tests and a first look): the tiny
    preset, with ``args`` set to its settings."""
    preset = replace(preset, teacher=preset.teacher.split(":")[0] + ":rounds=20", games=6,
                     runs=[("tiny", preset.runs[-1][1])], opponents=["random"], games_per_pair=2, epochs=1,
                     teacher_positions=3)
    args.games, args.teacher, args.epochs = preset.games, preset.teacher, preset.epochs
    args.games_per_pair, args.teacher_positions = preset.games_per_pair, preset.teacher_positions
    return preset


def generate_and_train(preset: Preset, args: argparse.Namespace, out: Path, work: Path
                       ) -> tuple[pd.DataFrame, dict]:
    """Steps 1-3: the teacher's games in ``work/games``, each run of the preset
    trained in ``work/runs/<model>-<encoder>`` and evaluated on held-out games.
    Writes ``accuracy.csv``, the learning curves and their histories to ``out``;
    returns the accuracy table (one row per run, with the model's ``path``) and
    the teacher's self-agreement."""
    from dlgo.formats.plotting import plot_learning_curve
    from engines.neural.accuracy import evaluate_predictor, teacher_agreement
    from engines.neural.training import best_epoch, train_supervised

    out.mkdir(parents=True, exist_ok=True)
    data = work / "games"
    print(f"1. generate: {args.games} games of {args.teacher} against itself -> {data}", flush=True)
    generate_games(ENGINES, data, preset.game, args.teacher, args.games, seed=args.seed,
                   opening_plies=preset.opening_plies, workers=args.workers)

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
    write_report(arena, records, title=f"{game}: the move predictor against {', '.join(opponents)}")
    return predictor, records


def score_against(records: list[GameRecord], spec: str, opponent: str) -> tuple[float, int]:
    """(score of ``spec`` against ``opponent``, games) over their games."""
    games = [r for r in records if {r.black, r.white} == {spec, opponent}]
    return (sum(r.score_for(spec) for r in games) / len(games) if games else float("nan")), len(games)


def write_summary(path: Path, preset: Preset, args, table: pd.DataFrame, teacher: dict, predictor: str,
                  scores: dict[str, tuple[float, int]]) -> None:
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
    if teacher:
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
