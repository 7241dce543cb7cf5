"""Every game by name: ``new_game(name, **options)`` and ``get_game(spec)``.

A game is registered with a factory whose keyword parameters are its options
(typed by their annotations, as engines are); :func:`register_game` adds one,
so a new game joins the CLI, tournaments and training without touching them.

>>> new_game("connect4").num_actions
7
>>> get_game("go:size=13,komi=6.5").spec
'go:size=13,komi=6.5'
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, NamedTuple

from dlgo.core.errors import SpecError
from dlgo.core.game import Game, State
from dlgo.core.specs import bind, split_spec
from dlgo.games.connectn import ConnectNGame
from dlgo.games.go.state import GoGame
from dlgo.games.mnk import MNKGame


class GameSpec(NamedTuple):
    name: str
    description: str
    factory: Callable[..., Game]


def _go(size: int | tuple[int, int] = 9, komi: float = 7.5, handicap: int = 0, dead_stones: bool = False) -> Game:
    rows, cols = (size, size) if isinstance(size, int) else size
    return GoGame(rows, cols, komi, handicap, dead_stones)


def _mnk(m: int = 3, n: int = 3, k: int = 3, pie_rule: bool = False) -> Game:
    return MNKGame(m, n, k, pie_rule)


def _tictactoe(pie_rule: bool = False) -> Game:
    return MNKGame(3, 3, 3, pie_rule)


def _gomoku(size: int = 15, pie_rule: bool = False) -> Game:
    return MNKGame(size, size, 5, pie_rule)


def _connectn(columns: int = 7, rows: int = 6, n: int = 4, pie_rule: bool = False) -> Game:
    return ConnectNGame(columns, rows, n, pie_rule)


def _connect4(pie_rule: bool = False) -> Game:
    return ConnectNGame(7, 6, 4, pie_rule)


GAMES: dict[str, GameSpec] = {}


def register_game(name: str, description: str, factory: Callable[..., Game]) -> None:
    """Make ``name`` (and ``name:option=value,...``) a game for every command:
    ``factory(**options)`` builds the :class:`~dlgo.core.game.Game`."""
    GAMES[name.lower()] = GameSpec(name.lower(), description, factory)


for _builtin in (
    GameSpec("go", "Go with area scoring and situational superko", _go),
    GameSpec("tictactoe", "tic-tac-toe: 3x3, three in a row", _tictactoe),
    GameSpec("connect4", "Connect Four: 7 columns x 6 rows, stones fall, four in a row", _connect4),
    GameSpec("gomoku", "free-style gomoku: 15x15, five in a row", _gomoku),
    GameSpec("mnk", "m,n,k game: m columns x n rows, k in a row", _mnk),
    GameSpec("connectn", "gravity Connect-N: columns x rows, n in a row", _connectn),
):
    register_game(*_builtin)


def game_options(name: str) -> dict[str, Any]:
    """The options a game accepts, with their defaults."""
    spec = _spec(name)
    return {p.name: p.default for p in inspect.signature(spec.factory).parameters.values()}


def _spec(name: str) -> GameSpec:
    try:
        return GAMES[name.lower()]
    except KeyError:
        raise SpecError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}") from None


def get_game(name: str, **options: Any) -> Game:
    """The game ``name`` with ``options``: ``get_game("go", size=9)``, or a spec
    string: ``get_game("go:size=13,komi=6.5")``."""
    base, params = split_spec(name)
    spec = _spec(base)
    return spec.factory(**bind(spec.factory, {**params, **options}, f"game {base!r}"))


def new_game(name: str, **options: Any) -> State:
    """The starting state of game ``name`` (see :data:`GAMES`), e.g.
    ``new_game("go", size=9, komi=7.5)`` or ``new_game("connectn", pie_rule=True)``.
    ``name`` may also be a spec string: ``new_game("go:size=13,komi=6.5")``."""
    return get_game(name, **options).initial_state()
