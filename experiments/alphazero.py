"""The shared AlphaZero experiment: train (resumable), report, play a final match.

Each ``experiments/alphazero_<game>.py`` describes its run as an
:class:`Experiment` (the game, its :class:`AlphaZeroConfig`, how many
iterations, the opponent of the final match, an optional extra check) and calls
:func:`run`, which parses the common options, trains in ``--work`` (a killed run
continues where it stopped), plays the final match in worker processes (its
``games.csv`` also resumes), and writes ``history.csv``, ``learning_curve.png``
and ``summary.md`` to ``--out``.
"""
from __future__ import annotations

import argparse
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from dlgo.formats.atomic import atomic_write
from engines.registry import ENGINES
from engines.neural.alphazero_config import AlphaZeroConfig


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
    look_for: str = ""              # the summary's closing "What to look for" paragraph (chapter scripts)
    script: str = ""                # the script's name, if not alphazero_<name> (the chapter scripts)
    folder: str = ""                # reports/<folder> and data/<folder>, if not alphazero-<name>

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


def parser_for(experiment: Experiment, doc: str) -> argparse.ArgumentParser:
    slug = experiment.slug
    parser = argparse.ArgumentParser(prog=f"python experiments/{experiment.script_name}.py",
                                     description=doc.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=doc)
    parser.add_argument("--iterations", type=int, default=experiment.iterations,
                        help=f"training iterations (default {experiment.iterations}); more continues a finished run")
    parser.add_argument("--simulations", type=int, default=experiment.match_simulations,
                        help=f"network simulations per move after training (default {experiment.match_simulations})")
    parser.add_argument("--games", type=int, default=experiment.match_games,
                        help=f"games of the final match (default {experiment.match_games})")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes for self-play and the final match (default: one per core)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--out", default=f"reports/{slug}", help=f"report folder (default reports/{slug})")
    parser.add_argument("--work", default=f"data/{slug}", help=f"run folder, resumable (default data/{slug})")
    parser.add_argument("--ship", default=None,
                        help=f"copy the final network here, e.g. checkpoints/{experiment.name}.keras")
    parser.add_argument("--quick", action="store_true", help="tiny settings: runs in seconds")
    return parser


def _search_budget(config: AlphaZeroConfig) -> str:
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


def run(experiment: Experiment, argv: list[str] | None, doc: str) -> int:
    """Train, evaluate and report one experiment; returns the exit status."""
    args = parser_for(experiment, doc).parse_args(argv)
    from engines.neural.alphazero_training import plot_history, train_alphazero

    config = quick_config(experiment.game, args.seed) if args.quick else experiment.config(args.seed)
    if args.quick:
        args.iterations, args.simulations, args.games = 2, 4, 2
    out, work = Path(args.out), Path(args.work)
    out.mkdir(parents=True, exist_ok=True)
    workers = args.workers or os.cpu_count() or 1
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
    command = (f"python experiments/{experiment.script_name}.py{' --quick' if args.quick else ''} "
               f"--iterations {args.iterations} --seed {args.seed} --workers {workers}")
    seconds = history["seconds"].sum()  # over all iterations, resumed runs included
    last = history.iloc[-1]
    lines = [f"# {experiment.title}", "", f"Reproduce: `{command}`", "",
             f"{len(history)} iterations of {config.games} self-play games ({_search_budget(config)}), "
             f"a {config.blocks}-block, {config.filters}-filter ResNet, {config.train_steps} batches of "
             f"{config.batch_size} per iteration from a replay buffer of the last {config.buffer_games} games: "
             f"**{seconds / 60:.1f} minutes** of training (self-play, learning and the per-iteration scores) on "
             f"this machine, with self-play in {_processes(history)}.", ""]
    console = []
    if experiment.opponent:
        match_lines, score = _final_match(experiment, agent, args, out / "match")
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
              f"{last['value_loss']:.3f}); Elo {last['elo']:+.0f} over the untrained network (each iteration "
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
        lines += ["## What to look for", "", experiment.look_for.strip(), ""]
    with atomic_write(out / "summary.md") as handle:
        handle.write("\n".join(lines))
    for line in console:
        print(line)
    print(f"report: {out}/summary.md")
    return 0


def _processes(history) -> str:
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


def _final_match(experiment: Experiment, agent: str, args, folder: Path) -> tuple[list[str], float]:
    """The trained network against the experiment's opponent, colours alternating."""
    from dlgo.arena.tournament import play_games, schedule

    tasks = schedule([agent, experiment.opponent], args.games, args.seed)
    records = play_games(ENGINES, folder, experiment.game, tasks, opening_plies=0, workers=args.workers)
    records = [r for r in records if {r.black, r.white} == {agent, experiment.opponent}]
    lines = [f"## Against {experiment.opponent}", "",
             f"The final network with {args.simulations} simulations per move against `{experiment.opponent}`, "
             f"{len(records)} games, colours alternating (games in `match/games.csv`):", "",
             "| the network plays | games | won | drawn | lost | score |", "|---|---:|---:|---:|---:|---:|"]
    for side, games in (("black (first)", [r for r in records if r.black == agent]),
                        ("white", [r for r in records if r.white == agent]), ("both", records)):
        wins = sum(r.score_for(agent) == 1 for r in games)
        draws = sum(r.score_for(agent) == 0.5 for r in games)
        score = sum(r.score_for(agent) for r in games) / max(1, len(games))
        bold = "**" if side == "both" else ""
        lines.append(f"| {side} | {len(games)} | {wins} | {draws} | {len(games) - wins - draws} | "
                     f"{bold}{score:.1%}{bold} |")
    return lines + [""], score
