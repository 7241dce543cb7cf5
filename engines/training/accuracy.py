"""How well a move predictor imitates: accuracy on held-out games, next to baselines.

``evaluate_predictor`` reports, on a split of whole games the network never
trained on:

- ``top1`` / ``top5``: the played move is the network's first / among its five first;
- ``top1_legal``: the same with illegal moves masked out (what the agent plays);
- ``uniform``: 1 / number of points (the issue's 1/81 on 9x9), and
  ``uniform_legal``: the mean of 1 / number of legal moves, the accuracy of
  guessing uniformly among the legal moves;
- ``teacher``: how often the engine that made the games, run again with another
  seed, picks the move it picked then: the ceiling for imitating a noisy teacher.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.core.errors import ModelFileError, RecordError
from dlgo.data.dataset import encode_dataset, load_chunk, split_of
from dlgo.storage.folders import read_manifest
from dlgo.formats.records import GameRecord, read_games, replay
from engines.neural.loading import load_network, value_output
from engines.registry import create_seeded


def evaluate_predictor(model: str | Path, data: str | Path, *, split: str = "test", batch_size: int = 1024,
                       teacher_positions: int = 0, seed: int = 0, progress: bool = False) -> dict[str, Any]:
    """Accuracy figures of ``model`` on ``split`` of dataset folder ``data``."""
    loaded = load_network(model)
    manifest = encode_dataset(data, loaded.encoder.name, progress=progress)
    if tuple(manifest.shape) != loaded.encoder.shape or manifest.num_moves != loaded.encoder.num_moves:
        raise ModelFileError(f"{model} plays {loaded.encoder.game_spec}, the data is {manifest.game}")
    n = top1 = top5 = top1_legal = 0
    uniform_legal = 0.0
    for path in manifest.chunk_paths(split):
        chunk = load_chunk(path)
        for start in range(0, len(chunk.labels), batch_size):
            x = chunk.features[start:start + batch_size].astype(np.float32)
            y = chunk.labels[start:start + batch_size]
            legal = chunk.legal[start:start + batch_size]
            p = loaded.call(x)[0]
            ranked = np.argsort(-p, axis=1)
            top1 += int((ranked[:, 0] == y).sum())
            top5 += int((ranked[:, :5] == y[:, None]).any(axis=1).sum())
            top1_legal += int((np.where(legal, p, -1.0).argmax(axis=1) == y).sum())
            uniform_legal += float((1.0 / legal.sum(axis=1)).sum())
            n += len(y)
    if n == 0:
        raise RecordError(f"no {split} positions in {data}")
    game = loaded.encoder.game
    guesses = game.num_actions - (1 if game.has_pass else 0)  # a uniform guess never passes
    result: dict[str, Any] = {
        "split": split, "positions": n, "top1": top1 / n, "top5": top5 / n, "top1_legal": top1_legal / n,
        "uniform": 1.0 / guesses,
        "uniform_legal": uniform_legal / n,
    }
    if teacher_positions:
        result.update(teacher_agreement(data, split, teacher_positions, seed))
    return result


def evaluate_value(model: str | Path, data: str | Path, *, split: str = "test",
                   batch_size: int = 1024) -> dict[str, Any]:
    """How well the value network ``model`` foresees the results of the games of
    ``split``, over all their positions: ``mse`` (against the result for the
    player to move, 1 or -1), ``winner`` (the share of positions where the sign
    of the value names the winner), ``baseline_mse`` (always answering 0) and
    ``late_winner`` (``winner`` over the second half of each game's positions)."""
    loaded = load_network(model)
    manifest = encode_dataset(data, loaded.encoder.name)
    if tuple(manifest.shape) != loaded.encoder.shape:
        raise ModelFileError(f"{model} plays {loaded.encoder.game_spec}, the data is {manifest.game}")
    errors, hits, baseline, late_hits, late = 0.0, 0, 0.0, 0, 0
    n = 0
    for path in manifest.chunk_paths(split):
        chunk = load_chunk(path)
        outputs = [value_output(loaded.call(chunk.features[i:i + batch_size].astype(np.float32)))
                   for i in range(0, len(chunk.values), batch_size)]
        if not outputs:
            continue
        v, y = np.concatenate(outputs), chunk.values.astype(np.float64)
        errors += float(((v - y) ** 2).sum())
        baseline += float((y ** 2).sum())
        right = np.sign(v) == np.sign(y)
        hits += int(right.sum())
        # the second half of each game's positions (a game's rows are consecutive in a chunk)
        for g in np.unique(chunk.games):
            rows = np.flatnonzero(chunk.games == g)
            second = rows[len(rows) // 2:]
            late_hits += int(right[second].sum())
            late += len(second)
        n += len(y)
    if n == 0:
        raise RecordError(f"no {split} positions in {data}")
    return {"split": split, "positions": n, "mse": errors / n, "baseline_mse": baseline / n, "winner": hits / n,
            "late_winner": late_hits / max(1, late)}


def teacher_agreement(data: str | Path, split: str, positions: int, seed: int = 0) -> dict[str, Any]:
    """How often the generating engine, with a fresh seed, repeats its own moves
    on ``positions`` random positions of ``split`` (self-play datasets only)."""
    source = read_manifest(data)
    if source.get("kind") != "generate":
        return {}
    rng = random.Random(seed)
    candidates: list[tuple[GameRecord, int]] = []
    for record in read_games(Path(data) / "games.csv"):
        if split_of(record.game_id) == split:
            plies = range(record.opening_plies, record.plies)
            candidates.extend((record, ply) for ply in plies)
    sample = rng.sample(candidates, min(positions, len(candidates)))
    agree = 0
    for k, (record, ply) in enumerate(sample):
        states = replay(record.game, " ".join(record.moves.split()[:ply + 1]))
        teacher = create_seeded(source["engine"], seed + 1000 + k)
        agree += teacher.select_move(states[ply]) == states[ply + 1].last_move
    return {"teacher": agree / len(sample) if sample else float("nan"), "teacher_positions": len(sample),
            "teacher_engine": source["engine"]}
