"""Fitting the fast rollout policy (:mod:`dlgo.games.go.patterns`) to a teacher's moves.

``train_rollout(data, out)`` replays the Go games of a dataset folder
(``games.csv`` from ``dlgo generate`` or ``dlgo import-sgf``), turns every move
a player chose into an example (the responses to the last move with their
features, which of them was chosen, or "another point", and how many other
points there were), fits the weights by maximum likelihood with Adam in numpy
on the training games, and reports how well the policy predicts the moves of
the held-out test games. The same split of games by id as the networks'
datasets (:func:`dlgo.data.dataset.split_of`) keeps the test games unseen.

It takes a minute or two for 20,000 games, so a killed run simply starts
again; the weights file is written once, atomically, at the end.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dlgo.core.errors import RecordError, SpecError
from dlgo.data.dataset import split_of
from dlgo.display.progress import progress_bar
from dlgo.formats.records import GameRecord, read_games, replay
from dlgo.games import new_game
from dlgo.games.go.patterns import NUM_FEATURES, REST, PatternPolicy, responses
from dlgo.games.go.state import GoState
from engines.rollouts import save_rollout_policy

#: at most this many responses per example are kept (almost never reached: 8 + a few atari liberties)
MAX_RESPONSES = 16
MAX_FEATURES = 5  # a pattern and at most four tactical flags
PAD = NUM_FEATURES  # the index of an extra weight that is always 0


@dataclass
class Examples:
    """Padded arrays of ``n`` examples: ``features (n, MAX_RESPONSES, MAX_FEATURES)``
    (PAD where there is none), ``valid (n, MAX_RESPONSES)``, ``target (n,)``
    (the chosen response, or MAX_RESPONSES for another point), ``others (n,)``
    (the number of other empty points)."""

    features: np.ndarray
    valid: np.ndarray
    target: np.ndarray
    others: np.ndarray

    def __len__(self) -> int:
        return len(self.target)

    def take(self, index: np.ndarray) -> "Examples":
        return Examples(self.features[index], self.valid[index], self.target[index], self.others[index])


def examples_from(records: list[GameRecord], progress: bool = True, desc: str = "examples") -> Examples:
    """One example per move a player chose (not the random opening plies, not passes) in ``records``."""
    features, valid, target, others = [], [], [], []
    for record in progress_bar(records, desc=desc, unit="game", disable=not progress):
        states = replay(record.game, record.moves)
        for ply, state in enumerate(states[:-1]):
            move = states[ply + 1].last_move
            if ply < record.opening_plies or move is None or move.point is None:
                continue
            assert isinstance(state, GoState)  # train_rollout takes Go games only
            board = state.board
            last = state.last_move.point if state.last_move is not None else None
            points, found = responses(board, int(state.next_player),
                                      -1 if last is None else board.geometry.index_of(last))
            points, found = points[:MAX_RESPONSES], found[:MAX_RESPONSES]
            chosen = board.geometry.index_of(move.point)
            block = np.full((MAX_RESPONSES, MAX_FEATURES), PAD, dtype=np.int16)
            for i, f in enumerate(found):
                block[i, :len(f)] = f
            features.append(block)
            valid.append(np.arange(MAX_RESPONSES) < len(points))
            target.append(points.index(chosen) if chosen in points else MAX_RESPONSES)
            others.append(len(board.empties) - len(points))
    if not target:
        return Examples(np.zeros((0, MAX_RESPONSES, MAX_FEATURES), np.int16), np.zeros((0, MAX_RESPONSES), bool),
                        np.zeros(0, np.int64), np.zeros(0, np.int64))
    return Examples(np.stack(features), np.stack(valid), np.asarray(target), np.asarray(others))


def probabilities(weights: np.ndarray, ex: Examples) -> np.ndarray:
    """``(n, MAX_RESPONSES + 1)``: each response's probability, then that of all the other points together."""
    padded = np.append(weights, 0.0)
    logits = padded[ex.features].sum(axis=2)
    logits = np.where(ex.valid, logits, -np.inf)
    with np.errstate(divide="ignore"):
        rest = weights[REST] + np.log(ex.others.astype(np.float64))
    logits = np.concatenate([logits, rest[:, None]], axis=1)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def gradient(weights: np.ndarray, ex: Examples, l2: float) -> tuple[float, np.ndarray]:
    """The mean negative log-likelihood of the chosen moves (plus ``l2``) and its gradient."""
    p = probabilities(weights, ex)
    n = len(ex)
    loss = -np.log(np.maximum(p[np.arange(n), ex.target], 1e-12)).mean() + l2 * float(weights @ weights)
    g = p
    g[np.arange(n), ex.target] -= 1.0  # d loss / d logit = p - onehot
    g /= n
    grad = np.zeros(NUM_FEATURES + 1)
    per_feature = np.broadcast_to(g[:, :MAX_RESPONSES, None], ex.features.shape)
    np.add.at(grad, ex.features.reshape(-1), per_feature.reshape(-1))
    grad[REST] += g[:, MAX_RESPONSES].sum()
    return float(loss), grad[:NUM_FEATURES] + 2 * l2 * weights


def accuracy(weights: np.ndarray, ex: Examples) -> dict[str, float]:
    """How the policy predicts ``ex``: ``likelihood`` (mean probability of the
    move played), ``top1`` (the expected hit rate of playing its most likely
    point), ``responses`` (the share of moves that were responses) and
    ``uniform`` (the mean probability under a uniform choice among empty points)."""
    p = probabilities(weights, ex)
    n = len(ex)
    rows = np.arange(n)
    others = np.maximum(ex.others, 1)
    per_point = p.copy()
    per_point[:, MAX_RESPONSES] /= others  # one other point's probability
    chosen = np.where(ex.target < MAX_RESPONSES, p[rows, np.minimum(ex.target, MAX_RESPONSES)],
                      p[:, MAX_RESPONSES] / others)
    best = per_point.argmax(axis=1)
    hit = np.where(best == ex.target, np.where(best == MAX_RESPONSES, 1.0 / others, 1.0), 0.0)
    empties = ex.valid.sum(axis=1) + ex.others
    return {"likelihood": float(chosen.mean()), "top1": float(hit.mean()),
            "responses": float((ex.target < MAX_RESPONSES).mean()), "uniform": float((1.0 / empties).mean())}


def fit(train: Examples, epochs: int = 20, batch_size: int = 4096, learning_rate: float = 0.05,
        l2: float = 1e-5, seed: int = 0, progress: bool = True) -> tuple[np.ndarray, list[float]]:
    """Weights fitted by Adam on mini-batches; returns them and the mean loss per epoch."""
    rng = np.random.default_rng(seed)
    w = np.zeros(NUM_FEATURES)
    m, v = np.zeros_like(w), np.zeros_like(w)
    beta1, beta2, eps, step = 0.9, 0.999, 1e-8, 0
    losses = []
    for _ in progress_bar(range(epochs), desc="fit", unit="epoch", disable=not progress):
        order = rng.permutation(len(train))
        total = 0.0
        for start in range(0, len(train), batch_size):
            batch = train.take(order[start:start + batch_size])
            loss, g = gradient(w, batch, l2)
            total += loss * len(batch)
            step += 1
            m = beta1 * m + (1 - beta1) * g
            v = beta2 * v + (1 - beta2) * g * g
            w -= learning_rate * (m / (1 - beta1 ** step)) / (np.sqrt(v / (1 - beta2 ** step)) + eps)
        losses.append(total / max(1, len(train)))
    return w, losses


def read_go_games(data: str | Path, learner: str) -> list[GameRecord]:
    """The games of the dataset folder ``data``; a clear error where there are none or some are not
    Go (``learner``: what is for Go, in the message)."""
    records = read_games(Path(data) / "games.csv")
    if not records:
        raise RecordError(f"no games in {Path(data) / 'games.csv'}")
    if not all(isinstance(new_game(spec), GoState) for spec in {r.game for r in records}):
        raise SpecError(f"{data} holds games other than Go; {learner} for Go")
    return records


def train_rollout(data: str | Path, out: str | Path, epochs: int = 20, seed: int = 0,
                  progress: bool = True) -> dict[str, float]:
    """Fit a rollout policy to the games of ``data`` and save it to ``out``
    (``.npz``); returns its test accuracy (see :func:`accuracy`) with the counts."""
    out = Path(out)
    if out.suffix != ".npz":
        raise SpecError(f"a rollout policy file ends in .npz, got {out}")
    if epochs < 1:
        raise SpecError(f"epochs must be at least 1, got {epochs}")
    records = read_go_games(data, "the rollout policy is")
    train = examples_from([r for r in records if split_of(r.game_id) == "train"], progress, "train examples")
    test = examples_from([r for r in records if split_of(r.game_id) == "test"], progress, "test examples")
    if not len(train):
        raise RecordError(f"the games of {data} have no moves to learn from")
    weights, losses = fit(train, epochs=epochs, seed=seed, progress=progress)
    metrics = {**accuracy(weights, test), "train_positions": len(train), "test_positions": len(test),
               "games": len(records), "loss": losses[-1]}
    info = {"data": str(data), "epochs": epochs, "seed": seed,
            **{k: (round(v, 6) if isinstance(v, float) and math.isfinite(v) else v) for k, v in metrics.items()}}
    save_rollout_policy(PatternPolicy(weights, info), out)
    return metrics
