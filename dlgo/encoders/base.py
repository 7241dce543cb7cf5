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
from typing import Any, NamedTuple

import numpy as np

from dlgo.core.errors import ModelFileError, SpecError
from dlgo.core.game import Game, State
from dlgo.core.types import Move
from dlgo.games import get_game


class GoPlanes(NamedTuple):
    """How an encoder's planes read a Go position, for the compiled search that
    encodes its positions on the compiled board (:mod:`dlgo.encoders.go_kernels`)
    rather than through :meth:`Encoder.encode`: stones by their string's
    liberties, who is to move, and the points only ko forbids."""

    relative: bool  # stone planes for the mover, then the opponent (else black, then white)
    max_liberties: int  # stone planes per side: 1, 2, ... and >= max liberties; 0: one plane, +1 mover, -1 opponent
    black_turn: int  # the plane of ones when black is to move (-1: none)
    white_turn: int  # likewise for white
    ko: int  # the plane of the points forbidden by (super)ko (-1: none)


class Encoder(abc.ABC):
    """Turns positions of one game into planes. ``game`` is a spec string (kept
    as given, e.g. ``"go:size=9"``, so a saved encoder rebuilds from it) or a
    :class:`~dlgo.core.game.Game`."""

    #: registry name, e.g. ``"sevenplane"``
    name: str = "encoder"
    #: what the encoder understands, for error messages
    kind: str = "any game"

    def __init__(self, game: str | Game):
        self.game_spec = game if isinstance(game, str) else game.spec
        self.game = get_game(game) if isinstance(game, str) else game
        if not self.accepts(self.game):
            raise SpecError(f"encoder {self.name!r} is for {self.kind}, not {self.game_spec!r}")
        self.rows, self.cols = self.game.num_rows, self.game.num_cols

    @staticmethod
    @abc.abstractmethod
    def accepts(game: Game) -> bool:
        """Can this encoder encode positions of ``game``?"""

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
        return self.game.num_actions

    @abc.abstractmethod
    def encode(self, state: State) -> np.ndarray:
        """The planes of ``state``, from the view of the player to move where the
        encoder says so."""

    def go_planes(self) -> GoPlanes | None:
        """How this encoder's planes read a Go position (None: it has no compiled form)."""
        return None

    def stone_planes(self) -> tuple[int, int, int, int] | None:
        """How this encoder's planes read a position of stones alone, for a compiled
        search that encodes from bitboards (:func:`engines.forest_kernels.encode_leaves`):
        the planes of the mover's stones, the opponent's, the plane of ones when black
        is to move and when white is (-1: none), every other plane zero. None: it reads more."""
        return None

    def encode_batch(self, states: list[State]) -> np.ndarray:
        """``(len(states), rows, cols, planes)`` float32."""
        out = np.zeros((len(states),) + self.shape, dtype=np.float32)
        for i, state in enumerate(states):
            out[i] = self.encode(state)
        return out

    def encode_move(self, move: Move, state: State | None = None) -> int:
        """The action index of ``move`` (in ``state``, as for :meth:`decode_move_index`)."""
        return (state or self.game.initial_state()).move_to_index(move)

    def decode_move_index(self, index: int, state: State | None = None) -> Move:
        """The move of action index ``index`` (in ``state`` where it matters: the
        pie rule's swap action of Connect-N means a different move each game)."""
        return (state or self.game.initial_state()).index_to_move(index)

    def check(self, game: Game) -> None:
        """:class:`ModelFileError` unless positions of ``game`` fit this encoder
        (the same board and action space; a Go network plays with any komi)."""
        if (game.num_rows, game.num_cols, game.num_actions) != (self.rows, self.cols, self.num_moves) \
                or not self.accepts(game):
            raise ModelFileError(f"this model plays {self.game_spec}, not this {game.num_rows}x{game.num_cols} "
                                 f"{game.name}")

    def config(self) -> dict[str, Any]:
        """What is needed to rebuild this encoder: ``get_encoder_by_name(**config)``."""
        return {"name": self.name, "game": self.game_spec}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} for {self.game_spec}, shape {self.shape}>"
