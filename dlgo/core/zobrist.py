"""Zobrist keys, drawn once at import from a fixed-seed random generator.

A position's hash is the XOR of one 64-bit key per stone (per colour and point),
so placing or removing a stone updates it with a single XOR. Every game in the
suite uses these tables; boards up to ``MAX_BOARD_SIZE`` on a side are covered.
"""
from __future__ import annotations

import random

from dlgo.core.errors import SpecError

SEED = 20181129  # fixed: hashes are identical in every process and every run
MAX_BOARD_SIZE = 25  # the largest board GTP can address

_rng = random.Random(SEED)

# POINT_KEYS[colour][(row - 1) * MAX_BOARD_SIZE + (col - 1)], colour 1 = black, 2 = white.
POINT_KEYS: tuple[tuple[int, ...], ...] = (
    (),
    tuple(_rng.getrandbits(64) for _ in range(MAX_BOARD_SIZE * MAX_BOARD_SIZE)),
    tuple(_rng.getrandbits(64) for _ in range(MAX_BOARD_SIZE * MAX_BOARD_SIZE)),
)

#: XORed into a game state's hash when white is to move.
WHITE_TO_MOVE: int = _rng.getrandbits(64)
#: XORed into a state's hash while the pie-rule swap is on offer.
SWAP_AVAILABLE: int = _rng.getrandbits(64)

EMPTY_BOARD = 0


def keys_for_grid(num_rows: int, num_cols: int) -> tuple[list[int], list[int], list[int]]:
    """Per-colour key lists in flat row-major order (index ``(row-1)*num_cols + col-1``)
    for a ``num_rows`` x ``num_cols`` grid; element 0 is empty so colour indexes it."""
    if not (1 <= num_rows <= MAX_BOARD_SIZE and 1 <= num_cols <= MAX_BOARD_SIZE):
        raise SpecError(f"boards are limited to {MAX_BOARD_SIZE}x{MAX_BOARD_SIZE}, got {num_rows}x{num_cols}")
    flat = [r * MAX_BOARD_SIZE + c for r in range(num_rows) for c in range(num_cols)]
    return [], [POINT_KEYS[1][i] for i in flat], [POINT_KEYS[2][i] for i in flat]
