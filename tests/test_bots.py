"""Bots of users' own (a Python file, or a package's engine): they play in processes of
their own, and whatever they do wrong loses their game with the right reason."""
from __future__ import annotations

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
QUICK = EngineFactory(BotLimits(move_seconds=0.5, memory_mb=1024, startup_seconds=20))


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
    ("hangs", "connect4", bot_host.TIMEOUT, "gave no answer within its 0.5 s for a move"),
    ("illegal", "tictactoe", bot_host.ILLEGAL, "an illegal move"),
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
