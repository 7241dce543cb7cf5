"""The recipe's ablation: what keeps AlphaZero from perfect play on boards the solver knows.

    python experiments/headline/recipe_ablation.py            # 5x4 and 6x4, two seeds: hours on 2 cores, resumable
    python experiments/headline/recipe_ablation.py --boards connectn:columns=5,rows=4,n=4 --seeds 0 1 2
    python experiments/headline/recipe_ablation.py --quick    # every step in a few minutes
    python experiments/headline/recipe_ablation.py ... --variants baseline 6x4-4/openings:0   # a variant on one board
    python experiments/headline/recipe_ablation.py ... --ship openings  # each board's best: checkpoints/connect-5x4...

The scaling lab's AlphaZero (:mod:`experiments.headline.scaling`) stopped at 2-7%
mistakes on the critical solved positions of boards the solver plays perfectly
in a second. Its recipe differed from AlphaZero.jl's and from Oracle's Connect
Four series ("Lessons from AlphaZero") in several ways at once; this script
changes one at a time and measures each change on the same positions:

- ``baseline``: the lab's recipe (PUCT with 16 simulations, greedy after 4
  moves, half result and half root value as the value target, heads of 2 and 1
  filters, a constant learning rate, the last network published);
- one variant per hypothesis (:data:`VARIANTS`: exploration with a temperature
  floor, merged positions, the value target, head widths, the learning-rate
  schedule, the buffer, a best-network choice), each changing the baseline in one
  setting, with its source;
- ``recipe``: the changes together; ``recipe-4x64``: the ones that gained, on the
  network its ceiling says can hold the truth (4x64, heads of 32); ``gumbel``: that
  with Gumbel search's improved-policy targets.

Each variant trains one run per seed (``--seeds``) for the board's iterations
from a random network of ``--net``; its networks half way and at the end of the run (and the one it publishes) are
measured on the board's critical solved positions (``--positions`` per set of Pons' six,
sampled the way the lab's are, with a seed of their own) from the raw policy
and after ``--simulations`` simulations. A change is kept when it lowers the
mistakes beyond its 95% interval: the interval of the difference of two
variants' means, from the spread between seeds or the binomial spread of the
positions, whichever is larger (two seeds that happen to agree do not make a
rate surer than its positions allow).

Beside the runs, the network's own ceiling (:func:`train_ceilings`): the runs'
architecture, with the baseline's heads and with wide ones, and a 4x64 network,
trained by supervised learning on solver-labelled positions
(``dlgo train-supervised --target solver``), measured on the same positions.

And why self-play stops above its ceiling (:func:`measure_targets_of`): searching
with one run's half-way network (``--targets-of``), how right the targets are that
PUCT and Gumbel search record at 16 and 64 simulations on the same positions, judged
against the solver (:func:`engines.training.references.measure_targets`).

Writes to ``--out``: ``mistakes.csv`` (every measured network), ``variants.csv``
(per board and variant: the end's mistakes, mean and interval, and the change
against the baseline), ``targets.csv`` (the targets' study),
``mistakes_by_iteration.png`` and ``summary.md``; with ``--unseen``, ``unseen.csv``: each
run judged off the training path (:mod:`experiments.shared.unseen`).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
from tqdm import tqdm

from dlgo.core.arguments import count
from dlgo.core.errors import SpecError
from dlgo.data.solved import generate_positions
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.storage.folders import hold_folder
from dlgo.formats.positions import append_row, open_log
from dlgo.games.registry import get_game
from engines.alphazero import NetworkEvaluator
from engines.checkpoints import SHIPPED
from engines.neural.loading import load_network
from engines.training.solver_data import SolverSettings
from engines.training.alphazero_config import AlphaZeroConfig
from engines.training.references import measure_reference, measure_targets, measure_value_targets, raw_quality
from engines.training.run_folder import iteration_checkpoint
from engines.training.selfplay import MatchSettings
from experiments.shared import chapters
from experiments.shared.connectn import (MAX_CANDIDATES, Net, baseline_config, board_slug, cells, measured_positions,
                                         ship_network)
from experiments.shared.recipe_report import (facts, end_of_runs, percent, plot_runs, summary_lines, target_lines,
                                              unseen_lines, value_target_lines, variant_table)
from experiments.shared.unseen import RUN_COLUMNS as UNSEEN_COLUMNS, judge_runs
from experiments.shared.recipe_variants import (CEILING, CEILING_EPOCHS, LEARN_CANDIDATES, LEARN_SEED,
                                                REFERENCE_PER_SET, VARIANTS, ceiling_name, ceiling_nets, start_network)

NAME = "recipe-ablation"
BOARDS = ["connectn:columns=5,rows=4,n=4", "connectn:columns=6,rows=4,n=4"]
FIRST_ITERATIONS = 64  # the smallest board's iterations; each larger board's runs train twice as long
REFERENCE_SEED = 2     # the best-network choice's positions: other positions than the measured ones

#: the searches whose targets the study compares: (kind, simulations), "network" being the raw policy and value
TARGET_SEARCHES = [("network", 0), ("puct", 16), ("puct", 64), ("gumbel", 16), ("gumbel", 64)]
#: the value targets' study: self-play at these simulations, this many games
VALUE_SIMULATIONS = [16, 64]
VALUE_GAMES = 128
VALUE_COLUMNS = ["board", "variant", "seed", "iteration", "simulations", "games", "target", "positions", "right",
                 "mse"]
#: each run's length and its compute: the seconds of its iterations (self-play, training, measurement), in minutes
RUN_COLUMNS = ["board", "variant", "seed", "iterations", "minutes", "workers", "device"]
TARGET_COLUMNS = ["board", "variant", "seed", "iteration", "search", "simulations", "positions", "policy_mistakes",
                  "mistake_mass", "value_right"]

COLUMNS = ["board", "variant", "seed", "iteration", "published", "simulations", "positions", "mistakes_raw",
           "mistakes_search"]


def build_parser() -> argparse.ArgumentParser:
    p = chapters.parser(__file__, __doc__, name=NAME, work="the training runs and position sets, resumable")
    p.add_argument("--boards", nargs="+", default=BOARDS, metavar="SPEC",
                   help="Connect-N boards the solver solves, smallest first (default 5x4 and 6x4, four in a row)")
    p.add_argument("--variants", nargs="+", default=None, metavar="NAME",
                   help=f"the variants to run, each NAME or NAME:SEED,SEED (its own seeds in place of --seeds), "
                        f"on every board, or BOARD/NAME[:SEED,...] on one board alone (BOARD as the table names it, "
                        f"e.g. 6x4-4) (default all: {' '.join(VARIANTS)}; --quick: baseline and recipe)")
    p.add_argument("--seeds", nargs="+", type=int, default=None, metavar="N",
                   help="seeds of the runs (default --seed and the one after it)")
    p.add_argument("--net", default="2x32", metavar="BLOCKSxFILTERS", help="the network's size (default 2x32)")
    p.add_argument("--iterations", type=count("steps"), nargs="+", default=None, metavar="N",
                   help=f"each run's iterations: one number, or one per board (default {FIRST_ITERATIONS} on the "
                        "smallest board, twice as many on each larger one)")
    p.add_argument("--positions", type=count("positions"), default=1000,
                   help="solved positions per set of the measured sets (default 1000; their critical ones count)")
    p.add_argument("--simulations", type=count("simulations"), default=64,
                   help="the search budget the networks are measured at (default 64)")
    p.add_argument("--targets-of", default="recipe-4x64", metavar="VARIANT",
                   help="the run whose half-way network (first seed) the targets' study searches with, where it "
                        "was trained (default recipe-4x64; --quick: recipe)")
    p.add_argument("--workers", type=count("processes"), default=2,
                   help="processes for self-play and for solving the positions (default 2)")
    p.add_argument("--ceilings", nargs="*", default=None, metavar="BOARD",
                   help="the boards (as the table names them, e.g. 5x4-4) whose network's ceilings are trained "
                        "beside the runs (default every board of --boards; the option alone: none). On 6x5 their "
                        "learning set alone takes an hour of the solver")
    p.add_argument("--unseen", type=count("positions", 0), default=0, metavar="PER_SET",
                   help="also judge each run's published network on solved sets of every depth from uniform and "
                        "strong play, PER_SET a sixth of each (experiments/shared/unseen.py; default 0: not; 100)")
    p.add_argument("--ship", default=None, metavar="VARIANT",
                   help="export each board's network of this variant with the fewest mistakes at search (of its "
                        "seeds' published ones, their runs trained here) to --checkpoints as connect-CxR.keras, "
                        "playable as alphazero:checkpoint=connect-CxR")
    p.add_argument("--checkpoints", default=str(SHIPPED), metavar="DIR",
                   help="where --ship writes (default: the suite's checkpoints/)")
    return p


def settle(args: argparse.Namespace) -> None:
    """The quick run's settings, and every option checked before anything runs."""
    if args.quick:
        args.boards, args.seeds, args.net = BOARDS[:1], [args.seed], "1x8"
        args.iterations, args.positions = [2], 20
    args.variants = args.variants or (["baseline", "recipe"] if args.quick else list(VARIANTS))
    args.targets_of = "recipe" if args.quick else args.targets_of
    args.seeds = args.seeds or [args.seed, args.seed + 1]
    slugs = [board_slug(board) for board in args.boards]
    args.variant_seeds = {}  # (board, variant): its seeds there, its own (NAME:SEED,SEED) or --seeds
    for item in sorted(args.variants, key=lambda item: "/" in item):  # a board's own entry after the general one
        on_board, _, named = item.rpartition("/")
        name, _, own = named.partition(":")
        if on_board and on_board not in slugs:
            raise SpecError(f"--variants {item}: no board {on_board} in --boards (they are {', '.join(slugs)})")
        try:
            seeds = [int(seed) for seed in own.split(",")] if own else list(args.seeds)
        except ValueError:
            raise SpecError(f"--variants {item}: a variant's own seeds are whole numbers, as in "
                            f"{name}:0,1") from None
        if len(set(seeds)) < len(seeds):
            raise SpecError(f"--variants {item} names a seed twice")
        for slug in [on_board] if on_board else slugs:
            args.variant_seeds[slug, name] = seeds
    args.variants = list(dict.fromkeys(name for _, name in args.variant_seeds))
    args.ceilings = slugs if args.ceilings is None else args.ceilings
    strangers = [board for board in args.ceilings if board not in slugs]
    if strangers:
        raise SpecError(f"--ceilings {' '.join(strangers)}: not a board of --boards (they are {', '.join(slugs)})")
    unknown = [v for v in args.variants + [args.targets_of] + ([args.ship] if args.ship else []) if v not in VARIANTS]
    if unknown:
        raise SpecError(f"no variant {', '.join(unknown)}; the variants: {', '.join(VARIANTS)}")
    if args.ship and args.ship not in args.variants:
        raise SpecError(f"--ship {args.ship}: name it in --variants too (its runs are the ones measured)")
    for board in args.boards:
        board_slug(board)
        if get_game(board).solver() is None:
            raise SpecError(f"the solver cannot play {board}: the ablation needs boards it solves")
    if len(set(args.seeds)) < len(args.seeds):
        raise SpecError(f"--seeds names a seed twice: {' '.join(map(str, args.seeds))}")
    if args.iterations and len(args.iterations) not in (1, len(args.boards)):
        raise SpecError(f"--iterations takes one number or one per board ({len(args.boards)}), "
                        f"not {len(args.iterations)}")
    values = args.iterations or []
    given = dict(zip(args.boards, values * len(args.boards) if len(values) == 1 else values))
    args.boards = sorted(args.boards, key=cells)
    args.board_iterations = {b: given.get(b, FIRST_ITERATIONS * 2 ** k) for k, b in enumerate(args.boards)}
    args.net = Net.parse(args.net)
    args.variants = [v for v in VARIANTS if v in args.variants]  # the table's order, the baseline first


def seeds_of(args: argparse.Namespace, board: str, variant: str) -> list[int]:
    """The seeds ``variant`` runs with on ``board`` (its short name, e.g. 5x4-4): none where
    the command does not name it there."""
    return args.variant_seeds.get((board, variant), [])


def run_iterations(args: argparse.Namespace, board: str, variant: str) -> int:
    """The iterations of ``variant``'s runs on ``board``: the board's, times the variant's length."""
    return max(1, round(args.board_iterations[board] * VARIANTS[variant].length))


def run_config(args: argparse.Namespace, board: str, variant: str, seed: int, references: Path) -> AlphaZeroConfig:
    """The settings of one run: the lab's, changed as ``variant`` says."""
    base = baseline_config(board, args.net, seed, args.quick)
    changes = VARIANTS[variant].settings(cells(board), run_iterations(args, board, variant))
    if VARIANTS[variant].continues:
        changes = {**changes, "init": start_network(board, VARIANTS[variant].continues)}
    if changes.get("reference_positions"):
        changes = {**changes, "reference_file": str(references),
                   "reference_positions": 5 if args.quick else changes["reference_positions"]}
    return replace(base, **changes)


def measured_iterations(last: int) -> list[int]:
    """The iterations whose networks are measured: half way and the end of the run
    (a minute each on 2 cores for 3,000 positions at 64 simulations)."""
    return sorted({max(1, last // 2), last})


def position_sets(args: argparse.Namespace, board: str, work: Path) -> tuple[list, Path]:
    """The board's measured critical positions, and the file of the best-network choice's references."""
    positions = measured_positions(board, work / f"positions-{args.positions}", args.positions, args.workers,
                                   args.quick)
    per_set = 5 if args.quick else REFERENCE_PER_SET
    references = generate_positions(board, work / f"references-{per_set}", per_set=per_set, seed=REFERENCE_SEED,
                                    workers=args.workers, max_candidates=300 if args.quick else MAX_CANDIDATES,
                                    progress=True)
    return positions, references


def train_ceilings(args: argparse.Namespace, board: str, work: Path, positions: list, done: set,
                   log_file: Path) -> None:
    """Part 1 of the study: each :func:`ceiling_nets` network trained by supervised learning on
    solver-labelled positions sampled as the sets are (seed :data:`LEARN_SEED`), measured on the
    same critical positions as the runs; a row of the log each (its iteration: the epoch published)."""
    from engines.training.solver_supervised import train_on_solver  # TensorFlow

    learn = generate_positions(board, work / "learn", per_set=100_000, seed=LEARN_SEED, workers=args.workers,
                               max_candidates=300 if args.quick else LEARN_CANDIDATES, progress=True).parent
    for net, policy_filters, value_filters in ceiling_nets(args.net, args.quick):
        name = ceiling_name(net, policy_filters, value_filters)
        if any(variant == name for variant, _, _ in done):
            continue
        settings = SolverSettings(blocks=net.blocks, filters=net.filters, policy_filters=policy_filters,
                                  value_filters=value_filters, seed=args.seed)
        run = train_on_solver(learn, work / name, settings, epochs=2 if args.quick else CEILING_EPOCHS,
                              measure=positions, simulations=args.simulations, names=(str(learn), "the measured sets"))
        assert run.measured is not None
        append_row(log_file, COLUMNS, {
            "board": board_slug(board), "variant": name, "seed": args.seed, "iteration": run.best_epoch,
            "published": 1, "simulations": args.simulations, "positions": run.measured.positions,
            "mistakes_raw": run.measured.raw, "mistakes_search": run.measured.search})


def open_resumed_log(log_file: Path, columns: list[str], report: Path,
                     belongs: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """The rows of ``log_file``; a new one first takes the rows of a report's CSV (a
    committed one: the work folder may be gone in another session) that ``belongs``
    says were measured as this run measures, so that nothing is measured twice."""
    new_log = not log_file.exists()
    rows = open_log(log_file, columns)
    if new_log and report.exists():
        for _, row in pd.read_csv(report).iterrows():
            if belongs(dict(row)):
                append_row(log_file, columns, {column: row[column] for column in columns})
        rows = open_log(log_file, columns)
    return rows


def train_and_measure(args: argparse.Namespace, board: str, work: Path,
                      out: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Train every variant's runs on ``board`` (resumable) and measure their networks,
    appending to ``work/measured/mistakes.csv`` as measured; then the ceilings and the
    targets' study (:func:`measure_targets_of`) and :func:`judge_unseen`. A run whose every network is measured
    already is not trained again: a new work folder starts from the rows of the committed
    report in ``out`` (its ``mistakes.csv``, ``runs.csv``, ``targets.csv``), so a study spans
    sessions. Returns the mistakes', the runs' times, the targets', the value targets', the unseen sets' rows."""
    report = out / "mistakes.csv"
    from engines.training.alphazero import train_alphazero  # TensorFlow: loaded once there is a run to train

    positions, references = position_sets(args, board, work)
    with hold_folder(work / "measured", "recipe-ablation-mistakes", game=get_game(board).spec,
                     positions=args.positions, simulations=args.simulations, net=args.net.name) as folder:
        log_file = folder / "mistakes.csv"
        measured_as = (board_slug(board), args.simulations, len(positions))
        rows = open_resumed_log(log_file, COLUMNS, report,
                                lambda row: (row["board"], row["simulations"], row["positions"]) == measured_as)
        done = {(row["variant"], int(row["seed"]), int(row["iteration"])) for row in rows}
        finished = {(row["variant"], int(row["seed"])) for row in rows if int(row["published"])}
        run_log = folder / "runs.csv"
        timed = {(row["variant"], int(row["seed"])) for row in open_resumed_log(
            run_log, RUN_COLUMNS, out / "runs.csv", lambda row: row["board"] == board_slug(board))}
        seeds = sorted({seed for own in args.variant_seeds.values() for seed in own})
        runs = [(variant, seed) for seed in seeds for variant in args.variants  # every variant's first seed first
                if seed in seeds_of(args, board_slug(board), variant)]
        for variant, seed in tqdm(runs, desc=f"runs {board_slug(board)}", unit="run"):
            iterations = run_iterations(args, board, variant)
            run = work / f"{variant}-s{seed}"
            if (variant, seed) in finished and all((variant, seed, i) in done for i in measured_iterations(iterations)):
                if (variant, seed) not in timed and (run / "history.csv").exists():  # measured, not timed
                    log_run_time(run_log, board, variant, seed, pd.read_csv(run / "history.csv"))
                continue  # measured to its end (perhaps in another session): nothing to train
            history = train_alphazero(run, run_config(args, board, variant, seed, references), iterations,
                                      workers=args.workers)
            if (variant, seed) not in timed:
                log_run_time(run_log, board, variant, seed, history)
            published = int(history["published"].iloc[-1])
            for iteration in sorted(set(measured_iterations(iterations)) | {published}):
                if (variant, seed, iteration) in done:
                    continue
                network = load_network(iteration_checkpoint(run, iteration))
                measured = measure_reference(NetworkEvaluator(network), positions,
                                             MatchSettings(parallel=64, simulations=args.simulations), seed=seed)
                append_row(log_file, COLUMNS, {
                    "board": board_slug(board), "variant": variant, "seed": seed, "iteration": iteration,
                    "published": int(iteration == published), "simulations": args.simulations,
                    "positions": measured.positions, "mistakes_raw": measured.raw,
                    "mistakes_search": measured.search})
        if board_slug(board) in args.ceilings:
            train_ceilings(args, board, work, positions, done, log_file)
        targets = measure_targets_of(args, board, work, positions, references, out / "targets.csv")
        values = measure_value_targets_of(args, board, work, references, out / "value_targets.csv")
        unseen = judge_unseen(args, board, work, runs, out / "unseen.csv")
        return pd.read_csv(log_file), pd.read_csv(run_log), targets, values, unseen


def judge_unseen(args: argparse.Namespace, board: str, work: Path, runs: list[tuple[str, int]],
                 report: Path) -> pd.DataFrame:
    """With ``--unseen``, the runs judged off the training path (:func:`~experiments.shared.unseen.judge_runs`,
    in ``work/unseen``); the committed ``report``'s rows are kept for the runs the command names
    that are not here, judged as this command judges (a study spans sessions)."""
    kept = pd.read_csv(report) if report.exists() else pd.DataFrame(columns=UNSEEN_COLUMNS)
    kept = kept[np.array([b == board_slug(board) and int(s) in seeds_of(args, b, v)
                          for b, v, s in zip(kept["board"], kept["variant"], kept["seed"])], dtype=bool)]
    if not args.unseen:
        return kept
    kept = kept[(kept["per_set"] == args.unseen) & kept["simulations"].isin([0, args.simulations])]
    measured = judge_runs(board, [(v, s, work / f"{v}-s{s}") for v, s in runs], work / "unseen",
                          per_set=args.unseen, simulations=args.simulations, workers=args.workers, quick=args.quick)
    here = set(zip(measured["variant"], measured["seed"]))
    kept = kept[np.array([(v, s) not in here for v, s in zip(kept["variant"], kept["seed"])], dtype=bool)]
    return pd.concat([kept, measured], ignore_index=True) if not kept.empty else measured


def reported(args: argparse.Namespace, mistakes: pd.DataFrame) -> pd.Series:
    """Which measured rows the report shows: every ceiling, and of the runs the command
    names (its variants, their seeds) the networks half way, at their own end and published."""
    measured = {(board_slug(board), variant, i) for board in args.boards for variant in args.variants
                for i in measured_iterations(run_iterations(args, board, variant))}
    keep = []
    for _, row in mistakes.iterrows():
        named = int(row["seed"]) in seeds_of(args, row["board"], row["variant"])
        wanted = (row["board"], row["variant"], int(row["iteration"])) in measured or int(row["published"]) == 1
        keep.append(str(row["variant"]).startswith(CEILING) or (named and wanted))
    return pd.Series(keep, index=mistakes.index, dtype=bool)


def log_run_time(log_file: Path, board: str, variant: str, seed: int, history: pd.DataFrame) -> None:
    """A finished run's row of the runs' log: its iterations, the minutes they took, and
    where (self-play's worker processes and the device; blank where an older run did not record them)."""
    def last(column: str) -> Any:
        recorded = history[column].dropna() if column in history else pd.Series([], dtype=object)
        return recorded.iloc[-1] if not recorded.empty else ""
    append_row(log_file, RUN_COLUMNS, {
        "board": board_slug(board), "variant": variant, "seed": seed, "iterations": int(history["iteration"].max()),
        "minutes": float(history["seconds"].sum()) / 60, "workers": last("workers"), "device": last("device")})


def measure_targets_of(args: argparse.Namespace, board: str, work: Path, positions: list, references: Path,
                       report: Path) -> pd.DataFrame:
    """Why self-play stops short (part 2 of the study): how right the targets are that each of
    :data:`TARGET_SEARCHES` records, searching with the half-way network of ``--targets-of``'s first
    seed on the measured critical positions, beside that network's own policy and value. Rows
    of ``work/measured/targets.csv``, resumed as the mistakes are (from the committed ``report``
    when the work folder is new); none where that run was not trained here."""
    log_file = work / "measured" / "targets.csv"
    rows = open_resumed_log(log_file, TARGET_COLUMNS, report, lambda row: (
        row["board"], row["positions"]) == (board_slug(board), len(positions)))
    seed, iteration, checkpoint = targets_network(args, board, work)
    done = {(row["search"], int(row["simulations"])) for row in rows
            if (row["variant"], int(row["seed"]), int(row["iteration"])) == (args.targets_of, seed, iteration)}
    wanted = [(kind, n) for kind, n in TARGET_SEARCHES if (kind, n) not in done]
    if wanted and checkpoint.exists():
        evaluator = NetworkEvaluator(load_network(checkpoint))
        base = run_config(args, board, args.targets_of, seed, references).self_play_settings()
        for kind, simulations in tqdm(wanted, desc="targets", unit="search"):
            settings = replace(base, simulations=simulations, gumbel=16 if kind == "gumbel" else 0)
            quality = raw_quality(evaluator, positions) if kind == "network" else \
                measure_targets(evaluator, positions, settings, seed=seed)
            append_row(log_file, TARGET_COLUMNS, {
                "board": board_slug(board), "variant": args.targets_of, "seed": seed, "iteration": iteration,
                "search": kind, "simulations": simulations, "positions": quality.positions,
                "policy_mistakes": quality.policy_mistakes, "mistake_mass": quality.mistake_mass,
                "value_right": quality.value_right})
    return pd.read_csv(log_file)


def targets_network(args: argparse.Namespace, board: str, work: Path) -> tuple[int, int, Path]:
    """The network the targets' study searches with: the first seed of ``--targets-of``, half way
    (its seed, iteration and file)."""
    seed = (seeds_of(args, board_slug(board), args.targets_of) or args.seeds)[0]
    iteration = measured_iterations(run_iterations(args, board, args.targets_of))[0]
    return seed, iteration, iteration_checkpoint(work / f"{args.targets_of}-s{seed}", iteration)


def measure_value_targets_of(args: argparse.Namespace, board: str, work: Path, references: Path,
                             report: Path) -> pd.DataFrame:
    """Which value target is right (part 2 of the study): self-play with the targets' network
    (PUCT, as its run played, at each of :data:`VALUE_SIMULATIONS`), every position of its
    games scored by the solver, and each value target it could record judged against that
    (:func:`~engines.training.references.measure_value_targets`). Rows of
    ``work/measured/value_targets.csv``, resumed as the targets' are."""
    log_file = work / "measured" / "value_targets.csv"
    rows = open_resumed_log(log_file, VALUE_COLUMNS, report, lambda row: row["board"] == board_slug(board))
    seed, iteration, checkpoint = targets_network(args, board, work)
    done = {int(row["simulations"]) for row in rows
            if (row["variant"], int(row["seed"]), int(row["iteration"])) == (args.targets_of, seed, iteration)}
    wanted = [n for n in VALUE_SIMULATIONS if n not in done]
    if wanted and checkpoint.exists():
        evaluator = NetworkEvaluator(load_network(checkpoint))
        config = run_config(args, board, args.targets_of, seed, references)
        games = 4 if args.quick else VALUE_GAMES
        for simulations in tqdm(wanted, desc="value targets", unit="search"):
            settings = replace(config.self_play_settings(), simulations=simulations, gumbel=0,
                               search_value_weight=config.search_value_weight or 0.5)
            for quality in measure_value_targets(board, evaluator, settings, games, seed=seed):
                append_row(log_file, VALUE_COLUMNS, {
                    "board": board_slug(board), "variant": args.targets_of, "seed": seed, "iteration": iteration,
                    "simulations": simulations, "games": games, "target": quality.target,
                    "positions": quality.positions, "right": quality.right, "mse": quality.mse})
    return pd.read_csv(log_file)


def ship_networks(args: argparse.Namespace, mistakes: pd.DataFrame, work: Path) -> list[str]:
    """Part 5: each board's best network of ``--ship``'s variant (the fewest mistakes at search
    of its seeds' published networks) exported without its optimizer state, its weights stored
    in half precision, to ``--checkpoints``;
    a line for each. A :class:`SpecError` where the run's folder is not here."""
    lines = []
    for board in args.boards:
        runs = mistakes[(mistakes["board"] == board_slug(board)) & (mistakes["variant"] == args.ship)
                        & (mistakes["published"] == 1)]
        if runs.empty:
            raise SpecError(f"--ship {args.ship}: no measured run of it on {board_slug(board)}")
        best = runs.sort_values(["mistakes_search", "seed"]).iloc[0]
        source = iteration_checkpoint(work / board_slug(board) / f"{args.ship}-s{int(best['seed'])}",
                                      int(best["iteration"]))
        dest = ship_network(source, board, args.checkpoints)
        lines.append(f"shipped {dest}: {args.ship} seed {int(best['seed'])}, iteration {int(best['iteration'])}, "
                     f"{percent(best['mistakes_search'])} mistakes at {args.simulations} simulations, "
                     f"{percent(best['mistakes_raw'])} raw")
    return lines


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settle(args)
    chapters.take_folders(args)
    out, work = Path(args.out), Path(args.work)
    with hold_folder(out, "recipe-ablation-report"):
        measured_boards = [train_and_measure(args, board, work / board_slug(board), out) for board in args.boards]
        mistakes, times, targets, values, unseen = (pd.concat([parts[k] for parts in measured_boards],
                                                              ignore_index=True) for k in range(5))
        mistakes = mistakes[reported(args, mistakes)]
        table = variant_table(end_of_runs(mistakes), times)
        for name, frame in (("mistakes.csv", mistakes), ("variants.csv", table), ("runs.csv", times),
                            ("targets.csv", targets), ("value_targets.csv", values),
                            *([("unseen.csv", unseen)] if not unseen.empty else [])):
            with atomic_write(out / name) as handle:
                frame.to_csv(handle, index=False)
        if unseen.empty:  # no run this command names was judged off the path: no table of others
            (out / "unseen.csv").unlink(missing_ok=True)
        plot_runs(mistakes, out / "mistakes_by_iteration.png")
        command_line = chapters.command(__file__, argv)
        chapters.write_lines(out / "summary.md", summary_lines(args, command_line, table) + target_lines(targets)
                           + value_target_lines(values) + unseen_lines(unseen))
        update_facts(out, facts(out))
        shipped = ship_networks(args, mistakes, work) if args.ship else []
    print(f"wrote {out / 'summary.md'}", *shipped, sep="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
