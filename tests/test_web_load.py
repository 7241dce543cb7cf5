"""The web server under load and at its limits: engines thinking at once on a
live server, a network's start kept apart from its time limit, idle sessions
closed on a timer, the cap on engine processes, a session closed while its
engine thinks, closing that never holds up the server, and engine processes
that start without the CLI's imports.

No test here depends on the machine's speed: a deadline only fails a test that
would otherwise wait for ever, and time limits are generous beside the work.
"""
from __future__ import annotations

import concurrent.futures
import os
import subprocess
import sys
import threading
import time
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Callable

import pytest

fastapi = pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402
import httpx2 as httpx  # noqa: E402

from dlgo.app.web.server import create_app  # noqa: E402
from dlgo.app.web.workers import CLOSED  # noqa: E402
from helpers import free_port, served  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: seconds a test waits for what must happen before it calls it a failure (never reached when all is well)
PATIENCE = 60.0


def eventually(check: Callable[[], bool], what: str) -> None:
    """Wait until ``check()`` holds."""
    deadline = time.monotonic() + PATIENCE
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {PATIENCE:g} s"
        time.sleep(0.02)


def running(pid: int) -> bool:
    """Process ``pid`` is there (and not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def new(http, game: str = "connect4", black: str = "human", white: str = "random") -> str:
    response = http.post("/api/sessions", json={"game": game, "black": black, "white": white})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def one_line_error(response, status: int) -> str:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert message and "\n" not in message and "Traceback" not in message
    return message


def test_eight_engines_thinking_at_once_all_answer_within_their_limit(tmp_path):
    # 8 searches of 1 s on 2 cores: each stops at its limit on its own, whatever the others
    # cost; the processes' starts (8 at once) are not counted in it
    app = create_app(runs=tmp_path, time_limit=1.0, grace=30.0, max_sessions=8,
                     max_engines=8)  # a grace no load outlasts; 8 engines whatever the memory
    with served(app) as url:
        def think(k: int) -> httpx.Response:
            with httpx.Client(base_url=url, timeout=PATIENCE) as http:
                sid = new(http, white=f"mcts:seconds=1000,seed={k}")
                assert http.post(f"/api/sessions/{sid}/move", json={"action": k % 7}).status_code == 200
                ready.wait(PATIENCE)
                return http.post(f"/api/sessions/{sid}/engine")

        ready = threading.Barrier(8)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            replies = list(pool.map(think, range(8)))
    assert [r.status_code for r in replies] == [200] * 8, [r.text[:200] for r in replies]
    assert all(len(r.json()["moves"]) == 2 and r.json()["report"]["compute"]["amount"] > 0 for r in replies)


def test_a_networks_start_is_not_counted_in_its_time_limit(tmp_path):
    # loading TensorFlow and a network takes seconds, more than the 4 s this search may take
    with TestClient(create_app(runs=tmp_path, time_limit=1.0, grace=3.0)) as client:
        sid = new(client, game="tictactoe", white="alphazero:checkpoint=tictactoe,simulations=1")
        client.post(f"/api/sessions/{sid}/move", json={"action": 4})
        reply = client.post(f"/api/sessions/{sid}/engine")
        assert reply.status_code == 200, reply.text


def test_idle_sessions_are_closed_on_a_timer_with_their_engines(tmp_path, monkeypatch):
    gone = slow_to_go(monkeypatch)
    app = create_app(runs=tmp_path, idle_seconds=5.0)  # longer than any stall before store.get below
    store = app.state.store
    with TestClient(app) as client:
        sid = new(client)
        client.post(f"/api/sessions/{sid}/move", json={"action": 3})
        assert client.post(f"/api/sessions/{sid}/engine").status_code == 200
        pid = store.get(sid).engine.pid
        assert pid is not None and running(pid)
        eventually(lambda: len(store) == 0, "the idle session closed")  # no request comes meanwhile
        assert client.get("/api/catalog").status_code == 200  # while its process is still going
        gone.set()
        eventually(lambda: not running(pid), "its engine process stopped")
        assert "no game" in one_line_error(client.get(f"/api/sessions/{sid}"), 404)


def test_engine_processes_are_capped_and_the_one_idle_longest_gives_way(tmp_path):
    app = create_app(runs=tmp_path, max_engines=2)
    store = app.state.store
    with TestClient(app) as client:
        ids = [new(client) for _ in range(3)]
        for move, sid in enumerate(ids):
            client.post(f"/api/sessions/{sid}/move", json={"action": move})
            assert client.post(f"/api/sessions/{sid}/engine").status_code == 200
            assert len(store.engines) <= 2
        engines = [store.get(sid).engine for sid in ids]
        assert [e.alive for e in engines] == [False, True, True]
        # the first session goes on: its process starts again, in the place of the second's
        client.post(f"/api/sessions/{ids[0]}/move", json={"action": 5})
        assert client.post(f"/api/sessions/{ids[0]}/engine").status_code == 200
        assert [e.alive for e in engines] == [True, False, True]


def test_more_engine_moves_at_once_than_processes_wait_for_a_place_and_all_answer(tmp_path):
    app = create_app(runs=tmp_path, time_limit=30.0, max_engines=2)
    with served(app) as url:
        def move(k: int) -> int:
            with httpx.Client(base_url=url, timeout=PATIENCE) as http:
                sid = new(http, game="go:size=19", black="random", white="human")
                ready.wait(PATIENCE)
                return http.post(f"/api/sessions/{sid}/engine").status_code

        ready = threading.Barrier(6)
        with concurrent.futures.ThreadPoolExecutor(6) as pool:
            assert list(pool.map(move, range(6))) == [200] * 6
        assert len(app.state.store.engines) <= 2


@pytest.fixture
def thinking(tmp_path):
    """A live server keeping one engine process, and a session whose engine thinks for ever
    (plain minimax on Connect Four, stopped only 2 + 600 s on) in a thread: (the base URL, the
    store, the session's id, the future of its engine request)."""
    app = create_app(runs=tmp_path, time_limit=2.0, grace=600.0, max_engines=1)
    store = app.state.store
    with served(app) as url, httpx.Client(base_url=url, timeout=PATIENCE) as http, \
            concurrent.futures.ThreadPoolExecutor(1) as pool:
        sid = new(http, white="minimax")
        http.post(f"/api/sessions/{sid}/move", json={"action": 3})
        asked = pool.submit(httpx.post, f"{url}/api/sessions/{sid}/engine", timeout=PATIENCE)
        engine = store.get(sid).engine
        eventually(lambda: engine.busy and engine.alive, "the engine thinking")
        yield url, store, sid, asked
        store.close_all()


def test_a_session_closed_while_its_engine_thinks_answers_410(thinking):
    url, store, sid, asked = thinking
    pid = store.get(sid).engine.pid
    assert httpx.delete(f"{url}/api/sessions/{sid}").status_code == 204
    assert one_line_error(asked.result(PATIENCE), 410) == CLOSED
    eventually(lambda: not running(pid), "the engine process stopped")


def test_with_every_engine_process_thinking_another_is_refused_with_503(thinking):
    url, store, sid, asked = thinking
    with httpx.Client(base_url=url, timeout=PATIENCE) as http:
        body = {"game": "tictactoe", "black": "human", "white": "random"}
        assert "thinking" in one_line_error(http.post("/api/sessions", json=body), 503)
        other = new(http, game="tictactoe", white="human")  # a game of two humans needs no engine
        refused = http.post(f"/api/sessions/{other}/hint")  # after waiting its time limit for a place
        assert "thinking" in one_line_error(refused, 503) and refused.json()["session"]["busy"] is False
        assert http.delete(f"/api/sessions/{sid}").status_code == 204
        assert asked.result(PATIENCE).status_code == 410
        assert http.post(f"/api/sessions/{other}/hint").status_code == 200


def slow_to_go(monkeypatch) -> threading.Event:
    """Engine processes that take until the returned event is set to be joined (killed or not)."""
    gone = threading.Event()
    join = BaseProcess.join

    def slow_join(process: BaseProcess, timeout: float | None = None) -> None:
        if process.name == "dlgo-engine":
            gone.wait(PATIENCE)
        join(process, timeout)

    monkeypatch.setattr(BaseProcess, "join", slow_join)
    return gone


def test_closing_a_session_never_holds_up_the_server(tmp_path, monkeypatch):
    # an engine process slow to go (until the test says so) must not stop the server answering
    gone = slow_to_go(monkeypatch)
    try:
        with served(create_app(runs=tmp_path)) as url, httpx.Client(base_url=url, timeout=PATIENCE / 2) as http:
            sid = new(http)
            http.post(f"/api/sessions/{sid}/move", json={"action": 3})
            assert http.post(f"/api/sessions/{sid}/engine").status_code == 200
            assert http.delete(f"/api/sessions/{sid}").status_code == 204
            assert http.get("/api/catalog").status_code == 200  # while the process is still going
    finally:
        gone.set()


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads the processes in /proc (Linux)")
def test_dlgo_serves_engine_processes_start_without_the_clis_imports(tmp_path):
    # the console script, as a user starts it: its engine processes are forked from a fork
    # server, and hold no plotting, data-frame or network library they do not need
    port = free_port()
    server = subprocess.Popen([str(Path(sys.executable).with_name("dlgo")), "serve", "--port", str(port),
                               "--runs", str(tmp_path), "--state", str(tmp_path / "state")],
                              stdout=subprocess.DEVNULL, cwd=ROOT)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=PATIENCE) as http:
            eventually(lambda: server.poll() is None and responds(http), "dlgo serve listening")
            sid = new(http, game="tictactoe", white="random")
            http.post(f"/api/sessions/{sid}/move", json={"action": 4})
            assert http.post(f"/api/sessions/{sid}/engine").status_code == 200
            engines = [pid for pid in descendants(server.pid) if not children(pid)
                       and "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text()]
            assert len(engines) == 1 and engines[0] not in children(server.pid)  # forked by the fork server
            maps = Path(f"/proc/{engines[0]}/maps").read_text()
            assert not [name for name in ("pandas", "matplotlib", "tensorflow") if f"/{name}/" in maps]
    finally:
        server.terminate()
        server.wait(PATIENCE)


def responds(http: httpx.Client) -> bool:
    try:
        return http.get("/api/catalog").status_code == 200
    except httpx.TransportError:
        return False


def children(pid: int) -> list[int]:
    return [int(c) for task in Path(f"/proc/{pid}/task").glob("*")
            for c in (task / "children").read_text().split()]


def descendants(pid: int) -> list[int]:
    below = children(pid)
    return below + [d for child in below for d in descendants(child)]
