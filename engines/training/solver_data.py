"""Solved positions to learn from, their targets, and a network's mistakes on them
(:mod:`engines.training.solver_supervised` trains on them), in a module without TensorFlow.

The positions come from a solved-positions file (:func:`read_solved`: the
``candidates.csv`` of a ``dlgo positions`` run with a seed of its own, sampled
as the measured sets are) or from a network's self-play games, each position
labelled by the solver (:func:`self_play_positions`, :func:`label_games`).
Each position's targets (:func:`solver_targets`):

- **value**: the result for the player to move under perfect play (win 1, draw 0, loss -1);
- **policy**: uniform over the moves that keep that result (``policy="keeping"``),
  or over the best-scoring moves alone (``policy="best"``: the quickest win, the
  slowest loss).

:func:`prepare_dataset` keeps each distinct position once (a position and its
mirror image count as one: training shows both) and holds out a seeded share.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from dlgo.arena.ratings import wilson_interval
from dlgo.core.arguments import check_types, setting
from dlgo.core.errors import RecordError, SpecError
from dlgo.core.game import State, result_of
from dlgo.data.solved import bitboard_solver, cached_solver
from dlgo.encoders import Encoder
from dlgo.formats.positions import SolvedPosition, position_state, read_positions, remaining_plies, set_of
from dlgo.display.progress import progress_bar
from dlgo.formats.records import replay
from dlgo.games.solvers.bitboard import TABLE_BITS
from engines.alphazero import NetworkEvaluator
from engines.neural.loading import load_network
from engines.training.references import measure_reference
from engines.training.selfplay import MatchSettings, SelfPlaySettings, self_play


#: the policy targets: every move that keeps the result, or the best-scoring moves alone
POLICIES = ("keeping", "best")
#: a folder's file of solved positions, in the order looked for: to learn from (every candidate solved), to measure on
LEARN_FILES, MEASURE_FILES = ("candidates.csv", "positions.csv"), ("positions.csv", "candidates.csv")


@dataclass
class SolverSettings:
    """Everything a run depends on but its length (``epochs``, which a rerun may
    extend); a resumed run must use the same values."""

    blocks: int = setting(2, "residual blocks of the network", counts="units")
    filters: int = setting(32, "convolution filters of each layer", counts="units")
    policy_filters: int = setting(2, "1x1 convolution filters of the policy head", counts="units")
    value_filters: int = setting(1, "1x1 convolution filters of the value head", counts="units")
    l2: float = setting(1e-4, "L2 weight decay")
    policy: str = setting("keeping", "policy target: uniform over the result-keeping moves (keeping) or the "
                                     "best-scoring ones (best)")
    batch_size: int = setting(128, "training batch size", counts="positions")
    learning_rate: float = setting(1e-3, "Adam learning rate")
    learning_rate_drops: list[int] = setting([], "epochs from which the learning rate is multiplied by "
                                                 "learning_rate_drop (once per entry)", item=int, counts="steps")
    learning_rate_drop: float = setting(0.1, "factor applied at each epoch in learning_rate_drops")
    validation: float = setting(0.1, "share of the distinct positions held out")
    augment: bool = setting(True, "train on the board's symmetries (a random one per example)")
    seed: int = setting(0, "seed of the weights, the held-out share and the batches")

    def __post_init__(self) -> None:
        check_types(self)
        for name in ("blocks", "filters", "policy_filters", "value_filters", "batch_size"):
            if getattr(self, name) < (0 if name == "blocks" else 1):
                raise SpecError(f"{name} must be at least {0 if name == 'blocks' else 1}, got {getattr(self, name)}")
        for name in ("learning_rate", "learning_rate_drop"):
            if not (math.isfinite(getattr(self, name)) and getattr(self, name) > 0):
                raise SpecError(f"{name} must be above 0, got {getattr(self, name)}")
        if not (math.isfinite(self.l2) and self.l2 >= 0):
            raise SpecError(f"l2 must be at least 0, got {self.l2}")
        if not 0.0 <= self.validation < 1.0:
            raise SpecError(f"validation is a share of the positions in [0, 1), got {self.validation}")
        if self.policy not in POLICIES:
            raise SpecError(f"policy is one of {', '.join(POLICIES)}, got {self.policy!r}")
        if any(k < 1 for k in self.learning_rate_drops):
            raise SpecError(f"learning_rate_drops are epochs (1 or more), got {self.learning_rate_drops}")

    def learning_rate_at(self, epoch: int) -> float:
        """The step schedule: ``learning_rate`` times ``learning_rate_drop`` once per
        entry of ``learning_rate_drops`` at or before ``epoch``."""
        return self.learning_rate * self.learning_rate_drop ** sum(1 for e in self.learning_rate_drops if epoch >= e)


class Measured(NamedTuple):
    """A network's mistakes on a file's critical positions, with 95% Wilson intervals."""

    file: str
    positions: int     # critical positions measured
    seen: int          # of them, how many are among the training positions (or their mirror images)
    simulations: int
    raw: float         # the raw policy's share of mistakes
    raw_low: float
    raw_high: float
    search: float      # after ``simulations`` simulations of PUCT search
    search_low: float
    search_high: float


# ------------------------------------------------------------------ positions and targets
def solved_file(path: str | Path, names: Sequence[str] = LEARN_FILES) -> Path:
    """``path`` if it is a file, else the first of ``names`` in the folder ``path``; a :class:`RecordError` if none."""
    path = Path(path)
    if path.is_dir():
        for name in names:
            if (path / name).is_file():
                return path / name
        raise RecordError(f"{path} holds no solved positions ({' or '.join(names)}): make them with `dlgo positions`")
    if not path.is_file():
        raise RecordError(f"{path}: no such file or folder of solved positions (make them with `dlgo positions`)")
    return path


def read_solved(path: str | Path, names: Sequence[str] = LEARN_FILES) -> list[SolvedPosition]:
    """The solved positions of a file (``positions.csv`` or ``candidates.csv`` of
    ``dlgo positions``) or of a folder holding one, all of one game the solver knows."""
    file = solved_file(path, names)
    positions = read_positions(file)
    if not positions:
        raise RecordError(f"{file} holds no solved positions")
    check_game(positions, str(file))
    return positions


def check_game(positions: Sequence[SolvedPosition], where: str) -> str:
    """The one game of ``positions``; a :class:`RecordError` if they mix games, a
    :class:`SpecError` if the game has no Connect-N solver."""
    games = sorted({p.game for p in positions})
    if len(games) != 1:
        raise RecordError(f"{where} holds positions of {len(games)} games ({', '.join(games)}): learn one at a time")
    return bitboard_solver(games[0]).game.spec  # SpecError for a game the solver does not play


def label_games(spec: str, games: Sequence[str], table_bits: int = TABLE_BITS,
                progress: bool = False) -> list[SolvedPosition]:
    """Every unfinished position of the games ``games`` (each its moves from the
    start, as typed, space-separated) of the Connect-N game ``spec``, once each,
    with every move's exact score from the solver (positions of a few stones on a
    large board take the solver minutes)."""
    solver = cached_solver(bitboard_solver(spec).game.spec, table_bits)
    cells = solver.shape.cells
    seen: set[int] = set()
    states: list[State] = []
    for moves in games:
        for state in replay(solver.game.spec, moves):
            if not state.is_over() and state.zobrist_hash() not in seen:
                seen.add(state.zobrist_hash())
                states.append(state)
    labelled = []
    for k, state in enumerate(progress_bar(states, desc="solving", unit="position", disable=not progress)):
        scores = solver.move_scores(state)
        score, stones = max(scores.values()), len(state.move_history())
        remaining = remaining_plies(score, stones, cells)
        moves = " ".join(state.format_move(m) for m in state.move_history())
        labelled.append(SolvedPosition(set_of(stones, remaining, cells), k, solver.game.spec, moves, stones, score,
                                       remaining, scores))
    return labelled


def self_play_positions(network: str | Path, games: int, *, simulations: int = 64, seed: int = 0,
                        settings: SelfPlaySettings | None = None, table_bits: int = TABLE_BITS,
                        progress: bool = False) -> list[SolvedPosition]:
    """The positions of ``games`` games the AlphaZero network in ``network`` plays
    against itself (``settings``, default self-play's with ``simulations``
    simulations a move), each labelled by the solver (:func:`label_games`): the
    positions a self-play run learns from, with the truth as their targets."""
    if games < 1:
        raise SpecError(f"games must be at least 1, got {games}")
    loaded = load_network(network, ("policy", "value"), "self_play_positions")
    spec = loaded.encoder.game_spec
    bitboard_solver(spec)  # a SpecError before the games, for a game the solver does not play
    settings = settings or SelfPlaySettings(parallel=min(32, games), simulations=simulations)
    examples = self_play(spec, NetworkEvaluator(loaded), loaded.encoder, games, settings, seed=seed,
                         progress=progress)
    return label_games(spec, examples.moves, table_bits, progress=progress)


def policy_target_actions(position: SolvedPosition, policy: str = "keeping") -> list[int]:
    """The moves a position's policy target spreads over: those keeping its result, or the best-scoring ones."""
    if policy == "keeping":
        return position.perfect_actions()
    if policy == "best":
        return sorted(a for a, s in position.scores.items() if s == position.score)
    raise SpecError(f"policy is one of {', '.join(POLICIES)}, got {policy!r}")


def solver_targets(positions: Sequence[SolvedPosition], num_actions: int,
                   policy: str = "keeping") -> tuple[np.ndarray, np.ndarray]:
    """The targets of ``positions``: policies ``(n, num_actions)``, uniform over
    :func:`policy_target_actions`, and values ``(n,)``, the result for the player to move."""
    policies = np.zeros((len(positions), num_actions), np.float32)
    for row, position in enumerate(positions):
        actions = policy_target_actions(position, policy)
        if not actions or max(actions) >= num_actions or min(actions) < 0:
            raise RecordError(f"position {position.moves!r} of {position.game}: its scores name actions "
                              f"{sorted(position.scores)}, not actions of a game with {num_actions}")
        policies[row, actions] = 1.0 / len(actions)
    values = np.array([result_of(p.score) for p in positions], np.float32)
    return policies, values


def canonical_keys(features: np.ndarray, encoder: Encoder) -> list[bytes]:
    """One key per encoded position, the same for a position and its symmetric images."""
    images = [sym.planes(features).astype(np.int8) for sym in encoder.game.symmetries()] or [features.astype(np.int8)]
    return [min(image[k].tobytes() for image in images) for k in range(len(features))]


class Dataset(NamedTuple):
    """The distinct positions, encoded, with their targets, split in training and held-out rows."""

    positions: list[SolvedPosition]
    features: np.ndarray   # int8 planes
    policies: np.ndarray
    values: np.ndarray
    keys: list[bytes]
    train: np.ndarray      # row indices
    held_out: np.ndarray
    fingerprint: str       # the distinct positions with their scores: a resumed run must learn the same


def prepare_dataset(positions: Sequence[SolvedPosition], encoder: Encoder, settings: SolverSettings) -> Dataset:
    """Encode ``positions``, keep each distinct one (mirror images are one) once,
    make its targets and hold out a seeded ``settings.validation`` share."""
    states = [position_state(p) for p in positions]
    features = encoder.encode_batch(states).astype(np.int8)
    keys = canonical_keys(features, encoder)
    first: dict[bytes, int] = {}
    for row, key in enumerate(keys):
        first.setdefault(key, row)
    rows = np.fromiter(first.values(), dtype=np.int64, count=len(first))
    distinct = [positions[r] for r in rows]
    policies, values = solver_targets(distinct, encoder.num_moves, settings.policy)
    order = np.random.default_rng([settings.seed, 1]).permutation(len(distinct))
    held = round(settings.validation * len(distinct)) if len(distinct) > 1 else 0
    if settings.validation > 0 and len(distinct) > 1:
        held = max(1, held)
    digest = hashlib.sha256()
    for p in distinct:
        digest.update(f"{p.moves}|{sorted(p.scores.items())}\n".encode())
    return Dataset(distinct, features[rows], policies, values, [keys[r] for r in rows], np.sort(order[held:]),
                   np.sort(order[:held]), digest.hexdigest()[:16])


# ------------------------------------------------------------------ measuring
def measure_network(network: str | Path, positions: Sequence[SolvedPosition], simulations: int = 64, *,
                    seed: int = 0, parallel: int = 64, seen: set[bytes] | None = None,
                    file: str = "") -> Measured:
    """The AlphaZero network in ``network`` on the critical ones of ``positions``:
    its mistakes from the raw policy and after ``simulations`` simulations, with
    95% Wilson intervals; ``seen``: the training positions' keys
    (:func:`canonical_keys`), to count the measured positions among them."""
    critical = [p for p in positions if p.critical]
    if not critical:
        raise RecordError(f"{file or 'the positions'}: no critical positions to measure on")
    loaded = load_network(network, ("policy", "value"), "measure_network")
    found = measure_reference(NetworkEvaluator(loaded), critical, MatchSettings(parallel=parallel,
                                                                                simulations=simulations), seed=seed)
    n = found.positions
    overlap = 0
    if seen:
        features = loaded.encoder.encode_batch([position_state(p) for p in critical])
        overlap = sum(key in seen for key in canonical_keys(features, loaded.encoder))
    return Measured(file, n, overlap, simulations, found.raw, *wilson_interval(found.raw, n), found.search,
                    *wilson_interval(found.search, n))
