"""The Connect-N boards of the scaling lab and the recipe ablation, and the
training run each makes on them: a board's name and size, a network size
(``BLOCKSxFILTERS``), the ablation's baseline settings (:func:`baseline_config`),
the recipe it picked (:func:`recipe_settings`) and the lab's runs with it
(:func:`training_config`), and the solved positions both measure on
(:func:`measured_positions`)."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dlgo.core.errors import SpecError
from dlgo.data.solved import generate_positions
from dlgo.formats.positions import SolvedPosition, read_positions
from dlgo.games.registry import get_game
from engines.training.alphazero_config import AlphaZeroConfig, pre_recipe_config, scaled_temperature_schedule

MEASURE_SEED = 1         # the measured positions' seed: the same positions for every run, the lab's and the ablation's
MAX_CANDIDATES = 80_000  # random play never fills some sets of the small boards: the others are kept
QUICK_CANDIDATES = 1_000  # a --quick run's: enough that its few positions a set fill every set of 5x4, warning-free
#: the recipe's runs are half as long again as the baseline's: 96 iterations on 5x4, 192 on 6x4, 384 on 6x5
RECIPE_LENGTH = 1.5


@dataclass(frozen=True)
class Net:
    """A network size of the lab: residual blocks and filters (``"2x32"``)."""

    blocks: int
    filters: int

    @classmethod
    def parse(cls, text: str) -> "Net":
        match = re.fullmatch(r"(\d+)x(\d+)", text)
        if not match or int(match[2]) < 1:
            raise SpecError(f"a network size is BLOCKSxFILTERS, e.g. 2x32; got {text!r}")
        return cls(int(match[1]), int(match[2]))

    @property
    def name(self) -> str:
        return f"{self.blocks}x{self.filters}"


def baseline_config(board: str, net: Net, seed: int, quick: bool) -> AlphaZeroConfig:
    """The recipe ablation's baseline, the lab's runs before the recipe: the Connect Four
    ablation's cheapest economy (PUCT with 16 simulations, half result and half search value
    as the value target), scaled to the small boards, on the defaults from before the recipe;
    tiny with ``quick``. No baselines: the tournaments and the solved positions measure."""
    if quick:
        return pre_recipe_config(game=board, blocks=net.blocks, filters=net.filters, games=4, parallel=4,
                                 simulations=4, train_steps=2, batch_size=32, eval_games=0, eval_simulations=4,
                                 previous_games=1, baselines=[], seed=seed)
    return pre_recipe_config(game=board, blocks=net.blocks, filters=net.filters, learning_rate=1e-3, l2=1e-4,
                             games=128, parallel=128, simulations=16, c=1.5, dirichlet_alpha=1.0,
                             dirichlet_epsilon=0.25, temperature_moves=4, buffer_games=2000, batch_size=128,
                             train_steps=50, eval_games=0, eval_simulations=16, previous_games=2, baselines=[],
                             search_value_weight=0.5, seed=seed)


def floor_schedule(board_cells: int, iterations: int) -> dict[str, Any]:
    """AlphaZero.jl's Connect Four schedule (temperature 1 for 20 of 42 plies, falling to 0.3
    by ply 30 and staying there), scaled to the board's cells (the recipe's default, written
    out: the runs recorded it so)."""
    moves, decay = scaled_temperature_schedule(board_cells)
    return {"temperature_moves": moves, "temperature_decay_moves": decay, "temperature_floor": 0.3}


def anneal(board_cells: int, iterations: int) -> dict[str, Any]:
    """The learning rate divided by 10 for the last third of the run; the iterations' compute
    spent on learning (no previous-network match, references every 4 iterations)."""
    return {"learning_rate_drops": [2 * iterations // 3 + 1], "previous_games": 0, "reference_every": 4}


def recipe_settings(board_cells: int, iterations: int) -> dict[str, Any]:
    """The recipe the ablation picked (its variant ``openings``, docs/alphazero.md), as changes
    to :func:`baseline_config` for a run of ``iterations`` on a board of ``board_cells``:
    AlphaZero.jl's temperature floor, repeated positions merged, heads of 32 filters, the
    learning rate / 10 for the last third, random openings of up to half the board's cells,
    and the latest network within one standard error of the best on the references published
    (where a run measures references)."""
    return {**floor_schedule(board_cells, iterations), "merge_positions": True, "policy_filters": 32,
            "value_filters": 32, **anneal(board_cells, iterations), "opening_moves": board_cells // 2,
            "publish": "best", "publish_margin": 1.0}


def training_config(board: str, net: Net, seed: int, quick: bool, iterations: int) -> AlphaZeroConfig:
    """One run of the scaling lab: the baseline with the recipe, ``iterations`` long; tiny with ``quick``."""
    return replace(baseline_config(board, net, seed, quick), **recipe_settings(cells(board), iterations))


def measured_positions(board: str, folder: Path, per_set: int, workers: int | None,
                       quick: bool = False) -> list[SolvedPosition]:
    """The board's critical solved positions the lab and the ablation measure every network on:
    Pons' six sets, ``per_set`` a set, seed :data:`MEASURE_SEED`, solved once into ``folder``."""
    sets = generate_positions(board, folder, per_set=per_set, seed=MEASURE_SEED, workers=workers,
                              max_candidates=QUICK_CANDIDATES if quick else MAX_CANDIDATES, progress=True)
    positions = [p for p in read_positions(sets) if p.critical]
    if not positions:
        raise SpecError(f"no critical solved positions for {board}; raise --positions")
    return positions


def cells_of(slug: str) -> int:
    """The points of a board named by :func:`board_slug` (``6x5-4``: 30)."""
    columns, rows = slug.split("-")[0].split("x")
    return int(columns) * int(rows)


def board_shape(board: str) -> tuple[int, int, int]:
    """(columns, rows, in a row) of a Connect-N board spec; a :class:`SpecError` for another game."""
    spec = get_game(board).spec
    numbers = dict(re.findall(r"(\w+)=(\d+)", spec))
    if not spec.startswith("connectn:") or not {"columns", "rows", "n"} <= set(numbers):
        raise SpecError(f"the scaling lab plays Connect-N boards (connectn:columns=C,rows=R,n=K), not {board}")
    return int(numbers["columns"]), int(numbers["rows"]), int(numbers["n"])


def cells(board: str) -> int:
    """The board's points: boards are ordered by it, smallest first."""
    columns, rows, _ = board_shape(board)
    return columns * rows


def board_slug(board: str) -> str:
    """A board's folder name: ``6x5-4`` for ``connectn:columns=6,rows=5,n=4``."""
    columns, rows, n = board_shape(board)
    return f"{columns}x{rows}-{n}"


def shipped_name(board: str) -> str:
    """The name a board's shipped network goes by: ``connect-5x4`` (four in a row), ``connect3-4x3``."""
    columns, rows, n = board_shape(board)
    return f"connect{'' if n == 4 else n}-{columns}x{rows}"


def ship_network(source: Path, board: str, checkpoints: str | Path) -> Path:
    """Export the network in ``source`` to ``checkpoints/<shipped_name>.keras``, without its
    optimizer state and with its weights stored in half precision (well under 1 MB): playable as
    ``alphazero:checkpoint=connect-CxR``. A :class:`SpecError` where ``source`` is not here."""
    from engines.neural.backend import export_model  # TensorFlow

    if not source.exists():
        raise SpecError(f"--ship: {source} is not here (trained in another session?): train the run again here")
    dest = Path(checkpoints) / f"{shipped_name(board)}.keras"
    export_model(source, dest, half_weights=True)
    return dest
