"""Reinforcement learning's settings, in a module without TensorFlow (the CLI reads
them to build its options): see :mod:`engines.training.rl`."""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path

from dlgo.core.arguments import check_types, setting
from dlgo.core.errors import SpecError
from dlgo.games import get_game, new_game
from engines.neural.loading import KIND_HEADS, LoadedModel
from engines.registry import check_engine

#: the networks' bodies (engines.neural.models.MODELS, named here without loading TensorFlow)
MODEL_NAMES = ("ch6", "small", "medium", "large", "tiny")

#: the network head each method trains (see engines.neural.models.HEADS)
HEADS = {"pg": "policy", "q": "q", "ac": "policy-value"}

#: the heads of a network a method can start from (``--init``), as its file's kind records them
INIT_HEADS = {"pg": ("policy",), "q": ("action values",), "ac": ("policy", "value")}


@dataclass
class RLConfig:
    """Everything a run depends on; a resumed run must use the same values."""

    method: str = setting("pg", "pg (policy gradients), q (Q-learning) or ac (actor-critic)")
    game: str = setting("connect4", "game spec to learn, e.g. connect4, tictactoe, go:size=9")
    model: str = setting("small", f"the network's body: {', '.join(MODEL_NAMES)}")
    init: str = setting("", "start from this network file (a supervised predictor, for pg) instead of a fresh one")
    games: int = setting(200, "self-play games per generation", counts="games")
    sparring: list[str] = setting([], "engine specs it also plays and learns against (its own moves)")
    sparring_games: int = setting(100, "games against each sparring engine per generation", counts="games")
    temperature: float = setting(1.0, "pg and ac: self-play samples the policy with this temperature")
    epsilon: float = setting(0.1, "q: self-play plays a random action this often")
    learning_rate: float = setting(1e-4, "Adam learning rate")
    entropy: float = setting(0.01, "pg and ac: weight of the policy's entropy bonus (keeps it exploring)")
    clip: float = setting(0.0, "pg: PPO's clipped surrogate with this clip (0: REINFORCE, the book's)")
    discount: float = setting(1.0, "a move's reward is the result times discount ** (the game's later moves)")
    bootstrap: float = setting(0.0, "q and ac: weight of the one-step target (the next position's value) "
                                    "against the result")
    symmetries: bool = setting(False, "learn every position under each symmetry of the board too "
                                      "(2 in Connect Four, 8 in Go)")
    batch_size: int = setting(256, "training batch size", counts="positions")
    epochs: int = setting(1, "passes over each generation's experience", counts="steps")
    eval_games: int = setting(100, "games of the new network against the previous one", counts="games")
    baseline_games: int = setting(20, "games against each baseline", counts="games")
    baselines: list[str] = setting(["random", "mcts:rounds=100"], "engine specs the network is measured against")
    seed: int = setting(0, "seed of the network's weights and of the games")

    def __post_init__(self) -> None:
        """Every setting checked here, before a run folder records them."""
        check_types(self)
        if self.method not in HEADS:
            raise SpecError(f"method must be one of {', '.join(HEADS)}, got {self.method!r}")
        if self.model not in MODEL_NAMES:
            raise SpecError(f"unknown model {self.model!r}; the models are: {', '.join(MODEL_NAMES)}")
        get_game(self.game)
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                least = 0 if f.name in ("temperature", "epsilon", "seed", "baseline_games", "learning_rate",
                                         "entropy", "discount", "bootstrap", "clip") else 1
                if not math.isfinite(value) or value < least:
                    raise SpecError(f"{f.name} must be a finite number of at least {least}, got {value}")
        if not 0 < self.discount <= 1:
            raise SpecError(f"discount must be in (0, 1], got {self.discount}")
        if not 0 <= self.bootstrap <= 1:
            raise SpecError(f"bootstrap is a weight in [0, 1], got {self.bootstrap}")
        if self.bootstrap and self.method == "pg":
            raise SpecError("bootstrap needs a value to bootstrap from: use --method q or ac, not pg")
        if not 0 <= self.clip < 1:
            raise SpecError(f"clip is PPO's ratio clip in [0, 1), got {self.clip}")
        if self.clip and self.method != "pg":
            raise SpecError("clip shapes the policy-gradient loss: use it with --method pg")
        if not 0 <= self.epsilon <= 1:
            raise SpecError(f"epsilon is a probability in [0, 1], got {self.epsilon}")
        if not 0 < self.learning_rate < math.inf:
            raise SpecError(f"learning_rate must be above 0, got {self.learning_rate}")
        if self.init:
            self._check_start()
        for spec in (*self.baselines, *self.sparring):  # in full (ranges, files, the game), before a run starts
            check_engine(spec, new_game(self.game))

    def _check_start(self) -> None:
        """A :class:`SpecError` unless ``init`` is a network of this game with the
        heads this method trains; from its metadata alone, before a run folder
        records the settings."""
        if not Path(self.init).is_file():
            raise SpecError(f"--init {self.init}: no such network file")
        start = LoadedModel(self.init, network=False)
        if start.encoder.game.spec != get_game(self.game).spec:
            raise SpecError(f"--init {self.init} plays {start.encoder.game_spec}, not {self.game}")
        kind = str(start.metadata.get("kind", ""))
        if KIND_HEADS.get(kind, INIT_HEADS[self.method]) != INIT_HEADS[self.method]:
            raise SpecError(f"--init {self.init} has the wrong heads for {self.method} (its kind: {kind})")

    def player(self, network: Path, exploring: bool) -> str:
        """The engine spec of ``network``: exploring for self-play, greedy for the checks."""
        if self.method == "q":
            return f"q:model={network},epsilon={self.epsilon if exploring else 0:g}"
        return f"{self.method}:model={network},temperature={self.temperature if exploring else 0:g}"
