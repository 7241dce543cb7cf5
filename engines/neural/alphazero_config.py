"""AlphaZero's settings, in a module without TensorFlow (the CLI reads them to
build its options)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class AlphaZeroConfig:
    """Everything a run depends on; a resumed run must use the same values."""

    game: str = "tictactoe"
    blocks: int = 2
    filters: int = 32
    l2: float = 1e-4
    learning_rate: float = 1e-3
    games: int = 64                # self-play games per iteration
    parallel: int = 64             # games advancing together
    simulations: int = 50          # per self-play move
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
    baselines: list[str] = field(default_factory=lambda: ["random"])
    seed: int = 0
