"""Supervised training of a move predictor or a value network, resumable, streaming from chunks.

``train_supervised(data, out)`` encodes the dataset if needed, builds (or, on a
rerun, reloads) the network and fits it on the training split, validating on
the validation split after every epoch. With ``target="value"`` the network
learns each position's result for the player to move instead of the move
played (AlphaGo's value network: a tanh output and the mean squared error), on
``positions_per_game`` positions of each game, chosen once (AlphaGo took one
per game, so that the positions it learns are not near copies sharing one
result). ``target="both"`` trains a policy head and a value head on one body,
the value's loss weighted by :data:`VALUE_WEIGHT` (AlphaGo Zero's supervised
network): a start for ``dlgo train-alphazero --init``. ``model="resnet"`` is
AlphaZero's residual tower (:func:`engines.neural.resnet.build_resnet`), and
``"resnet6"`` a deeper one with thin heads for the full board (:data:`RESNETS`).
``out/`` receives::

    run.json                 the settings (a rerun must use the same ones)
    history.csv              loss, accuracy and top-5 accuracy per epoch (train and val), its seconds
    checkpoints/epoch-NNN.keras   the model with its optimizer state, each epoch
    model.keras              the best epoch by validation loss: what agents load

A killed run continues from its last checkpoint when the same command is run
again. Training stops early when the validation loss has not improved for
``patience`` epochs (counted across restarts too).
"""
from __future__ import annotations

import logging
import math
import time
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from dlgo.core.errors import RecordError, SpecError
from dlgo.core.symmetry import Symmetry
from dlgo.data.dataset import Manifest, encode_dataset, load_chunk
from dlgo.encoders.symmetry import augment_batch
from dlgo.storage.atomic import atomic_write
from dlgo.storage.folders import check_folder, hold_folder
from dlgo.display.progress import fit_verbosity
from engines.checkpoints import publish_copy
from engines.neural.backend import keras, load_model, save_model
from engines.neural.models import MODELS, build_model
from engines.neural.resnet import build_resnet

log = logging.getLogger(__name__)


class ChunkSequence(keras.utils.PyDataset):
    """Batches streamed from a split's chunk files, one chunk in memory at a time.

    Every epoch visits the chunks in a new random order and each chunk's
    positions in a new random order; with ``syms`` every example is seen under a
    random board symmetry. ``target`` is ``"move"`` (labels: the moves played),
    ``"value"`` (the results for the player to move) or ``"both"``; ``per_game`` > 0 keeps
    only that many positions of each game, the same ones every epoch and after
    a restart (chosen by ``selection_seed``)."""

    def __init__(self, paths: list[Path], sizes: list[int], batch_size: int, *, shuffle: bool = True,
                 syms: list[Symmetry] | None = None, seed: int = 0, target: str = "move", per_game: int = 0,
                 selection_seed: int = 0):
        super().__init__(workers=1, use_multiprocessing=False)
        self.paths, self.batch_size = paths, batch_size
        self.shuffle, self.syms, self.target = shuffle, syms, target
        self.rng = np.random.default_rng(seed)
        self.keep = [per_game_selection(load_chunk(path).games, per_game, selection_seed + c)
                     for c, path in enumerate(paths)] if per_game else None
        self.sizes = [len(k) for k in self.keep] if self.keep is not None else sizes
        self.chunk_batches = [math.ceil(n / batch_size) for n in self.sizes]
        self._loaded: tuple[int, Any] | None = None
        self._plan()

    def _plan(self) -> None:
        order = self.rng.permutation(len(self.paths)) if self.shuffle else np.arange(len(self.paths))
        self.batches = [(int(c), b) for c in order for b in range(self.chunk_batches[c])]

    def __len__(self) -> int:
        return len(self.batches)

    def _chunk(self, c: int):
        if self._loaded is None or self._loaded[0] != c:
            data = load_chunk(self.paths[c])
            rows = self.keep[c] if self.keep is not None else np.arange(len(data.labels))
            perm = rows[self.rng.permutation(len(rows))] if self.shuffle else rows
            labels = data.values.astype(np.float32) if self.target == "value" else data.labels
            self._loaded = (c, (data.features[perm], labels[perm], data.values[perm].astype(np.float32)))
        return self._loaded[1]

    def __getitem__(self, index: int) -> tuple[np.ndarray, Any]:
        c, b = self.batches[index]
        features, labels, values = self._chunk(c)
        rows = slice(b * self.batch_size, (b + 1) * self.batch_size)
        x, y = features[rows], labels[rows]
        if self.syms:
            x, y = augment_batch(x, y, self.syms, self.rng, actions=self.target != "value")
        if self.target == "both":
            return x.astype(np.float32), (y, values[rows])
        return x.astype(np.float32), y

    def on_epoch_end(self) -> None:
        self._plan()


def split_sequence(manifest: Manifest, split: str, batch_size: int, **kwargs) -> ChunkSequence | None:
    chunks = [c for c in manifest.chunks if c.split == split]
    if not chunks:
        return None
    return ChunkSequence(manifest.chunk_paths(split), [c.positions for c in chunks], batch_size, **kwargs)


class EpochRecorder(keras.callbacks.Callback):
    """After each epoch: history.csv, a checkpoint, model.keras when the
    validation loss improves, and early stopping, all surviving restarts."""

    def __init__(self, out: Path, history: pd.DataFrame, metadata: dict, patience: int, keep: int = 3):
        super().__init__()
        self.out, self.history, self.metadata = out, history, metadata
        self.patience, self.keep = patience, keep
        self.started = time.perf_counter()

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self.started = time.perf_counter()

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        row = {"epoch": epoch + 1, **{k: float(v) for k, v in (logs or {}).items()},
               "seconds": time.perf_counter() - self.started}  # the epoch's wall time, validation included
        self.history = pd.concat([self.history, pd.DataFrame([row])], ignore_index=True)
        metadata = {**self.metadata, "epoch": epoch + 1, "metrics": row}
        checkpoints = self.out / "checkpoints"
        save_model(self.model, checkpoints / f"epoch-{epoch + 1:03d}.keras", metadata)
        with atomic_write(self.out / "history.csv") as handle:  # after its checkpoint: the epoch is done
            self.history.to_csv(handle, index=False)
        publish_best(self.out, self.history)
        for old in sorted(checkpoints.glob("epoch-*.keras"))[:-self.keep]:
            if old.name != f"epoch-{best_epoch(self.history):03d}.keras":
                old.unlink()
        if epochs_without_improvement(self.history) >= self.patience:
            log.info("validation loss has not improved for %d epochs: stopping", self.patience)
            self.model.stop_training = True


def publish_best(out: Path, history: pd.DataFrame) -> None:
    """Make ``model.keras`` the best epoch of ``history`` (a copy of its
    checkpoint), unless it is already: after every epoch, and on resuming a run
    killed between ``history.csv`` and the copy."""
    if history.empty:
        return
    best = best_epoch(history)
    publish_copy(out / "checkpoints" / f"epoch-{best:03d}.keras", out / "model.keras", "epoch", best)


def best_epoch(history: pd.DataFrame) -> int:
    column = "val_loss" if "val_loss" in history else "loss"
    return int(history.loc[history[column].idxmin(), "epoch"])


def epochs_without_improvement(history: pd.DataFrame) -> int:
    return 0 if history.empty else int(history["epoch"].iloc[-1]) - best_epoch(history)


def per_game_selection(games: np.ndarray, per_game: int, seed: int) -> np.ndarray:
    """Sorted row indices keeping ``per_game`` random rows (or all, if fewer) of each game number in ``games``."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(games))
    by_game = order[np.argsort(games[order], kind="stable")]  # grouped by game, random within each
    starts = np.r_[0, np.flatnonzero(np.diff(games[by_game])) + 1]
    rank = np.arange(len(games)) - np.repeat(starts, np.diff(np.r_[starts, len(games)]))
    return np.sort(by_game[rank < per_game])


@keras.saving.register_keras_serializable(package="dlgo")
def winner_accuracy(y_true, y_pred):
    """How often the sign of the predicted value names the winner (a drawn position counts as a miss)."""
    y_true, y_pred = keras.ops.reshape(y_true, (-1,)), keras.ops.reshape(y_pred, (-1,))
    return keras.ops.mean(keras.ops.cast(keras.ops.equal(keras.ops.sign(y_true), keras.ops.sign(y_pred)),
                                         "float32"))


#: what a supervised network learns: the move played, the result for the player to move, or both
TARGETS = ("move", "value", "both")

#: the value loss's weight when one network learns both (AlphaGo Zero's supervised
#: run used 0.01: every position of a game shares its result, and a larger weight overfits)
VALUE_WEIGHT = 0.01


def compile_model(model: "keras.Model", learning_rate: float, target: str = "move") -> None:
    optimizer = keras.optimizers.Adam(learning_rate=learning_rate)
    move_metrics = [keras.metrics.SparseCategoricalAccuracy(name="accuracy"),
                    keras.metrics.SparseTopKCategoricalAccuracy(k=5, name="top5")]
    if target == "value":
        model.compile(optimizer=optimizer, loss=keras.losses.MeanSquaredError(), metrics=[winner_accuracy])
    elif target == "both":
        model.compile(optimizer=optimizer,
                      loss=[keras.losses.SparseCategoricalCrossentropy(), keras.losses.MeanSquaredError()],
                      loss_weights=[1.0, VALUE_WEIGHT], metrics=[move_metrics, [winner_accuracy]])
    else:
        model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(), metrics=move_metrics)


class ResNetSize(NamedTuple):
    """The shape of an AlphaZero tower ``--model`` names: its blocks, filters and heads' planes."""

    blocks: int
    filters: int
    policy_filters: int
    value_filters: int


#: AlphaZero's towers by ``--model``: ``resnet`` at the suite's Go size (9x9), with the recipe's heads
#: (AlphaZeroConfig's default policy and value filters); ``resnet6`` for the full board, deeper and
#: with AlphaGo Zero's thin heads (2 and 1 planes), whose dense layers then stay small on 19x19
#: (about 0.7 million weights there, 3 MB; the recipe's 32-plane heads would hold 5 million)
RESNETS = {"resnet": ResNetSize(4, 64, 32, 32), "resnet6": ResNetSize(6, 64, 2, 1)}


def build_network(model: str, shape: tuple[int, int, int], num_moves: int, l2: float, target: str) -> "keras.Model":
    """The network ``model`` (a book network, or one of :data:`RESNETS`: AlphaZero's tower) with
    the heads ``target`` needs."""
    if model in RESNETS:
        if target != "both":
            raise SpecError(f"the {model} has a policy head and a value head: train it with --target both")
        size = RESNETS[model]
        return build_resnet(shape, num_moves, blocks=size.blocks, filters=size.filters, l2=l2 or 1e-4,
                            policy_filters=size.policy_filters, value_filters=size.value_filters, name=model)
    head = {"move": "policy", "value": "value", "both": "policy-value"}[target]
    return build_model(model, shape, num_moves, l2=l2, head=head)



def train_supervised(data: str | Path, out: str | Path, *, model: str = "small", encoder: str | None = None,
                     epochs: int = 20, batch_size: int = 128, learning_rate: float = 1e-3, l2: float = 0.0,
                     patience: int = 4, augment: bool = True, seed: int = 0, target: str = "move",
                     positions_per_game: int = 0, progress: bool = True) -> pd.DataFrame:
    """Train (or finish training) a move predictor (``target="move"``) or a value
    network (``"value"``) on the dataset folder ``data``, from ``positions_per_game``
    positions of each game (0: all); returns the history, one row per epoch. See
    the module docstring for ``out``. The folder is held by this run alone
    (:func:`~dlgo.storage.folders.hold_folder`)."""
    for name, value, least in (("epochs", epochs, 1), ("batch_size", batch_size, 1), ("patience", patience, 1),
                               ("positions_per_game", positions_per_game, 0)):
        if value < least:
            raise SpecError(f"{name} must be at least {least}, got {value}")
    if target not in TARGETS:
        raise SpecError(f"target is one of {', '.join(TARGETS)}, got {target!r}")
    if not (math.isfinite(learning_rate) and learning_rate > 0 and math.isfinite(l2) and l2 >= 0):
        raise SpecError(f"learning_rate must be above 0 and l2 at least 0, got {learning_rate} and {l2}")
    if model not in MODELS and model not in RESNETS:
        raise SpecError(f"unknown model {model!r}; the models are: {', '.join([*MODELS, *RESNETS])}")
    check_folder(out, "train-supervised")  # before the dataset is encoded
    manifest = encode_dataset(data, encoder, progress=progress)
    settings: dict[str, Any] = {"data": str(data), "model": model, "encoder": manifest.encoder,
                                "game": manifest.game, "batch_size": batch_size, "learning_rate": learning_rate,
                                "l2": l2, "augment": augment, "seed": seed}
    if target != "move" or positions_per_game:  # runs from before these settings hold without them
        settings.update(target=target, positions_per_game=positions_per_game)
    with hold_folder(out, "train-supervised", **settings):
        return _train(Path(data), Path(out), manifest, model, epochs, batch_size, learning_rate, l2, patience,
                      augment, seed, progress, target, positions_per_game)


def _train(data: Path, out: Path, manifest: Manifest, model: str, epochs: int, batch_size: int,
           learning_rate: float, l2: float, patience: int, augment: bool, seed: int,
           progress: bool, target: str, per_game: int) -> pd.DataFrame:
    keras.utils.set_random_seed(seed)
    history_file = out / "history.csv"
    history = pd.read_csv(history_file) if history_file.exists() else pd.DataFrame()
    done = 0 if history.empty else int(history["epoch"].iloc[-1])
    publish_best(out, history)
    if done >= epochs or epochs_without_improvement(history) >= patience:
        return history  # finished: its network is model.keras
    if done:
        net, _ = load_model(out / "checkpoints" / f"epoch-{done:03d}.keras")
        log.info("resuming %s after epoch %d", out, done)
    else:
        net = build_network(model, manifest.shape, manifest.num_moves, l2, target)
        compile_model(net, learning_rate, target)

    encoder_obj = manifest.make_encoder()
    syms = encoder_obj.game.symmetries() if augment else None
    selection = {"target": target, "per_game": per_game, "selection_seed": seed}
    train = split_sequence(manifest, "train", batch_size, syms=syms, seed=seed + done, **selection)
    if train is None:
        raise RecordError(f"{data} has no training positions")
    val = split_sequence(manifest, "val", 1024, shuffle=False, **selection)
    kind = {"move": "predictor", "value": "value", "both": "policy-value"}[target]
    metadata = {"kind": kind, "encoder": encoder_obj.config(),
                "model": model, "trained_on": str(data), "positions": manifest.split_sizes(),
                "positions_per_game": per_game}
    recorder = EpochRecorder(out, history, metadata, patience)
    net.fit(train, validation_data=val, epochs=epochs, initial_epoch=done, callbacks=[recorder],
            verbose=fit_verbosity(progress))
    return recorder.history
