"""GTP both ways: the wire format, a scripted session checked response by
response, the clock, our engine behind GTP driven by our own client, engines
that fail, and SGF records of GTP games. GNU Go's side is in test_gnugo.py."""
import io
import sys

import pytest

import engines
from dlgo.arena.match import play_match
from dlgo.formats.records import replay
from engines import ENGINES
from dlgo.games import new_game
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.gtp.client import GtpClient
from dlgo.app.gtp_server import Clock, GtpFrontend
from dlgo.core.errors import DlgoError
from dlgo.games.go.handicap import fixed_handicap_points, free_handicap_points
from dlgo.gtp.protocol import (Command, GtpError, format_response, format_vertex,
                               parse_color, parse_command, parse_vertex)
from dlgo.games.go.state import compute_game_result
from dlgo.formats.sgf import read_sgf, sgf_to_state

OUR_GTP = f'{sys.executable} -m dlgo gtp --engine random --seed 3'


# ------------------------------------------------------------ wire format
@pytest.mark.parametrize("line, command", [
    ("genmove b\n", Command(None, "genmove", ["b"])),
    ("12 play w D4", Command(12, "play", ["w", "D4"])),
    ("  7\tkomi   6.5  # a comment\n", Command(7, "komi", ["6.5"])),
    ("boa\x01rdsize 9\r\n", Command(None, "boardsize", ["9"])),
    ("# only a comment", None),
    ("   \n", None),
])
def test_command_lines_are_cleaned_and_split(line, command):
    assert parse_command(line) == command


def test_an_id_without_a_command_is_an_error():
    with pytest.raises(GtpError, match="missing command"):
        parse_command("42")


def test_responses_echo_the_id_and_end_with_an_empty_line():
    assert format_response(5, "D4") == "=5 D4\n\n"
    assert format_response(None) == "=\n\n"
    assert format_response(3, "illegal move", ok=False) == "?3 illegal move\n\n"
    assert format_response(1, "\nrow 1\n\nrow 2") == "=1\nrow 1\nrow 2\n\n"  # no empty line inside


def test_vertices_and_colours():
    assert parse_vertex("D4", 19) == Move.play(Point(4, 4))
    assert parse_vertex("j9", 9) == Move.play(Point(9, 9))  # no I column: J is the ninth
    assert parse_vertex("PASS", 9).is_pass
    assert format_vertex(Move.play(Point(19, 19))) == "T19" and format_vertex(Move.resign()) == "resign"
    assert parse_color("W") == parse_color("white") == Player.white
    for bad in ("I5", "Z1", "A10", "D", ""):
        with pytest.raises(GtpError):
            parse_vertex(bad, 9)
    with pytest.raises(GtpError):
        parse_color("red")


def test_fixed_handicap_points_follow_the_specification():
    def names(size, n):
        return [format_vertex(Move.play(p)) for p in fixed_handicap_points(size, n)]

    assert names(19, 2) == ["D4", "Q16"]
    assert names(19, 4) == ["D4", "Q16", "D16", "Q4"]
    assert set(names(19, 9)) == {"D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16", "K10"}
    assert names(9, 2) == ["C3", "G7"] and set(names(13, 5)) == {"D4", "K10", "D10", "K4", "G7"}
    with pytest.raises(DlgoError):
        fixed_handicap_points(9, 10)
    with pytest.raises(DlgoError):
        fixed_handicap_points(8, 5)  # even boards have no centre


def test_free_handicap_points_are_distinct_and_spread():
    points = free_handicap_points(9, 12)
    assert len(set(points)) == 12 and points[:9] == fixed_handicap_points(9, 9)
    assert len(set(free_handicap_points(5, 6))) == 6


# ------------------------------------------------------ a scripted session
SESSION = [  # (command line, expected response)
    ("1 protocol_version", "=1 2"),
    ("2 name", "=2 dlgo"),
    ("known_command genmove", "= true"),
    ("known_command fly", "= false"),
    ("3 boardsize 9", "=3"),
    ("boardsize nine", "? board size not an integer: 'nine'"),
    ("boardsize 1", "? unacceptable size"),
    ("boardsize 26", "? unacceptable size"),
    ("clear_board", "="),
    ("komi 6.5", "="),
    ("komi lots", "? komi not a float: 'lots'"),
    ("komi 1e308", "? komi must be between -1000 and 1000, got 1e+308"),  # refused: komi stays 6.5
    ("4 play b C3", "=4"),
    ("5 play w C3", "?5 illegal move C3: the point is occupied"),  # "illegal move" once
    ("play purple D4", "? invalid color 'purple'"),
    ("play b Z99", "? invalid coordinate 'Z99'"),
    ("play b", "? syntax error: play COLOR VERTEX"),
    ("6 frobnicate", "?6 unknown command"),
    ("7", "? missing command"),
    ("play b D4", "="),                # black twice: no pass goes between, white is to move
    ("fixed_handicap 2", "? board not empty"),
    ("final_score", "= B+74.5"),       # two black stones own all 81 points; komi 6.5
    ("undo", "="),
    ("undo", "="),
    ("undo", "? cannot undo"),
    ("fixed_handicap 3", "= C3 G7 C7"),
    ("time_settings 60 10 five", "? byo-yomi stones not an integer: 'five'"),
    ("time_left b 30 0", "="),
    ("8 quit", "=8"),
]


def test_a_scripted_session_response_by_response():
    frontend = GtpFrontend(engines.create("random", seed=1))
    for line, expected in SESSION:
        assert frontend.handle(line) == expected + "\n\n", line
    assert frontend.quit


def test_an_illegal_move_says_illegal_move_once_then_the_rules_reason():
    frontend = GtpFrontend(engines.create("random", seed=1), size=5)
    setup = ["play b D5", "play b E4", "play b B1", "play b A2", "play b B3", "play b C2",
             "play w C1", "play w D2", "play w C3", "play w B2"]  # white takes C2: a ko
    assert [frontend.handle(line) for line in setup] == ["=\n\n"] * len(setup)
    assert frontend.handle("play b C2") == "? illegal move C2: ko (retake it after a move elsewhere)\n\n"
    assert frontend.handle("play b B2") == "? illegal move B2: the point is occupied\n\n"
    assert frontend.handle("play w E5") == "? illegal move E5: self-capture\n\n"


def test_genmove_plays_for_the_colour_asked_and_the_game_goes_on():
    frontend = GtpFrontend(engines.create("mcts:rounds=50", seed=1), size=9)
    reply = frontend.handle("genmove w")  # white first: its stone, no black pass before it
    assert reply.startswith("= ") and frontend.state.next_player == Player.black
    move = parse_vertex(reply[2:].strip(), 9)
    assert frontend.state.last_move == move and frontend.state.move_history() == [move]
    assert frontend.handle("reg_genmove b").startswith("= ")
    assert len(frontend.moves) == 1  # reg_genmove does not play
    board = frontend.handle("showboard")
    assert board.startswith("=\n") and "komi 7.5, black to move" in board


def test_two_passes_end_the_game_and_later_passes_change_nothing():
    frontend = GtpFrontend(engines.create("random", seed=1), size=5)
    for line in ("play b pass", "play w pass", "play b pass"):
        assert frontend.handle(line) == "=\n\n"
    assert frontend.handle("genmove w") == "= pass\n\n"
    assert frontend.handle("play b C3").startswith("? the game is over")
    assert frontend.handle("final_score") == "= W+7.5\n\n"


def test_komi_replays_the_game_and_handicap_starts_it():
    frontend = GtpFrontend(engines.create("random", seed=1), size=9)
    assert frontend.handle("place_free_handicap 3") == "= C3 G7 C7\n\n"
    assert frontend.state.next_player == Player.white
    assert frontend.handle("set_free_handicap A1 B2") == "? board not empty\n\n"
    frontend.handle("play w E5")
    frontend.handle("komi 0.5")
    assert frontend.state.game.komi == 0.5 and frontend.state.board.get(Point(5, 5)) == Player.white
    assert frontend.handle("clear_board") == "=\n\n"
    assert frontend.handle("set_free_handicap A1 A1") == "? A1 given twice\n\n"
    assert frontend.handle("set_free_handicap A1 B2") == "= A1 B2\n\n"


def test_a_network_for_another_board_size_refuses_the_size():
    agent = engines.create("alphazero:checkpoint=tictactoe,simulations=1")
    with pytest.raises(ValueError, match="plays tictactoe"):
        GtpFrontend(agent, size=9)


def test_an_engine_failure_is_an_error_response_not_a_crash():
    class Broken(engines.Agent):
        name = "broken"

        def choose(self, state):
            raise RuntimeError("out of cheese")

    frontend = GtpFrontend(Broken(), size=9)
    assert frontend.handle("1 genmove b") == "?1 internal error: RuntimeError: out of cheese\n\n"
    assert frontend.handle("2 play b D4") == "=2\n\n"  # the session goes on


def test_serve_stops_at_quit_and_at_the_end_of_input():
    frontend = GtpFrontend(engines.create("random", seed=1), size=9)
    out = io.StringIO()
    frontend.serve(io.StringIO("name\n\n# comment\nquit\nname\n"), out)
    assert out.getvalue() == "= dlgo\n\n=\n\n"
    out = io.StringIO()
    GtpFrontend(engines.create("random", seed=1), size=9).serve(io.StringIO("boardsize 9"), out)
    assert out.getvalue() == "=\n\n"


# --------------------------------------------------------------- the clock
def test_the_clock_spreads_main_time_and_splits_byo_yomi():
    clock = Clock()
    assert clock.budget(Player.black, 40) is None  # no time_settings: no limit
    clock.settings(600, 0, 0)
    assert clock.budget(Player.black, 40) == pytest.approx(0.8 * 600 / 40)
    clock.left[Player.black] = (100.0, 0)
    assert clock.budget(Player.black, 40) == pytest.approx(0.8 * 100 / 40)
    clock.settings(0, 30, 5)
    clock.left[Player.white] = (20.0, 4)
    assert clock.budget(Player.white, 40) == pytest.approx(0.8 * 20 / 4)
    clock.settings(0, 10, 0)  # byo-yomi time with no stones: no time limit
    assert clock.budget(Player.black, 40) is None
    clock.settings(1, 0, 0)
    clock.left[Player.black] = (0.0, 0)
    assert clock.budget(Player.black, 40) == Clock.FLOOR


def test_time_left_makes_the_engine_fit_its_moves_to_the_clock():
    agent = engines.create("mcts:rounds=1000000", seed=1)
    frontend = GtpFrontend(agent, size=9)
    frontend.handle("time_settings 300 0 0")
    frontend.handle("time_left b 3 0")
    assert frontend.handle("genmove b").startswith("= ")
    assert agent.last_compute.seconds < 10.0 and agent.last_compute.amount < 1_000_000  # uncapped: minutes


# ------------------------------------------- both ways: our client, our engine
def test_our_client_drives_our_engine_behind_gtp():
    with GtpClient(OUR_GTP, timeout=60) as client:
        assert client.send("protocol_version") == "2"
        assert client.send("name") == "dlgo"
        with pytest.raises(GtpError, match="unknown command"):
            client.send("fly")
        state = GameState.new_game(9).apply_move(Move.play(Point(5, 5)))
        move = client.genmove(state)
        assert state.is_valid_move(move)
        state = state.apply_move(move)
        assert "X" in client.send("showboard")
        state = state.apply_move(Move.play(Point(1, 1)))
        client.sync(state)  # only the new move is sent
        assert [move for _, move in client._sent] == state.move_history()


def test_a_gtp_engine_plays_a_whole_match_and_its_record_replays():
    spec = f'gtp:cmd="{OUR_GTP}"'
    record = play_match(ENGINES, "go:size=5,komi=0.5", spec, "random", seed=2)
    assert record.note == "" and record.result[0] in "BW" and record.plies > 10
    final = replay(record.game, record.moves)[-1]
    assert final.is_over() and record.result == str(compute_game_result(final))


@pytest.mark.parametrize("cmd, message, timeout", [
    ("/nonexistent/program --mode gtp", "cannot start", 30),
    (f"{sys.executable} -c pass", "exited", 30),
    (f"{sys.executable} -c 'print(1)'", "not GTP", 30),  # however long a busy machine takes to start Python
    (f"{sys.executable} -c 'import time; time.sleep(30)'", "gave no answer", 2),
])
def test_a_failing_program_forfeits_the_game_with_the_reason(cmd, message, timeout):
    record = play_match(ENGINES, "go:size=5", "random", f'gtp:cmd="{cmd}",timeout={timeout}', seed=1)
    assert record.result == "B+F" and record.winner == "black"
    assert record.note.startswith("white forfeits") and message in record.note


def test_a_program_that_prints_no_gtp_and_exits_before_the_first_command_is_named_for_it():
    """However busy the machine: the program is gone before anything is sent, and what it printed says why."""
    from dlgo.gtp.client import GtpConnectionError

    client = GtpClient(f"{sys.executable} -c 'print(1)'", timeout=30)
    client.process.wait()
    with pytest.raises(GtpConnectionError, match=r"printed '1', not GTP, and exited \(exit code 0\)"):
        client.send("protocol_version")
    client.close()


def test_gtp_engines_play_only_go():
    with pytest.raises(ValueError, match="play Go"):
        engines.create(f'gtp:cmd="{OUR_GTP}"').check_game(new_game("connect4"))


# ----------------------------------------------------------------- SGF
def test_every_gtp_game_is_kept_as_sgf_handicap_included(tmp_path):
    frontend = GtpFrontend(engines.create("random", seed=4), size=9, sgf_dir=tmp_path)
    frontend.handle("fixed_handicap 2")
    for _ in range(6):
        frontend.handle("genmove w")
        frontend.handle("genmove b")
    files = list(tmp_path.glob("*.sgf"))
    assert len(files) == 1
    record = read_sgf(files[0].read_bytes())
    assert record.setup[Player.black] == sorted([Point(3, 3), Point(7, 7)]) and record.white == "random:seed=4"
    assert sgf_to_state(record).zobrist_hash() == frontend.state.zobrist_hash()
    frontend.handle("clear_board")
    frontend.handle("genmove b")
    assert len(list(tmp_path.glob("*.sgf"))) == 2  # a new game, a new file


def test_loadsgf_sets_up_the_position(tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text("(;GM[1]FF[4]SZ[9]KM[5.5]HA[2]AB[cg][gc];W[ee];B[ce];W[ec])")
    frontend = GtpFrontend(engines.create("random", seed=1))
    assert frontend.handle(f"loadsgf {path} 3") == "=\n\n"
    assert (frontend.size, frontend.komi, len(frontend.moves)) == (9, 5.5, 2)
    assert frontend.state.next_player == Player.white
    assert frontend.handle(f"loadsgf {tmp_path / 'missing.sgf'}").startswith("? cannot load file")


def test_handicap_games_start_with_the_stones_and_white_to_move():
    from dlgo.formats.sgf import game_to_sgf

    state = new_game("go:size=9,komi=0.5,handicap=4")
    assert state.next_player == Player.white
    assert {p for p in (Point(3, 3), Point(7, 7), Point(7, 3), Point(3, 7)) if state.board.get(p) == Player.black} \
        == {Point(3, 3), Point(7, 7), Point(7, 3), Point(3, 7)}
    state = state.apply_move(Move.play(Point(5, 5)))
    text = game_to_sgf(state, "random", "mcts")
    assert "HA[4]AB[" in text and "PL[W]" in text
    assert sgf_to_state(read_sgf(text)).zobrist_hash() == state.zobrist_hash()
    with pytest.raises(ValueError, match="handicap stones"):
        new_game("go:size=9,handicap=10")


def test_console_games_are_written_as_sgf_and_replayed(tmp_path, capsys):
    from dlgo.app.cli import main

    path = tmp_path / "game.sgf"
    assert main(["play", "--game", "go:size=5,komi=0.5", "--black", "random", "--white", "mcts:rounds=20",
                 "--seed", "1", "--sgf", str(path)]) == 0
    record = read_sgf(path.read_bytes())
    assert (record.black, record.white, record.komi) == ("random", "mcts:rounds=20", 0.5)
    final = sgf_to_state(record)
    assert final.is_over() and record.result == str(compute_game_result(final))
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "result: " in out and f"(recorded: {record.result})" in out
    assert main(["play", "--game", "tictactoe", "--black", "random", "--white", "random",
                 "--sgf", str(tmp_path / "x.sgf")]) == 2  # SGF is for Go


# ------------------------------------------------------------ hostile input
@pytest.mark.parametrize("line", ["\u00b2 name", "\u0663 name", "1" * 5000 + " name", "1234567890 name"])
def test_an_id_that_is_not_a_few_ascii_digits_is_a_malformed_command(line):
    frontend = GtpFrontend(engines.create("random", seed=1), size=9)
    assert frontend.handle(line) == "? malformed command id: ids are up to 9 digits 0-9\n\n"
    assert frontend.handle("7 name") == "=7 dlgo\n\n"  # the session goes on


def test_loadsgf_reads_only_regular_files_of_a_sane_size(tmp_path):
    import os

    frontend = GtpFrontend(engines.create("random", seed=1), size=9)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it would block until a writer came
    big = tmp_path / "big.sgf"
    big.write_bytes(b"(;GM[1]SZ[9]" + b" " * 3_000_000 + b")")
    for path, reason in (("/dev/zero", "not a regular file"), (str(fifo), "not a regular file"),
                         (str(tmp_path), "not a regular file"), (str(big), "an SGF game is read up to"),
                         (str(tmp_path / "missing.sgf"), "No such file")):
        response = frontend.handle(f"loadsgf {path}")
        assert response.startswith("? cannot load file: ") and reason in response, (path, response)
    good = tmp_path / "game.sgf"
    good.write_text("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])")
    assert frontend.handle(f"loadsgf {good}") == "=\n\n"


def test_random_lines_always_get_a_well_formed_answer_and_the_session_goes_on():
    """A fuzz of GTP: printable and control characters, real command names with
    wrong arguments, ids of every shape. Every line gets "=..." or "?..." ended by
    an empty line (or nothing, for a blank or comment line), and the engine still
    answers afterwards."""
    import random
    import re

    rng = random.Random(2026)
    frontend = GtpFrontend(engines.create("random", seed=1), size=9)
    names = frontend.handle("list_commands")[2:].split()
    alphabet = "abcdefghjABCDEFGHJ0123456789 -+.#\t\x00\x7f\u00e9\u0663\u00b2=?pass"
    words = ["b", "w", "black", "pass", "D4", "Z99", "-1", "1e400", "nan", "9", "19", "0", "resign", "\u0663"]
    well_formed = re.compile(r"^[=?](\d+)?( [^\n]*)?(\n[^\n]+)*\n\n$")
    for _ in range(1500):
        kind = rng.random()
        if kind < 0.5:
            line = " ".join([rng.choice(names)] + [rng.choice(words) for _ in range(rng.randint(0, 3))])
        elif kind < 0.7:
            line = f"{rng.choice(['', str(rng.randint(0, 10**12)), '01', '-5'])} {rng.choice(names)}"
        else:
            line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        if line.split() and line.split()[0].lower() == "quit" or "quit" in line.split()[:2]:
            continue
        response = frontend.handle(line)
        if response is None:
            assert not parse_command(line.split("#")[0] if "#" in line else line)
            continue
        assert well_formed.match(response), (line, response)
    assert frontend.handle("clear_board") == "=\n\n"
    assert frontend.handle("genmove b").startswith("= ")
