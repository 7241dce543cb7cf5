"""A fast rollout policy for Go: AlphaGo's linear softmax over local features, in small.

A rollout plays a game to its end thousands of times per search, so its policy
must cost microseconds a move. AlphaGo's answer (its chapter 13 in the book) is
a linear softmax over cheap, local features; most of its strength lies in how
it *responds* to the last move. Here, each move of a rollout considers:

* the **responses**: the empty points around the last move (its 8 neighbours)
  and the last liberty of every string next to it that is in atari. Each gets a
  logit, the sum of the weights of its features:

  - its **3x3 pattern** (each of its 8 neighbours empty, the mover's, the
    opponent's or off the board), one weight per class of patterns equal up to
    the 8 board symmetries;
  - **capture** of an opponent string in atari (1, 2, or 3 and more stones);
  - **escape**: it gives one of the mover's strings in atari two liberties or more;
  - **atari**: it leaves an opponent string with one liberty;
  - **self-atari**: it leaves its own string with one liberty, capturing nothing;

* **every other point**, all sharing one logit ``rest``: such a move is drawn
  uniformly, as the book's random bot does (never into one's own eye).

So ``P(response i) = exp(l_i) / Z`` and ``P(some other point) = n_rest *
exp(rest) / Z``, where ``n_rest`` is the number of empty points that are not
responses (an upper bound on the sensible ones, used alike in training and in
play). :mod:`engines.training.rollout_policy` fits the weights to a teacher's moves by
maximum likelihood; :meth:`dlgo.games.go.state.GoState.random_playout` plays
with them (``policy=``). Weights live in a small ``.npz`` file
(:mod:`engines.rollouts` reads and writes it).
"""
from __future__ import annotations

import math
import random
from typing import Callable, Container

import numpy as np

from dlgo.core.errors import ModelFileError, SpecError
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.games.go.board import EMPTY, Board, Geometry
from dlgo.games.go.features import (ATARI, CAPTURE_1, CAPTURE_2, CAPTURE_MORE, ESCAPE, FEATURE_NAMES, NUM_FEATURES,
                                    NUM_PATTERNS, OFF_BOARD, PATTERN_CLASS, REST, RETRIES, RING, SELF_ATARI)
from dlgo.games.go.state import GoState

__all__ = ["FEATURE_NAMES", "NUM_FEATURES", "NUM_PATTERNS", "PATTERN_CLASS", "PatternPolicy", "REST", "pattern_code",
           "responses", "ATARI", "CAPTURE_1", "CAPTURE_2", "CAPTURE_MORE", "ESCAPE", "SELF_ATARI"]

_RINGS: dict[int, list[tuple[int, ...]]] = {}


def rings(geometry: Geometry) -> list[tuple[int, ...]]:
    """Per point, its 8 neighbours in :data:`RING` order (-1 off the board), cached per size."""
    key = id(geometry)
    if key not in _RINGS:
        rows, cols = geometry.num_rows, geometry.num_cols
        table = []
        for p in range(geometry.num_points):
            r, c = divmod(p, cols)
            table.append(tuple((r + dr) * cols + c + dc if 0 <= r + dr < rows and 0 <= c + dc < cols else -1
                               for dr, dc in RING))
        _RINGS[key] = table
    return _RINGS[key]


def pattern_code(board: Board, p: int, c: int) -> int:
    """The base-4 code of the 3x3 pattern around ``p`` for mover ``c``."""
    color = board.color
    code, weight = 0, 1
    for q in rings(board.geometry)[p]:
        if q < 0:
            code += OFF_BOARD * weight
        else:
            cq = color[q]
            if cq:
                code += (1 if cq == c else 2) * weight
        weight *= 4
    return code


def features(board: Board, p: int, c: int) -> list[int] | None:
    """The feature indices of colour ``c`` playing at empty ``p``; None if the
    play is self-capture or fills ``c``'s own eye (never a rollout's choice)."""
    if board.is_eye(p, c):
        return None
    color, string = board.color, board.string
    captured = 0
    counted: list[object] = []
    escape = atari = False
    liberties: set[int] = set()
    own_in_atari = False
    for q in board.geometry.neighbors[p]:
        cq = color[q]
        if cq == EMPTY:
            liberties.add(q)
            continue
        s = string[q]
        assert s is not None
        if cq == c:
            liberties |= s.liberties
            own_in_atari = own_in_atari or len(s.liberties) == 1
        elif s not in counted:
            counted.append(s)
            n = len(s.liberties)
            if n == 1:
                captured += len(s.stones)
                liberties.add(q)  # the captured stones' points become liberties (at least this one)
            elif n == 2:
                atari = True
    liberties.discard(p)
    if not liberties:
        return None  # self-capture
    if own_in_atari and len(liberties) >= 2:
        escape = True
    found = [1 + PATTERN_CLASS[pattern_code(board, p, c)]]
    if captured:
        found.append(CAPTURE_1 if captured == 1 else CAPTURE_2 if captured == 2 else CAPTURE_MORE)
    if escape:
        found.append(ESCAPE)
    if atari:
        found.append(ATARI)
    if len(liberties) == 1 and not captured:
        found.append(SELF_ATARI)
    return found


def responses(board: Board, c: int, last: int) -> tuple[list[int], list[list[int]]]:
    """The response points to a stone just played at ``last`` (-1: none) for
    mover ``c``, and each one's feature indices (see the module's docstring)."""
    if last < 0 or not board.color[last]:
        return [], []
    points: list[int] = []
    found: list[list[int]] = []
    color, string = board.color, board.string
    candidates = [q for q in rings(board.geometry)[last] if q >= 0 and color[q] == EMPTY]
    s = string[last]
    if s is not None and len(s.liberties) == 1:
        candidates.extend(s.liberties)
    for q in board.geometry.neighbors[last]:
        t = string[q]
        if t is not None and len(t.liberties) == 1:
            candidates.extend(t.liberties)
    for q in candidates:
        if q not in points:
            f = features(board, q, c)
            if f is not None:
                points.append(q)
                found.append(f)
    return points, found


class PatternPolicy:
    """The fitted weights of the rollout policy (one per feature), ready to play."""

    def __init__(self, weights: np.ndarray, info: dict | None = None):
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (NUM_FEATURES,):
            raise ModelFileError(f"a rollout policy has {NUM_FEATURES} weights, got shape {weights.shape}")
        self.weights = weights
        self._w = weights.tolist()  # Python floats: the hot path sums a few of them
        self._exp_rest = math.exp(self._w[REST])
        self.info = info or {}

    def select(self, board: Board, c: int, last: int, forbidden: Container[int], side_key: int,
               rand: Callable[[], float]) -> int:
        """A play for ``c`` drawn from the policy (``last``: the last move's
        point, -1 after a pass), or -1 to pass when no sensible play is left.
        ``forbidden``/``side_key``/``rand`` as in :meth:`Board.select_random_play`."""
        points, found = responses(board, c, last)
        w = self._w
        weights = [math.exp(sum(w[k] for k in f)) for f in found]
        while True:
            rest = (len(board.empties) - len(points)) * self._exp_rest
            total = sum(weights) + rest
            u = rand() * total
            if u >= total - rest or not points:
                for _ in range(RETRIES):  # another point, uniformly: draw again while the draw hits a response
                    p = board.select_random_play(c, forbidden, side_key, rand)
                    if p < 0 or p not in points:
                        return p
                u = rand() * (total - rest)  # (nearly) every sensible point answers the last move
            for i, x in enumerate(weights):
                u -= x
                if u < 0 or i == len(weights) - 1:
                    break
            p = points[i]
            h = board.hash_after_play(p, c)
            if h >= 0 and (h ^ side_key) not in forbidden:
                return p
            del points[i], weights[i]  # superko forbids it: draw again without it

    def probabilities(self, board: Board, c: int, last: int) -> tuple[list[int], np.ndarray, float]:
        """``(response points, their probabilities, the probability of any one other empty point)``."""
        points, found = responses(board, c, last)
        logits = np.array([self.weights[f].sum() for f in found] + [self.weights[REST]])
        counts = np.array([1.0] * len(points) + [max(0, len(board.empties) - len(points))])
        z = counts * np.exp(logits - logits.max())
        z /= z.sum()
        rest = z[-1] / counts[-1] if counts[-1] else 0.0
        return points, z[:-1], float(rest)

    # ----------------------------------------------------------- rollouts
    def check(self, state: State) -> None:
        """:class:`SpecError` unless ``state`` is a Go position (the policy's features are Go's)."""
        if not isinstance(state, GoState):
            raise SpecError(f"a Go rollout policy cannot play {state.game.spec}")

    def playout(self, state: State, rng: random.Random) -> Player | None:
        """The winner of the Go position ``state`` played out by this policy."""
        assert isinstance(state, GoState)
        return state.random_playout(rng, policy=self)
