"""One API suite (:mod:`dlgo.games.api_checks`, public, as pgx's ``api_test``), run
against every game in the registry, and against Hex, the small game that
``test_new_game.py`` writes to the narrow contract (four hooks, every other
member the generic default)."""
import numpy as np
import pytest

from dlgo.core.types import Player
from dlgo.games import GAMES, game_options, new_game, register_game
from dlgo.games.api_checks import CHECKS, GameAPIError, check_apply_move, check_game
from test_new_game import Hex, HexState, hex_game

VARIANTS = [(name, {}) for name in GAMES] + [
    ("go", {"size": 5}),
    ("go", {"size": (3, 4), "komi": 0.5}),
    ("connectn", {"columns": 5, "rows": 4, "n": 3, "pie_rule": True}),
    ("tictactoe", {"pie_rule": True}),
    ("hex", {}),
    ("hex", {"size": 3}),
]
IDS = [f"{n}{'-' + '-'.join(f'{k}={v}' for k, v in o.items()) if o else ''}" for n, o in VARIANTS]


@pytest.fixture(autouse=True)
def hex_registered():
    """Hex joins the registered games for each test here, and leaves after it."""
    register_game("hex", "Hex: join your two edges of the board", hex_game)
    yield
    del GAMES["hex"]


@pytest.fixture(params=VARIANTS, ids=IDS)
def start(request):
    name, options = request.param
    return new_game(name, **options)


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__.removeprefix("check_") for c in CHECKS])
def test_the_game_keeps_the_api(start, check):
    check(start)


def test_the_checks_name_the_rule_a_broken_game_breaks():
    """Hex keeps every rule; a Hex that writes its move into the state it moves from, and
    one whose move text does not parse back, each fail the check about it, and say so."""
    class Mutating(HexState):
        def apply_action(self, action):
            child = super().apply_action(action)
            self.stones.flat[action] = self.next_player  # its own board changed too
            return child

    class Misnamed(HexState):
        def format_move(self, move):
            return "x" + super().format_move(move)

    def start(kind):
        return kind(Hex(4), np.zeros((4, 4), np.int8), Player.black, None, None)

    check_game(start(HexState))
    with pytest.raises(GameAPIError, match="changed the state it was called on"):
        check_apply_move(start(Mutating))
    with pytest.raises(GameAPIError, match=r"parse_move\('xa1'\) is not"):
        check_game(start(Misnamed))


def test_registry_errors():
    with pytest.raises(ValueError, match="unknown game 'chess'; choose one of: go, tictactoe"):
        new_game("chess")
    with pytest.raises(ValueError, match="game 'go' has no parameter 'sizee'; its parameters are: size=9, komi=7.5"):
        new_game("go", sizee=9)
    with pytest.raises(ValueError, match="'size' must be int or int x int, got 'big'"):
        new_game("go:size=big")
    assert new_game("go:size=13,komi=6.5").board.num_rows == 13
    assert new_game("go:size=5x7").board.num_cols == 7
    assert new_game("connectn:columns=5,pie_rule=true").num_actions == 6
    assert game_options("connectn") == {"columns": 7, "rows": 6, "n": 4, "pie_rule": False}
