"""How a search plays a position out: uniformly random moves, or a fast rollout policy.

``rollout=""`` (the default of the engines that roll out) plays the game's own
random playout (``state.random_playout``: in Go, never into one's own eye);
``rollout=PATH`` or a shipped name (``rollout=go9-rollout``) loads a Go rollout policy
fitted by ``dlgo train-rollout`` (:mod:`dlgo.games.go.patterns`).

Go's compiled search also starts new moves from *move patterns*: Coulom's
Bradley-Terry strengths of :mod:`dlgo.games.go.move_features` levels, fitted by
``dlgo train-patterns`` and kept here beside the rollout policies (``patterns=``
of ``mcts-go``).
"""
from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from dlgo.core.errors import ModelFileError, SpecError
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.storage.atomic import atomic_write
from dlgo.games.go.move_features import LEVEL_NAMES
from dlgo.games.go.patterns import PatternPolicy
from dlgo.games.go.state import GoState
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


@dataclass
class MovePatterns:
    """Fitted strengths of the move features' levels (one per :data:`LEVEL_NAMES`) and how they were made."""

    gammas: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def log_gamma(self) -> np.ndarray:
        """The strengths as logits: a move's is the sum over its levels."""
        return np.log(np.asarray(self.gammas, np.float64))

    def check(self, state: State) -> None:
        """:class:`SpecError` unless ``state`` is a Go position (the features are Go's, on any board)."""
        if not isinstance(state, GoState):
            raise SpecError(f"move patterns rate Go moves; they cannot play {state.game.spec}")


def save_move_patterns(patterns: MovePatterns, path: str | Path) -> None:
    """Write the strengths, their levels' names and ``info`` to ``path`` (``.npz``) atomically."""
    with atomic_write(path, "wb") as handle:
        np.savez_compressed(handle, gammas=patterns.gammas, levels=np.array(LEVEL_NAMES),
                            info=np.array(json.dumps(patterns.info)))


def read_move_patterns(path: str | Path) -> MovePatterns:
    """The move patterns saved in ``path``; :class:`ModelFileError` if it is missing, not one,
    or rates other levels than this suite's features."""
    path = Path(path)
    if not path.exists():
        raise ModelFileError(f"no move patterns file {path}")
    try:
        with np.load(path) as data:
            gammas, levels, info = data["gammas"], tuple(str(x) for x in data["levels"]), json.loads(str(data["info"]))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        raise ModelFileError(f"{path} is not a move patterns file (.npz from `dlgo train-patterns`)") from None
    if levels != LEVEL_NAMES or gammas.shape != (len(LEVEL_NAMES),) or not np.all(gammas > 0):
        raise ModelFileError(f"{path} rates other move features than this suite's ({len(levels)} levels, "
                             f"not {len(LEVEL_NAMES)}): fit them again with `dlgo train-patterns`")
    return MovePatterns(gammas.astype(np.float64), info)


def load_move_patterns(spec: str) -> MovePatterns | None:
    """None for ``""``, else the move patterns in the file (or shipped name) ``spec``."""
    return read_move_patterns(resolve_model_path(spec, suffix=".npz", kind="move patterns file")) if spec else None
