"""The encoder for any game with a board: the mover's stones, the opponent's,
and who moves.

``planes`` (tic-tac-toe, Connect Four, any m,n,k or Connect-N game, and any new
game): plane 0 holds the mover's stones, plane 1 the opponent's, plane 2 is all
ones when black is to move (so a network can tell the colours apart, which
matters for the first-player advantage), and with the pie rule plane 3 is all
ones while the swap is available. It reads only ``state.stone_array()``.
"""
from __future__ import annotations

import numpy as np

from dlgo.core.game import Game, State
from dlgo.core.types import Player
from dlgo.encoders.base import Encoder, GoPlanes


class PlanesEncoder(Encoder):
    """Mover's stones, opponent's stones, black-to-move (and swap-available with the pie rule)."""

    name = "planes"
    kind = "any game with a board"

    @staticmethod
    def accepts(game: Game) -> bool:
        return True

    @property
    def num_planes(self) -> int:
        return 4 if self.game.has_swap else 3

    def go_planes(self) -> GoPlanes | None:
        """The compiled Go search's reading (it asks only on Go, which has no pie rule):
        the mover's stones, the opponent's, black to move."""
        return None if self.game.has_swap else GoPlanes(relative=True, max_liberties=1, black_turn=2, white_turn=-1,
                                                        ko=-1)

    def stone_planes(self) -> tuple[int, int, int, int] | None:
        """Mover, opponent, black to move (the swap's plane is more than stones)."""
        return None if self.game.has_swap else (0, 1, 2, -1)

    def encode(self, state: State) -> np.ndarray:
        out = np.zeros(self.shape, dtype=np.float32)
        stones = state.stone_array()
        me = int(state.next_player)
        out[:, :, 0] = stones == me
        out[:, :, 1] = stones == 3 - me
        if state.next_player == Player.black:
            out[:, :, 2] = 1.0
        if self.game.has_swap and state.swap_available():
            out[:, :, 3] = 1.0
        return out
