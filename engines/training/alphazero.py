"""The AlphaZero training loop: self-play -> train -> evaluate -> publish, resumable.

Each iteration, as the paper tells it (:func:`train_alphazero`, one screen):

1. **Self-play** (:func:`self_play_games`): the current network plays ``games``
   games against itself (batched, :mod:`engines.training.selfplay`) and the
   examples join a replay buffer of the last ``buffer_games`` games (or
   KataGo's window, growing with the games played: ``window_alpha``).
2. **Train** (:func:`train_network`): ``train_steps`` batches (or as many as
   reuse each new example ``sample_reuse`` times) drawn from the
   buffer with random symmetries (policy: cross-entropy against the search's
   visit distribution; value: squared error against the result, or its mix with
   the search's root value, ``search_value_weight``).
3. **Evaluate** (:func:`evaluate_network`): the new network against the previous
   iteration's (batched games, :func:`engines.training.selfplay.play_batched_match`)
   and against fixed baselines (``random``, ``mcts:rounds=1000``, ...). The score
   against the previous network gives an Elo difference,
   ``400 * log10(s / (1 - s))`` (:func:`dlgo.arena.ratings.elo_from_score`); their running sum, from 0 for the untrained
   network, is the ``elo`` column. With ``reference_positions`` the network is
   also measured on solved positions (:func:`measure_references`), a yardstick
   that never moves.
4. **Publish** (:func:`publish`): the iteration's row joins ``history.csv`` and
   ``checkpoint.keras``, the network to play, becomes this one, or with
   ``publish="best"`` the best so far by the fixed references (the solved
   positions' mistakes, else the first baseline's score; the starting network,
   measured before iteration 1 as row 0, counts): so the published network is
   never weaker than the start by the measure that matters, whatever the
   self-play Elo says.

``out/`` holds ``config.json``, ``checkpoints/iter-NNN.keras`` (the network,
``iter-000`` untrained, with its optimizer state and encoder), ``buffer-NNN.npz``
(the replay buffer after iteration NNN), ``history.csv`` (loss components,
scores and seconds per iteration) and ``checkpoint.keras``, a copy of the
published network for playing; with ``teacher_games``, ``teacher-games.csv``, the games that
fill the buffer (:func:`teacher_games`). All are written atomically, ``history.csv`` after the
iteration's network and buffer, so a killed run resumes (:func:`open_run`) from
the last finished iteration with exactly its network, optimizer state and
replay buffer.
"""
from __future__ import annotations

import logging
import math
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from dlgo.arena.match import play_match
from dlgo.arena.ratings import elo_from_score
from dlgo.arena.sprt import SPRT
from dlgo.core.errors import ModelFileError, RecordError, SpecError
from dlgo.encoders import Encoder, get_encoder_by_name
from dlgo.storage.atomic import atomic_write
from dlgo.storage.folders import hold_folder, read_settings, record_settings
from dlgo.display.plotting import plot_learning_curve
from dlgo.display.progress import progress_bar
from dlgo.formats.records import GameRecord, read_games, replay, write_games
from dlgo.formats.sgf import game_to_sgf
from dlgo.games import get_game
from engines.alphazero import NetworkEvaluator
from engines.checkpoints import publish_copy, resolve_model_path
from engines.neural.backend import backend_name, device_name, in_precision, keras, load_model, save_model
from engines.neural.loading import LoadedModel, load_network
from engines.neural.resnet import add_auxiliary_heads, build_resnet
from engines.registry import ENGINES
from engines.training.alphazero_config import AlphaZeroConfig
from engines.training.paired_match import PairedMatch, match_openings, play_paired_match
from engines.training.replay import ReplayBuffer, recorded_examples
from engines.training.references import measure_reference, reference_positions
from engines.training.run_folder import RUN_KIND, TEACHER_GAMES, iteration_buffer, iteration_checkpoint
from engines.training.selfplay import Examples, SelfPlayPool, play_batched_match, self_play

log = logging.getLogger(__name__)


def train_alphazero(out: str | Path, config: AlphaZeroConfig, iterations: int,
                    progress: bool = True, workers: int = 1, sgf: bool = False, ray: str | None = None,
                    budget_seconds: float = math.inf) -> pd.DataFrame:
    """Run (or continue) training until ``iterations`` iterations are done, or
    until the iterations' ``seconds`` add up to ``budget_seconds`` (a compute
    budget that a resumed run keeps, whatever the session it ran in);
    ``workers`` > 1 plays the self-play games in that many processes (with
    ``ray``: in that many shares on the Ray cluster there); ``sgf`` keeps Go
    self-play games as SGF in ``out/selfplay-sgf/iter-NNN/``. The folder is
    held by this run alone (:func:`~dlgo.storage.folders.hold_folder`)."""
    if iterations < 1 or workers < 1:
        raise SpecError(f"iterations and workers must be at least 1, got {iterations} and {workers}")
    with hold_folder(out, RUN_KIND, game=config.game):
        run = open_run(Path(out), config, progress)
        device = device_name()  # where the training process's networks run (self-play workers: the same machine)
        pool = SelfPlayPool(workers, ray) if workers > 1 or ray else None
        try:
            if run.done == 0 and run.history.empty and (config.reference_positions or config.chooses_best):
                measure_start(run)
            for iteration in progress_bar(range(run.done + 1, iterations + 1), desc="iterations", unit="iter",
                                          initial=run.done, total=iterations, disable=not progress):
                if _seconds_spent(run.history) >= budget_seconds:
                    break
                started = time.perf_counter()
                run.previous_network.set_weights(run.model.get_weights())  # frozen: the opponent of step 3
                run.previous.refresh()
                if run.playing_network is not run.model:  # self-play's copy in another precision: today's weights
                    run.playing_network.set_weights(run.model.get_weights())
                    run.playing.refresh()
                examples = self_play_games(run, iteration, pool)
                played = time.perf_counter() - started
                if sgf and get_game(config.game).has_sgf:
                    _write_selfplay_sgf(run.out / "selfplay-sgf" / f"iter-{iteration:03d}", config.game,
                                        examples.moves, f"alphazero iteration {iteration - 1}")
                batches = config.training_batches(len(examples.values))
                row = {"iteration": iteration, "examples": len(run.buffer), "buffer_games": run.buffer.capacity,
                       "selfplay_evaluations": examples.evaluations, "selfplay_seconds": played,
                       "learning_rate": config.learning_rate_at(iteration), "train_steps": batches,
                       **train_network(run, iteration, batches)}
                checkpoint = save_iteration(run, iteration)
                row.update(evaluate_network(run, iteration, checkpoint, last=iteration == iterations))
                if iteration % config.reference_every == 0 or iteration in (1, iterations):
                    row.update(measure_references(run, iteration))
                row["seconds"] = time.perf_counter() - started  # self-play, training and evaluation
                row["workers"] = workers
                row["device"] = device
                row["backend"] = backend_name()  # Keras' backend: tensorflow, jax or torch (KERAS_BACKEND)
                publish(run, iteration, row)
        finally:
            if pool is not None:
                pool.close()
    return run.history


@dataclass
class Run:
    """A training run open in its folder: its settings, the network in training,
    a frozen copy of the previous iteration's weights, both ready to play
    (``current``, ``previous``: each on the fastest inference path, rebuilt on its next
    call after ``refresh()`` when its weights change), the replay buffer and the history so far."""

    out: Path
    config: AlphaZeroConfig
    encoder: Encoder
    metadata: dict[str, Any]   # what every saved network of the run records about it
    model: "keras.Model"
    previous_network: "keras.Model"
    playing_network: "keras.Model"  # the network self-play uses: the model, or its copy in another precision
    current: LoadedModel
    previous: LoadedModel
    playing: LoadedModel
    buffer: ReplayBuffer
    history: pd.DataFrame
    done: int                  # the last finished iteration
    progress: bool


def open_run(out: Path, config: AlphaZeroConfig, progress: bool) -> Run:
    """The run in ``out``: its settings recorded (or checked against those
    recorded), then resumed after its last finished iteration, or started with
    a fresh network (or ``config.init``) and an empty buffer."""
    record_settings(out, config)
    encoder = get_encoder_by_name(None, config.game)
    syms = encoder.game.symmetries()
    history_file = out / "history.csv"
    history = pd.read_csv(history_file) if history_file.exists() else pd.DataFrame()
    done = _resume_point(out, history)
    metadata = {"kind": "alphazero", "encoder": encoder.config(), "config": asdict(config)}
    start = iteration_checkpoint(out, 0)
    if done:
        model, _ = load_model(iteration_checkpoint(out, done))
        buffer = ReplayBuffer.load(iteration_buffer(out, done), syms, merge=config.merge_positions)
        log.info("resuming %s after iteration %d (%d examples in the buffer)", out, done, len(buffer))
    elif start.exists() and not history.empty:  # killed after measuring its start: that network, as measured
        model, _ = load_model(start)
        buffer = ReplayBuffer(config.buffer_games, syms, merge=config.merge_positions)
    else:
        keras.utils.set_random_seed(config.seed)
        auxiliary = config.auxiliary_targets()
        model = starting_network(config.init, encoder, auxiliary, config.l2) if config.init else build_resnet(
            encoder.shape, encoder.num_moves, blocks=config.blocks, filters=config.filters, l2=config.l2,
            policy_filters=config.policy_filters, value_filters=config.value_filters, auxiliary=auxiliary)
        _compile(model, config)
        buffer = ReplayBuffer(config.buffer_games, syms, merge=config.merge_positions)
        save_model(model, start, {**metadata, "iteration": 0})
    if config.teacher_games:  # remade at every start: the buffer saves self-play's games alone
        buffer.fill_with(recorded_examples(teacher_games(out, config), encoder, config.auxiliary_targets()),
                         keep=config.teacher_keep)
    previous = keras.models.clone_model(model)
    playing = in_precision(model, config.precision)
    current = LoadedModel.from_model(model, encoder, metadata)
    return Run(out, config, encoder, metadata, model, previous, playing, current,
               LoadedModel.from_model(previous, encoder, metadata),
               current if playing is model else LoadedModel.from_model(playing, encoder, metadata), buffer, history,
               done, progress)


def teacher_games(out: Path, config: AlphaZeroConfig) -> list[GameRecord]:
    """The games that fill the run's buffer (``teacher_games``): copied into the run folder
    (``teacher-games.csv``, atomically) at its first start and read from there after, so that a
    resumed run, or its pack in another session, fills with the same games whatever became of the
    file it named."""
    copy = out / TEACHER_GAMES
    if not copy.exists():
        write_games(copy, config.teacher_records())
    return read_games(copy)


def self_play_games(run: Run, iteration: int, pool: SelfPlayPool | None) -> Examples:
    """Step 1: the current network plays itself (in this process, or in the
    pool's workers, which load the network this iteration starts from); the
    examples join the replay buffer."""
    config = run.config
    settings, seed = config.self_play_settings(), config.seed * 1_000_003 + iteration
    if pool is None:
        examples = self_play(config.game, NetworkEvaluator(run.playing), run.encoder, config.games, settings,
                             seed=seed, progress=run.progress)
    else:
        start = iteration_checkpoint(run.out, iteration - 1)
        if not start.exists():
            save_model(run.model, start, {**run.metadata, "iteration": iteration - 1})
        examples = pool.self_play(config.game, start, config.games, settings, seed=seed, progress=run.progress)
    run.buffer.resize(config.window_games(iteration * config.games))
    run.buffer.add(examples)
    return examples


def train_network(run: Run, iteration: int, batches: int) -> dict[str, float]:
    """Step 2: ``batches`` batches from the buffer at the iteration's learning
    rate; the mean of each loss component."""
    config = run.config
    run.model.optimizer.learning_rate.assign(config.learning_rate_at(iteration))
    rng = np.random.default_rng((config.seed, iteration))  # the same batches, resumed or not
    losses = []
    bar = progress_bar(range(batches), desc="training", unit="batch", disable=not run.progress,
                       leave=False)
    for _ in bar:
        batch = run.buffer.sample(config.batch_size, rng)
        targets = [batch.pi, batch.z[:, None], *(batch.auxiliary[name] for name in config.auxiliary_targets())]
        losses.append(run.model.train_on_batch(batch.x, targets, return_dict=True))
        bar.set_postfix(loss=f"{float(losses[-1]['loss']):.3f}", refresh=False)
    run.current.refresh()  # its fast inference path holds the weights it was built with
    return {k: float(np.mean([step[k] for step in losses])) for k in losses[0]}


def save_iteration(run: Run, iteration: int) -> Path:
    """The trained network and the buffer, as the iteration leaves them (before
    its history row: a run killed after this redoes the iteration, and the games of
    a gate it had begun, played by the network this one replaces, go)."""
    checkpoint = iteration_checkpoint(run.out, iteration)
    save_model(run.model, checkpoint, {**run.metadata, "iteration": iteration})
    run.buffer.save(iteration_buffer(run.out, iteration))
    gate_games(run.out, iteration).unlink(missing_ok=True)
    return checkpoint


def gate_games(out: Path, iteration: int) -> Path:
    """Where the gate of ``iteration`` keeps its games."""
    return out / "gates" / f"iter-{iteration:03d}.csv"


def evaluate_network(run: Run, iteration: int, checkpoint: Path, last: bool) -> dict[str, float]:
    """Step 3: the score against the previous network and the Elo it adds up to;
    every ``baseline_every`` iterations (and at the last) the score against each baseline."""
    config = run.config
    scores = {"score_vs_previous": _against_previous(run, iteration)}
    last_elo = float(run.history["elo"].iloc[-1]) if "elo" in run.history else 0.0
    scores["elo"] = last_elo + elo_from_score(scores["score_vs_previous"], config.previous_games)
    if iteration % config.baseline_every == 0 or last:
        scores.update(_against_baselines(checkpoint, config, iteration, run.progress))
    if config.publish == "gate" and (iteration % config.gate_every == 0 or last):
        scores.update(gate(run, iteration))
    return scores


def gate(run: Run, iteration: int) -> dict[str, float]:
    """Step 3's gate (``publish="gate"``): the new network against the published one in
    colour-swapped pairs until the SPRT decides (H0 0 Elo, H1 ``gate_elo1``) or ``gate_pairs``
    are played; ``gate_accepted`` is 1 where it accepts H1 (the new network is published).
    The games go to ``gates/iter-NNN.csv`` (a run killed during the gate redoes the iteration,
    and its network's gate with it: :func:`save_iteration`)."""
    config = run.config
    published = int(run.history["published"].iloc[-1]) if "published" in run.history else 0  # 0: the start
    champion = NetworkEvaluator(load_network(str(iteration_checkpoint(run.out, published))))
    openings = match_openings(config.game, config.gate_pairs, config.gate_opening_plies, seed=config.seed)
    chunk = min(16, config.gate_pairs)
    match = PairedMatch(openings, replace(config.match_settings(), parallel=2 * chunk), SPRT(0.0, config.gate_elo1),
                        max_pairs=config.gate_pairs, chunk=chunk)
    gate_games(run.out, iteration).parent.mkdir(exist_ok=True)
    result = play_paired_match(config.game, NetworkEvaluator(run.current), champion, match,
                               gate_games(run.out, iteration), seed=config.seed * 7919 + iteration,
                               progress=run.progress, desc="gate")
    accepted = result.verdict is not None and result.verdict.accepted == "H1"
    return {"gate_against": float(published), "gate_pairs": float(result.pairs), "gate_score": result.score,
            "gate_low": result.low, "gate_high": result.high,
            "gate_llr": result.verdict.llr if result.verdict else float("nan"), "gate_accepted": float(accepted)}


def measure_references(run: Run, iteration: int) -> dict[str, float]:
    """Step 3, against what never changes: with ``reference_positions``, the
    network's mistakes on the solved early-game positions (:mod:`engines.training.references`)."""
    config = run.config
    if not config.reference_positions:
        return {}
    positions = reference_positions(config.game, config.reference_positions, config.reference_file)
    settings = replace(config.match_settings(), parallel=config.parallel)  # all of a batch of positions at once
    measured = measure_reference(NetworkEvaluator(run.current), positions, settings, seed=config.seed + iteration)
    return {"reference_positions": measured.positions, "mistakes_raw": measured.raw, "mistakes_search": measured.search}


def measure_start(run: Run) -> None:
    """Iteration 0's row: the starting network (untrained, or ``init``) against
    the fixed references, so that it can be the one published."""
    started = time.perf_counter()
    row: dict[str, float] = {"iteration": 0, "examples": 0, "elo": 0.0}
    checkpoint = iteration_checkpoint(run.out, 0)
    row.update(_against_baselines(checkpoint, run.config, 0, run.progress) if run.config.baselines else {})
    row.update(measure_references(run, 0))
    row["seconds"] = time.perf_counter() - started  # part of the run's budget
    publish(run, 0, row)


def best_iteration(history: pd.DataFrame, config: AlphaZeroConfig) -> int:
    """The iteration ``config.publish`` names: the latest, or the best by the
    fixed references (fewest mistakes at search on the solved positions, else the
    best score against the first baseline): the latest iteration within
    ``config.publish_margin`` standard errors of the best measurement (the
    one-standard-error rule; 0: the best itself, ties to the later iteration)."""
    latest = int(history["iteration"].iloc[-1])
    if config.publish == "gate":  # the last network its gate accepted, else the start
        accepted = history[history["gate_accepted"] == 1] if "gate_accepted" in history else history.iloc[:0]
        return int(accepted["iteration"].iloc[-1]) if len(accepted) else 0
    if not config.chooses_best:
        return latest
    column = "mistakes_search" if config.reference_positions else f"score_vs_{config.baselines[0]}"
    if column not in history:
        return latest
    measured = history[["iteration", column]].dropna()
    if measured.empty:
        return latest
    if column.startswith("score_vs_"):  # higher is better; a score over the baseline games
        goodness, samples = measured[column], float(config.eval_games)
    else:  # fewer mistakes is better; a rate over the positions measured (unknown in older histories)
        goodness = -measured[column]
        samples = float(history["reference_positions"].max()) if "reference_positions" in history else 0.0
    rate = float(measured.loc[goodness.idxmax(), column])  # the best measurement
    standard_error = math.sqrt(rate * (1.0 - rate) / samples) if samples > 0 else 0.0
    good_enough = measured[goodness >= goodness.max() - config.publish_margin * standard_error]
    return int(good_enough["iteration"].iloc[-1])


def publish(run: Run, iteration: int, row: dict[str, float]) -> None:
    """Step 4: the iteration's row joins ``history.csv`` (the iteration is now
    complete), the network ``publish`` names (this one, or the best so far by
    the fixed references, column ``published``) becomes ``checkpoint.keras`` and
    older buffers go."""
    history = pd.concat([run.history, pd.DataFrame([row])], ignore_index=True)
    published = best_iteration(history, run.config)
    history.loc[history.index[-1], "published"] = published
    run.history = history
    with atomic_write(run.out / "history.csv") as handle:
        run.history.to_csv(handle, index=False)
    publish_copy(iteration_checkpoint(run.out, published), run.out / "checkpoint.keras", "iteration",
                 published)
    for stale in run.out.glob("buffer-*.npz"):
        if stale != iteration_buffer(run.out, iteration):
            stale.unlink()
    run.done = iteration
    log.info("iteration %d: %s", iteration, row)


def _seconds_spent(history: pd.DataFrame) -> float:
    """The seconds a run's iterations took so far (self-play, training and evaluation)."""
    return float(history["seconds"].sum()) if "seconds" in history else 0.0


def _resume_point(out: Path, history: pd.DataFrame) -> int:
    """The last finished iteration, with its published network made consistent:
    ``history.csv`` is written last, so every iteration it lists has its
    checkpoint and buffer; ``checkpoint.keras`` is copied after it, so a kill in
    between leaves the previous network there, which is put right here."""
    done = 0 if history.empty else int(history["iteration"].iloc[-1])
    if not done:
        return 0
    wanted = int(history["published"].iloc[-1]) if "published" in history else done
    checkpoint, buffer = iteration_checkpoint(out, done), iteration_buffer(out, done)
    for needed in (checkpoint, buffer):
        if not needed.exists():
            raise RecordError(f"{out}: history.csv lists iteration {done} but {needed.name} is missing; "
                              "the run cannot resume: use another folder")
    publish_copy(iteration_checkpoint(out, wanted), out / "checkpoint.keras", "iteration", wanted)
    for stale in out.glob("buffer-*.npz"):
        if stale != buffer:
            stale.unlink()
    return done


def starting_network(path: str, encoder: Encoder, auxiliary: Sequence[str] = (), l2: float = 1e-4) -> "keras.Model":
    """The policy-value network in ``path`` (``dlgo train-supervised --target
    both``, or another run's checkpoint) as the start of a run with ``encoder``:
    a :class:`ModelFileError` unless it reads the same planes and answers a
    policy over the same moves and a value. Its own architecture is kept, with
    fresh ``auxiliary`` heads added (:func:`~engines.neural.resnet.add_auxiliary_heads`)."""
    model, metadata = load_model(resolve_model_path(path), compile=False)
    recorded = metadata.get("encoder", {})
    shapes = [tuple(output.shape[1:]) for output in model.outputs]
    if recorded.get("name") != encoder.name or tuple(model.inputs[0].shape[1:]) != encoder.shape \
            or shapes != [(encoder.num_moves,), (1,)]:
        raise ModelFileError(f"--init {path}: a network for {encoder.game_spec} with the {encoder.name} encoder, a "
                             f"policy and a value is needed; this one reads {recorded.get('name', 'unknown')} "
                             f"planes and answers outputs of shapes {shapes}")
    try:
        return add_auxiliary_heads(model, auxiliary, l2)
    except SpecError as error:
        raise ModelFileError(f"--init {path}: {error}") from None


def _compile(model: "keras.Model", config: AlphaZeroConfig) -> None:
    """Adam on policy cross-entropy + value squared error (+ each auxiliary target's squared error, weighted)."""
    auxiliary = config.auxiliary_targets()
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=config.learning_rate),
                  loss=[keras.losses.CategoricalCrossentropy(), keras.losses.MeanSquaredError(),
                        *(keras.losses.MeanSquaredError() for _ in auxiliary)],
                  loss_weights=[1.0, 1.0, *(config.auxiliary_weight for _ in auxiliary)])


def _against_previous(run: Run, iteration: int) -> float:
    """Score of the new network against the previous iteration's, both with search."""
    config = run.config
    if config.previous_games <= 0:
        return float("nan")
    scores = play_batched_match(config.game, NetworkEvaluator(run.current), NetworkEvaluator(run.previous),
                                config.previous_games, config.match_settings(), seed=config.seed * 7919 + iteration,
                                progress=run.progress)
    return float(np.mean(scores))


def _against_baselines(checkpoint: Path, config: AlphaZeroConfig, iteration: int,
                       progress: bool) -> dict[str, float]:
    """Score of the network (with search) against each baseline, colours alternating."""
    spec = config.engine_spec(checkpoint, config.eval_simulations)
    scores = {}
    bar = progress_bar(total=config.eval_games * len(config.baselines), desc="baselines", unit="game",
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


def _write_selfplay_sgf(folder: Path, game: str, games: list[str], player: str) -> None:
    """One SGF file per self-play game (the network plays both sides)."""
    folder.mkdir(parents=True, exist_ok=True)
    for k, moves in enumerate(games):
        final = replay(game, moves)[-1]
        outcome = final.outcome()
        with atomic_write(folder / f"game-{k:04d}.sgf") as handle:
            handle.write(game_to_sgf(final, player, player, outcome.text if outcome else ""))


def plot_history(history: pd.DataFrame, path: str | Path, title: str) -> None:
    """The learning curve: loss components, the scores measured per iteration, and Elo (where
    each iteration played the one before it)."""
    scores = [c for c in history.columns if c.startswith("score_vs_") and history[c].notna().any()]
    plot_learning_curve(history, path, title=title, x="iteration", losses=("loss", "policy_loss", "value_loss"),
                        scores=scores, score_label="score", elo="elo" if "score_vs_previous" in scores else None,
                        mistakes=("mistakes_raw", "mistakes_search"), published="published")


def saved_config(out: str | Path) -> AlphaZeroConfig:
    """The settings of the run in ``out`` (to resume it without repeating them)."""
    return read_settings(out, AlphaZeroConfig, "AlphaZero")
