"""The Connect-N boards of the scaling lab and the recipe ablation, and the
training run each makes on them: a board's name and size, a network size
(``BLOCKSxFILTERS``) and the lab's AlphaZero settings (:func:`training_config`)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from dlgo.core.errors import SpecError
from dlgo.games.registry import get_game
from engines.training.alphazero_config import AlphaZeroConfig, pre_recipe_config


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


def training_config(board: str, net: Net, seed: int, quick: bool) -> AlphaZeroConfig:
    """One run of the lab: the Connect Four ablation's cheapest economy (PUCT with 16
    simulations, half result and half search value as the value target), scaled to
    the small boards, on the defaults from before the recipe (its committed report's;
    the recipe ablation's baseline); tiny with ``quick``. No baselines: the tournaments measure."""
    if quick:
        return pre_recipe_config(game=board, blocks=net.blocks, filters=net.filters, games=4, parallel=4,
                                 simulations=4, train_steps=2, batch_size=32, eval_games=0, eval_simulations=4,
                                 previous_games=1, baselines=[], seed=seed)
    return pre_recipe_config(game=board, blocks=net.blocks, filters=net.filters, learning_rate=1e-3, l2=1e-4,
                             games=128, parallel=128, simulations=16, c=1.5, dirichlet_alpha=1.0,
                             dirichlet_epsilon=0.25, temperature_moves=4, buffer_games=2000, batch_size=128,
                             train_steps=50, eval_games=0, eval_simulations=16, previous_games=2, baselines=[],
                             search_value_weight=0.5, seed=seed)


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
