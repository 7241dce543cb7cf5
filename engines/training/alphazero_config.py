"""AlphaZero's settings, in a module without TensorFlow (the CLI reads them to
build its options)."""
from __future__ import annotations

import math
from pathlib import Path
from dataclasses import dataclass, field, fields

from dlgo.core.errors import SpecError
from dlgo.games import get_game
from engines.registry import check_spec
from engines.training.selfplay import MatchSettings, SelfPlaySettings

#: the least value of each count (every other number: finite, and >= 0 unless listed in POSITIVE)
AT_LEAST_ONE = ("blocks", "filters", "games", "parallel", "simulations", "buffer_games", "batch_size", "train_steps",
                "previous_games", "eval_simulations", "baseline_every")
POSITIVE = ("learning_rate", "learning_rate_drop", "c", "dirichlet_alpha")
FRACTIONS = ("full_fraction", "search_value_weight", "dirichlet_epsilon")


@dataclass
class AlphaZeroConfig:
    """Everything a run depends on; a resumed run must use the same values."""

    game: str = "tictactoe"
    blocks: int = 2
    filters: int = 32
    l2: float = 1e-4
    learning_rate: float = 1e-3
    learning_rate_drops: list[int] = field(default_factory=list, metadata={"item": int})
    learning_rate_drop: float = 0.1  # factor applied at each iteration in learning_rate_drops
    games: int = 64                # self-play games per iteration
    parallel: int = 64             # games advancing together
    simulations: int = 50          # per self-play move
    fast_simulations: int = 0      # playout-cap randomisation: > 0 searches most moves this much, unrecorded
    full_fraction: float = 0.25    # ... and gives the full search (and an example) to this share of moves
    search_value_weight: float = 0.0  # value target: (1 - w) * game result + w * the root's search value
    c: float = 1.5
    dirichlet_alpha: float = 0.5
    dirichlet_epsilon: float = 0.25
    temperature_moves: int = 4
    buffer_games: int = 1000
    batch_size: int = 128
    train_steps: int = 100
    eval_games: int = 10           # per baseline
    previous_games: int = 20       # against the previous iteration's network (Elo)
    eval_simulations: int = 50
    baselines: list[str] = field(default_factory=lambda: ["random"], metadata={"item": str})
    baseline_every: int = 1        # play the baselines every k iterations (and at the last)
    seed: int = 0
    init: str = ""                 # start from this policy-value network (train-supervised --target both), not fresh

    def __post_init__(self) -> None:
        """Every setting checked here, before a run folder records them, rather
        than at the first self-play or the first evaluation."""
        get_game(self.game)
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if not math.isfinite(value):
                    raise SpecError(f"{f.name} must be a finite number, got {value}")
                least = 1 if f.name in AT_LEAST_ONE else 0
                if value < least or (f.name in POSITIVE and value <= 0):
                    raise SpecError(f"{f.name} must be {'above 0' if f.name in POSITIVE else f'at least {least}'}, "
                                    f"got {value}")
        for name in FRACTIONS:
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise SpecError(f"{name} must lie in [0, 1], got {getattr(self, name)}")
        if any(not isinstance(k, int) or k < 1 for k in self.learning_rate_drops):
            raise SpecError(f"learning_rate_drops are iterations (1 or more), got {self.learning_rate_drops}")
        for spec in self.baselines:
            check_spec(spec)
        if self.init and not Path(self.init).is_file():
            raise SpecError(f"--init {self.init}: no such network file")

    def learning_rate_at(self, iteration: int) -> float:
        """The step schedule: ``learning_rate`` times ``learning_rate_drop`` once
        per entry of ``learning_rate_drops`` at or before ``iteration``."""
        drops = sum(1 for start in self.learning_rate_drops if iteration >= start)
        return self.learning_rate * self.learning_rate_drop ** drops

    def self_play_settings(self) -> SelfPlaySettings:
        """How this run's self-play searches and chooses its moves."""
        return SelfPlaySettings(parallel=self.parallel, simulations=self.simulations, c=self.c,
                                temperature_moves=self.temperature_moves, dirichlet_alpha=self.dirichlet_alpha,
                                dirichlet_epsilon=self.dirichlet_epsilon, fast_simulations=self.fast_simulations,
                                full_fraction=self.full_fraction, search_value_weight=self.search_value_weight)

    def match_settings(self) -> MatchSettings:
        """How each new network plays the one before it (its Elo step)."""
        return MatchSettings(parallel=min(self.parallel, self.previous_games), simulations=self.eval_simulations,
                             c=self.c)
