"""The names a reader of *Deep Learning and the Game of Go* (chapters 3 and 4)
imports keep working: thin aliases of the suite's own code."""
import importlib
import random

import pytest

from dlgo import agent, goboard, gotypes, mcts
from dlgo.agent.helpers import is_point_an_eye
from dlgo.agent.naive import RandomBot
from dlgo.games.go.scoring import area_score
from dlgo.scoring import GameResult, compute_game_result
from dlgo.utils import coords_from_point, point_from_coords, print_board, print_move
from engines.aliases import MCTSAgent as MCTSEngine
from engines.randombot import RandomAgent
from helpers import BOOK_SCORING_DIAGRAM, go_board

#: book module -> where its names live in the suite
ALIASES = {
    "dlgo.goboard": ("dlgo.games.go", "dlgo.core.types"),
    "dlgo.goboard_slow": ("dlgo.games.go", "dlgo.core.types"),
    "dlgo.goboard_fast": ("dlgo.games.go", "dlgo.core.types"),
    "dlgo.gotypes": "dlgo.core.types",
    "dlgo.scoring": "dlgo.games.go",
    "dlgo.agent.helpers": "dlgo.games.go",
    "dlgo.agent.base": "dlgo.core.agent",
    "dlgo.agent.naive": "engines.randombot",
}


@pytest.mark.parametrize("book, home", ALIASES.items())
def test_every_book_module_reexports_the_suites_own_objects(book, home):
    module = importlib.import_module(book)
    for name in module.__all__:
        thing = getattr(module, name)
        assert thing.__module__.startswith(home), f"{book}.{name} is {thing.__module__}"


def test_compute_game_result_scores_the_books_example_as_the_suite_does():
    # chapter 3's scoring example: 9 stones and 4 points of territory for black,
    # 9 and 3 for white, komi 7.5 -> white wins by 6.5
    board = go_board(BOOK_SCORING_DIAGRAM)
    state = goboard.GameState.from_board(board, komi=7.5)
    result = compute_game_result(state)
    assert isinstance(result, GameResult) and (result.b, result.w, result.komi) == (13, 12, 7.5)
    assert result.winner is gotypes.Player.white and result.winning_margin == 6.5
    assert str(result) == "W+6.5" and result == area_score(board, 7.5)
    passed = state.apply_move(goboard.Move.pass_turn()).apply_move(goboard.Move.pass_turn())
    assert passed.is_over() and passed.winner() is result.winner and passed.outcome().text == str(result)


@pytest.mark.parametrize("board_module", ["dlgo.goboard", "dlgo.goboard_slow", "dlgo.goboard_fast"])
def test_the_chapter_3_bot_vs_bot_script_runs(board_module, capsys):
    goboard_ = importlib.import_module(board_module)
    # the book's bot_v_bot.py, without its sleep and screen clearing, on 5x5
    game = goboard_.GameState.new_game(5)
    bots = {
        gotypes.Player.black: agent.RandomBot(),
        gotypes.Player.white: agent.RandomBot(),
    }
    while not game.is_over():
        print_board(game.board)
        bot_move = bots[game.next_player].select_move(game)
        print_move(game.next_player, bot_move)
        game = game.apply_move(bot_move)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "5  . . . . ." and out[5] == "   A B C D E"
    moves = [line for line in out if line[:2] in ("B ", "W ")]
    assert moves[-2:] in (["B passes", "W passes"], ["W passes", "B passes"])  # random bots never resign
    assert len(moves) == game.num_moves_played and len(out) == 7 * len(moves)
    assert compute_game_result(game).winner == game.winner()


def test_the_random_bot_is_the_random_engine_and_keeps_its_eyes():
    assert RandomBot is RandomAgent and agent.RandomBot is RandomBot
    position = go_board("""
        . X .
        X X X
        . X .
    """)
    state = goboard.GameState.from_board(position, gotypes.Player.black)
    corners = [gotypes.Point(1, 1), gotypes.Point(1, 3), gotypes.Point(3, 1), gotypes.Point(3, 3)]
    assert all(is_point_an_eye(state.board, p, gotypes.Player.black) for p in corners)
    assert not is_point_an_eye(state.board, corners[0], gotypes.Player.white)
    assert RandomBot(seed=1).select_move(state) == goboard.Move.pass_turn()  # only eyes are left


def test_coordinates_as_the_book_types_them(capsys):
    assert point_from_coords("C3") == gotypes.Point(row=3, col=3)
    assert point_from_coords("T19") == gotypes.Point(row=19, col=19)
    assert point_from_coords("J9") == gotypes.Point(row=9, col=9)  # no I: H is 8, J is 9
    assert coords_from_point(gotypes.Point(row=19, col=19)) == "T19"
    with pytest.raises(ValueError):
        point_from_coords("I5")
    print_move(gotypes.Player.black, goboard.Move.play(point_from_coords("D4")))
    print_move(gotypes.Player.white, goboard.Move.resign())
    assert capsys.readouterr().out == "B D4\nW resigns\n"


def test_the_chapter_4_mcts_agent_is_the_mcts_engine_under_the_books_names():
    bot = mcts.MCTSAgent(50, temperature=1.4, seed=3)
    assert isinstance(bot, MCTSEngine) and (bot.engines["uct"].rounds, bot.engines["uct"].c) == (50, 1.4)
    state = goboard.GameState.new_game(5)
    move = bot.select_move(state)
    assert state.is_valid_move(move) and bot.last_report.visits.sum() == 50
    rng = random.Random(0)
    assert state.apply_move(move).random_playout(rng) in (gotypes.Player.black, gotypes.Player.white, None)
