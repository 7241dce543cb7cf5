"""One entry point for every game: ``new_game(name, **options)``.

>>> from dlgo.games import new_game
>>> new_game("connect4").num_actions
7
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, NamedTuple

from dlgo.game import GameStateBase
from dlgo.specs import bind, split_spec


class GameSpec(NamedTuple):
    name: str
    description: str
    factory: Callable[..., GameStateBase]


def _go(size: int | tuple[int, int] = 9, komi: float = 7.5, handicap: int = 0) -> GameStateBase:
    from dlgo.goboard import GameState

    if not handicap:
        return GameState.new_game(size, komi=komi)
    from dlgo.gtp.protocol import fixed_handicap_points

    if not isinstance(size, int):
        raise ValueError("handicap stones need a square board")
    return GameState.with_handicap(size, fixed_handicap_points(size, handicap), komi)  # GTP's standard points


def _mnk(m: int = 3, n: int = 3, k: int = 3, pie_rule: bool = False) -> GameStateBase:
    from dlgo.mnk import MNKGameState

    return MNKGameState.new_game(m, n, k, pie_rule=pie_rule)


def _tictactoe(pie_rule: bool = False) -> GameStateBase:
    return _mnk(3, 3, 3, pie_rule)


def _gomoku(size: int = 15, pie_rule: bool = False) -> GameStateBase:
    return _mnk(size, size, 5, pie_rule)


def _connectn(columns: int = 7, rows: int = 6, n: int = 4, pie_rule: bool = False) -> GameStateBase:
    from dlgo.connectn import ConnectNGameState

    return ConnectNGameState.new_game(columns, rows, n, pie_rule=pie_rule)


def _connect4(pie_rule: bool = False) -> GameStateBase:
    return _connectn(7, 6, 4, pie_rule)


GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec("go", "Go with area scoring and situational superko", _go),
        GameSpec("tictactoe", "tic-tac-toe: 3x3, three in a row", _tictactoe),
        GameSpec("connect4", "Connect Four: 7 columns x 6 rows, stones fall, four in a row", _connect4),
        GameSpec("gomoku", "free-style gomoku: 15x15, five in a row", _gomoku),
        GameSpec("mnk", "m,n,k game: m columns x n rows, k in a row", _mnk),
        GameSpec("connectn", "gravity Connect-N: columns x rows, n in a row", _connectn),
    )
}


def game_options(name: str) -> dict[str, Any]:
    """The options a game accepts, with their defaults."""
    spec = _spec(name)
    return {p.name: p.default for p in inspect.signature(spec.factory).parameters.values()}


def _spec(name: str) -> GameSpec:
    try:
        return GAMES[name.lower()]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}") from None


def new_game(name: str, **options: Any) -> GameStateBase:
    """The starting state of game ``name`` (see :data:`GAMES`), e.g.
    ``new_game("go", size=9, komi=7.5)`` or ``new_game("connectn", pie_rule=True)``.
    ``name`` may also be a spec string: ``new_game("go:size=13,komi=6.5")``."""
    base, params = split_spec(name)
    spec = _spec(base)
    return spec.factory(**bind(spec.factory, {**params, **options}, f"game {base!r}"))
