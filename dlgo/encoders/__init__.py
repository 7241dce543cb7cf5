"""Board encoders: positions -> ``channels_last`` planes for neural networks.

>>> enc = get_encoder_by_name("sevenplane", "go:size=9")
>>> enc.shape, enc.num_moves
((9, 9, 7), 82)
"""
from __future__ import annotations

from dlgo.encoders.base import Encoder
from dlgo.encoders.go import OnePlaneEncoder, SevenPlaneEncoder, SimpleEncoder
from dlgo.encoders.planes import PlanesEncoder
from dlgo.game import GameStateBase

ENCODERS: dict[str, type[Encoder]] = {
    cls.name: cls for cls in (OnePlaneEncoder, SevenPlaneEncoder, SimpleEncoder, PlanesEncoder)
}


def default_encoder_name(game: str) -> str:
    """``simple`` for Go, ``planes`` for the small games."""
    return "simple" if game.split(":")[0].strip().lower() == "go" else "planes"


def get_encoder_by_name(name: str | None, game: str | GameStateBase) -> Encoder:
    """The encoder ``name`` (None: the game's default) for ``game``, a game spec
    such as ``"go:size=9"`` (or a state, whose spec is then ``game_spec(state)``)."""
    spec = game if isinstance(game, str) else game_spec(game)
    name = name or default_encoder_name(spec)
    try:
        cls = ENCODERS[name]
    except KeyError:
        raise ValueError(f"unknown encoder {name!r}; the encoders are: {', '.join(ENCODERS)}") from None
    return cls(spec)


def game_spec(state: GameStateBase) -> str:
    """A game spec that rebuilds ``state``'s game (board size, komi, k, pie rule)."""
    from dlgo.connectn import ConnectNGameState
    from dlgo.goboard import GameState
    from dlgo.mnk import MNKGameState

    if isinstance(state, GameState):
        b = state.board
        size = b.num_rows if b.num_rows == b.num_cols else f"{b.num_rows}x{b.num_cols}"
        return f"go:size={size},komi={state.komi:g}"
    g = state.geometry
    pie = ",pie_rule=true" if state.pie_rule else ""
    if isinstance(state, ConnectNGameState):
        return f"connectn:columns={g.num_cols},rows={g.num_rows},n={g.k}{pie}"
    if isinstance(state, MNKGameState):
        return f"mnk:m={g.num_cols},n={g.num_rows},k={g.k}{pie}"
    raise ValueError(f"no game spec for {state!r}")


__all__ = ["Encoder", "ENCODERS", "get_encoder_by_name", "default_encoder_name", "game_spec"]
