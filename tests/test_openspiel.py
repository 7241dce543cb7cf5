"""OpenSpiel as a second opinion on our rules, and its bots as an engine of ours.

Our legal moves, game ends and winners agree with OpenSpiel's on 1,000 random
games of tic-tac-toe and of Connect Four; on 9x9 Go our legal moves agree on
every position of random games but where our situational superko forbids a
move that OpenSpiel's simple-ko rule allows.
"""
from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra (open_spiel) is not installed")

import engines  # noqa: E402
from dlgo.arena.match import play_match  # noqa: E402
from dlgo.core.errors import IllegalMoveError, SpecError  # noqa: E402
from dlgo.core.types import Player  # noqa: E402
from dlgo.games import new_game  # noqa: E402
from dlgo.games.go import playouts  # noqa: E402
from engines.registry import ENGINES  # noqa: E402
from helpers import play  # noqa: E402


def returns_for(winner: Player | None) -> list[float]:
    return [0.0, 0.0] if winner is None else [1.0, -1.0] if winner == Player.black else [-1.0, 1.0]


@pytest.mark.parametrize("game", ["tictactoe", "connect4"])
def test_a_thousand_random_games_agree_with_openspiel_move_by_move(game):
    rng = random.Random(2026)
    counterpart = new_game(game).game.openspiel_game()
    assert counterpart is not None
    os_game = pyspiel.load_game(counterpart.name)
    positions = 0
    for _ in range(1000):
        ours, theirs = new_game(game), os_game.new_initial_state()
        while True:
            assert ours.is_over() == theirs.is_terminal()
            if ours.is_over():
                assert theirs.returns() == returns_for(ours.winner())
                break
            assert sorted(counterpart.actions[a] for a in ours.legal_actions()) == sorted(theirs.legal_actions())
            assert theirs.current_player() == (0 if ours.next_player == Player.black else 1)
            action = rng.choice(ours.legal_actions())
            ours, positions = ours.apply_action(action), positions + 1
            theirs.apply_action(counterpart.actions[action])
    assert positions > 1000 * (5 if game == "tictactoe" else 15)


def test_nine_by_nine_go_agrees_but_for_superko():
    rng = random.Random(7)
    counterpart = new_game("go:size=9").game.openspiel_game()
    os_game = pyspiel.load_game(counterpart.name)
    positions = superko = 0
    for _ in range(60):
        ours, theirs = new_game("go:size=9"), os_game.new_initial_state()
        while not ours.is_over():
            legal, allowed = set(ours.legal_actions()), set(theirs.legal_actions())
            assert legal <= allowed  # OpenSpiel never forbids what we allow
            assert set(playouts.legal_plays(ours)) == legal - {81}  # nor does the compiled board differ
            for action in allowed - legal:  # and what it alone allows repeats an earlier position
                with pytest.raises(IllegalMoveError, match="superko"):
                    ours.apply_action(action)
                superko += 1
            action = rng.choice(sorted(legal))
            ours, positions = ours.apply_action(action), positions + 1
            theirs.apply_action(action)
        assert theirs.is_terminal() and theirs.returns() == returns_for(ours.winner())  # the same area count
    assert positions > 5000 and superko < positions / 1000


def test_the_openspiel_engine_finds_a_win_and_a_block_and_plays_our_games():
    wins_in_one = play(new_game("connect4"), "4", "1", "4", "1", "4", "2")  # black plays 4 and wins
    must_block = play(new_game("connect4"), "4", "1", "4", "1", "4")        # white must play 4
    for seed in range(3):
        bot = engines.create(f"openspiel:bot=mcts,simulations=300,seed={seed}")
        assert bot.select_move(wins_in_one) == wins_in_one.parse_move("4")
        assert bot.last_report.proven and bot.last_report.value == 1.0
        assert bot.select_move(must_block) == must_block.parse_move("4")
        assert bot.last_report.visits is not None and bot.last_report.compute.amount == 300


def test_openspiels_alphabeta_draws_ours_and_the_seed_fixes_the_game():
    for black, white in (("openspiel:bot=alphabeta", "alphabeta"), ("alphabeta", "openspiel:bot=alphabeta")):
        record = play_match(ENGINES, "tictactoe", black, white, seed=0)
        assert record.winner == "draw"
    first = play_match(ENGINES, "connect4", "openspiel:bot=mcts,simulations=50", "mcts:rounds=50", seed=4)
    again = play_match(ENGINES, "connect4", "openspiel:bot=mcts,simulations=50", "mcts:rounds=50", seed=4)
    assert first.moves == again.moves


def test_games_openspiel_does_not_have_are_refused():
    bot = engines.create("openspiel:bot=random")
    for game in ("gomoku", "go:size=9,handicap=2", "connect4:pie_rule=true", "mnk:m=4,n=4,k=3"):
        with pytest.raises(SpecError, match="no game with the rules"):
            bot.check_game(new_game(game))
    with pytest.raises(SpecError, match="bot is one of"):
        engines.create("openspiel:bot=cfr")
