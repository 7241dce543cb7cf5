"""GTP from a GUI's side: a network engine starts on its own board; bytes
that are not UTF-8 (or control characters) neither end the session nor come back;
a clock sets the time of an engine whose spec gives no budget; two moves of one
colour hand the turn over with no pass invented."""
from __future__ import annotations

import io
import sys
import time

import pytest

import engines
from dlgo.app import cli
from dlgo.app.gtp_server import Clock, GtpFrontend
from dlgo.core.types import Move, Player
from dlgo.games.go.state import GoState
from dlgo.gtp.client import GtpClient
from dlgo.gtp.protocol import format_response, parse_vertex


def gtp_session(monkeypatch, argv: list[str], commands: bytes) -> str:
    """What ``dlgo gtp ARGV`` answers to ``commands`` on its stdin (bytes)."""
    stdin = io.TextIOWrapper(io.BytesIO(commands), encoding="utf-8")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    assert cli.main(["gtp", *argv]) == 0
    return stdout.buffer.getvalue().decode("utf-8")


def test_the_shipped_go9_network_starts_on_its_own_board_and_refuses_another(monkeypatch):
    """`dlgo gtp --engine alphago:checkpoint=go9` with no --size: 9x9 and the
    network's komi, not a dead engine; `boardsize 19` gets GTP's "unacceptable size"."""
    answers = gtp_session(monkeypatch, ["--engine", "alphago:checkpoint=go9,simulations=2,seed=1"],
                          b"1 showboard\n2 boardsize 19\n3 boardsize 9\n4 genmove b\nquit\n").split("\n\n")
    assert answers[0].startswith("=1\n9 ") and "A B C D E F G H J\nkomi 7.5," in answers[0]
    assert answers[1].startswith("?2 unacceptable size: this model plays go:size=9")
    assert answers[2] == "=3" and answers[3].startswith("=4 ") and answers[4] == "="


def test_an_engine_that_plays_any_size_starts_on_19_and_the_options_still_win():
    assert (GtpFrontend(engines.create("random")).size, GtpFrontend(engines.create("random")).komi) == (19, 7.5)
    frontend = GtpFrontend(engines.create("random"), size=7, komi=0.5)
    assert (frontend.size, frontend.komi) == (7, 0.5)
    assert engines.create("mcts").native_game() is None


def test_a_line_that_is_not_utf8_gets_a_question_mark_and_the_session_goes_on(monkeypatch):
    answers = gtp_session(monkeypatch, ["--engine", "random", "--size", "9"],
                          b"1 name\n2 loadsgf \xff.sgf\n3 na\xffme\n# a comment \xfe\n4 name\nquit\n")
    assert answers == "=1 dlgo\n\n?2 not UTF-8 text\n\n?3 not UTF-8 text\n\n=4 dlgo\n\n=\n\n"


def test_no_control_character_or_undecodable_byte_is_echoed(tmp_path):
    frontend = GtpFrontend(engines.create("random"), size=9)
    answer = frontend.handle(f"1 loadsgf {tmp_path}/\u00ff\x1b[31mred.sgf".encode())
    assert answer is not None and answer.startswith("?1 cannot load file")
    assert "\x1b" not in answer and "\u00ff[31mred.sgf" in answer  # the control character dropped, not the rest
    assert format_response(2, "bad \udcff byte\x07\x9b here", ok=False) == "?2 bad ? byte here\n\n"


# ------------------------------------------- the clock sets a free budget (issue 54)
def searched_budgets(monkeypatch) -> list[tuple[int, float, float]]:
    """What every compiled Go search is handed from now on: (rounds, seconds,
    seconds to its hard deadline); it then searches as it would."""
    from engines.go_search import GoSearch

    budgets: list[tuple[int, float, float]] = []
    search = GoSearch.search

    def spy(self, state, rounds, seconds, deadline, reuse):
        budgets.append((rounds, seconds, deadline - time.perf_counter()))
        return search(self, state, rounds, seconds, deadline, reuse)

    monkeypatch.setattr(GoSearch, "search", spy)
    return budgets


def test_a_clock_sets_the_budget_of_an_engine_whose_spec_leaves_it_free(monkeypatch):
    """`time_settings 0 1 1` (one stone per 1 s byo-yomi): `mcts` searches for
    the clock's 0.8 s with no round limit, not its default 1000 rounds."""
    budgets = searched_budgets(monkeypatch)
    frontend = GtpFrontend(engines.create("mcts", seed=1), size=5)
    assert frontend.handle("genmove b").startswith("= ")  # no clock: its own budget
    assert budgets[-1][:2] == (1000, 0.0)
    frontend.handle("time_settings 0 1 1")
    assert frontend.handle("genmove w").startswith("= ")
    rounds, seconds, deadline = budgets[-1]
    assert (rounds, seconds) == (0, pytest.approx(Clock.SAFETY * 1.0)) and deadline <= seconds


def test_a_spec_that_fixes_the_budget_keeps_it_capped_by_the_clock(monkeypatch):
    budgets = searched_budgets(monkeypatch)
    agent = engines.create("mcts:rounds=40", seed=1)
    frontend = GtpFrontend(agent, size=5)
    frontend.handle("time_settings 0 1 1")
    assert frontend.handle("genmove b").startswith("= ")
    rounds, seconds, deadline = budgets[-1]
    assert (rounds, seconds) == (40, 0.0) and deadline <= Clock.SAFETY * 1.0  # finite: the clock caps it
    assert agent.last_compute.amount <= 40


@pytest.mark.parametrize("spec, free", [
    ("mcts", True), ("mcts:seed=3,c=1.0", True), ("mcts:rounds=500", False), ("mcts:seconds=2", False),
    ("alphabeta", True), ("alphabeta:depth=3", False), ("alphabeta:nodes=100", False),
    ("alphago:checkpoint=go9", True), ("alphago:checkpoint=go9,simulations=800", False),
    ("alphago:checkpoint=go9,seconds=2", False),
    ("alphazero:checkpoint=tictactoe", True), ("alphazero:checkpoint=tictactoe,simulations=50", False),
])
def test_which_specs_leave_the_budget_to_the_clock(spec, free):
    from dlgo.games import new_game
    from engines.aliases import AliasAgent
    from engines.neural.loading import metadata_only

    with metadata_only():  # the networks' metadata, not their weights: no TensorFlow
        agent = engines.create(spec)

    def player():  # the engine that plays a 9x9 move: an alias's, handed its spec and clock as they stand
        return agent.engine_for(new_game("go:size=9")) if isinstance(agent, AliasAgent) else agent

    work = getattr(player(), {"alphabeta": "max_nodes", "uct": "rounds", "mcts-go": "rounds"}.get(player().name,
                                                                                                   "simulations"))
    seconds = player().seconds
    assert player().move_budget(work, seconds) == (work, seconds)  # no clock: the spec's own
    agent.set_time_budget(1.5)
    assert player().move_budget(work, seconds) == ((0, 1.5) if free else (work, seconds))
    assert player().deadline(seconds) - time.perf_counter() <= 1.5  # a fixed budget is capped by the clock
    agent.set_time_budget(None)
    assert player().move_budget(work, seconds) == (work, seconds)


def test_an_engine_with_no_budget_of_its_own_is_not_changed_by_the_clock():
    agent = engines.create("random")
    agent.set_time_budget(2.0)
    assert agent.move_budget(0, 0.0) == (0, 0.0)


# ------------------------------------ two moves of one colour: no pass invented (issue 54)
def test_two_moves_of_one_colour_put_no_pass_between():
    frontend = GtpFrontend(engines.create("random", seed=1), size=5)
    for line in ("play b C3", "play b D4"):
        assert frontend.handle(line) == "=\n\n"
    assert frontend.state.move_history() == [parse_vertex("C3", 5), parse_vertex("D4", 5)]
    assert frontend.state.next_player == Player.white
    assert frontend.handle("play w pass") == "=\n\n" and not frontend.state.is_over()
    assert frontend.handle("genmove b").startswith("= ") and not frontend.state.is_over()


def test_a_pass_after_a_stone_of_the_same_colour_does_not_end_the_game():
    """Once a white pass put between made `play b C3`, `play b pass` end the game."""
    frontend = GtpFrontend(engines.create("random", seed=1), size=5)
    frontend.handle("play b C3")
    assert frontend.handle("play b pass") == "=\n\n"
    assert not frontend.state.is_over() and frontend.state.next_player == Player.white
    reply = frontend.handle("genmove w")
    assert reply.startswith("= ") and reply != "= pass\n\n" and not frontend.state.is_over()
    frontend.handle("play w pass")  # white passes after white: not the end either
    assert not frontend.state.is_over()
    assert frontend.handle("play b pass") == "=\n\n" and frontend.state.is_over()  # white's pass, black's: the end
    assert frontend.handle("final_score").startswith("= B+")


def test_a_move_after_a_pass_by_the_same_side_is_played():
    frontend = GtpFrontend(engines.create("random", seed=1), size=5)
    frontend.handle("play b C3")
    frontend.handle("play w pass")
    assert frontend.handle("play w D4") == "=\n\n"  # refused while a black pass had to go between
    assert frontend.state.move_history() == [parse_vertex("C3", 5), Move.pass_turn(), parse_vertex("D4", 5)]


def test_genmove_for_the_side_not_to_move_plays_its_stone_and_undo_takes_it_back(tmp_path):
    frontend = GtpFrontend(engines.create("random", seed=2), size=5, sgf_dir=tmp_path)
    start = frontend.state.zobrist_hash()
    reply = frontend.handle("genmove w")  # black is to move
    move = parse_vertex(reply[2:].strip(), 5)
    assert move.is_play and frontend.state.move_history() == [move]
    assert frontend.state.board.get(move.point) == Player.white and frontend.state.next_player == Player.black
    text = next(tmp_path.glob("*.sgf")).read_text()
    assert ";W[" in text and ";B[" not in text  # no black pass recorded
    assert frontend.handle("undo") == "=\n\n"
    assert frontend.state.zobrist_hash() == start and frontend.state.move_history() == []


def test_komi_and_loadsgf_replay_two_moves_of_one_colour(tmp_path):
    frontend = GtpFrontend(engines.create("random", seed=1), size=5, sgf_dir=tmp_path)
    for line in ("play b C3", "play b D4", "play w B2", "komi 0.5"):
        assert frontend.handle(line) == "=\n\n"
    assert frontend.state.move_history() == [parse_vertex(v, 5) for v in ("C3", "D4", "B2")]
    assert frontend.state.game.komi == 0.5 and frontend.state.next_player == Player.black
    path = next(tmp_path.glob("*.sgf"))
    assert ";B[cc];B[db];W[bd]" in path.read_text()
    loaded = GtpFrontend(engines.create("random", seed=1), size=5)
    assert loaded.handle(f"loadsgf {path}") == "=\n\n"
    assert loaded.state.zobrist_hash() == frontend.state.zobrist_hash()
    assert loaded.state.move_history() == frontend.state.move_history()


def test_a_turn_handed_over_replays_compiled_as_the_same_position():
    """The Go state's turn handed over: same board, the other colour to move, no
    move recorded; the compiled board (searches, playouts) sees the same position."""
    from dlgo.games.go import playouts

    state = GoState.new_game(5).apply_move(parse_vertex("C3", 5))
    flipped = state.with_turn(Player.black)
    assert state.with_turn(Player.white) is state
    assert flipped.next_player == Player.black and flipped.last_move is None and flipped.previous_state is state
    assert flipped.zobrist_hash() == state.apply_move(Move.pass_turn()).zobrist_hash()
    after = flipped.apply_move(parse_vertex("D4", 5))
    assert after.move_history() == [parse_vertex("C3", 5), parse_vertex("D4", 5)]
    assert sorted(playouts.legal_plays(after)) == sorted(after.legal_actions()[:-1])
    board, _, colour = playouts.compiled_position(after)
    assert colour == int(Player.white) and list(board.color) == list(after.board.color)


def test_our_client_sends_two_moves_of_one_colour_with_their_colour():
    state = GoState.new_game(5).apply_move(parse_vertex("C3", 5))
    state = state.with_turn(Player.black).apply_move(parse_vertex("D4", 5))
    with GtpClient(f"{sys.executable} -m dlgo gtp --engine random --seed 3", timeout=60) as client:
        client.sync(state)
        board = client.send("showboard")
        assert "white to move" in board and board.count("X") == 2
        move = client.genmove(state)
        assert state.is_valid_move(move)


def test_our_client_sends_the_game_again_when_the_same_moves_come_with_other_colours():
    """The same moves, other colours (a turn handed over): the program's board is
    made again, not left with the colours it was sent before."""
    black_first = GoState.new_game(5).apply_move(parse_vertex("C3", 5)).apply_move(parse_vertex("D4", 5))
    white_first = GoState.new_game(5).with_turn(Player.white).apply_move(parse_vertex("C3", 5))
    white_first = white_first.apply_move(parse_vertex("D4", 5))
    with GtpClient(f"{sys.executable} -m dlgo gtp --engine random --seed 3", timeout=60) as client:
        client.sync(black_first)
        client.sync(white_first)
        board = client.send("showboard")
        assert client._sent == [(Player.white, parse_vertex("C3", 5)), (Player.black, parse_vertex("D4", 5))]
        assert board.count("X") == 1 and board.count("O") == 1 and "white to move" in board
