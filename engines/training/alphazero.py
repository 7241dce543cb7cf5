"""The AlphaZero training loop: self-play -> train -> evaluate, resumable.

Each iteration the current network plays ``games`` games against itself
(batched, :mod:`engines.training.selfplay`), the examples join a replay buffer of the
last ``buffer_games`` games, the network trains ``train_steps`` batches drawn
from the buffer with random symmetries (policy: cross-entropy against the
search's visit distribution; value: squared error against the result, or its
mix with the search's root value, ``search_value_weight``), and the
new network is scored against the previous iteration's network (batched games,
:func:`engines.training.selfplay.play_batched_match`) and against fixed baselines
(``random``, ``mcts:rounds=1000``, ...). The score against the previous network
gives an Elo difference, ``400 * log10(s / (1 - s))``; their running sum, from
0 for the untrained network, is the ``elo`` column.

``out/`` holds ``config.json``, ``checkpoints/iter-NNN.keras`` (the network,
``iter-000`` untrained
with its optimizer state and encoder), ``buffer-NNN.npz`` (the replay buffer
after iteration NNN), ``history.csv`` (loss components, scores and seconds per
iteration) and ``checkpoint.keras``, a copy of the latest network for playing.
All are written atomically, ``history.csv`` after the iteration's network and
buffer, so a killed run resumes from the last finished iteration with exactly
its network, optimizer state and replay buffer.
"""
from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from tqdm import tqdm

from dlgo.arena.match import play_match
from dlgo.core.errors import ModelFileError, RecordError, SettingsMismatchError, SpecError
from dlgo.encoders import Encoder, get_encoder_by_name
from dlgo.formats.atomic import atomic_write
from dlgo.formats.folders import hold_folder, read_settings
from dlgo.formats.plotting import plot_learning_curve
from dlgo.formats.records import replay
from dlgo.formats.sgf import game_to_sgf
from dlgo.games import get_game
from engines.alphazero import NetworkEvaluator
from engines.training.alphazero_config import AlphaZeroConfig
from engines.neural.backend import keras, load_model, read_metadata, save_model
from engines.neural.loading import LoadedModel
from engines.neural.resnet import build_resnet
from engines.training.replay import ReplayBuffer
from engines.registry import ENGINES
from engines.training.selfplay import SelfPlayPool, play_batched_match, self_play

log = logging.getLogger(__name__)


def _compile(model: "keras.Model", learning_rate: float) -> None:
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=learning_rate),
                  loss=[keras.losses.CategoricalCrossentropy(), keras.losses.MeanSquaredError()])


def starting_network(path: str, encoder: Encoder) -> "keras.Model":
    """The policy-value network in ``path`` (``dlgo train-supervised --target
    both``, or another run's checkpoint) as the start of a run with ``encoder``:
    a :class:`ModelFileError` unless it reads the same planes and answers a
    policy over the same moves and a value. Its own architecture is kept."""
    model, metadata = load_model(path, compile=False)
    recorded = metadata.get("encoder", {})
    shapes = [tuple(output.shape[1:]) for output in model.outputs]
    if recorded.get("name") != encoder.name or tuple(model.inputs[0].shape[1:]) != encoder.shape \
            or shapes != [(encoder.num_moves,), (1,)]:
        raise ModelFileError(f"--init {path}: a network for {encoder.game_spec} with the {encoder.name} encoder, a "
                             f"policy and a value is needed; this one reads {recorded.get('name', 'unknown')} "
                             f"planes and answers outputs of shapes {shapes}")
    return model


def elo_difference(score: float, games: int) -> float:
    """Elo difference implied by ``score`` (0..1) over ``games`` games; a clean
    sweep counts as half a game short of one, so the estimate stays finite."""
    if math.isnan(score):
        return float("nan")
    margin = 0.5 / max(1, games)
    score = min(max(score, margin), 1 - margin)
    return 400.0 * math.log10(score / (1 - score))


def _against_baselines(checkpoint: Path, config: AlphaZeroConfig, iteration: int,
                       progress: bool) -> dict[str, float]:
    """Score of the network (with search) against each baseline, colours alternating."""
    spec = f"alphazero:checkpoint={checkpoint},simulations={config.eval_simulations}"
    scores = {}
    bar = tqdm(total=config.eval_games * len(config.baselines), desc="baselines", unit="game",
               disable=not progress, leave=False)
    for baseline in config.baselines:
        total = 0.0
        for k in range(config.eval_games):
            black, white = (spec, baseline) if k % 2 == 0 else (baseline, spec)
            record = play_match(ENGINES, config.game, black, white, seed=config.seed * 7919 + iteration * 101 + k,
                                opening_plies=1)
            total += record.score_for(spec)
            bar.update()
        scores[f"score_vs_{baseline}"] = total / max(1, config.eval_games)
    bar.close()
    return scores


def _against_previous(current: LoadedModel, previous: LoadedModel, config: AlphaZeroConfig, iteration: int,
                      progress: bool) -> float:
    """Score of the new network against the previous iteration's, both with search."""
    if config.previous_games <= 0:
        return float("nan")
    scores = play_batched_match(config.game, NetworkEvaluator(current), NetworkEvaluator(previous),
                                config.previous_games,
                                parallel=min(config.parallel, config.previous_games),
                                simulations=config.eval_simulations, c=config.c,
                                seed=config.seed * 7919 + iteration, progress=progress)
    return float(np.mean(scores))


def _train(model: "keras.Model", buffer: ReplayBuffer, config: AlphaZeroConfig, rng: np.random.Generator,
           progress: bool) -> dict[str, float]:
    """``train_steps`` batches from the buffer; the mean of each loss component."""
    losses = []
    bar = tqdm(range(config.train_steps), desc="training", unit="batch", disable=not progress, leave=False)
    for _ in bar:
        x, pi, z = buffer.sample(config.batch_size, rng)
        losses.append(model.train_on_batch(x, [pi, z[:, None]], return_dict=True))
        bar.set_postfix(loss=f"{float(losses[-1]['loss']):.3f}", refresh=False)
    return {k: float(np.mean([step[k] for step in losses])) for k in losses[0]}


def _write_selfplay_sgf(folder: Path, game: str, games: list[str], player: str) -> None:
    """One SGF file per self-play game (the network plays both sides)."""
    folder.mkdir(parents=True, exist_ok=True)
    for k, moves in enumerate(games):
        final = replay(game, moves)[-1]
        outcome = final.outcome()
        with atomic_write(folder / f"game-{k:04d}.sgf") as handle:
            handle.write(game_to_sgf(final, player, player, outcome.text if outcome else ""))


def plot_history(history: pd.DataFrame, path: str | Path, title: str) -> None:
    """The learning curve: loss components, scores per iteration, and Elo."""
    plot_learning_curve(history, path, title=title, x="iteration", losses=("loss", "policy_loss", "value_loss"),
                        scores=[c for c in history.columns if c.startswith("score_vs_")], score_label="score",
                        elo="elo" if "elo" in history else None)


def saved_config(out: str | Path) -> AlphaZeroConfig:
    """The settings of the run in ``out`` (to resume it without repeating them)."""
    return read_settings(out, AlphaZeroConfig, "AlphaZero")


def train_alphazero(out: str | Path, config: AlphaZeroConfig, iterations: int,
                    progress: bool = True, workers: int = 1, sgf: bool = False, ray: str | None = None
                    ) -> pd.DataFrame:
    """Run (or continue) training until ``iterations`` iterations are done;
    ``workers`` > 1 plays the self-play games in that many processes (with
    ``ray``: in that many shares on the Ray cluster there); ``sgf`` keeps Go
    self-play games as SGF in ``out/selfplay-sgf/iter-NNN/``. The folder is
    held by this run alone (:func:`~dlgo.formats.folders.hold_folder`)."""
    if iterations < 1 or workers < 1:
        raise SpecError(f"iterations and workers must be at least 1, got {iterations} and {workers}")
    with hold_folder(out, "train-alphazero", game=config.game):
        return _train_alphazero(Path(out), config, iterations, progress, workers, sgf, ray)


def _resume_point(out: Path, history: pd.DataFrame) -> int:
    """The last finished iteration, with its published network made consistent:
    ``history.csv`` is written last, so every iteration it lists has its
    checkpoint and buffer; ``checkpoint.keras`` is copied after it, so a kill in
    between leaves the previous network there, which is put right here."""
    done = 0 if history.empty else int(history["iteration"].iloc[-1])
    if not done:
        return 0
    checkpoint, buffer = out / "checkpoints" / f"iter-{done:03d}.keras", out / f"buffer-{done:03d}.npz"
    for needed in (checkpoint, buffer):
        if not needed.exists():
            raise RecordError(f"{out}: history.csv lists iteration {done} but {needed.name} is missing; "
                              "the run cannot resume: use another folder")
    published = out / "checkpoint.keras"
    if not published.exists() or read_metadata(published).get("iteration") != done:
        log.warning("%s: checkpoint.keras did not hold iteration %d (a kill after history.csv); copying it",
                    out, done)
        with atomic_write(published, "wb") as handle:
            handle.write(checkpoint.read_bytes())
    for stale in out.glob("buffer-*.npz"):
        if stale != buffer:
            stale.unlink()
    return done


def _train_alphazero(out: Path, config: AlphaZeroConfig, iterations: int, progress: bool, workers: int,
                     sgf: bool, ray: str | None = None) -> pd.DataFrame:
    config_file = out / "config.json"
    if config_file.exists():
        old = {**asdict(AlphaZeroConfig()), **json.loads(config_file.read_text())}  # fields added later: defaults
        if old != asdict(config):
            changed = {k: (old.get(k), v) for k, v in asdict(config).items() if old.get(k) != v}
            raise SettingsMismatchError(f"{out} holds a run with other settings {changed}")
    else:
        with atomic_write(config_file) as handle:
            json.dump(asdict(config), handle, indent=2)

    encoder = get_encoder_by_name(None, config.game)
    syms = encoder.game.symmetries()
    history_file = out / "history.csv"
    history = pd.read_csv(history_file) if history_file.exists() else pd.DataFrame()
    done = _resume_point(out, history)
    metadata = {"kind": "alphazero", "encoder": encoder.config(), "config": asdict(config)}
    if done:
        model, _ = load_model(out / "checkpoints" / f"iter-{done:03d}.keras")
        buffer = ReplayBuffer.load(out / f"buffer-{done:03d}.npz", syms)
        log.info("resuming %s after iteration %d (%d examples in the buffer)", out, done, len(buffer))
    else:
        keras.utils.set_random_seed(config.seed)
        if config.init:
            model = starting_network(config.init, encoder)
        else:
            model = build_resnet(encoder.shape, encoder.num_moves, blocks=config.blocks, filters=config.filters,
                                 l2=config.l2)
        _compile(model, config.learning_rate)
        buffer = ReplayBuffer(config.buffer_games, syms)
        save_model(model, out / "checkpoints" / "iter-000.keras", {**metadata, "iteration": 0})
    rng = np.random.default_rng(config.seed + 1000 * done)
    # One compiled call each for the network in training and a frozen copy of the
    # previous iteration's weights; both read their variables, so no retracing.
    current = LoadedModel.from_model(model, encoder, metadata)
    snapshot = keras.models.clone_model(model)
    previous = LoadedModel.from_model(snapshot, encoder, metadata)
    pool = SelfPlayPool(workers, ray) if workers > 1 or ray else None
    try:
        for iteration in tqdm(range(done + 1, iterations + 1), desc="iterations", unit="iter", initial=done,
                              total=iterations, disable=not progress):
            started = time.perf_counter()
            snapshot.set_weights(model.get_weights())
            options = dict(parallel=config.parallel, simulations=config.simulations, c=config.c,
                           dirichlet_alpha=config.dirichlet_alpha, dirichlet_epsilon=config.dirichlet_epsilon,
                           temperature_moves=config.temperature_moves, seed=config.seed * 1_000_003 + iteration,
                           progress=progress, fast_simulations=config.fast_simulations,
                           full_fraction=config.full_fraction, search_value_weight=config.search_value_weight)
            if pool is None:
                examples = self_play(config.game, NetworkEvaluator(current), encoder, config.games, **options)
            else:  # the workers load the network this iteration starts from
                start = out / "checkpoints" / f"iter-{iteration - 1:03d}.keras"
                if not start.exists():
                    save_model(model, start, {**metadata, "iteration": iteration - 1})
                examples = pool.self_play(config.game, start, config.games, **options)
            buffer.add(examples)
            if sgf and get_game(config.game).has_sgf:
                _write_selfplay_sgf(out / "selfplay-sgf" / f"iter-{iteration:03d}", config.game, examples.moves,
                                    f"alphazero iteration {iteration - 1}")
            model.optimizer.learning_rate.assign(config.learning_rate_at(iteration))
            row = {"iteration": iteration, "examples": len(buffer), "learning_rate": config.learning_rate_at(iteration),
                   **_train(model, buffer, config, rng, progress)}
            meta = {**metadata, "iteration": iteration}
            checkpoint = out / "checkpoints" / f"iter-{iteration:03d}.keras"
            save_model(model, checkpoint, meta)
            buffer.save(out / f"buffer-{iteration:03d}.npz")
            row["score_vs_previous"] = _against_previous(current, previous, config, iteration, progress)
            last_elo = float(history["elo"].iloc[-1]) if "elo" in history else 0.0
            row["elo"] = last_elo + elo_difference(row["score_vs_previous"], config.previous_games)
            if iteration % config.baseline_every == 0 or iteration == iterations:
                row.update(_against_baselines(checkpoint, config, iteration, progress))
            row["seconds"] = time.perf_counter() - started  # self-play, training and evaluation
            row["workers"] = workers
            history = pd.concat([history, pd.DataFrame([row])], ignore_index=True)
            with atomic_write(history_file) as handle:  # the iteration is complete
                history.to_csv(handle, index=False)
            save_model(model, out / "checkpoint.keras", meta)
            for stale in out.glob("buffer-*.npz"):
                if stale.name != f"buffer-{iteration:03d}.npz":
                    stale.unlink()
            log.info("iteration %d: %s", iteration, row)
    finally:
        if pool is not None:
            pool.close()
    return history


