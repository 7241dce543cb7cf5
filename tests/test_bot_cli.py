"""Bots of users' own on the command line: ``dlgo bot new`` writes one that plays, ``dlgo bot
check`` says in one line each how a bot breaks the contract, ``dlgo engines`` describes a bot
file and lists the engines packages register, and play, GTP and tournaments take bots."""
import random
import subprocess
import sys
from pathlib import Path

import pytest

import engines
from dlgo.app.cli import build_parser, main
from dlgo.app.cli.shared import bot_limits
from dlgo.core.types import Player
from dlgo.games import new_game
from engines.bots import entry_point_engines

BOTS = Path(__file__).parent / "bots"
ROOT = Path(__file__).parent.parent


def bot(name: str) -> str:
    return str(BOTS / f"{name}.py")


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


# ------------------------------------------------------------------ dlgo bot new
@pytest.mark.parametrize("game", ["connect4", "tictactoe", "go:size=5"])
def test_a_new_bot_plays_whole_games_and_keeps_the_contract(game, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["bot", "new", game, "my_bot.py"]) == 0
    out = capsys.readouterr().out
    assert "wrote my_bot.py: MyBot" in out and f"dlgo bot check my_bot.py --game {game}" in out
    source = (tmp_path / "my_bot.py").read_text()
    compile(source, "my_bot.py", "exec")
    for words in ("class MyBot(Agent)", "def choose(self, state: State) -> Decision", "seed: int | None = None",
                  "self.deadline()", "apply_move", "name = \"my_bot\"", "dlgo league", "dlgo tournament"):
        assert words in source

    assert main(["bot", "check", "my_bot.py", "--game", game, "--positions", "4"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"my_bot.py: keeps the contract on 5 {game} positions (mean ") and out.endswith("a move)")

    # a whole game against random, in the bot's own process: every move legal
    agent, rng = engines.create_seeded("my_bot.py", seed=3), random.Random(1)
    try:
        state = new_game(game)
        while not state.is_over():
            move = agent.select_move(state) if state.next_player == Player.black else state.random_move(rng)
            assert state.is_valid_move(move)
            state = state.apply_move(move)
    finally:
        agent.close()


def test_a_new_bot_wins_at_once_where_it_can(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["bot", "new", "connect4", "bots/alice.py"]) == 0
    assert "wrote bots/alice.py: AliceBot" in capsys.readouterr().out
    state = new_game("connect4")
    for column in "121212":  # red has three in column 1: the fourth wins
        state = state.apply_move(state.parse_move(column))
    agent = engines.create("bots/alice.py")
    try:
        assert state.format_move(agent.select_move(state)) == "1"
    finally:
        agent.close()


def test_bot_new_never_writes_over_a_file_and_refuses_what_is_no_bot(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "alice.py").write_text("# mine\n")
    assert main(["bot", "new", "connect4", "alice.py"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "alice.py exists already" in err
    assert (tmp_path / "alice.py").read_text() == "# mine\n"
    assert main(["bot", "new", "chess", "bob.py"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err and not (tmp_path / "bob.py").exists()
    assert main(["bot", "new", "connect4", "bob.txt"]) == 2
    assert "FILE.py" in capsys.readouterr().err


# ------------------------------------------------------------------ dlgo bot check
@pytest.mark.parametrize("name, reason", [
    ("raises", "raised an exception in position 2 (moves: "),
    ("illegal", "illegal move in position 1 (moves: 1): played 1: "),
    ("malformed", "malformed answer in position 0 (no moves: the start): the move is int 0, not a Move"),
    ("hog", "out of memory in position 0 (no moves: the start): ran out of memory (its limit is 512 MB)"),
    ("exits", "exited in position 0 (no moves: the start): ended the interpreter (sys.exit('bye'))"),
    ("crashes", "crashed in position 0 (no moves: the start): its process ended (exit code 3)"),
    ("broken", "does not load: SyntaxError: expected ':' (broken.py, line 5)"),
    ("mutates", "changed the state it was given in place in position 0 (no moves: the start): the side to move "
                "changed"),
    ("hangs", "too slow in position 1 (moves: "),
])
def test_check_names_how_each_broken_bot_breaks_the_contract(name, reason, capsys):
    assert main(["bot", "check", bot(name), "--positions", "4", "--move-seconds", "1", "--bot-memory", "512"]) == 1
    found = lines(capsys.readouterr().out)
    assert found[0].startswith(reason), found
    assert found[-1].startswith(f"{bot(name)}: breaks the contract")
    assert len(found) <= 3  # one line per kind of problem, the check's stop, the verdict


def test_check_says_where_an_exception_was_raised_and_how_often(capsys):
    assert main(["bot", "check", bot("raises"), "--positions", "6"]) == 1
    first, verdict = lines(capsys.readouterr().out)
    assert "ValueError: no idea what to do (raises.py, line 15, in choose) (and in 1 more position)" in first
    assert verdict == f"{bot('raises')}: breaks the contract in 2 of 7 connect4 positions"


def test_check_passes_a_good_bot_on_its_game_and_refuses_what_is_no_bot(capsys):
    assert main(["bot", "check", bot("gobot"), "--game", "go:size=9", "--positions", "5", "--seed", "4"]) == 0
    assert capsys.readouterr().out.startswith(f"{bot('gobot')}: keeps the contract on 6 go:size=9 positions")
    assert main(["bot", "check", bot("prints")]) == 0  # its prints go nowhere
    assert "keeps the contract on 21 connect4 positions" in capsys.readouterr().out
    assert main(["bot", "check", "no_such_bot.py"]) == 2
    assert "no bot file 'no_such_bot.py'" in capsys.readouterr().err
    assert main(["bot", "check", bot("gobot") + ":depth=3"]) == 2
    assert "depth" in capsys.readouterr().err


# ------------------------------------------------------------------ dlgo engines
def test_engines_describes_a_bot_file_and_a_file_that_does_not_load_is_one_line(capsys):
    assert main(["engines", bot("gobot")]) == 0
    out = capsys.readouterr().out
    assert f"{bot('gobot')}:GoBot  Plays a seeded random sensible move." in out
    assert "seed=None  (int | None)" in out
    assert main(["engines", bot("prints") + ":Prints"]) == 0
    out = capsys.readouterr().out
    assert "Plays the last legal move" in out and "no parameters" in out
    assert main(["engines", bot("broken")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not load: SyntaxError" in err
    assert main(["engines", "mcts"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("mcts ") and "alphabeta" not in out


MYBOT = '''
from dlgo.core.agent import Agent, Decision


class MyBot(Agent):
    """A package's bot: the first legal move."""

    def __init__(self, depth: int = 2) -> None:
        super().__init__()
        self.depth = depth

    def choose(self, state):
        return Decision(state.legal_moves()[0], self.depth)
'''


def test_an_engine_a_package_registers_is_listed_and_plays(tmp_path, monkeypatch, capsys):
    info = tmp_path / "mybots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mybots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[dlgo.engines]\nmybot = mybotmod:MyBot\n")
    (tmp_path / "mybotmod.py").write_text(MYBOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the bot's process imports the module
    entry_point_engines.cache_clear()
    try:
        assert main(["engines"]) == 0
        out = capsys.readouterr().out
        assert "mybot (mybotmod:MyBot)  A package's bot: the first legal move." in out
        assert "depth=2  (int)" in out and out.startswith("random ")
        assert main(["engines", "mybot"]) == 0
        assert "mybot (mybotmod:MyBot)" in capsys.readouterr().out
        agent = engines.create("mybot:depth=5")
        try:
            state = new_game("connect4")
            assert agent.select_move(state) == state.legal_moves()[0]
            assert agent.last_report.compute.amount == 5
        finally:
            agent.close()
        assert main(["bot", "check", "mybot", "--positions", "2"]) == 0
        assert "mybot: keeps the contract on 3 connect4 positions" in capsys.readouterr().out
    finally:
        entry_point_engines.cache_clear()


# ------------------------------------------------------------------ play, gtp, tournament
def test_play_takes_a_bot_file_for_a_whole_game(capsys):
    assert main(["play", "--game", "connect4", "--black", bot("prints"), "--white", "random", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "result: " in out and "I play" not in out and "thinking" not in out


def test_a_bot_that_breaks_the_contract_in_console_play_is_one_line(capsys):
    assert main(["play", "--game", "connect4", "--black", "random", "--white", bot("hangs"),
                 "--move-seconds", "0.3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"yellow (O, {bot('hangs')}) broke the contract after 3 moves" in err
    assert "gave no answer within its 0.3 s for a move" in err


def gtp(engine: str, commands: str, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dlgo.app.cli", "gtp", "--engine", engine, *options],
                          input=commands, capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_gtp_plays_a_go_bot_file(capsys):
    result = gtp(bot("gobot"), "boardsize 9\nclear_board\ngenmove b\nplay w C3\ngenmove b\nquit\n", "--seed", "1")
    assert result.returncode == 0 and result.stderr == ""
    answers = [a for a in result.stdout.split("\n\n") if a.strip()]
    assert len(answers) == 6 and all(a.startswith("=") for a in answers)
    first, second = answers[2].split()[1], answers[4].split()[1]
    assert first != "C3" and second not in (first, "C3") and first[0] in "ABCDEFGHJ"


def test_gtp_answers_a_bot_fault_with_an_error_response():
    result = gtp(bot("raises"), "boardsize 9\ngenmove b\nplay w C3\ngenmove b\nplay w D3\ngenmove b\n"
                                "genmove b\nquit\n")
    answers = [a for a in result.stdout.split("\n\n") if a.strip()]
    assert answers[5] == "? ValueError: no idea what to do (raises.py, line 15, in choose)"
    assert answers[6].startswith("= ")  # a fresh process plays on
    assert result.returncode == 0 and "Traceback" not in result.stderr


def test_tournament_plays_a_bot_under_the_limits_given(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "--game", "tictactoe", "--engines", "random", bot("hangs"), "--games-per-pair", "2",
                 "--out", str(out), "--workers", "1", "--move-seconds", "0.3", "--opening-plies", "0"]) == 0
    assert (out / "games.csv").read_text().count(",timeout") == 2


@pytest.mark.parametrize("command", [["play"], ["gtp"], ["tournament", "--engines", "random", "--out", "x"],
                                     ["mistakes", "random", "--out", "x"]])
def test_every_command_that_plays_engines_takes_the_bot_limits(command):
    args = build_parser().parse_args([*command, "--move-seconds", "2.5", "--bot-memory", "300", "--bot-startup", "7"])
    limits = bot_limits(args)
    assert (limits.move_seconds, limits.memory_mb, limits.startup_seconds) == (2.5, 300, 7)


def test_check_says_a_bot_that_draws_from_the_random_module_cannot_be_replayed(tmp_path, capsys):
    file = tmp_path / "shared.py"
    file.write_text("import random\n\nfrom dlgo.core.agent import Agent, Decision\n\n\nclass Shared(Agent):\n"
                    "    def choose(self, state):\n        return Decision(random.choice(state.legal_moves()), 1)\n")
    assert main(["bot", "check", str(file), "--positions", "2"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("drew from the random module itself in position 0") and "random.Random(seed)" in out


def test_check_notes_that_a_bots_prints_go_nowhere_and_passes_it(capsys):
    assert main(["bot", "check", bot("prints"), "--positions", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("note: it prints; a bot's output goes nowhere") and "keeps the contract" in lines[1]
