"""Data augmentation: each training example seen under a random board symmetry.

The symmetries themselves, with their action permutations, come from the game
(``game.symmetries()``, see :mod:`dlgo.core.symmetry`).
"""
from __future__ import annotations

import numpy as np

from dlgo.core.symmetry import Symmetry


def augment_batch(features: np.ndarray, labels: np.ndarray, syms: list[Symmetry],
                  rng: np.random.Generator, actions: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Each example under a random symmetry of ``syms``. ``labels`` are action
    indices, moved along with the board, or with ``actions=False`` values that
    no symmetry changes (a position's result)."""
    choice = rng.integers(len(syms), size=len(labels))
    features, labels = features.copy(), labels.copy()
    for k, sym in enumerate(syms):
        if k == 0:
            continue
        picked = choice == k
        if picked.any():
            features[picked] = sym.planes(features[picked])
            if actions:
                labels[picked] = sym.actions[labels[picked]]
    return features, labels
