"""A ConnectX agent for Kaggle: an AlphaZero network in numpy, searched with PUCT.

``dlgo export-kaggle`` writes this module's source, with a network's weights
and the search's settings filled in, as one self-contained file: Kaggle's
``kaggle-environments`` calls its ``agent(observation, configuration)`` once a
turn, and nothing but numpy is imported (no TensorFlow at run time).

* **The network**: the residual tower of ``engines.neural.resnet`` (3x3
  convolutions, batch norm folded into them at export, ReLU, skip connections;
  a policy head and a value head), computed with numpy matrix products over
  the board's 3x3 patches, a batch of positions at a time.
* **Its input**: the ``planes`` encoder: the mover's discs, the opponent's,
  and a plane of ones when the first player is to move; the array's row 0 is
  the bottom row (ConnectX lists the top row first).
* **The search**: PUCT as the suite's ``alphazero`` engine plays it (Q + c P
  sqrt(N) / (1 + n), exact values for finished games, leaves evaluated in
  batches kept apart by virtual losses), stopped at ``simulations`` or at the
  time budget, whichever comes first; the most visited move is played.
"""
from __future__ import annotations

import base64
import io
import math
import time
from typing import Any

import numpy as np

#: the network's weights, written by the export: compressed npz, base64 (empty here, in the template)
WEIGHTS_BLOB = ""
#: the search's settings, written by the export
SETTINGS: dict[str, Any] = {"rows": 6, "columns": 7, "inarow": 4, "blocks": 0, "simulations": 200, "c": 1.5,
                            "fpu": None, "batch": 8, "time_fraction": 0.5}


def load_weights(blob: str) -> dict[str, np.ndarray]:
    """The arrays of a base64-encoded compressed ``.npz``, as float32."""
    with np.load(io.BytesIO(base64.b64decode(blob))) as data:
        return {name: data[name].astype(np.float32) for name in data.files}


WEIGHTS: dict[str, np.ndarray] = load_weights(WEIGHTS_BLOB) if WEIGHTS_BLOB else {}


# ---------------------------------------------------------------------------- the network
def conv(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """A ``same`` convolution of ``x`` (batch, rows, cols, channels) by ``kernel``
    (k, k, channels, filters), plus ``bias``: the k x k patches times the kernel."""
    size = kernel.shape[0]
    if size == 1:
        return x @ kernel[0, 0] + bias
    batch, rows, cols, channels = x.shape
    pad = size // 2
    padded = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    patches = np.lib.stride_tricks.sliding_window_view(padded, (size, size), axis=(1, 2))
    patches = patches.transpose(0, 1, 2, 4, 5, 3).reshape(batch * rows * cols, size * size * channels)
    out = patches @ kernel.reshape(size * size * channels, -1) + bias
    return out.reshape(batch, rows, cols, -1)


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def network(planes: np.ndarray, weights: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(policy (batch, columns), value (batch,))`` for a batch of encoded positions."""
    w = weights
    x = relu(conv(planes, w["stem_kernel"], w["stem_bias"]))
    for b in range(1, int(SETTINGS["blocks"]) + 1):
        y = relu(conv(x, w[f"block{b}a_kernel"], w[f"block{b}a_bias"]))
        y = conv(y, w[f"block{b}b_kernel"], w[f"block{b}b_bias"])
        x = relu(x + y)
    batch = len(planes)
    p = relu(conv(x, w["policy_kernel"], w["policy_bias"])).reshape(batch, -1)
    logits = p @ w["policy_dense_kernel"] + w["policy_dense_bias"]
    logits -= logits.max(axis=1, keepdims=True)
    policy = np.exp(logits)
    policy /= policy.sum(axis=1, keepdims=True)
    v = relu(conv(x, w["value_kernel"], w["value_bias"])).reshape(batch, -1)
    v = relu(v @ w["value_hidden_kernel"] + w["value_hidden_bias"])
    value = np.tanh(v @ w["value_dense_kernel"] + w["value_dense_bias"])[:, 0]
    return policy, value


# ---------------------------------------------------------------------------- the game
class Position:
    """A Connect-N position: ``grid[row, col]`` (row 0 at the bottom; 0 empty, 1 and
    2 the players' discs), ``heights`` per column, ``mover`` 1 or 2, and whether the
    last move won (``won``) or filled the board (``full``)."""

    __slots__ = ("grid", "heights", "mover", "won", "full")

    def __init__(self, grid: np.ndarray, heights: np.ndarray, mover: int, won: bool = False, full: bool = False):
        self.grid, self.heights, self.mover, self.won, self.full = grid, heights, mover, won, full

    @classmethod
    def from_observation(cls, board: list[int], mark: int, rows: int, columns: int) -> "Position":
        grid = np.array(board, dtype=np.int8).reshape(rows, columns)[::-1].copy()  # ConnectX: top row first
        return cls(grid, (grid != 0).sum(axis=0).astype(np.int64), mark)

    @property
    def over(self) -> bool:
        return self.won or self.full

    def legal(self) -> list[int]:
        return [c for c in range(self.grid.shape[1]) if self.heights[c] < self.grid.shape[0]]

    def play(self, column: int) -> "Position":
        grid, heights = self.grid.copy(), self.heights.copy()
        row = int(heights[column])
        grid[row, column] = self.mover
        heights[column] += 1
        won = self._wins(grid, row, column, self.mover)
        return Position(grid, heights, 3 - self.mover, won, bool((heights == grid.shape[0]).all()))

    @staticmethod
    def _wins(grid: np.ndarray, row: int, col: int, mark: int) -> bool:
        rows, cols = grid.shape
        need = int(SETTINGS["inarow"])
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                r, c = row + sign * dr, col + sign * dc
                while 0 <= r < rows and 0 <= c < cols and grid[r, c] == mark:
                    count += 1
                    r, c = r + sign * dr, c + sign * dc
            if count >= need:
                return True
        return False

    def planes(self) -> np.ndarray:
        """The ``planes`` encoder: mover's discs, opponent's, first player to move."""
        out = np.zeros(self.grid.shape + (3,), dtype=np.float32)
        out[:, :, 0] = self.grid == self.mover
        out[:, :, 1] = self.grid == 3 - self.mover
        if self.mover == 1:
            out[:, :, 2] = 1.0
        return out


# ---------------------------------------------------------------------------- the search
class Node:
    """A searched position: its legal actions with prior ``P``, visits ``N`` and total value ``W`` (for its mover)."""

    __slots__ = ("position", "actions", "P", "N", "W", "children")

    def __init__(self, position: Position):
        self.position = position
        self.actions: np.ndarray | None = None
        self.P = self.N = self.W = np.zeros(0)
        self.children: dict[int, Node] = {}

    def expand(self, priors: np.ndarray) -> None:
        self.actions = np.array(self.position.legal(), dtype=np.int64)
        p = priors[self.actions].astype(np.float64)
        self.P = p / p.sum() if p.sum() > 0 else np.full(len(p), 1.0 / len(p))
        self.N = np.zeros(len(p))
        self.W = np.zeros(len(p))

    def select(self, c: float, fpu: float | None) -> int:
        visits = self.N.sum()
        q = self.W / np.maximum(self.N, 1.0)
        if fpu is not None and visits > 0:
            q = np.where(self.N > 0, q, self.W.sum() / visits - fpu)
        return int(np.argmax(q + c * math.sqrt(max(visits, 1.0)) * self.P / (1.0 + self.N)))

    def child(self, i: int) -> "Node":
        if i not in self.children:
            assert self.actions is not None
            self.children[i] = Node(self.position.play(int(self.actions[i])))
        return self.children[i]


def terminal_value(position: Position) -> float:
    """A finished game's value for the player to move there: the last move won (-1), or a draw (0)."""
    return -1.0 if position.won else 0.0


def search(root: Node, weights: dict[str, np.ndarray], simulations: int, deadline: float) -> Node:
    """PUCT from ``root`` until ``simulations`` or ``deadline`` (``time.perf_counter()``)."""
    c, fpu, batch = float(SETTINGS["c"]), SETTINGS["fpu"], int(SETTINGS["batch"])
    if root.actions is None:
        policy, _ = network(root.position.planes()[None], weights)
        root.expand(policy[0])
    done = 0
    while done < simulations and (done == 0 or time.perf_counter() < deadline):
        pending: list[tuple[list[tuple[Node, int]], Node]] = []
        while len(pending) < min(batch, simulations - done):
            node, path = root, []
            while node.actions is not None and not node.position.over:
                i = node.select(c, fpu)
                path.append((node, i))
                node = node.child(i)
            if node.position.over:
                backup(path, terminal_value(node.position))
                done += 1
                continue
            if any(node is leaf for _, leaf in pending):
                break
            for parent, i in path:  # a virtual loss keeps the next descent elsewhere
                parent.N[i] += 1
                parent.W[i] -= 1.0
            pending.append((path, node))
            done += 1
        if pending:
            policy, value = network(np.stack([leaf.position.planes() for _, leaf in pending]), weights)
            for (path, leaf), prior, v in zip(pending, policy, value):
                for parent, i in path:
                    parent.N[i] -= 1
                    parent.W[i] += 1.0
                leaf.expand(prior)
                backup(path, float(v))
    return root


def backup(path: list[tuple["Node", int]], value: float) -> None:
    """Add ``value`` (for the player to move at the leaf) along ``path``, negated at every other step."""
    for parent, i in reversed(path):
        value = -value
        parent.N[i] += 1
        parent.W[i] += value


def agent(observation: Any, configuration: Any) -> int:
    """Kaggle's entry point: the column (0-based) to play."""
    get = (lambda o, k, d=None: o.get(k, d)) if isinstance(observation, dict) else \
        (lambda o, k, d=None: getattr(o, k, d))
    start = time.perf_counter()
    rows, columns = int(get(configuration, "rows", SETTINGS["rows"])), int(get(configuration, "columns",
                                                                                  SETTINGS["columns"]))
    position = Position.from_observation(list(get(observation, "board")), int(get(observation, "mark")), rows,
                                         columns)
    legal = position.legal()
    if len(legal) == 1:
        return legal[0]
    budget = float(get(configuration, "actTimeout", 2.0) or 2.0) * float(SETTINGS["time_fraction"])
    root = search(Node(position), WEIGHTS, int(SETTINGS["simulations"]), start + budget)
    assert root.actions is not None
    return int(root.actions[int(np.argmax(root.N))])
