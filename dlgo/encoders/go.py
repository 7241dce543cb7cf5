"""The book's Go encoders (chapters 6 and 7).

``oneplane``: one plane, +1 for the mover's stones, -1 for the opponent's.
``sevenplane``: the mover's stones with 1, 2 and >= 3 liberties, the
opponent's likewise, and the points forbidden by ko.
``simple``: black stones with 1, 2, 3 and >= 4 liberties, white likewise, a
plane of ones if black is to move, one if white is, and the ko points.
"""
from __future__ import annotations

import numpy as np

from dlgo.core.game import Game
from dlgo.encoders.base import Encoder, GoPlanes
from dlgo.games.go.state import GoState, GoGame


class GoEncoder(Encoder):
    kind = "Go"

    @staticmethod
    def accepts(game: Game) -> bool:
        return isinstance(game, GoGame)  # the Go encoders read liberties and ko

    def _liberty_planes(self, state: GoState, out: np.ndarray, first_plane: dict[int, int],
                        max_liberties: int) -> None:
        """Set ``out[r, c, first_plane[colour] + min(libs, max) - 1]`` for every stone."""
        board = state.board
        color, strings, cols = board.color, board.string, self.cols
        for p, c in enumerate(color):
            s = strings[p]
            if c and s is not None:
                libs = len(s.liberties)
                out[p // cols, p % cols, first_plane[c] + min(libs, max_liberties) - 1] = 1.0

    def _ko_plane(self, state: GoState, out: np.ndarray, plane: int) -> None:
        for p in state.ko_points():
            out[p // self.cols, p % self.cols, plane] = 1.0


class OnePlaneEncoder(GoEncoder):
    """One plane: +1 the mover's stones, -1 the opponent's (book, chapter 6)."""

    name = "oneplane"
    num_planes = 1

    def go_planes(self) -> GoPlanes:
        return GoPlanes(relative=True, max_liberties=0, black_turn=-1, white_turn=-1, ko=-1)

    def encode(self, state: GoState) -> np.ndarray:  # type: ignore[override]
        color = np.asarray(state.board.color, dtype=np.int8)
        me = int(state.next_player)
        plane = np.where(color == me, 1.0, np.where(color == 3 - me, -1.0, 0.0)).astype(np.float32)
        return plane.reshape(self.rows, self.cols, 1)


class SevenPlaneEncoder(GoEncoder):
    """The mover's stones by 1, 2, >=3 liberties; the opponent's likewise; ko (book, chapter 7)."""

    name = "sevenplane"
    num_planes = 7

    def go_planes(self) -> GoPlanes:
        return GoPlanes(relative=True, max_liberties=3, black_turn=-1, white_turn=-1, ko=6)

    def encode(self, state: GoState) -> np.ndarray:  # type: ignore[override]
        out = np.zeros(self.shape, dtype=np.float32)
        me = int(state.next_player)
        self._liberty_planes(state, out, {me: 0, 3 - me: 3}, 3)
        self._ko_plane(state, out, 6)
        return out


class SimpleEncoder(GoEncoder):
    """Black by 1, 2, 3, >=4 liberties; white likewise; who is to move; ko (book, chapter 7)."""

    name = "simple"
    num_planes = 11

    def go_planes(self) -> GoPlanes:
        return GoPlanes(relative=False, max_liberties=4, black_turn=8, white_turn=9, ko=10)

    def encode(self, state: GoState) -> np.ndarray:  # type: ignore[override]
        out = np.zeros(self.shape, dtype=np.float32)
        self._liberty_planes(state, out, {1: 0, 2: 4}, 4)
        out[:, :, 8 if state.next_player == 1 else 9] = 1.0
        self._ko_plane(state, out, 10)
        return out
