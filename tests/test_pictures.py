"""Pictures: every game drawn to a valid PNG (with heat maps), whole games to
animated GIFs, `dlgo render` on SGF files and tournament records, and histograms of
games counted in whole games."""
import random

import numpy as np
import pytest
from PIL import Image

from dlgo.games import new_game
from dlgo.display.pictures import render_game, render_position
from dlgo.display.plotting import count_histogram, new_figure
from engines import ENGINES


def random_states(game: str, plies: int, seed: int = 1) -> list:
    state, rng = new_game(game), random.Random(seed)
    states = [state]
    for _ in range(plies):
        if state.is_over():
            break
        state = state.apply_move(state.random_move(rng))
        states.append(state)
    return states


@pytest.mark.parametrize("game, kind", [("go:size=9", "go"), ("go:size=19", "go"), ("connect4", "columns"),
                                        ("tictactoe", "grid"), ("gomoku", "grid")])
def test_every_game_draws_to_a_png_with_and_without_a_heat_map(tmp_path, game, kind):
    state = random_states(game, 12)[-1]
    assert state.game.board_style == kind
    heat = np.random.default_rng(0).dirichlet(np.ones(state.num_actions))
    for name, values in (("plain.png", None), ("heat.png", heat)):
        render_position(state, tmp_path / name, values, title=game)
        with Image.open(tmp_path / name) as image:
            assert image.format == "PNG" and image.size[0] > 200 and image.size[1] > 200
    plain, hot = (np.asarray(Image.open(tmp_path / n).convert("RGB"), dtype=int) for n in ("plain.png", "heat.png"))
    assert plain.shape != hot.shape or np.abs(plain - hot).sum() > 0  # the heat map shows


def test_a_heat_map_of_the_wrong_length_is_refused(tmp_path):
    with pytest.raises(ValueError, match="7 actions"):
        render_position(new_game("connect4"), tmp_path / "x.png", [0.5, 0.5])


def test_a_whole_game_becomes_an_animated_gif_one_frame_a_move(tmp_path):
    states = random_states("tictactoe", 9)
    render_game(states, tmp_path / "game.gif")
    with Image.open(tmp_path / "game.gif") as image:
        assert image.format == "GIF" and image.n_frames == len(states)
        first = image.info["duration"]
        image.seek(image.n_frames - 1)
        assert image.info["duration"] == pytest.approx(3 * first, rel=0.05)  # the last one is held longer
    assert [p.name for p in tmp_path.iterdir()] == ["game.gif"]  # no temp file left behind


def test_dlgo_render_draws_sgf_files_and_tournament_games(tmp_path, capsys):
    from dlgo.arena.tournament import run_tournament
    from dlgo.app.cli import main
    from dlgo.formats.sgf import game_to_sgf

    sgf = tmp_path / "game.sgf"
    sgf.write_text(game_to_sgf(random_states("go:size=9", 30)[-1], "random", "random"))
    assert main(["render", str(sgf), "--out", str(tmp_path / "go.gif"), "--seconds", "0.2"]) == 0
    assert Image.open(tmp_path / "go.gif").n_frames == 31
    run_tournament(ENGINES, tmp_path / "t", "connect4", ["random", "mcts:rounds=10"], 2, workers=1, progress=False)
    assert main(["render", str(tmp_path / "t"), "--index", "1", "--move", "3", "--out", str(tmp_path / "c4.png")]) == 0
    assert Image.open(tmp_path / "c4.png").format == "PNG"
    assert main(["render", str(tmp_path / "t"), "--index", "9", "--out", str(tmp_path / "x.png")]) == 2
    assert "--index must be 0..1" in capsys.readouterr().err


def test_heat_labels_are_counts_for_visits_and_percentages_for_probabilities():
    from dlgo.display.pictures import _short

    assert _short(1.0, counts=True) == "1" and _short(47.0, counts=True) == "47"
    assert _short(1.0, counts=False) == "100%" and _short(0.37, counts=False) == "37%"
    assert _short(0.004, counts=False) == "0.4%"


def test_a_finished_game_is_drawn_with_its_result_and_a_key_naming_each_side_and_who_played_it():
    import matplotlib.pyplot as plt

    from dlgo.display.pictures import draw_position
    from dlgo.gotypes import Player
    from helpers import play

    for game, moves, result, sides in [
            ("go:size=5", ["C3", "D3", "pass", "pass"], "result: W+7.5 (white wins)", ("black", "white")),
            ("connect4", list("1212121"), "result: red wins", ("red", "yellow")),
            ("tictactoe", ["a1", "b1", "a2", "b2", "a3"], "result: X wins", ("X", "O"))]:
        fig, ax = plt.subplots()
        draw_position(ax, play(new_game(game), *moves), title="final",
                      players={Player.black: "alphago", Player.white: "gnugo:level=10"})
        assert ax.get_title() == f"final   {result}"
        assert [t.get_text() for t in ax.get_legend().get_texts()] == [f"{sides[0]}: alphago",
                                                                        f"{sides[1]}: gnugo:level=10"]
        plt.close(fig)
    for game, title, sides in (("connect4", "red to move", ["red", "yellow"]), ("tictactoe", "X to move", ["X", "O"])):
        fig, ax = plt.subplots()
        draw_position(ax, new_game(game))
        assert ax.get_title() == title
        assert [t.get_text() for t in ax.get_legend().get_texts()] == sides
        plt.close(fig)


def test_pictures_are_written_readable_by_everyone_the_umask_allows(tmp_path):
    import os

    mask = os.umask(0o022)
    try:
        state = new_game("tictactoe")
        render_game([state, state.apply_move(state.legal_moves()[0])], tmp_path / "game.gif")
        render_position(state, tmp_path / "position.png")
    finally:
        os.umask(mask)
    for name in ("game.gif", "position.png"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.gif", "position.png"]  # no temporary file left


@pytest.mark.parametrize("size, points", [
    (9, ["C3", "C7", "E5", "G3", "G7"]),                # the four 3-3 points and tengen
    (13, ["D4", "D10", "G7", "K4", "K10"]),             # the four 4-4 points and tengen
    (19, ["D4", "D10", "D16", "K4", "K10", "K16", "Q4", "Q10", "Q16"]),
])
def test_star_points_are_the_ones_go_boards_mark(size, points):
    from dlgo.core.types import Move, Point
    from dlgo.display.pictures import star_points

    state = new_game(f"go:size={size}")
    assert sorted(state.format_move(Move.play(Point(r, c))) for r, c in star_points(size)) == sorted(points)


def test_a_histogram_of_games_counts_them_in_whole_games():
    fig, ax = new_figure()
    count_histogram(ax, [91, 96, 102, 102, 112, 112, 112, 112, 160], bins=30)  # at most 4 games a bin
    ticks = ax.get_yticks()
    assert len(ticks) >= 3 and all(tick == round(tick) for tick in ticks), ticks
