"""The fast rollout policy's features: 3x3 pattern codes and classes, tactical flags.

What :mod:`dlgo.games.go.patterns` (the policy, readable) and
:mod:`dlgo.games.go.pattern_kernels` (the same policy compiled) share: a point's
8 neighbours as the base-4 digits of a pattern code, the classes of codes equal
up to the board's symmetries, and the index of every feature in a policy's
weight vector.
"""
from __future__ import annotations

import numpy as np

from dlgo.core.symmetry import SQUARE

__all__ = ["RING", "OFF_BOARD", "PATTERN_CLASS", "NUM_PATTERNS", "REST", "CAPTURE_1", "CAPTURE_2", "CAPTURE_MORE",
           "ESCAPE", "ATARI", "SELF_ATARI", "NUM_FEATURES", "FEATURE_NAMES", "RETRIES"]

#: the 8 neighbours of a point, in the order of a pattern code's base-4 digits
RING = ((1, -1), (1, 0), (1, 1), (0, -1), (0, 1), (-1, -1), (-1, 0), (-1, 1))
OFF_BOARD = 3  # a pattern digit: 0 empty, 1 the mover's, 2 the opponent's, 3 off the board


def _pattern_classes() -> tuple[list[int], int]:
    """``(class of each of the 4**8 codes, number of classes)``: codes equal
    under a rotation or reflection of the 3x3 square share a class."""
    codes = np.arange(4 ** 8)
    digits = (codes[:, None] // 4 ** np.arange(8)) % 4  # (codes, 8)
    grid = np.zeros((len(codes), 3, 3, 1), dtype=np.int64)
    for k, (dr, dc) in enumerate(RING):
        grid[:, 1 - dr, 1 + dc, 0] = digits[:, k]  # row 0 of the grid is the top (dr = +1)
    variants = []
    for transform in SQUARE.values():
        moved = transform(grid)
        variants.append(sum(moved[:, 1 - dr, 1 + dc, 0] * 4 ** k for k, (dr, dc) in enumerate(RING)))
    canonical = np.min(variants, axis=0)
    _, classes = np.unique(canonical, return_inverse=True)
    return classes.tolist(), int(classes.max()) + 1


PATTERN_CLASS, NUM_PATTERNS = _pattern_classes()

#: feature indices: the rest logit, then the pattern classes, then the tactical flags
REST = 0
CAPTURE_1, CAPTURE_2, CAPTURE_MORE, ESCAPE, ATARI, SELF_ATARI = range(NUM_PATTERNS + 1, NUM_PATTERNS + 7)
NUM_FEATURES = NUM_PATTERNS + 7
FEATURE_NAMES = ("rest", *(f"pattern {k}" for k in range(NUM_PATTERNS)),
                 "capture 1", "capture 2", "capture 3+", "escape", "atari", "self-atari")

#: draws of "another point" that may land on a response before one is chosen among the responses instead
RETRIES = 8
