"""AlphaZero's replay buffer: the examples of the last ``capacity`` self-play games.

Examples (board planes, search policy ``pi``, result ``z``) are kept per game,
oldest game dropped first. :meth:`ReplayBuffer.sample` draws a training batch
and shows each example under a random board symmetry (8 on square boards, the
mirror in Connect Four), moving ``pi`` along with the board. The buffer saves
to one compressed ``.npz`` file, written atomically, so a resumed run trains
on exactly the data it had.
"""
from __future__ import annotations

from collections import deque
from pathlib import Path

import numpy as np

from dlgo.core.errors import RecordError
from dlgo.core.symmetry import Symmetry
from dlgo.formats.atomic import atomic_write
from engines.training.selfplay import Examples


class ReplayBuffer:
    """The last ``capacity`` games' examples, sampled with symmetry augmentation."""

    def __init__(self, capacity: int, symmetries: list[Symmetry] | None = None):
        self.capacity = capacity
        self.symmetries = symmetries or []
        self.games: deque[tuple[np.ndarray, np.ndarray, np.ndarray]] = deque(maxlen=capacity)

    def resize(self, capacity: int) -> None:
        """Hold the last ``capacity`` games from now on (the oldest go if there are more)."""
        if capacity != self.capacity:
            self.capacity = capacity
            self.games = deque(self.games, maxlen=capacity)

    def __len__(self) -> int:
        """Number of examples (positions) held."""
        return sum(len(g[2]) for g in self.games)

    def add(self, examples: Examples) -> None:
        """Add a self-play batch, game by game (its ``lengths`` tell where each ends)."""
        start = 0
        for n in examples.lengths:
            sl = slice(start, start + n)
            self.games.append((examples.features[sl].astype(np.int8), examples.policies[sl].astype(np.float32),
                               examples.values[sl].astype(np.float32)))
            start += n
        if start != len(examples.values):
            raise RecordError(f"the examples hold {len(examples.values)} positions, their games {start}")

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Everything held: (features int8, policies, values)."""
        if not self.games:
            raise RecordError("the replay buffer is empty")
        return tuple(np.concatenate(parts) for parts in zip(*self.games))  # type: ignore[return-value]

    def sample(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``size`` examples drawn uniformly (with replacement), each under a random symmetry."""
        features, policies, values = self.arrays()
        pick = rng.integers(len(values), size=size)
        x, pi, z = features[pick].astype(np.float32), policies[pick], values[pick]
        if len(self.symmetries) > 1:
            choice = rng.integers(len(self.symmetries), size=size)
            for k, sym in enumerate(self.symmetries[1:], start=1):
                rows = choice == k
                if rows.any():
                    x[rows] = sym.planes(x[rows])
                    moved = np.zeros_like(pi[rows])
                    moved[:, sym.actions] = pi[rows]  # action i goes to sym.actions[i]
                    pi[rows] = moved
        return x, pi, z

    def save(self, path: str | Path) -> None:
        """Write the buffer atomically to ``path`` (.npz)."""
        lengths = np.array([len(g[2]) for g in self.games], dtype=np.int64)
        features, policies, values = self.arrays() if self.games else (np.zeros(0), np.zeros(0), np.zeros(0))
        with atomic_write(Path(path), "wb") as handle:
            np.savez_compressed(handle, lengths=lengths, features=features, policies=policies, values=values,
                                capacity=np.array(self.capacity))

    @classmethod
    def load(cls, path: str | Path, symmetries: list[Symmetry] | None = None) -> "ReplayBuffer":
        with np.load(path) as data:  # each data[...] decompresses its whole array: read each once
            capacity, lengths = int(data["capacity"]), data["lengths"]
            features, policies, values = data["features"], data["policies"], data["values"]
        buffer = cls(capacity, symmetries)
        bounds = np.concatenate([[0], np.cumsum(lengths)])
        for a, b in zip(bounds[:-1], bounds[1:]):
            buffer.games.append((features[a:b], policies[a:b], values[a:b]))
        return buffer
