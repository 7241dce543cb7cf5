"""What every encoder is: a game position -> a stack of board planes, and a move
<-> an index into the game's fixed action space.

Planes are ``channels_last``: ``encode(state)`` returns a ``(rows, cols, planes)``
float32 array whose ``[r, c]`` entry is the point ``Point(r + 1, c + 1)`` (row 1,
the bottom row as printed, is array row 0), so the flat index ``r * cols + c``
is the game's own action index for a play there. All our planes hold -1, 0 or
1, so a dataset stores them as int8.
"""
from __future__ import annotations

import abc

import numpy as np

from dlgo.game import GameStateBase
from dlgo.goboard import Move
from dlgo.games import new_game


class Encoder(abc.ABC):
    """Turns positions of one game (a game spec, e.g. ``"go:size=9"``) into planes."""

    #: registry name, e.g. ``"sevenplane"``
    name: str = "encoder"
    #: what the encoder understands, for error messages
    kind: str = "any game"

    def __init__(self, game: str):
        self.game = game
        self.start = new_game(game)  # the action space and board size come from here
        if not self.accepts(self.start):
            raise ValueError(f"encoder {self.name!r} is for {self.kind}, not {game!r}")
        self.rows, self.cols = self.start.board.num_rows, self.start.board.num_cols

    @staticmethod
    @abc.abstractmethod
    def accepts(state: GameStateBase) -> bool:
        """Can this encoder encode ``state``'s game?"""

    @property
    @abc.abstractmethod
    def num_planes(self) -> int:
        """Number of feature planes."""

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(rows, cols, planes)``: one encoded position."""
        return (self.rows, self.cols, self.num_planes)

    @property
    def num_moves(self) -> int:
        """Size of the action space (Go: every point, then pass)."""
        return self.start.num_actions

    @abc.abstractmethod
    def encode(self, state: GameStateBase) -> np.ndarray:
        """The planes of ``state``, from the view of the player to move where the
        encoder says so."""

    def encode_batch(self, states: list[GameStateBase]) -> np.ndarray:
        """``(len(states), rows, cols, planes)`` float32."""
        out = np.zeros((len(states),) + self.shape, dtype=np.float32)
        for i, state in enumerate(states):
            out[i] = self.encode(state)
        return out

    def encode_move(self, move: Move, state: GameStateBase | None = None) -> int:
        """The action index of ``move`` (in ``state``, as for :meth:`decode_move_index`)."""
        return (state or self.start).move_to_index(move)

    def decode_move_index(self, index: int, state: GameStateBase | None = None) -> Move:
        """The move of action index ``index`` (in ``state`` where it matters: the
        pie rule's swap action of Connect-N means a different move each game)."""
        return (state or self.start).index_to_move(index)

    def config(self) -> dict:
        """What is needed to rebuild this encoder: ``get_encoder_by_name(**config)``."""
        return {"name": self.name, "game": self.game}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} for {self.game}, shape {self.shape}>"
