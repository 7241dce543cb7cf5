"""Bots of users' own (a Python file, or a package's engine): they play in processes of
their own, and whatever they do wrong loses their game with the right reason."""
from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import engines
from dlgo.arena import bot_host
from dlgo.arena.match import play_match
from dlgo.arena.mistakes import measure_mistakes
from dlgo.arena.tournament import run_tournament
from dlgo.core.errors import EngineError, SpecError
from dlgo.formats.records import faults_by_engine, read_games
from dlgo.games import new_game
from engines import bots
from engines.bots import BotFault, BotLimits, split_bot_spec
from engines.registry import EngineFactory

BOTS = Path(__file__).parent / "bots"
#: short limits: a hang costs its test half a second
QUICK = EngineFactory(BotLimits(move_seconds=1.0, memory_mb=1024, startup_seconds=20))


def bot(name: str) -> str:
    return str(BOTS / f"{name}.py")


def bot_processes() -> list[int]:
    """The bot processes alive on this machine that this test process started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if b"dlgo.arena.bot_host" in command and parent == os.getpid():
            found.append(int(entry.name))
    return found


def wait_for_no_bot_processes(seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while bot_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    return bot_processes()


@pytest.mark.parametrize("name, game, ending, says", [
    ("raises", "connect4", bot_host.EXCEPTION, "ValueError: no idea what to do (raises.py, line 15, in choose)"),
    ("hangs", "connect4", bot_host.TIMEOUT, "gave no answer within its 1 s for a move"),
    ("illegal", "tictactoe", bot_host.ILLEGAL, "played a1: illegal move a1: the point is occupied"),
    ("malformed", "connect4", bot_host.MALFORMED, "the move is int 0, not a Move"),
    ("hog", "connect4", bot_host.MEMORY, "ran out of memory (its limit is 1,024 MB)"),
    ("exits", "connect4", bot_host.EXIT, "ended the interpreter (sys.exit('bye'))"),
    ("crashes", "connect4", bot_host.CRASH, "its process ended (exit code 3)"),
    ("broken", "connect4", bot_host.STARTUP, "does not load: SyntaxError: expected ':' (broken.py, line 5)"),
])
def test_each_fault_loses_the_game_with_its_reason(name, game, ending, says):
    for black, white in ((bot(name), "random"), ("random", bot(name))):
        record = play_match(QUICK, game, black, white, seed=1)
        loser = "black" if black == bot(name) else "white"
        assert record.ending == ending and record.winner != loser and record.winner != "draw"
        assert record.note.startswith(f"{loser} forfeits: ") and says in record.note, record.note
        assert str(BOTS) not in record.note  # a bot's file by its name: a league publishes its notes
        assert record.result.endswith("+F") or record.result in ("1-0", "0-1")
    assert wait_for_no_bot_processes() == []  # killed at its fault, or back in the idle pool of this process?


def test_a_bot_that_prints_plays_its_games_to_the_end():
    record = play_match(QUICK, "connect4", bot("prints"), "random", seed=2)
    assert record.note == "" and record.ending in ("win", "draw") and record.plies > 6


def test_a_bot_plays_in_a_process_of_its_own_and_the_same_moves_as_in_this_one(tmp_path):
    file = tmp_path / "mine.py"
    file.write_text("from engines.randombot import RandomAgent\n\n\nclass Mine(RandomAgent):\n"
                    '    """The suite\'s random player, from a file."""\n')
    mine = play_match(QUICK, "connect4", str(file), "random", seed=7)
    own = play_match(QUICK, "connect4", "random", "random", seed=7)
    assert mine.moves == own.moves and mine.black_unit == own.black_unit == "moves"
    agent = engines.create(str(file), seed=3)
    agent.start()
    pids = bot_processes()
    assert pids and os.getpid() not in pids
    agent.close()


def test_specs_of_files_and_classes_with_parameters(tmp_path):
    file = tmp_path / "two.py"
    file.write_text("from dlgo.core.agent import Agent, Decision\n\n\n"
                    "class First(Agent):\n    def __init__(self, depth: int = 2, seed: int | None = None):\n"
                    "        super().__init__()\n        self.depth = depth\n\n"
                    "    def choose(self, state):\n        return Decision(state.legal_moves()[0], self.depth)\n\n\n"
                    "class Second(First):\n    name = 'second'\n")
    source, params = split_bot_spec(f"{file}:Second:depth=3")
    assert source.class_name == "Second" and params == {"depth": "3"} and source.file == str(file.resolve())
    assert split_bot_spec(f"{file}:depth=4")[0].class_name is None
    with pytest.raises(SpecError, match="no bot file"):
        split_bot_spec(str(tmp_path / "absent.py"))
    assert [p.name for p in engines.engine_parameters(f"{file}:First")] == ["depth", "seed"]
    assert engines.canonical_spec(f"{file}:First:depth=2") == f"{file.resolve()}:First"
    assert engines.canonical_spec(f"{file}:First:depth=5") == f"{file.resolve()}:First:depth=5"
    with pytest.raises(SpecError, match="one engine"):
        engines.check_distinct([f"{file}:First", f"{file}:First:depth=2"])
    with pytest.raises(SpecError, match="has no parameter 'width'"):
        engines.create(f"{file}:First:width=3")
    with pytest.raises(SpecError, match="must be int"):
        engines.create(f"{file}:First:depth=deep")
    second = engines.create(f"{file}:Second:depth=3")
    state = new_game("tictactoe")
    assert second.select_move(state) in state.legal_moves() and second.last_compute.amount == 3
    assert second.name == "second"
    second.close()
    # a file of two classes names one
    with pytest.raises(EngineError, match="defines 2 Agent subclasses"):
        engines.check_engine(str(file))


def test_a_bot_that_does_not_load_says_why_at_its_start():
    agent = engines.create(bot("broken"))
    with pytest.raises(BotFault, match="SyntaxError") as raised:
        agent.start()
    assert raised.value.fault == bot_host.STARTUP
    with pytest.raises(EngineError, match="SyntaxError"):
        engines.check_engine(bot("broken"))


def test_a_tournament_of_bots_goes_on_resumes_and_counts_faults_per_bot(tmp_path):
    specs = ["random", bot("raises"), bot("hangs"), bot("prints")]
    out = tmp_path / "t"
    records = run_tournament(QUICK, out, "connect4", specs, 2, seed=3, workers=1, progress=False)
    assert len(records) == 12
    faults = faults_by_engine(records)
    assert faults[bot("hangs")] == {"timeout": 6} and set(faults[bot("raises")]) == {"exception"}
    assert bot("prints") not in faults and "random" not in faults
    before = (out / "games.csv").read_bytes()
    again = run_tournament(QUICK, out, "connect4", specs, 2, seed=3, workers=1, progress=False)
    assert (out / "games.csv").read_bytes() == before and len(again) == 12  # nothing played twice
    from dlgo.arena.report import write_report

    write_report(out, records, title="bots")
    summary = (out / "summary.md").read_text()
    assert "## Losses by fault" in summary and f"| `{bot('hangs')}` | 6 | 6 timeout |" in summary
    assert 0 < len(bot_processes()) <= bots.MOST_IDLE  # those that behave wait for the next game
    bots.stop_all()
    assert wait_for_no_bot_processes() == []


def test_a_killed_tournament_of_bots_resumes_with_no_game_lost_or_doubled(tmp_path):
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "dlgo", "tournament", "--game", "connect4", "--engines", "random",
               bot("prints"), "mcts:rounds=200", "--games-per-pair", "6", "--workers", "2", "--out", str(out)]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(read_games(out / "games.csv")) < 3 if (out / "games.csv").exists() \
            else time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    kept = read_games(out / "games.csv")
    assert 0 < len(kept) < 18
    time.sleep(1.5)  # the bots' processes notice their parent is gone
    orphans = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _is_bot_of(p, out)]
    assert orphans == []
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    records = read_games(out / "games.csv")
    assert len(records) == 18 and len({r.game_id for r in records}) == 18
    assert {r.game_id: r.moves for r in records if r.game_id in {k.game_id for k in kept}} == \
        {k.game_id: k.moves for k in kept}


def _is_bot_of(process: Path, out: Path) -> bool:
    """Is ``process`` a bot process left by the tournament into ``out``'s workers (any orphan bot host)?"""
    try:
        command = (process / "cmdline").read_bytes()
        parent = int((process / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return False
    return b"dlgo.arena.bot_host" in command and parent == 1


def test_mistakes_count_a_bot_that_fails_on_a_position_as_a_mistake(tmp_path):
    from dlgo.app.cli.league import league_positions

    positions = league_positions("tictactoe", 6, seed=1)
    assert len(positions) == 6
    verdicts = measure_mistakes(QUICK, [bot("raises"), bot("prints")], positions, tmp_path / "m", workers=1,
                                progress=False)
    failed = [v for v in verdicts if v.engine == bot("raises")]
    assert len(failed) == 6 and all(v.action >= 0 for v in failed)  # it raises on its third move of a game only
    crashed = measure_mistakes(QUICK, [bot("crashes")], positions, tmp_path / "c", workers=1, progress=False)
    assert all(v.action == -1 and v.mistake for v in crashed)


def write_bot(folder: Path, name: str, head: str = "", init: str = "") -> Path:
    """A bot file that plays the first legal move, with ``head`` run as it loads and ``init`` as it is built."""
    file = folder / f"{name}.py"
    file.write_text(f"{head}\nfrom dlgo.core.agent import Agent, Decision\n\n\nclass Bot(Agent):\n"
                    f"    def __init__(self):\n        super().__init__()\n{init or '        pass'}\n\n"
                    "    def choose(self, state):\n        return Decision(state.legal_moves()[0], 1)\n")
    return file


def test_the_checks_before_play_load_a_bot_under_the_limits_given(tmp_path):
    file = write_bot(tmp_path, "big", head="TABLE = bytearray(700 * 2**20)")
    with pytest.raises(BotFault, match="ran out of memory"):
        engines.canonical_spec(str(file), BotLimits(memory_mb=600))
    assert engines.canonical_spec(str(file), BotLimits(memory_mb=4096)) == f"{file.resolve()}:Bot"
    engines.check_distinct([str(file), "random"], BotLimits(memory_mb=4096))


def test_a_tournament_plays_again_the_games_of_a_bot_whose_file_changed(tmp_path):
    file = write_bot(tmp_path, "mine")
    out = tmp_path / "t"
    first = run_tournament(QUICK, out, "tictactoe", ["random", str(file)], 2, workers=1, progress=False)
    file.write_text(file.read_text() + "\n# a change\n")
    again = run_tournament(QUICK, out, "tictactoe", ["random", str(file)], 2, workers=1, progress=False)
    assert len(again) == 2 and len(read_games(out / "replaced-games.csv")) == len(first) == 2


def test_old_replaced_games_files_take_rows_of_todays_columns(tmp_path):
    from dlgo.arena.tournament import set_aside
    from dlgo.formats.records import HEADER, write_games

    record = play_match(QUICK, "tictactoe", "random", "random", seed=1)
    with (tmp_path / "replaced-games.csv").open("w", newline="") as handle:  # from before the ending column
        writer = csv.DictWriter(handle, fieldnames=HEADER.split(",")[:-1])
        writer.writeheader()
        writer.writerow({k: v for k, v in record.as_row().items() if k != "ending"})
    other = play_match(QUICK, "tictactoe", "random", "random", seed=2)
    other.game_id = "second"
    write_games(tmp_path / "games.csv", [other])
    assert set_aside(tmp_path, [other], lambda r: True, "a test") == []
    assert [r.game_id for r in read_games(tmp_path / "replaced-games.csv")] == [record.game_id, "second"]
    assert (tmp_path / "replaced-games.csv").read_text().startswith(HEADER)


def test_the_processes_a_bot_starts_end_with_the_suite_that_started_it(tmp_path):
    file = write_bot(tmp_path, "spawner", head="import subprocess",
                     init="        subprocess.Popen(['sleep', '4321.5'])")
    script = tmp_path / "run.py"
    script.write_text(f"import sys, time, engines\nfrom dlgo.games import new_game\n"
                      f"a = engines.create({str(file)!r})\na.select_move(new_game('tictactoe'))\n"
                      "print('ready', flush=True)\ntime.sleep(600)\n")
    run = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert run.stdout is not None and run.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 10
        while not _sleepers() and time.monotonic() < deadline:  # the bot's own process, as it shows in /proc
            time.sleep(0.05)
        assert _sleepers() != []
    finally:
        run.kill()
        run.wait()
    deadline = time.monotonic() + 10
    while _sleepers() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _sleepers() == []


def _sleepers() -> list[str]:
    return [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and _command(p) == b"sleep\x004321.5\x00"]


def _command(process: Path) -> bytes:
    try:
        return (process / "cmdline").read_bytes()
    except OSError:
        return b""


def test_idle_processes_wait_in_order_and_the_longest_idle_goes_first(tmp_path, monkeypatch):
    monkeypatch.setattr(bots, "MOST_IDLE", 1)
    first, second = (bots.acquire(split_bot_spec(str(write_bot(tmp_path, name)))[0], QUICK.limits)
                     for name in ("first", "second"))
    bots.release(first)
    bots.release(second)
    assert not first.alive and second.alive
    again = bots.acquire(second.source, QUICK.limits)
    assert again is second
    bots.release(again)
    bots.stop_all()


def test_a_bot_slow_to_start_is_tried_again_once_before_its_games_are_given_up(tmp_path):
    file = write_bot(tmp_path, "slow", head="import time\ntime.sleep(3)")
    source, _ = split_bot_spec(str(file))
    limits = BotLimits(startup_seconds=0.3)
    for _ in range(bots.STARTS_TIMED_OUT):
        assert bots._key(source, limits) not in bots._FAILED_LOADS
        with pytest.raises(BotFault, match="to start") as raised:
            bots.acquire(source, limits)
        assert raised.value.timed_out
    assert bots._key(source, limits) in bots._FAILED_LOADS  # given up: its later games are lost at once


@pytest.mark.parametrize("body, says", [
    ("class Bot(Agent):\n    def chose(self, state):\n        return Decision(state.legal_moves()[0], 1)\n",
     "Bot does not define choose: a bot's choose(state) returns Decision(move, work) (is a method's name misspelt?)"),
    ("class Bot(Agent):\n    def __init__(self, depth):\n        super().__init__()\n\n"
     "    def choose(self, state):\n        return Decision(state.legal_moves()[0], 1)\n",
     "its constructor needs depth: give each parameter a default"),
    ("class Bot(Agent):\n    def __init__(self):\n        self.depth = 2\n\n"
     "    def choose(self, state):\n        return Decision(state.legal_moves()[0], 1)\n",
     "Bot.__init__ does not call super().__init__(): make that its first line"),
])
def test_what_a_student_gets_wrong_in_a_bot_is_said_in_their_words(tmp_path, body, says):
    file = tmp_path / "mistaken.py"
    file.write_text("from dlgo.core.agent import Agent, Decision\n\n\n" + body)
    record = play_match(QUICK, "tictactoe", str(file), "random", seed=1)
    assert record.ending == bot_host.STARTUP and says in record.note, record.note


def test_a_bot_that_keeps_the_books_select_move_plays(tmp_path):
    file = tmp_path / "book.py"
    file.write_text("from dlgo.agent.base import Agent\n\n\nclass Book(Agent):\n"
                    "    def select_move(self, game_state):\n        return game_state.legal_moves()[-1]\n")
    record = play_match(QUICK, "tictactoe", str(file), "random", seed=1)
    assert record.ending in ("win", "draw") and record.note == ""
    assert engines.engine_description(str(file)) == ""  # no docstring of its own: none shown (not Agent's)


def test_the_moves_sent_go_on_from_the_last_position_sent_as_from_the_start():
    import random as rng_module

    from engines.bots import history

    rng, state = rng_module.Random(3), new_game("go:size=5")
    states = [state]
    for _ in range(12):
        state = state.apply_move(state.random_move(rng))
        states.append(state)
    states.append(state.with_turn(state.next_player.other))  # GTP's two moves of one colour
    full = history(states[-1])
    assert full[-1] == bot_host.TURN and len(full) == 13
    assert history(states[-1], (states[5], history(states[5]))) == full
    other = new_game("go:size=5").apply_move(states[1].last_move)  # another line: from the start again
    assert history(other, (states[5], history(states[5]))) == full[:1]
