"""The small games' encoder: the mover's stones, the opponent's, and who moves.

``planes`` (tic-tac-toe, Connect Four, any m,n,k or Connect-N game): plane 0
holds the mover's stones, plane 1 the opponent's, plane 2 is all ones when
black is to move (so a network can tell the colours apart, which matters
for the first-player advantage), and with the pie rule plane 3 is all ones
while the swap is available.
"""
from __future__ import annotations

import numpy as np

from dlgo.encoders.base import Encoder
from dlgo.game import GameStateBase
from dlgo.kinarow import KInARowState


def bits_to_array(bits: int, num_cells: int) -> np.ndarray:
    """A bitboard as a 0/1 float32 vector of ``num_cells`` entries (bit i = cell i)."""
    raw = np.frombuffer(bits.to_bytes((num_cells + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:num_cells].astype(np.float32)


class PlanesEncoder(Encoder):
    """Mover's stones, opponent's stones, black-to-move (and swap-available with the pie rule)."""

    name = "planes"
    kind = "the k-in-a-row games (tic-tac-toe, Connect Four, m,n,k, Connect-N)"

    @staticmethod
    def accepts(state: GameStateBase) -> bool:
        return isinstance(state, KInARowState)

    @property
    def num_planes(self) -> int:
        return 4 if self.start.pie_rule else 3

    def encode(self, state: KInARowState) -> np.ndarray:
        out = np.zeros(self.shape, dtype=np.float32)
        n = self.rows * self.cols
        me = int(state.next_player)
        out[:, :, 0] = bits_to_array(state.bits[me], n).reshape(self.rows, self.cols)
        out[:, :, 1] = bits_to_array(state.bits[3 - me], n).reshape(self.rows, self.cols)
        if me == 1:
            out[:, :, 2] = 1.0
        if self.start.pie_rule and state.swap_available():
            out[:, :, 3] = 1.0
        return out
