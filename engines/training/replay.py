"""AlphaZero's replay buffer: the examples of the last ``capacity`` self-play games.

Examples (board planes, search policy ``pi``, result ``z``) are kept per game,
oldest game dropped first. :meth:`ReplayBuffer.sample` draws a training batch
and shows each example under a random board symmetry (8 on square boards, the
mirror in Connect Four), moving ``pi`` (and a board-shaped auxiliary target,
ownership) along with the board. With ``merge`` (AlphaZero.jl's and Oracle's
position averaging) a position played in many games is one example whose
targets are the mean of its occurrences': the opening's few positions stop
filling the batches, and their value targets stop being single results. The buffer saves
to one compressed ``.npz`` file, written atomically, so a resumed run trains
on exactly the data it had.

A run that starts from a teacher's network can keep the teacher's games in the
places its own games have not filled yet (:meth:`ReplayBuffer.fill_with`,
:func:`recorded_examples`): AlphaGo's start learnt from human games, and a
buffer that holds only a few dozen of the network's own first games teaches it
those games' mistakes; as self-play fills the buffer, the teacher's games leave it,
but for the places it keeps for them (``keep``): a value head that sees only its
network's own few games learns their results by heart.
The fill is not saved with the buffer: a run remakes it at each start from the
copy of the games it keeps in its folder.
"""
from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from dlgo.core.errors import RecordError
from dlgo.core.game import State
from dlgo.core.symmetry import Symmetry
from dlgo.data.dataset import chosen_moves
from dlgo.encoders.base import Encoder
from dlgo.formats.records import GameRecord, replay
from dlgo.storage.atomic import atomic_write
from engines.training.auxiliary import joined_targets, targets_of
from engines.training.selfplay import Examples


class GameExamples(NamedTuple):
    """One game's examples: board planes (int8), search policies, value targets and auxiliary targets."""

    features: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    auxiliary: dict[str, np.ndarray]  # by name: moves left, ownership, score (engines.training.auxiliary)


class Batch(NamedTuple):
    """A training batch: inputs, policy and value targets, and the auxiliary targets by name."""

    x: np.ndarray
    pi: np.ndarray
    z: np.ndarray
    auxiliary: dict[str, np.ndarray]


class ReplayBuffer:
    """The last ``capacity`` games' examples, sampled with symmetry augmentation."""

    def __init__(self, capacity: int, symmetries: list[Symmetry] | None = None, merge: bool = False):
        self.capacity = capacity
        self.symmetries = symmetries or []
        self.merge = merge
        self.games: deque[GameExamples] = deque(maxlen=capacity)
        self.fill: list[GameExamples] = []  # games that fill the places self-play has not filled yet
        self.keep = 0  # places the fill's first games keep however many self-play has played
        self._held: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], dict[str, np.ndarray]] | None = None

    def resize(self, capacity: int) -> None:
        """Hold the last ``capacity`` games from now on (the oldest go if there are more)."""
        if capacity != self.capacity:
            self.capacity = capacity
            self.games = deque(self.games, maxlen=capacity)
            self._held = None

    def __len__(self) -> int:
        """Number of examples (positions) held, the fill's with them."""
        return sum(len(g[2]) for g in self.held_games())

    def held_games(self) -> list[GameExamples]:
        """The games training samples from: self-play's, then as many of the fill's as there
        are places left (its first ones), and at least the ``keep`` it keeps."""
        return [*self.games, *self.fill[: max(self.keep, self.capacity - len(self.games))]]

    def fill_with(self, examples: Examples, keep: int = 0) -> None:
        """Fill the places self-play has not filled yet with ``examples``' games (a teacher's),
        its first games first; they leave as self-play's arrive, but for the first ``keep``."""
        self._held = None
        self.fill, self.keep = game_examples(examples), keep

    def add(self, examples: Examples) -> None:
        """Add a self-play batch, game by game (its ``lengths`` tell where each ends)."""
        self._held = None  # the games change: the joined arrays are joined again at the next batch
        self.games.extend(game_examples(examples))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Everything held, the fill's with it: (features int8, policies, values)."""
        return joined(self.held_games())

    def auxiliary_arrays(self) -> dict[str, np.ndarray]:
        """Every auxiliary target held, by name (those every game has)."""
        return joined_auxiliary(self.held_games())

    def sample(self, size: int, rng: np.random.Generator) -> Batch:
        """``size`` examples drawn uniformly (with replacement), each under a random symmetry.
        The games are joined into whole arrays once after each change, not for every batch."""
        if self._held is None:
            arrays, auxiliary = self.arrays(), self.auxiliary_arrays()
            self._held = merge_positions(arrays, auxiliary) if self.merge else (arrays, auxiliary)
        (features, policies, values), held_auxiliary = self._held
        pick = rng.integers(len(values), size=size)
        x, pi, z = features[pick].astype(np.float32), policies[pick], values[pick]
        auxiliary = {name: rows[pick] for name, rows in held_auxiliary.items()}
        if len(self.symmetries) > 1:
            choice = rng.integers(len(self.symmetries), size=size)
            for k, sym in enumerate(self.symmetries[1:], start=1):
                rows = choice == k
                if rows.any():
                    x[rows] = sym.planes(x[rows])
                    moved = np.zeros_like(pi[rows])
                    moved[:, sym.actions] = pi[rows]  # action i goes to sym.actions[i]
                    pi[rows] = moved
                    for target in auxiliary.values():
                        if target.ndim == 4:  # a board-shaped target moves with the board
                            target[rows] = sym.planes(target[rows])
        return Batch(x, pi, z, auxiliary)

    def save(self, path: str | Path) -> None:
        """Write the buffer's self-play games atomically to ``path`` (.npz; not the fill)."""
        games = list(self.games)
        lengths = np.array([len(g[2]) for g in games], dtype=np.int64)
        features, policies, values = joined(games) if games else (np.zeros(0), np.zeros(0), np.zeros(0))
        with atomic_write(Path(path), "wb") as handle:
            arrays: dict[str, np.ndarray] = {
                "lengths": lengths, "features": features, "policies": policies, "values": values,
                "capacity": np.array(self.capacity),
                **{f"auxiliary_{name}": rows for name, rows in joined_auxiliary(games).items()}}
            np.savez_compressed(handle, **arrays)  # type: ignore[arg-type]  # numpy's stub types allow_pickle too

    def distinct(self) -> int:
        """How many distinct positions the buffer holds (the examples a merging buffer samples from)."""
        return len(merge_positions(self.arrays(), {})[0][2]) if self.held_games() else 0

    @classmethod
    def load(cls, path: str | Path, symmetries: list[Symmetry] | None = None, merge: bool = False) -> "ReplayBuffer":
        with np.load(path) as data:  # each data[...] decompresses its whole array: read each once
            capacity, lengths = int(data["capacity"]), data["lengths"]
            features, policies, values = data["features"], data["policies"], data["values"]
            auxiliary = {key.removeprefix("auxiliary_"): data[key]
                         for key in data.files if key.startswith("auxiliary_")}
        buffer = cls(capacity, symmetries, merge)
        bounds = np.concatenate([[0], np.cumsum(lengths)])
        for a, b in zip(bounds[:-1], bounds[1:]):
            buffer.games.append(GameExamples(features[a:b], policies[a:b], values[a:b],
                                             {name: rows[a:b] for name, rows in auxiliary.items()}))
        return buffer


def joined(games: Sequence[GameExamples]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``games``' examples in one set of arrays: (features int8, policies, values)."""
    if not games:
        raise RecordError("the replay buffer is empty")
    return (np.concatenate([g.features for g in games]), np.concatenate([g.policies for g in games]),
            np.concatenate([g.values for g in games]))


def joined_auxiliary(games: Sequence[GameExamples]) -> dict[str, np.ndarray]:
    """``games``' auxiliary targets joined, by name (those every game has)."""
    names = set.intersection(*(set(g.auxiliary) for g in games)) if games else set()
    return {name: np.concatenate([g.auxiliary[name] for g in games]) for name in sorted(names)}


def game_examples(examples: Examples) -> list[GameExamples]:
    """``examples`` cut into its games (its ``lengths`` tell where each ends), stored compactly."""
    games, start = [], 0
    for n in examples.lengths:
        sl = slice(start, start + n)
        games.append(GameExamples(examples.features[sl].astype(np.int8), examples.policies[sl].astype(np.float32),
                                  examples.values[sl].astype(np.float32),
                                  {name: rows[sl].astype(np.float32) for name, rows in examples.auxiliary.items()}))
        start += n
    if start != len(examples.values):
        raise RecordError(f"the examples hold {len(examples.values)} positions, their games {start}")
    return games


def recorded_examples(records: Sequence[GameRecord], encoder: Encoder, auxiliary: Sequence[str] = ()) -> Examples:
    """Training examples from recorded games (a teacher's), as self-play's are made: at each move
    a player chose (:func:`~dlgo.data.dataset.chosen_moves`), the position, that move as the
    policy (all its weight), the game's result for the player to move as the value, and the
    ``auxiliary`` targets of the game's end."""
    states: list[State] = []
    labels: list[int] = []
    values: list[float] = []
    lengths: list[int] = []
    extra: dict[str, list[np.ndarray]] = {name: [] for name in auxiliary}
    for record in records:
        played = replay(record.game, record.moves)
        chosen = list(chosen_moves(record, played))
        states += [c.state for c in chosen]
        labels += [encoder.encode_move(c.move, c.state) for c in chosen]
        values += [float(c.value) for c in chosen]
        lengths.append(len(chosen))
        for name, rows in targets_of([c.state for c in chosen], played[-1], auxiliary).items():
            extra[name].append(rows)
    policies = np.zeros((len(states), encoder.num_moves), np.float32)
    policies[np.arange(len(states)), labels] = 1.0
    features = encoder.encode_batch(states) if states else np.zeros((0,) + encoder.shape, np.float32)
    return Examples(features, policies, np.asarray(values, np.float32), lengths=lengths,
                    auxiliary=joined_targets(extra, encoder.game))


def merge_positions(arrays: tuple[np.ndarray, np.ndarray, np.ndarray], auxiliary: dict[str, np.ndarray]
                    ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], dict[str, np.ndarray]]:
    """Each distinct position (its board planes, byte for byte) once, with the mean
    of its occurrences' policy, value and auxiliary targets; in order of first occurrence."""
    features, policies, values = arrays
    rows = np.ascontiguousarray(features.reshape(len(features), -1))
    keys = rows.view(np.dtype((np.void, rows.shape[1] * rows.dtype.itemsize))).ravel()
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()

    def mean(targets: np.ndarray) -> np.ndarray:
        sums = np.zeros((len(first),) + targets.shape[1:], np.float64)
        np.add.at(sums, inverse, targets)
        return (sums / counts.reshape((-1,) + (1,) * (targets.ndim - 1))).astype(np.float32)

    order = np.argsort(first, kind="stable")  # np.unique sorts by bytes: back to the order of play
    return ((features[first][order], mean(policies)[order], mean(values)[order]),
            {name: mean(rows_)[order] for name, rows_ in auxiliary.items()})
