"""The AlphaZero network's own ceiling: the same network learnt from the solver, not from self-play.

A self-play run learns from its own games: its targets are the search's visit
counts and the games' results, noisy and drifting as the network improves. On a
board the suite solves (Connect-N, :mod:`dlgo.data.solved`) every position's
truth is known, so the same architecture (:func:`engines.neural.resnet.build_resnet`)
can learn it directly, by supervised learning: its mistakes on the critical
solved positions are about the best a self-play run of that network can hope for.
The positions and their targets (the result for the player to move; uniform
over the moves that keep it, or over the best ones) are
:mod:`engines.training.solver_data`'s.

:func:`train_on_solver` compiles the network as AlphaZero does (Adam, policy
cross-entropy + value squared error, weights 1 and 1), trains it epoch by epoch
on batches drawn from a :class:`~engines.training.replay.ReplayBuffer` (each
example under a random board symmetry), then measures the network on a solved
position file's critical positions, from its raw policy and after a search
(:func:`~engines.training.solver_data.measure_network`). ``out/`` holds::

    run.json, config.json     the run's kind, game and data; its settings (a rerun must use the same)
    history.csv               losses (train and held out), held-out mistakes, learning rate, seconds per epoch
    checkpoints/epoch-NNN.keras   the network with its optimizer state (epoch-000: untrained)
    model.keras               the best epoch by held-out loss: play it as alphazero:checkpoint=out/model.keras
    learning_curve.png, summary.md, summary.json

A killed run continues from its last finished epoch, with its optimizer state,
when run again; a rerun with more epochs trains on from where the last one stopped.
"""
from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np
import pandas as pd

from dlgo.core.errors import RecordError, SpecError
from dlgo.encoders import Encoder, get_encoder_by_name
from dlgo.storage.atomic import atomic_write
from dlgo.storage.folders import hold_folder, record_settings
from dlgo.display.plotting import plot_learning_curve
from dlgo.formats.positions import SolvedPosition
from dlgo.display.progress import progress_bar
from engines.checkpoints import publish_copy, read_metadata
from engines.neural.backend import keras, load_model, save_model
from engines.neural.resnet import build_resnet
from engines.training.replay import ReplayBuffer
from engines.training.selfplay import Examples
from engines.training.solver_data import (LEARN_FILES, MEASURE_FILES, Dataset, Measured, SolverSettings, check_game,
                                          measure_network, prepare_dataset, read_solved)

log = logging.getLogger(__name__)


class SolverRun(NamedTuple):
    """What :func:`train_on_solver` leaves: the history, the network to play, its data and measurements."""

    history: pd.DataFrame
    model: Path
    game: str
    positions: int     # distinct positions learnt from (training share)
    held_out: int      # distinct positions held out
    best_epoch: int
    measured: Measured | None


# ------------------------------------------------------------------ training
def train_on_solver(positions: Sequence[SolvedPosition] | str | Path, out: str | Path,
                    settings: SolverSettings = SolverSettings(), *, epochs: int = 20,
                    measure: Sequence[SolvedPosition] | str | Path | None = None, simulations: int = 64,
                    parallel: int = 64, names: tuple[str, str] = ("", ""), progress: bool = True) -> SolverRun:
    """Train (or finish training) ``settings``' network on ``positions`` (solved
    positions, or a file or folder of them: :func:`~engines.training.solver_data.read_solved`)
    for ``epochs`` epochs in the run folder ``out`` (see the module's docstring); then
    measure it on the critical positions of ``measure`` (positions, a file or a
    folder: its ``positions.csv`` first), raw and after ``simulations`` simulations.
    ``names``: what the positions learnt and measured are called in the reports
    where lists are given (by default their paths). The folder is held by this run
    alone (:func:`~dlgo.storage.folders.hold_folder`)."""
    if epochs < 1 or simulations < 1 or parallel < 1:
        raise SpecError(f"epochs, simulations and parallel must be at least 1, got {epochs}, {simulations} and "
                        f"{parallel}")
    source, learnt = _positions(positions, names[0], LEARN_FILES)
    game = check_game(learnt, source)
    probe_source, probe = _positions(measure, names[1], MEASURE_FILES) if measure is not None else ("", [])
    probe = [p for p in probe if p.critical]
    if measure is not None:
        if not probe:
            raise RecordError(f"{probe_source} has no critical positions to measure on (where some move changes "
                              "the result)")
        if check_game(probe, probe_source) != game:
            raise SpecError(f"{probe_source} holds positions of {probe[0].game}, not of {game} (the positions learnt)")
    encoder = get_encoder_by_name(None, game)
    data = prepare_dataset(learnt, encoder, settings)
    if len(data.train) == 0:
        raise RecordError(f"{source}: {len(data.positions)} distinct position(s), none left to train on after the "
                          "held-out share: give more positions or a smaller validation share")
    with hold_folder(out, "train-solver", game=game, positions=data.fingerprint) as folder:
        record_settings(folder, settings)
        history = _train(folder, data, encoder, settings, epochs, source, progress)
        model = folder / "model.keras"
        measured = None
        if measure is not None:
            measured = measure_network(model, probe, simulations, seed=settings.seed, parallel=parallel,
                                       seen={data.keys[r] for r in data.train}, file=probe_source)
        run = SolverRun(history, model, game, len(data.train), len(data.held_out), int(read_metadata(model)["epoch"]),
                        measured)
        write_summary(folder, run, settings, source)
        return run


def _positions(given: Sequence[SolvedPosition] | str | Path, name: str,
               files: Sequence[str]) -> tuple[str, list[SolvedPosition]]:
    """Positions given, or read from a file or folder (``files``: the folder's files
    looked for, in order), with what they are called."""
    if isinstance(given, (str, Path)):
        return name or str(given), read_solved(given, files)
    if not given:
        raise RecordError(f"no solved positions {'to learn from' if files == LEARN_FILES else 'to measure on'}")
    return name or "the positions given", list(given)


def _train(out: Path, data: Dataset, encoder: Encoder, settings: SolverSettings, epochs: int, source: str,
           progress: bool) -> pd.DataFrame:
    history_file = out / "history.csv"
    history = pd.read_csv(history_file) if history_file.exists() else pd.DataFrame()
    done = 0 if history.empty else int(history["epoch"].iloc[-1])
    checkpoints = out / "checkpoints"
    metadata = {"kind": "alphazero", "encoder": encoder.config(), "trained_on": "solver", "data": source,
                "config": {**asdict(settings), "game": encoder.game_spec}, "positions": len(data.train),
                "held_out": len(data.held_out)}
    start = checkpoints / f"epoch-{done:03d}.keras"
    if done and not start.exists():
        raise RecordError(f"{out}: history.csv lists epoch {done} but {start.name} is missing; the run cannot "
                          "resume: use another folder")
    if done < epochs:
        if done:  # a finished epoch, with its optimizer state
            model, _ = load_model(start)
            log.info("resuming %s after epoch %d", out, done)
        elif start.exists():  # the untrained network of a run killed in its first epoch (no optimizer state yet)
            model = compile_network(load_model(start, compile=False)[0], settings)
        else:
            keras.utils.set_random_seed(settings.seed)
            model = build_network(encoder, settings)
            save_model(model, start, {**metadata, "epoch": 0})
        syms = encoder.game.symmetries() if settings.augment else None
        buffer = ReplayBuffer(1, syms)
        rows = data.train
        buffer.add(Examples(data.features[rows], data.policies[rows], data.values[rows], lengths=[len(rows)]))
        steps = math.ceil(len(rows) / settings.batch_size)
        for epoch in progress_bar(range(done + 1, epochs + 1), desc="epochs", unit="epoch", initial=done,
                                  total=epochs, disable=not progress):
            started = time.perf_counter()
            rate = settings.learning_rate_at(epoch)
            model.optimizer.learning_rate.assign(rate)
            rng = np.random.default_rng([settings.seed, epoch])  # the same batches, resumed or not
            losses = []
            for _ in range(steps):
                batch = buffer.sample(settings.batch_size, rng)
                losses.append(model.train_on_batch(batch.x, [batch.pi, batch.z[:, None]], return_dict=True))
            row: dict[str, Any] = {"epoch": epoch, "learning_rate": rate,
                                   **{k: float(np.mean([float(s[k]) for s in losses])) for k in losses[0]},
                                   **held_out_metrics(model, data)}
            row["seconds"] = time.perf_counter() - started
            save_model(model, checkpoints / f"epoch-{epoch:03d}.keras", {**metadata, "epoch": epoch, "metrics": row})
            history = pd.concat([history, pd.DataFrame([row])], ignore_index=True)
            with atomic_write(history_file) as handle:  # after its checkpoint: the epoch is done
                history.to_csv(handle, index=False)
            publish_best(out, history)
            prune_checkpoints(checkpoints, history)
    publish_best(out, history)
    return history


def build_network(encoder: Encoder, settings: SolverSettings) -> "keras.Model":
    """AlphaZero's network for ``encoder``'s game at ``settings``' size, compiled as AlphaZero compiles it."""
    return compile_network(build_resnet(encoder.shape, encoder.num_moves, blocks=settings.blocks,
                                        filters=settings.filters, policy_filters=settings.policy_filters,
                                        value_filters=settings.value_filters, l2=settings.l2), settings)


def compile_network(model: "keras.Model", settings: SolverSettings) -> "keras.Model":
    """``model`` compiled as AlphaZero compiles its network: Adam on policy cross-entropy + value squared error."""
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=settings.learning_rate),
                  loss=[keras.losses.CategoricalCrossentropy(), keras.losses.MeanSquaredError()],
                  loss_weights=[1.0, 1.0])
    return model


def held_out_metrics(model: "keras.Model", data: Dataset) -> dict[str, float]:
    """On the held-out positions (as they are, no symmetry): the losses as
    training counts them (the L2 penalty included), the share of the critical ones
    where the raw policy's favourite legal move changes the result, and the share
    whose value is nearest the right result. The network is called directly, in
    chunks: no compiled function to trace for a few hundred positions."""
    rows = data.held_out
    if len(rows) == 0:
        return {}
    x, pi, z = data.features[rows].astype(np.float32), data.policies[rows], data.values[rows]
    outputs = [model(x[k:k + 1024], training=False) for k in range(0, len(x), 1024)]
    priors = np.concatenate([np.asarray(o[0]) for o in outputs])
    values = np.concatenate([np.asarray(o[1]) for o in outputs])[:, 0]
    policy_loss = float(np.mean(-np.sum(pi * np.log(np.clip(priors, 1e-7, 1.0)), axis=1)))
    value_loss = float(np.mean((values - z) ** 2))
    penalty = float(sum(np.asarray(loss) for loss in model.losses))
    mistakes, critical = 0, 0
    for prior, row in zip(priors, rows):
        position = data.positions[row]
        if position.critical:
            legal = sorted(position.scores)
            critical += 1
            mistakes += position.is_mistake(legal[int(np.argmax(prior[legal]))])
    return {"val_loss": policy_loss + value_loss + penalty, "val_policy_loss": policy_loss,
            "val_value_loss": value_loss, "val_mistakes_raw": mistakes / critical if critical else float("nan"),
            "val_result_accuracy": float(np.mean(np.clip(np.rint(values), -1, 1) == z))}


def best_of(history: pd.DataFrame) -> int:
    """The epoch with the lowest held-out loss (the training loss where none is held out)."""
    column = "val_loss" if "val_loss" in history else "loss"
    return int(history.loc[history[column].idxmin(), "epoch"])


def publish_best(out: Path, history: pd.DataFrame) -> None:
    """Make ``model.keras`` a copy of the best epoch's network, unless it is already."""
    if not history.empty:
        best = best_of(history)
        publish_copy(out / "checkpoints" / f"epoch-{best:03d}.keras", out / "model.keras", "epoch", best)


def prune_checkpoints(checkpoints: Path, history: pd.DataFrame, keep: int = 2) -> None:
    """Delete the epochs' networks but the untrained one, the best and the last ``keep``."""
    kept = {"epoch-000.keras", f"epoch-{best_of(history):03d}.keras"}
    for old in sorted(checkpoints.glob("epoch-*.keras"))[:-keep]:
        if old.name not in kept:
            old.unlink()


# ------------------------------------------------------------------ reports
def summary_text(run: SolverRun, settings: SolverSettings, source: str) -> str:
    """``summary.md``: what was learnt, from what, and the mistakes it makes."""
    last = run.history.iloc[-1]
    lines = [f"# Learning from the solver: {run.game}", "",
             f"The AlphaZero network ({settings.blocks} residual block{'s' * (settings.blocks != 1)} of "
             f"{settings.filters} filters, heads of {settings.policy_filters} and {settings.value_filters}) trained "
             f"on the exact results of {run.positions:,} distinct positions of {source} ({run.held_out:,} more held "
             "out); policy target: "
             f"{'every result-keeping move' if settings.policy == 'keeping' else 'the best-scoring moves'}.", "",
             f"{int(last['epoch'])} epochs; the network published is epoch {run.best_epoch}, the lowest "
             f"{'held-out' if 'val_loss' in run.history else 'training'} loss.", ""]
    if "val_mistakes_raw" in run.history:
        best = run.history.loc[run.history["epoch"] == run.best_epoch].iloc[0]
        lines += [f"Held out, at that epoch: raw-policy mistakes on {best['val_mistakes_raw']:.1%} of the critical "
                  f"positions; the value nearest the right result on {best['val_result_accuracy']:.1%}.", ""]
    if run.measured is not None:
        m = run.measured
        lines += [f"On {m.positions} critical positions of {m.file or 'the measured positions'} ({m.seen} of them "
                  "among the training positions or their mirror images), mistakes:", "",
                  "| played by | mistakes | 95% interval |", "|---|---|---|",
                  f"| the raw policy | {m.raw:.1%} | {m.raw_low:.1%} to {m.raw_high:.1%} |",
                  f"| {m.simulations} simulations | {m.search:.1%} | {m.search_low:.1%} to {m.search_high:.1%} |", ""]
    lines += [f"Play it: `{play_spec(run)}`", ""]
    return "\n".join(lines)


def play_spec(run: SolverRun) -> str:
    """The engine spec that plays the run's network."""
    simulations = run.measured.simulations if run.measured is not None else 64
    return f"alphazero:checkpoint={run.model},simulations={simulations}"


def write_summary(out: Path, run: SolverRun, settings: SolverSettings, source: str) -> None:
    """``summary.md``, ``summary.json`` and ``learning_curve.png``, atomically."""
    with atomic_write(out / "summary.md") as handle:
        handle.write(summary_text(run, settings, source))
    facts = {"game": run.game, "data": source, "positions": run.positions, "held_out": run.held_out,
             "epochs": int(run.history["epoch"].iloc[-1]), "best_epoch": run.best_epoch,
             "settings": asdict(settings), "model": str(run.model), "spec": play_spec(run),
             "measured": run.measured._asdict() if run.measured is not None else None}
    with atomic_write(out / "summary.json") as handle:
        json.dump(facts, handle, indent=2)
    plot_learning_curve(run.history, out / "learning_curve.png",
                        title=f"the AlphaZero network learning {run.game} from the solver",
                        losses=("loss", "val_loss", "policy_loss", "val_policy_loss"), scores=("val_result_accuracy",),
                        score_label="share of held-out positions", mistakes=("val_mistakes_raw",))
