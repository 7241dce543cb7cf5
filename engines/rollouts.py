"""How a search plays a position out: uniformly random moves, or a fast rollout policy.

``rollout=""`` (the default of the engines that roll out) plays the game's own
random playout (``state.random_playout``: in Go, never into one's own eye);
``rollout=PATH`` or a shipped name (``rollout=go9-rollout``) loads a Go rollout policy
fitted by ``dlgo train-rollout`` (:mod:`dlgo.games.go.patterns`).
"""
from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path
from typing import Protocol

import numpy as np

from dlgo.core.errors import ModelFileError
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.storage.atomic import atomic_write
from dlgo.games.go.patterns import PatternPolicy
from engines.checkpoints import resolve_model_path


class Rollouts(Protocol):
    """Plays a position to its end and says who won."""

    def check(self, state: State) -> None:
        """A :class:`~dlgo.core.errors.DlgoError` if it cannot play this game."""

    def playout(self, state: State, rng: random.Random) -> Player | None:
        """The winner of ``state`` played out (None: a draw)."""


class RandomRollouts:
    """The game's own uniformly random playouts."""

    def check(self, state: State) -> None:
        pass

    def playout(self, state: State, rng: random.Random) -> Player | None:
        return state.random_playout(rng)


def load_rollout_policy(spec: str) -> Rollouts:
    """Random playouts for ``""``, else the rollout policy in the file (or shipped name) ``spec``."""
    if not spec:
        return RandomRollouts()
    return read_rollout_policy(resolve_model_path(spec, suffix=".npz"))


def save_rollout_policy(policy: PatternPolicy, path: str | Path) -> None:
    """Write the policy's weights and ``info`` to ``path`` (``.npz``) atomically."""
    with atomic_write(path, "wb") as handle:
        np.savez_compressed(handle, weights=policy.weights, info=np.array(json.dumps(policy.info)))


def read_rollout_policy(path: str | Path) -> PatternPolicy:
    """The policy saved in ``path``; :class:`ModelFileError` if it is missing or not one."""
    path = Path(path)
    if not path.exists():
        raise ModelFileError(f"no rollout policy file {path}")
    try:
        with np.load(path) as data:
            return PatternPolicy(data["weights"], json.loads(str(data["info"])))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        raise ModelFileError(f"{path} is not a rollout policy file (.npz from `dlgo train-rollout`)") from None
