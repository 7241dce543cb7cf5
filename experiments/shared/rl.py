"""Learning by playing (chapters 9-12): a chapter's run trains in --work/run by
generations (resumable: rerun the same command), then the last network plays
--final-games games against each opponent and against its own starting
network, in --work/final/ (resumable too), and the chapter writes history.csv,
learning_curve.png, final.csv, a game and summary.md to --out. TensorFlow loads
only inside :func:`learn`. Imports :mod:`~experiments.shared.chapters`.
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import pandas as pd

from dlgo.arena.match import Task
from dlgo.arena.ratings import wilson_interval
from dlgo.arena.tournament import play_games, task_seed
from dlgo.core.arguments import count
from dlgo.core.errors import DlgoError
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.formats.records import GameRecord
from dlgo.games import get_game
from engines.registry import ENGINES
from engines.training.rl_config import RLConfig
from experiments.shared.chapters import (check_engines, command, course_spec, draw_game, parser, score_against,
                                         take_folders, write_summary)

#: how final.csv names the run's own starting network among the opponents
START = "its starting network"


@dataclass
class RLChapter:
    """One chapter's reinforcement-learning run and how it is judged."""

    script: str                     # the script's __file__; runs/<its name>, data/<its name>
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
    p = parser(chapter.script, doc, work="the training run's folder, resumable")
    p.add_argument("--game", default="connect4", help="the game (default connect4; try go:size=9)")
    p.add_argument("--generations", type=count("steps"), default=chapter.generations,
                   help=f"generations of self-play and learning (default {chapter.generations}); more continues "
                        "a finished run")
    p.add_argument("--final-games", type=count("games"), default=chapter.final_games,
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
    config, opponents = settle(chapter, args)
    take_folders(args)
    out, run = Path(args.out), Path(args.work) / "run"
    history = learn(chapter, config, args.generations, run, out)
    agent = config.player(run / "current.keras", exploring=False)
    start = config.player(run / "checkpoints" / "gen-000.keras", exploring=False)
    table, records = judge(agent, opponents, start, args, out)
    body = [chapter.about, "", run_description(config), "", *training_lines(chapter, config, history), "",
            *final_lines(chapter.method, table, args.final_games), "",
            *game_lines(chapter.method, agent, opponents[-1], records, out)]
    if extra is not None:
        body += extra(args, out)
    body += ["Play it yourself:", "", f"    dlgo play --game {args.game} --black human --white {agent}"]
    look_for = rl_findings(history, table) + "\n\n" + chapter.look_for
    summary = write_summary(out, chapter.title, command(chapter.script, argv), body, look_for)
    update_facts(out, facts(out))
    print(table.to_string(index=False))
    print(f"report: {summary}")
    return 0


def facts(out: Path) -> dict[str, Any]:
    """A chapter's headline facts (:mod:`dlgo.storage.facts`): ``training`` (generations, seconds,
    whether it sparred), ``final`` (score by opponent, from ``final.csv``) and, for chapter 10,
    ``finetune`` (the fine-tuned network against its predictor: score, games, interval)."""
    history = pd.read_csv(out / "history.csv")
    final = pd.read_csv(out / "final.csv")
    facts: dict[str, Any] = {
        "training": {"generations": len(history), "seconds": float(history.seconds.sum()),
                     "sparring": "--sparring" in (out / "summary.md").read_text()},
        "final": {row.opponent: float(row.score) for row in final.itertuples()}}
    if (out / "finetune.csv").exists():
        row = pd.read_csv(out / "finetune.csv").iloc[0]
        facts["finetune"] = {"score": float(row.score), "games": int(row.games), "low": float(row.low),
                             "high": float(row.high)}
    return facts


def settle(chapter: RLChapter, args: argparse.Namespace) -> tuple[RLConfig, list[str]]:
    """The run's settings and the opponents of its final games: those of the
    command line, or tiny ones with ``--quick`` (which also shortens ``args``' run)."""
    settings = {name: getattr(args, name) for name in rl_settings(RLConfig())}
    if args.quick:
        settings = rl_quick_settings()
        args.generations, args.final_games = 2, 4
    if settings.get("sparring"):
        settings["sparring"] = [course_spec(spec, args.game) for spec in settings["sparring"]]
    config = RLConfig(**settings, method=chapter.method, game=args.game, seed=args.seed)
    opponents = [course_spec(o, args.game) for o in args.opponents.split(",") if o]
    check_engines(opponents, args.game)
    return config, opponents[:1] if args.quick else opponents


def learn(chapter: RLChapter, config: RLConfig, generations: int, run: Path, out: Path) -> pd.DataFrame:
    """Step 1: train (or go on training) in ``run`` up to ``generations``; write
    ``history.csv`` and ``learning_curve.png`` to ``out``. Returns the history."""
    from engines.training.rl import plot_rl_history, train_rl  # loads TensorFlow

    print(f"1. learn: {generations} generations of {config.games} self-play games"
          f"{f' and {config.sparring_games} sparring games' if config.sparring else ''} -> {run}", flush=True)
    history = train_rl(run, config, generations)
    with atomic_write(out / "history.csv") as handle:
        history.to_csv(handle, index=False)
    plot_rl_history(history, out / "learning_curve.png", f"{chapter.method} on {config.game}", config.baseline_games)
    return history


def judge(agent: str, opponents: list[str], start: str, args: argparse.Namespace, out: Path
          ) -> tuple[pd.DataFrame, list[GameRecord]]:
    """Step 2: the last network against each opponent and its own start, in
    --work/final; writes ``final.csv``. Returns its table and the games."""
    print(f"2. judge: {agent} against {', '.join(opponents)} and its start, {args.final_games} games each",
          flush=True)
    table, records = final_scores(agent, [*opponents, start], args.game, args.final_games, Path(args.work) / "final",
                                  seed=args.seed)
    table["opponent"] = [*opponents, START]
    with atomic_write(out / "final.csv") as handle:
        table.to_csv(handle, index=False)
    return table, records


def training_lines(chapter: RLChapter, config: RLConfig, history: pd.DataFrame) -> list[str]:
    """The summary's paragraph on the training (games, moves learnt from, time,
    settings) and the learning curve."""
    minutes = history["seconds"].sum() / 60
    mirrored = ", each also under the board's symmetries" if config.symmetries else ""
    sparring = f" and {config.sparring_games} against each of {', '.join(f'`{e}`' for e in config.sparring)}" \
        if config.sparring else ""
    return [f"**Training**: {len(history)} generations of {config.games} self-play games each{sparring} "
            f"({learnt_moves(history, config):,} moves learned from{mirrored}), {minutes:.0f} minutes of wall time "
            "on this 2-core machine. "
            f"Settings: `{settings_text(config)}`.", "",
            "![learning curve](learning_curve.png)"]


def final_lines(method: str, table: pd.DataFrame, games: int) -> list[str]:
    """The last network's scores against each opponent, as a table."""
    lines = [f"**The last network** (`{method}`, greedy, no search) against each opponent, "
             f"{games} games, colours alternating after two random opening plies:", "",
             "| opponent | score | 95% interval | games |", "|---|---:|---:|---:|"]
    for row in table.itertuples():
        lines.append(f"| {row.opponent if row.opponent == START else f'`{row.opponent}`'} | "
                     f"{row.score:.1%} | {row.low:.0%} to {row.high:.0%} | {row.games} |")
    return lines


def game_lines(method: str, agent: str, strongest: str, records: list[GameRecord], out: Path) -> list[str]:
    """One game of the last network against its strongest opponent (a win if it
    has one), drawn to ``out``."""
    games = sorted((r for r in records if strongest in (r.black, r.white)), key=lambda r: -r.score_for(agent))
    game = games[0]
    return [f"One game against `{strongest}`:", "",
            *draw_game(game, out, "game", f"{method} vs {strongest}: {game.result}")]


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
