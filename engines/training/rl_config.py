"""Reinforcement learning's settings, in a module without TensorFlow (the CLI reads
them to build its options): see :mod:`engines.training.rl`."""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from pathlib import Path

from dlgo.core.errors import SpecError
from dlgo.games import get_game
from engines.registry import check_spec

#: the networks' bodies (engines.neural.models.MODELS, named here without loading TensorFlow)
MODEL_NAMES = ("ch6", "small", "medium", "large", "tiny")

#: the network head each method trains (see engines.neural.models.HEADS)
HEADS = {"pg": "policy", "q": "q", "ac": "policy-value"}


@dataclass
class RLConfig:
    """Everything a run depends on; a resumed run must use the same values."""

    method: str = "pg"             # pg, q or ac
    game: str = "connect4"
    model: str = "small"           # the network's body (engines.neural.models): ch6, small, medium, large, tiny
    init: str = ""                 # start from this network file (a supervised predictor, for pg) instead of fresh
    games: int = 200               # self-play games per generation
    sparring: list[str] = field(default_factory=list, metadata={"item": str})  # engines it also learns against
    sparring_games: int = 100      # games against each sparring engine per generation (its own moves learnt)
    temperature: float = 1.0       # pg and ac: self-play samples the policy with this temperature
    epsilon: float = 0.1           # q: self-play plays a random action this often
    learning_rate: float = 1e-4
    entropy: float = 0.01          # pg and ac: weight of the policy's entropy bonus (keeps it exploring)
    clip: float = 0.0              # pg: PPO's clipped surrogate with this clip (0: REINFORCE, the book's)
    discount: float = 1.0          # a move's reward is the result times discount ** (the game's later moves)
    bootstrap: float = 0.0         # q and ac: weight of the one-step target (the next position's value) against the result
    symmetries: bool = False       # learn every position under each symmetry of the board too (2 in Connect Four, 8 in Go)
    batch_size: int = 256
    epochs: int = 1                # passes over each generation's experience
    eval_games: int = 100          # the new network against the previous one
    baseline_games: int = 20       # against each baseline
    baselines: list[str] = field(default_factory=lambda: ["random", "mcts:rounds=100"], metadata={"item": str})
    seed: int = 0

    def __post_init__(self) -> None:
        """Every setting checked here, before a run folder records them."""
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
        if self.init and not Path(self.init).is_file():
            raise SpecError(f"--init {self.init}: no such network file")
        for spec in (*self.baselines, *self.sparring):
            check_spec(spec)

    def player(self, network: Path, exploring: bool) -> str:
        """The engine spec of ``network``: exploring for self-play, greedy for the checks."""
        if self.method == "q":
            return f"q:model={network},epsilon={self.epsilon if exploring else 0:g}"
        return f"{self.method}:model={network},temperature={self.temperature if exploring else 0:g}"
