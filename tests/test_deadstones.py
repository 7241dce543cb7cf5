"""Dead stones at the end of a Go game: estimated from ownership, seki left alive,
used by the game option ``dead_stones`` and by GTP's final_score and final_status_list."""
from __future__ import annotations

import random

import pytest

import engines
from dlgo.app.gtp_server import GtpFrontend
from dlgo.core.types import Point
from dlgo.games import new_game
from dlgo.games.go import deadstones
from dlgo.games.go.deadstones import score_with_dead_stones, stone_status
from dlgo.games.go.scoring import area_score

WALLS = [text for row in range(1, 8) for text in (f"D{row}", f"E{row}")]  # Black on D, White on E (7x7)


def walled(game: str = "go:size=7,komi=0.5"):
    """Black's wall and area on the left, White's on the right, a dead white stone at B4."""
    state = new_game(game)
    for text in WALLS + ["pass", "B4", "pass", "pass"]:
        state = state.apply_move(state.parse_move(text))
    return state


@pytest.mark.parametrize("seed", range(5))
def test_a_stone_inside_the_other_colours_area_is_dead(seed):
    state = walled()
    status = stone_status(state, seed=seed)
    assert status.dead == {Point(4, 2)} and not status.seki
    assert str(area_score(state.board, 0.5)) == "W+15.5"  # the board as it stands
    assert str(score_with_dead_stones(state, status=status)) == "B+6.5"  # 21 points against 14


def test_a_played_out_game_has_no_dead_stones():
    rng = random.Random(3)
    state = new_game("go:size=9")
    while not state.is_over():
        state = state.apply_move(state.random_move(rng))  # the random engine plays everything out
    assert not stone_status(state, seed=1).dead
    assert score_with_dead_stones(state, seed=1) == area_score(state.board, state.game.komi)


def test_contested_strings_sharing_liberties_are_seki_and_stay(monkeypatch):
    """Two strings of opposite colours that share liberties and each survive
    about half the playouts are in seki: alive, not dead."""
    state = new_game("go:size=5,komi=0.5")
    for text in ["B2", "D4", "B3", "D3", "pass", "D2", "pass", "pass"]:
        state = state.apply_move(state.parse_move(text))
    board = state.board
    monkeypatch.setattr(deadstones, "ownership", lambda *args, **kwargs: [0.0] * board.geometry.num_points)
    status = stone_status(state)
    assert status.seki == {Point(2, 2), Point(3, 2), Point(4, 4), Point(3, 4), Point(2, 4)} and not status.dead


def test_the_game_option_counts_without_the_dead_stones():
    assert new_game("go:size=7,komi=0.5,dead_stones=true").game.spec == "go:size=7,komi=0.5,dead_stones=true"
    assert walled("go:size=7,komi=0.5,dead_stones=true").outcome().text == "B+6.5"
    assert walled().outcome().text == "W+15.5"  # the default: the board as it stands


def test_gtp_final_score_and_final_status_list():
    frontend = GtpFrontend(engines.create("random", seed=1), size=7, komi=0.5)
    for k, text in enumerate(WALLS + ["pass", "B4"]):
        assert frontend.handle(f"play {'b' if k % 2 == 0 else 'w'} {text}").startswith("="), text
    assert frontend.handle("final_score") == "= B+6.5\n\n"
    assert frontend.handle("final_status_list dead") == "=\nB4\n\n"
    alive = frontend.handle("final_status_list alive")
    assert alive.startswith("=\n") and len(alive.strip().splitlines()) == 3  # the two walls, one line each
    assert frontend.handle("final_status_list seki") == "=\n\n"
    assert frontend.handle("final_status_list sleeping").startswith("?")
