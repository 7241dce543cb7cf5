"""AlphaZero runs (chapter 14, ``experiments/headline/alphazero_*.py``): a resumable
training run, a final match and its report.

A script describes its run as an :class:`Experiment` (the game, its
AlphaZeroConfig, how many iterations, the opponent of the final match, an
optional extra check) and calls :func:`run_alphazero`, which parses the common
options, trains in --work (a killed run continues where it stopped), plays the
final match in worker processes (its games.csv also resumes), and writes
history.csv, learning_curve.png and summary.md to --out. A script with two
runs of one experiment (a chapter and the suite's full run) hands it its
presets, chosen by ``--preset``. TensorFlow loads only inside :func:`train`.
Imports :mod:`~experiments.shared.chapters`.
"""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping

import pandas as pd

from dlgo.arena.tournament import play_games, schedule
from dlgo.core.arguments import count
from dlgo.formats.records import game_facts, score_in
from dlgo.storage.atomic import atomic_copy, atomic_write
from dlgo.storage.facts import update_facts
from engines.registry import ENGINES
from engines.training.alphazero_config import AlphaZeroConfig
from engines.training.run_folder import iteration_checkpoint
from experiments.shared.chapters import (add_preset_option, chosen_preset, command, course_spec, parser, take_folders,
                                         write_lines)


@dataclass
class Experiment:
    """One game's AlphaZero run and how it is judged."""

    name: str                       # the game's short name: checkpoints/<name>.keras, reports/alphazero-<name>
    game: str                       # the game spec, e.g. go:size=5
    title: str
    config: Callable[[int], AlphaZeroConfig]  # seed -> the run's settings
    iterations: int
    script: str                     # the script's __file__
    opponent: str | None = None     # final match: the network against this engine
    match_games: int = 100
    match_simulations: int = 200
    target: float | None = None     # the final match score the run aims for
    # extra check on the trained agent: (agent spec, simulations) -> (summary lines, console lines, facts)
    check: Callable[[str, int], tuple[list[str], list[str], dict[str, Any]]] | None = None
    note: str = ""                  # a paragraph for the summary's training section
    # more results after the match: (final checkpoint, --out, the parsed options) -> summary lines
    extra: Callable[[Path, Path, argparse.Namespace], list[str]] | None = None
    # the summary's closing "What to look for" paragraph (chapter scripts): text, or text made from the history
    look_for: str | Callable[[pd.DataFrame], str] = ""
    folder: str = ""                # runs/<folder> and data/<folder>, if not alphazero-<name>
    # what the run needs made before it starts: (the parsed options) -> changes to its settings (AlphaGo
    # Zero's supervised start: {"init": its path}; solved reference positions: {"reference_file": ...})
    prepare: Callable[[argparse.Namespace], dict[str, Any]] | None = None
    options: Callable[[argparse.ArgumentParser], None] | None = None  # the script's own options
    quick_opponent: str | None = None  # the final match's opponent with --quick, if not ``opponent``
    quick_iterations: int = 2          # iterations with --quick
    about: str = ""                    # what this run is, for --preset's help (a script with presets)

    @property
    def slug(self) -> str:
        return self.folder or f"alphazero-{self.name}"


def quick_config(game: str, seed: int, like: AlphaZeroConfig | None = None) -> AlphaZeroConfig:
    """Tiny settings that run any game's pipeline in seconds (``--quick``, tests),
    with the economies of the run ``like`` (its search, targets, exploration, heads, window and
    publishing), so a quick run takes the same paths as the full one."""
    tiny = AlphaZeroConfig(game=game, blocks=1, filters=8, games=4, parallel=4, simulations=8, train_steps=3,
                           batch_size=32, eval_games=2, eval_simulations=4, previous_games=2, baselines=["random"],
                           seed=seed)
    if like is None:
        return tiny
    return replace(tiny, gumbel=like.gumbel, forced_playouts=like.forced_playouts, auxiliary=list(like.auxiliary),
                   search_value_weight=like.search_value_weight, window_alpha=like.window_alpha,
                   sample_reuse=like.sample_reuse, precision=like.precision, publish=like.publish,
                   publish_margin=like.publish_margin, gate_pairs=min(like.gate_pairs, 2), gate_elo1=like.gate_elo1,
                   gate_every=like.gate_every, gate_opening_plies=like.gate_opening_plies,
                   reference_positions=min(like.reference_positions, 2),
                   fast_simulations=min(like.fast_simulations, 2), full_fraction=like.full_fraction,
                   merge_positions=like.merge_positions, temperature_moves=like.temperature_moves,
                   temperature_floor=like.temperature_floor, temperature_decay_moves=like.temperature_decay_moves,
                   policy_filters=like.policy_filters, value_filters=like.value_filters,
                   opening_moves=like.opening_moves)


def alphazero_parser(experiment: Experiment, doc: str, presets: Mapping[str, Experiment] | None = None
                     ) -> argparse.ArgumentParser:
    """An AlphaZero script's command line, its defaults taken from ``experiment``
    (one of the script's ``presets``, if it has more than one run)."""
    p = parser(experiment.script, doc, name=experiment.slug, work="the training run's folder, resumable")
    if presets and len(presets) > 1:
        add_preset_option(p, {name: preset.about for name, preset in presets.items()})
    p.add_argument("--iterations", type=count("steps"), default=experiment.iterations,
                   help=f"training iterations (default {experiment.iterations}); more continues a finished run")
    p.add_argument("--simulations", type=count("simulations"), default=experiment.match_simulations,
                   help=f"network simulations per move after training (default {experiment.match_simulations})")
    p.add_argument("--games", type=count("games"), default=experiment.match_games,
                   help=f"games of the final match (default {experiment.match_games})")
    p.add_argument("--workers", type=count("processes"), default=None,
                   help="processes for self-play and the final match (default: one per core)")
    p.add_argument("--ship", default=None,
                   help=f"copy the final network here, e.g. checkpoints/{experiment.name}.keras")
    if experiment.options:
        experiment.options(p)
    return p


def search_budget(config: AlphaZeroConfig) -> str:
    """The self-play search in words, with the economies the run uses: Gumbel search or
    forced playouts, playout-cap randomisation, mixed value targets and auxiliary targets."""
    if not config.fast_simulations:
        words = f"{config.simulations} simulations per move"
    else:
        words = (f"{config.full_fraction:.0%} of the moves searched with {config.simulations} simulations and kept "
                 f"as examples, the rest played after {config.fast_simulations} simulations: playout-cap "
                 "randomisation")
    if config.gumbel:
        words += f", Gumbel AlphaZero's search over {config.gumbel} root moves with its improved policy as the target"
    elif config.forced_playouts:
        words += f", forced playouts and policy target pruning (k = {config.forced_playouts:g})"
    if config.search_value_weight:
        words += (f"; value targets {1 - config.search_value_weight:g} x the game's result + "
                  f"{config.search_value_weight:g} x the root's search value")
    if config.auxiliary:
        words += f"; auxiliary targets: {', '.join(config.auxiliary)} (weight {config.auxiliary_weight:g} each)"
    return words


def run_alphazero(experiments: Experiment | Mapping[str, Experiment], argv: list[str] | None, doc: str) -> int:
    """Train, evaluate and report one experiment (or the one of the script's
    presets that ``--preset`` names); returns the exit status."""
    presets = experiments if isinstance(experiments, Mapping) else {"": experiments}
    preset = chosen_preset(list(presets), argv)
    args = alphazero_parser(presets[preset], doc, presets).parse_args(argv)
    experiment, config = settle(presets[preset], args)
    out = Path(args.out)
    workers = args.workers or os.cpu_count() or 1
    history, checkpoint = train(experiment, config, args, workers)
    agent = config.engine_spec(checkpoint, args.simulations)
    command_line = command(experiment.script, argv,
                           {"--iterations": args.iterations, "--seed": args.seed, "--workers": workers},
                           preset=preset if preset != next(iter(presets)) else None)
    lines = introduction(experiment.title, command_line, config, history)
    results, console, checked = judge(experiment, agent, checkpoint, args, out)
    lines += [*results, *training_section(history, config, experiment.note), *closing(experiment, history)]
    write_lines(out / "summary.md", lines)
    update_facts(out, {**run_facts(out), **checked})
    for line in console:
        print(line)
    print(f"report: {out}/summary.md")
    return 0


def settle(experiment: Experiment, args: argparse.Namespace) -> tuple[Experiment, AlphaZeroConfig]:
    """The run's settings: the experiment's, or tiny ones with ``--quick`` (which
    also shortens ``args``' run and final match). Once they are checked the run's
    folders are taken (:func:`~experiments.shared.chapters.take_folders`), before
    the experiment's ``prepare`` writes what the run starts from."""
    config = quick_config(experiment.game, args.seed, experiment.config(args.seed)) if args.quick else \
        experiment.config(args.seed)
    if args.quick:
        args.iterations, args.simulations, args.games = experiment.quick_iterations, 4, 2
        experiment = replace(experiment, opponent=experiment.quick_opponent or experiment.opponent)
    config = replace(config, baselines=[course_spec(b, experiment.game) for b in config.baselines])
    if experiment.opponent:
        experiment = replace(experiment, opponent=course_spec(experiment.opponent, experiment.game))
    take_folders(args)
    if experiment.prepare:
        config = replace(config, **experiment.prepare(args))
    return experiment, config


def train(experiment: Experiment, config: AlphaZeroConfig, args: argparse.Namespace, workers: int
          ) -> tuple[pd.DataFrame, Path]:
    """Train (or go on training) in --work up to ``args.iterations``; copy the
    published network (the last, or the best by the run's fixed reference) to --ship if asked; write ``history.csv`` and
    ``learning_curve.png`` to --out. Returns the history and the final checkpoint."""
    from engines.training.alphazero import plot_history, train_alphazero  # loads TensorFlow

    out, work = Path(args.out), Path(args.work)
    history = train_alphazero(work, config, args.iterations, workers=workers)
    history = history[history["iteration"] <= args.iterations]
    checkpoint = iteration_checkpoint(work, published_iteration(history))
    if args.ship:
        atomic_copy(checkpoint, args.ship)
    with atomic_write(out / "history.csv") as handle:
        history.to_csv(handle, index=False)
    plot_history(history, out / "learning_curve.png", experiment.title)
    return history, checkpoint


def published_iteration(history: pd.DataFrame) -> int:
    """The iteration whose network the run published at its last row (the last
    one, unless the run publishes its best by a fixed reference)."""
    last = history.iloc[-1]
    return int(last["published"]) if "published" in history and pd.notna(last["published"]) else int(last["iteration"])


def introduction(title: str, command_line: str, config: AlphaZeroConfig, history: pd.DataFrame) -> list[str]:
    """The summary's title, its reproducing command and what the training did, in one paragraph."""
    seconds = history["seconds"].sum()  # over all iterations, resumed runs included
    trained = int((history["iteration"] > 0).sum())  # row 0, when there is one, is the start measured
    return [f"# {title}", "", f"Reproduce: `{command_line}`", "",
            f"{trained} iterations of {config.games} self-play games ({search_budget(config)}), "
            + (f"a {config.blocks}-block, {config.filters}-filter ResNet" if not config.init else
               f"the network of `{config.init}` (its own shape"
               + (", with fresh auxiliary heads)" if config.auxiliary else ")"))
            + f", {config.train_steps} batches of "
            f"{config.batch_size} per iteration from a replay buffer of the last {config.buffer_games} games"
            + (f" (the places self-play had not filled yet held the first games of `{config.teacher_games}`, "
               "the teacher's moves as policies)" if config.teacher_games else "") + ": "
            f"**{seconds / 60:.1f} minutes** of training (self-play, learning and the per-iteration scores) on "
            f"this machine{devices(history)}, with self-play in {self_play_processes(history)}.", "",
            *published_words(config, history)]


def published_words(config: AlphaZeroConfig, history: pd.DataFrame) -> list[str]:
    """With ``publish best`` or ``gate``: which iteration's network the run published, and by what."""
    if config.publish == "gate":
        published = published_iteration(history)
        gates = history["gate_accepted"].notna().sum() if "gate_accepted" in history else 0
        accepted = int((history["gate_accepted"] == 1).sum()) if "gate_accepted" in history else 0
        which = "the start, before any self-play" if published == 0 else f"iteration {published}'s"
        return [f"The run publishes by gates: a new network replaces the published one only where colour-swapped "
                f"pairs ({config.eval_simulations} simulations a move, at most {config.gate_pairs} pairs) make the "
                f"SPRT accept that it gains {config.gate_elo1:g} Elo; {accepted} of {gates} gates did. It published "
                f"{which} network; the matches below play it.", ""]
    if config.publish != "best":
        return []
    where = Path(config.reference_file or ".").resolve()
    shown = os.path.relpath(where) if where.is_relative_to(Path.cwd().resolve()) else config.reference_file
    sets = f"solved positions of `{shown}`" if config.reference_file else "early-game solved positions"
    reference = (f"fewest mistakes on {int(history['reference_positions'].iloc[-1])} critical {sets}"
                 if config.reference_positions else f"best score against `{config.baselines[0]}`")
    published = published_iteration(history)
    which = "the start, before any self-play" if published == 0 else f"iteration {published}'s"
    period = config.reference_every if config.reference_positions else config.baseline_every
    every = "every iteration" if period == 1 else f"every {period} iterations"
    return [f"The run publishes its best network by a fixed reference ({reference}, {config.eval_simulations} "
            f"simulations a move, measured {every} and for the start): here {which}; the matches below play it.",
            ""]


def devices(history: pd.DataFrame) -> str:
    """Where the networks ran, as the history recorded it (`` (CPU)``), or nothing for rows from before."""
    used = sorted(set(history["device"].dropna())) if "device" in history else []
    return f" ({', '.join(used)})" if used else ""


def judge(experiment: Experiment, agent: str, checkpoint: Path, args: argparse.Namespace, out: Path
          ) -> tuple[list[str], list[str], dict[str, Any]]:
    """The trained network judged: the final match against the experiment's
    opponent (and its target), the experiment's check and its extra results.
    Returns (the summary's lines, the console's, the check's facts)."""
    lines: list[str] = []
    console: list[str] = []
    facts: dict[str, Any] = {}
    if experiment.opponent:
        match_lines, score = final_match(experiment.game, agent, experiment.opponent, args, out / "match")
        lines += match_lines
        if experiment.target is not None:
            verdict = "met" if score >= experiment.target else "**not met**"
            lines += [f"Target: a score of at least {experiment.target:.0%}: {verdict}.", ""]
        console.append(f"network ({args.simulations} simulations) against {experiment.opponent}: {score:.1%}")
    if experiment.check:
        check_lines, check_console, facts = experiment.check(f"{agent},reuse=false", args.simulations)
        lines += check_lines
        console += check_console
    if experiment.extra:
        lines += experiment.extra(checkpoint, out, args)
    return lines, console, facts


def run_facts(out: Path) -> dict[str, Any]:
    """A run's headline facts (:mod:`dlgo.storage.facts`), from its ``history.csv`` and match
    folders: ``history`` (iterations, seconds, the last Elo and published iteration, the losses
    first and last, each fixed opponent's mean score over the first and the last third of the
    iterations that played it) and ``matches`` (each ``match*`` folder: its network, opponent, score
    and games, and the score by colour)."""
    history = pd.read_csv(out / "history.csv")
    fixed = {}
    for column in (c for c in history.columns if c.startswith("score_vs_") and c != "score_vs_previous"):
        measured = history.dropna(subset=[column])
        third = len(measured) // 3
        if third:
            fixed[column.removeprefix("score_vs_")] = {
                part: [float(rows[column].mean()), int(rows.iteration.iloc[0]), int(rows.iteration.iloc[-1])]
                for part, rows in (("early", measured.iloc[:third]), ("late", measured.iloc[len(measured) - third:]))}
    losses = {name: [float(history[name].iloc[0]), float(history[name].iloc[-1])]
              for name in ("policy_loss", "value_loss") if name in history}
    facts: dict[str, Any] = {"history": {
        "iterations": len(history), "trained_iterations": int((history.iteration > 0).sum()),
        "seconds": float(history.seconds.sum()), "elo": float(history.elo.iloc[-1]),
        "published": published_iteration(history), **losses, "fixed_opponents": fixed}}
    folders = sorted(path for path in out.glob("match*") if (path / "games.csv").exists())
    if folders and folders[0].name == "match":
        facts["matches"] = match_facts(folders)
    return facts


def match_facts(folders: list[Path]) -> dict[str, dict[str, Any]]:
    """Each match folder's network (in ``match``, the network of its last game: it keeps the games of
    networks published before; elsewhere, whoever played ``match``'s opponent), its score and games."""
    facts: dict[str, dict[str, Any]] = {}
    opponent = ""
    for folder in folders:
        games = game_facts(folder)
        if folder.name == "match":
            network = next(spec for spec in games["last"] if spec.split(":")[0] in ("alphazero", "gumbel"))
            opponent = next(spec for spec in games["last"] if spec != network)
        else:
            network = next(spec for spec in games["last"] if spec != opponent)
        score, played = score_in(games, network)
        facts[folder.name] = {"network": network, "opponent": opponent, "games": played, "score": score,
                              **{colour: score_in(games, network, colour=colour)[0] for colour in ("black", "white")}}
    return facts


def training_section(history: pd.DataFrame, config: AlphaZeroConfig, note: str) -> list[str]:
    """``## Training``: the last iteration's losses and Elo, the experiment's note, and (at
    most about ten) iterations' scores against the previous network and the baselines, or
    their mistakes on the fixed references."""
    last = history.iloc[-1]
    elo = "" if not config.previous_games else (
        f"; Elo {last['elo']:+.0f} over " + ("the network it started from" if config.init else "the untrained network")
        + f" (each iteration plays the one before it {config.previous_games} times with {config.eval_simulations} "
          "simulations per move; the Elo differences add up)")
    lines = ["## Training", "",
             f"Last iteration: loss {last['loss']:.3f} (policy {last['policy_loss']:.3f}, value "
             f"{last['value_loss']:.3f}){elo}.", "", *([note, ""] if note else [])]
    previous = bool(config.previous_games)  # without it: no Elo, no score against the previous network
    scores = [c for c in history.columns if c.startswith("score_vs_") and (previous or c != "score_vs_previous")]
    if scores:
        against = (f"the previous network ({config.previous_games} games) and " if previous else "") + \
            f"the baselines ({config.eval_games} games each)"
        lines += [f"Scores by iteration, against {against}, {config.eval_simulations} simulations per move:", "",
                  "| iteration | " + ("elo | " if previous else "") + " | ".join(c.removeprefix("score_vs_")
                                                                            for c in scores) + " | minutes |",
                  "|---:|" + ("---:|" if previous else "") + "---:|" * len(scores) + "---:|"]
        for _, row in some_rows(history.dropna(subset=scores)).iterrows():  # iterations that played the baselines
            lines.append(f"| {int(row['iteration'])} | " + (f"{row['elo']:+.0f} | " if previous else "")
                         + " | ".join(f"{row[c]:.0%}" for c in scores) + f" | {row['seconds'] / 60:.1f} |")
    if "mistakes_search" in history:
        lines += [*([""] if scores else []),
                  f"Mistakes on the fixed references by iteration (critical solved positions; "
                  f"raw policy and {config.eval_simulations} simulations a move), and the training minutes so far:", "",
                  "| iteration | positions | raw | search | minutes |", "|---:|---:|---:|---:|---:|"]
        minutes = history["seconds"].cumsum() / 60
        for index, row in some_rows(history.dropna(subset=["mistakes_search"])).iterrows():
            lines.append(f"| {int(row['iteration'])} | {int(row['reference_positions'])} | {row['mistakes_raw']:.1%} "
                         f"| {row['mistakes_search']:.1%} | {minutes[index]:.0f} |")
    return lines


def some_rows(rows: pd.DataFrame, about: int = 10) -> pd.DataFrame:
    """About ``about`` of ``rows``, evenly spaced, the last always among them."""
    step = max(1, len(rows) // about)
    return rows.iloc[::-1][::step][::-1]


def closing(experiment: Experiment, history: pd.DataFrame) -> list[str]:
    """The learning curve and, for a chapter, what to look for."""
    lines = ["", "![learning curve](learning_curve.png)", ""]
    if experiment.look_for:
        look_for = experiment.look_for if isinstance(experiment.look_for, str) else experiment.look_for(history)
        lines += ["## What to look for", "", look_for.strip(), ""]
    return lines


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


def final_match(game: str, agent: str, opponent: str, args: argparse.Namespace, folder: Path
                ) -> tuple[list[str], float]:
    """The trained network (``agent``) against ``opponent``, colours alternating,
    ``args.games`` games in ``folder`` (resumable); returns the summary's lines and the network's score."""
    tasks = schedule([agent, opponent], args.games, args.seed)
    records = play_games(ENGINES, folder, game, tasks, opening_plies=0, workers=args.workers)
    records = [r for r in records if {r.black, r.white} == {agent, opponent}]
    lines = [f"## Against {opponent}", "",
             f"The published network with {args.simulations} simulations per move of the search it learnt with "
             f"(`{agent.split(':')[0]}`) against `{opponent}`, "
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
