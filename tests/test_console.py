"""Console play: a human's typos never crash the game or cost a turn."""
import io

import engines
from dlgo.app.console import ConsoleGame
from dlgo.games import new_game
from dlgo.goboard import Move
from dlgo.gotypes import Player, Point


def scripted(*lines):
    """A `read` function that answers the prompts with ``lines``, then EOF."""
    answers = iter(lines)
    prompts = []

    def read(prompt):
        prompts.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    read.prompts = prompts
    return read


def run(game, black, white, *lines, hint=None):
    out = io.StringIO()
    read = scripted(*lines)
    console = ConsoleGame(new_game(game), {Player.black: black, Player.white: white},
                          hint=hint, read=read, out=out)
    final = console.run()
    return final, out.getvalue(), read.prompts


def test_bad_input_reprompts_without_losing_the_turn():
    final, out, prompts = run("connect4", None, None, "hello", "9", "pass", "", "4", "quit")
    assert "can't read 'hello'" in out and "columns are 1-7" in out and "no passing in connect4" in out
    assert "  resign  give up the game" in out  # the empty line shows help
    assert final.move_history() == [Move.play(Point(1, 4))]
    assert final.next_player is Player.white and "game abandoned" in out
    assert len(prompts) == 6


def test_illegal_go_move_gets_the_reason_and_the_same_prompt():
    final, out, _ = run("go:size=5", None, None, "C3", "C3", "I1", "D3", "quit")
    assert "the point is occupied" in out and "no I in Go coordinates" in out
    assert [str(m.point) for m in final.move_history()] == [str(Point(3, 3)), str(Point(3, 4))]


def test_undo_takes_back_own_move_and_the_reply():
    bot = engines.create("random:seed=1")
    final, out, _ = run("tictactoe", None, bot, "undo", "b2", "undo", "a1", "quit")
    assert "nothing to undo yet" in out and "taken back; X to move again" in out
    history = final.move_history()
    assert history[0] == Move.play(Point(1, 1)) and len(history) == 2  # a1 and the bot's reply


def test_hint_suggests_without_playing():
    hint = engines.create("alphabeta")
    final, out, _ = run("tictactoe", None, None, "hint", "quit", hint=hint)
    assert "hint from alphabeta: b2" in out and final.move_history() == []


def test_resign_ends_the_game_for_the_opponent():
    final, out, prompts = run("connect4", None, engines.create("random:seed=2"), "4", "resign", "n", "resign", "y")
    assert final.is_over() and final.winner() is Player.white
    assert "result: yellow wins by resignation" in out
    assert "not played; your move" in out and sum("Sure?" in p for p in prompts) == 2  # asked each time


def test_help_lists_every_command_with_an_example_move_and_offers_pass_only_where_there_is_one():
    _, out, prompts = run("connect4", None, None, "help", "quit")
    assert "pass" not in prompts[0] and "a move such as 4," in prompts[0]
    assert "4       play a move: a column number, 1 (left) to 7" in out and "pass" not in out
    for command in ("resign", "undo", "hint", "help", "quit"):
        assert f"  {command} " in out
    _, out, prompts = run("go:size=9", None, None, "?", "quit")
    assert "a move such as E5, pass," in prompts[0]
    assert "column A-J without I, row 1-9" in out and "  pass    pass your turn" in out


def test_a_pass_that_lets_the_opponent_end_the_game_asks_first_with_the_score_it_would_give():
    final, out, prompts = run("go:size=5", None, None, "pass", "n", "C3", "pass", "y", "pass", "y")
    assert "pass back and end the game, W+7.5 (white wins). Sure?" in prompts[1]  # one pass in the opening
    assert "not played; your move" in out and final.move_history()[0] == Move.play(Point(3, 3))
    assert "pass back and end the game, B+17.5 (black wins). Sure?" in prompts[4]
    assert "passed too, so this ends the game, B+17.5 (black wins). Sure?" in prompts[6]
    assert final.is_over() and [final.format_move(m) for m in final.move_history()] == ["C3", "pass", "pass"]
    bot = engines.create("mcts:rounds=50,seed=1")  # an engine passes back when the count wins it
    final, out, prompts = run("go:size=5", None, bot, "pass", "y")
    assert "W+7.5 (white wins). Sure?" in prompts[1] and "result: W+7.5 (white wins) after 2 moves" in out


def test_end_of_input_quits_cleanly():
    final, out, _ = run("go:size=9", None, None, "E5")
    assert "game abandoned" in out and len(final.move_history()) == 1


def test_human_vs_human_to_the_end():
    final, out, _ = run("tictactoe", None, None, "a1", "b1", "a2", "b2", "a3")
    assert final.winner() is Player.black and "result: X wins after 5 moves" in out
    assert out.count(": X (human) ") == 3 and out.count(": O (human) ") == 2


def test_each_side_goes_by_its_games_names():
    _, out, prompts = run("connect4", None, engines.create("random:seed=1"), "4", "quit")
    assert prompts[0].startswith("red (X, human) to move") and "move 2: yellow (O, random:seed=1)" in out
    _, out, prompts = run("tictactoe", None, None, "undo", "quit")
    assert prompts[0].startswith("X (human) to move")
    _, out, prompts = run("go:size=5", None, None, "quit")
    assert prompts[0].startswith("black (X, human) to move")


def test_go_pass_and_bot_reply():
    final, out, _ = run("go:size=5", None, engines.create("random:seed=3"), "pass", "y", "quit")
    assert final.move_history()[0] == Move.pass_turn() and "move 2: white (O, random:seed=3)" in out


def test_result_wording_for_every_ending():
    from dlgo.app.console import describe_result
    from dlgo.core.game import Ending

    from helpers import play

    def result_text(state):
        outcome = state.outcome()
        return outcome.text, outcome.winner_name

    won = play(new_game("connect4"), "1", "2", "1", "2", "1", "2", "1")
    assert result_text(won) == ("1-0", "black") and describe_result(won) == "red wins"  # the game's side names
    resigned = play(new_game("go:size=5"), "C3", "resign")
    assert result_text(resigned) == ("B+R", "black") and describe_result(resigned) == "black wins by resignation"
    scored = play(new_game("go:size=5"), "C3", "pass", "pass")
    assert result_text(scored) == ("B+17.5", "black") and describe_result(scored) == "B+17.5 (black wins)"
    drawn = play(new_game("tictactoe"), "a1", "b2", "c3", "b1", "b3", "a3", "c1", "c2", "a2")
    assert result_text(drawn) == ("1/2-1/2", "draw") and describe_result(drawn) == "draw"
    endings = [s.outcome().ending for s in (won, resigned, scored, drawn)]
    assert endings == [Ending.WIN, Ending.RESIGNATION, Ending.SCORE, Ending.DRAW]
    assert won.outcome().value_for(Player.black) == 1 and won.outcome().value_for(Player.white) == -1
    assert drawn.outcome().value_for(Player.black) == 0 and new_game("connect4").outcome() is None


def test_the_game_opens_with_a_header_naming_the_game_its_komi_each_side_and_the_engines():
    _, out, _ = run("go:size=9,komi=6.5", None, engines.create("random:seed=1"), "quit",
                    hint=engines.create("alphabeta"))
    header = out.split("\n")[:4]
    assert header == ["game: go 9x9, komi 6.5 for white (go:size=9,komi=6.5)", "black (X): human",
                      "white (O): random:seed=1", "hint: alphabeta (type hint on your turn)"]
    _, out, _ = run("connect4", engines.create("random:seed=1"), None, "quit")
    assert out.startswith("game: connect4 (connectn:columns=7,rows=6,n=4)\nred (X): random:seed=1\n"
                          "yellow (O): human\n")
    _, out, _ = run("tictactoe", None, None, "quit")
    assert out.startswith("game: tictactoe (mnk:m=3,n=3,k=3)\nX: human\nO: human\n")


def test_a_resignation_is_no_move_of_the_count():
    final, out, _ = run("tictactoe", None, None, "a1", "b1", "a2", "b2", "a3")
    assert "result: X wins after 5 moves" in out  # a game won on the board counts every move
    final, out, _ = run("connect4", None, None, "4", "5", "resign", "y")
    assert "red (X, human) resigns" in out and "move 3" not in out
    assert "result: yellow wins by resignation after 2 moves" in out


def test_the_hints_value_says_whose_it_is():
    _, out, _ = run("tictactoe", None, None, "a1", "hint", "quit", hint=engines.create("alphabeta"))
    assert "value +0.00 for O (+1 a sure win, -1 a sure loss)" in out  # O to move: the value is O's
    _, out, _ = run("connect4", None, None, "hint", "quit", hint=engines.create("mcts:rounds=50,seed=1"))
    assert "for red (+1 a sure win, -1 a sure loss)" in out
