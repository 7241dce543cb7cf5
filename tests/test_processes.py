"""Worker processes never outlive their run: killed with it, or stopped by Ctrl-C
with the finished games kept."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dlgo.formats.records import read_games

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")

SLOW_TOURNAMENT = ["-m", "dlgo", "tournament", "--game", "go:size=9", "--engines", "random", "mcts:rounds=3000",
                   "mcts:rounds=3001", "--games-per-pair", "4", "--workers", "2", "--opening-plies", "0"]


def workers_of(parent: int) -> list[int]:
    """The pool workers (spawned interpreters) whose parent is ``parent``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return found


def signals(pid: int, kind: str) -> int:
    """Process ``pid``'s signals of a kind (``SigIgn``: ignored, ``SigCgt``: caught), as a bit mask."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{kind}:"):
            return int(line.split()[1], 16)
    raise AssertionError(f"no {kind} in /proc/{pid}/status")


CTRL_C = 1 << (signal.SIGINT - 1)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not gone, not a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def hear_ctrl_c() -> None:
    """Let the run hear Ctrl-C even when this test runs as a background job
    (``nohup``, or ``&`` in a script): such a job ignores SIGINT, and so would
    every process it starts."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(out: Path) -> tuple[subprocess.Popen, list[int]]:
    """A slow parallel tournament, once its two workers are up."""
    run = subprocess.Popen([sys.executable, *SLOW_TOURNAMENT, "--out", str(out)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=hear_ctrl_c)
    deadline = time.monotonic() + 60
    while len(workers := workers_of(run.pid)) < 2:
        assert run.poll() is None and time.monotonic() < deadline, run.stderr.read() if run.stderr else ""
        time.sleep(0.2)
    return run, workers


@pytest.mark.parametrize("after", [0.0, 2.0], ids=["while starting", "while playing"])
def test_workers_die_when_their_parent_is_killed(tmp_path, after):
    run, workers = start(tmp_path / "t")
    time.sleep(after)
    run.send_signal(signal.SIGKILL)  # the parent only, not its group
    run.wait()
    deadline = time.monotonic() + 60  # a worker still starting checks on its parent once it has imported
    while any(running(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(running(w) for w in workers)


@pytest.mark.parametrize("after", [0.0, 1.0], ids=["while starting", "while playing"])
def test_ctrl_c_stops_a_parallel_run_quietly_and_keeps_finished_games(tmp_path, after):
    out = tmp_path / "t"
    run, workers = start(out)
    # deaf to Ctrl-C from their first sight, long before their imports are done
    assert all(signals(w, "SigIgn") & CTRL_C for w in workers)
    deadline = time.monotonic() + 60
    while not signals(run.pid, "SigCgt") & CTRL_C:  # the parent hears it again once its workers are started
        assert time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(after)
    os.killpg(run.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
    _, err = run.communicate(timeout=30)
    assert run.returncode == 130
    assert "Traceback" not in err and "interrupted: " in err and "the same command finishes the run" in err
    assert not any(running(w) for w in workers)
    assert len(read_games(out / "games.csv")) < 12  # whatever finished is readable; the rest resumes
