"""The web server's engine processes: what one costs to start, and many sessions at once.

    python benchmarks/web_engines.py                    # random and alphazero:checkpoint=connect4
    python benchmarks/web_engines.py --concurrent 31    # and 31 sessions asking random on 19x19 at once

Runs ``dlgo serve`` (the console script beside this Python, as a user starts it) on
a free port of 127.0.0.1 and, for each engine, opens a session, plays a move and
asks the engine twice: the first answer pays the start of the session's engine
process (and the engine's: building it, loading its network), the second does not.
The engine's process is found among the server's descendants (Linux ``/proc``);
after its first answer its CPU seconds and memory are read: RSS, and USS, the
pages it holds alone (pages shared with the server or a fork server count in RSS,
not in USS). ``--concurrent N`` then opens N sessions of ``random`` on 19x19 and
asks all their engines at once: how many answer (HTTP 200), and the slowest.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from dlgo.core.arguments import count
from markdown import DEFAULT_FOLDER, Table

#: (game, the human's first move, engine) measured one by one
CASES = [("tictactoe", 4, "random"), ("connect4", 3, "alphazero:checkpoint=connect4")]
TICKS = os.sysconf("SC_CLK_TCK")


def call(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON answer) of one request."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            text = response.read()
            return response.status, json.loads(text) if text else {}
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def descendants(pid: int) -> set[int]:
    """The processes below ``pid``."""
    found, todo = set(), [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            children = (task / "children").read_text().split() if (task / "children").exists() else []
            found.update(int(c) for c in children)
            todo.extend(int(c) for c in children)
    return found


def engine_processes(server: int) -> set[int]:
    """The server's engine processes: its descendants without children, but the resource tracker."""
    leaves = set()
    for pid in descendants(server):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_text()
            if "resource_tracker" not in command and not descendants(pid):
                leaves.add(pid)
        except OSError:
            continue
    return leaves


def usage(pid: int) -> tuple[float, float, float]:
    """(CPU seconds, RSS MB, USS MB) of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS
    rollup = {line.split(":")[0]: int(line.split()[1]) for line in
              Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]}
    return cpu, rollup["Rss"] / 1024, (rollup["Private_Clean"] + rollup["Private_Dirty"]) / 1024


def one_engine(base: str, server: int, game: str, first: int, spec: str) -> list[str]:
    """A table row: the first and second answers' wall seconds, and the engine process's CPU and memory."""
    before = engine_processes(server)
    status, view = call(f"{base}/api/sessions", "POST", {"game": game, "black": "human", "white": spec})
    assert status == 201, view
    session = f"{base}/api/sessions/{view['id']}"
    walls, move = [], first
    for _ in range(2):
        call(f"{session}/move", "POST", {"action": move})
        started = time.perf_counter()
        status, answer = call(f"{session}/engine", "POST")
        walls.append(time.perf_counter() - started)
        assert status == 200, answer
        if len(walls) == 1:
            cpu, rss, uss = usage(max(engine_processes(server) - before))
        move = answer["legal"][0]["action"]
    call(session, "DELETE")
    return [f"`{spec}`", f"{walls[0]:.2f}", f"{walls[1]:.2f}", f"{cpu:.2f}", f"{rss:.0f}", f"{uss:.0f}"]


def many_at_once(base: str, count: int) -> str:
    """``count`` sessions of random on 19x19 asking at once: how many answered, and the slowest."""
    sessions = []
    for _ in range(count):
        status, view = call(f"{base}/api/sessions", "POST", {"game": "go:size=19", "black": "random",
                                                              "white": "human"})
        assert status == 201, view
        sessions.append(f"{base}/api/sessions/{view['id']}")

    def ask(session: str) -> tuple[int, float]:
        started = time.perf_counter()
        status, _ = call(f"{session}/engine", "POST")
        return status, time.perf_counter() - started

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        answers = list(pool.map(ask, sessions))
    for session in sessions:
        call(session, "DELETE")
    answered = sum(1 for status, _ in answers if status == 200)
    return f"{answered} of {count} answered; the slowest in {max(s for _, s in answers):.1f} s"


def serve(port: int, state: str) -> subprocess.Popen[bytes]:
    """``dlgo serve`` on ``port``, its games kept in ``state``, once it listens."""
    command = [str(Path(sys.executable).with_name("dlgo")), "serve", "--port", str(port), "--time-limit", "10",
               "--max-sessions", "64", "--state", state]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            assert time.monotonic() < deadline and server.poll() is None, "dlgo serve did not start"
            time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", nargs="+", default=[spec for _, _, spec in CASES],
                        help="measure these of the engines above (default: all)")
    parser.add_argument("--concurrent", type=count("processes", 0), default=0,
                        help="then this many sessions asking at once")
    parser.add_argument("--out", default=f"{DEFAULT_FOLDER}/web_engines.md", help="where the table is saved")
    args = parser.parse_args()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    state = tempfile.TemporaryDirectory(prefix="dlgo-bench-")  # not the games of a server you run
    server = serve(port, state.name)
    try:
        base = f"http://127.0.0.1:{port}"
        table = Table(["engine", "first answer s", "second answer s", "process CPU s", "RSS MB", "USS MB"],
                      [False, True, True, True, True, True], f"{os.cpu_count()} cores, `dlgo serve`")
        for game, first, spec in CASES:
            if spec in args.engines:
                table.row(*one_engine(base, server.pid, game, first, spec))
        if args.concurrent:
            table.lines += ["", f"{args.concurrent} sessions of `random` on 19x19 asking at once: "
                            f"{many_at_once(base, args.concurrent)}."]
            print(table.lines[-1])
        table.save(args.out)
    finally:
        server.terminate()
        server.wait(30)
        state.cleanup()


if __name__ == "__main__":
    main()
