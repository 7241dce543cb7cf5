"""Board encoders: positions -> ``channels_last`` planes for neural networks.

>>> enc = get_encoder_by_name("sevenplane", "go:size=9")
>>> enc.shape, enc.num_moves
((9, 9, 7), 82)
>>> get_encoder_by_name(None, "connect4").name   # the game's default encoder
'planes'
"""
from __future__ import annotations

from dlgo.core.errors import SpecError
from dlgo.core.game import Game
from dlgo.encoders.base import Encoder
from dlgo.encoders.go import OnePlaneEncoder, SevenPlaneEncoder, SimpleEncoder
from dlgo.encoders.planes import PlanesEncoder
from dlgo.games import get_game

ENCODERS: dict[str, type[Encoder]] = {
    cls.name: cls for cls in (OnePlaneEncoder, SevenPlaneEncoder, SimpleEncoder, PlanesEncoder)
}


def get_encoder_by_name(name: str | None, game: str | Game) -> Encoder:
    """The encoder ``name`` (None: the game's ``default_encoder``) for ``game``,
    a spec string such as ``"go:size=9"`` or a :class:`~dlgo.core.game.Game`."""
    name = name or (get_game(game) if isinstance(game, str) else game).default_encoder
    try:
        cls = ENCODERS[name]
    except KeyError:
        raise SpecError(f"unknown encoder {name!r}; the encoders are: {', '.join(ENCODERS)}") from None
    return cls(game)


__all__ = ["Encoder", "ENCODERS", "get_encoder_by_name"]
