"""Bots of users' own in the browser: ``dlgo serve --bots FOLDER``.

The folder's bots are offered and asked for by name, never by a file; one that does
not load is listed with the reason; a bot's fault during a game (it raises, plays an
illegal move, runs out of time) loses that game by forfeit with the reason on the
page, and the server goes on; its process ends with its session. Without the folder,
a spec that names a file (or a package's engine) is an unknown engine, and nothing
is loaded for it.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from pathlib import Path

import pytest

fastapi = pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from dlgo.app import cli  # noqa: E402
from dlgo.app.web.bots import BotFolder  # noqa: E402
from dlgo.app.web.server import create_app  # noqa: E402
from engines import bots as engine_bots  # noqa: E402
from engines import registry  # noqa: E402
from engines.bots import BotLimits  # noqa: E402
from helpers import free_port  # noqa: E402
from test_web import error_of, new as new_session  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "tests" / "bots"
#: seconds a test waits for what must happen before it calls it a failure (never reached when all is well)
PATIENCE = 60.0
#: a bot with a parameter: it plays the legal move ``pick`` places from the first
PICKS = '''"""A bot with a parameter."""
from dlgo.core.agent import Agent, Decision


class Picks(Agent):
    """Plays the legal move ``pick`` places from the first."""

    def __init__(self, pick: int = 1, loud: bool = False):
        super().__init__()
        self.pick = pick

    def choose(self, state):
        moves = state.legal_moves()
        return Decision(moves[self.pick % len(moves)], 1)
'''
LIMITS = BotLimits(move_seconds=1.0, startup_seconds=20.0)


@pytest.fixture
def folder(tmp_path):
    """A folder of bots, as a user keeps one: two that play, one that does not load, a helper module."""
    bots = tmp_path / "my bots"
    bots.mkdir()
    for name in ("prints", "raises", "broken", "illegal", "hangs", "crashes", "exits"):
        shutil.copy(BOTS / f"{name}.py", bots)
    (bots / "picks.py").write_text(PICKS)
    (bots / "_helpers.py").write_text("VALUE = 1\n")
    return bots


def app_with(tmp_path, bots=None, **options):
    options = {"runs": tmp_path, "time_limit": 5.0, "grace": 3.0, **options}
    return create_app(bots=bots, bot_limits=LIMITS, **options) if bots is not None else create_app(**options)


@pytest.fixture
def client(tmp_path, folder):
    with TestClient(app_with(tmp_path, folder)) as test_client:
        yield test_client


@pytest.fixture
def plain(tmp_path):
    """A server without --bots."""
    with TestClient(app_with(tmp_path)) as test_client:
        yield test_client


def new(client, white="prints", **extra):
    """A new game (tic-tac-toe, a human against ``prints`` unless told otherwise): its view."""
    return new_session(client, white=white, **extra)


def bot_hosts(pid: int) -> list[int]:
    """The bots' processes (``dlgo.arena.bot_host``) below process ``pid``."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for kid in kids:
            try:
                command = Path(f"/proc/{kid}/cmdline").read_bytes()
            except OSError:
                continue
            found += ([kid] if b"dlgo.arena.bot_host" in command else []) + bot_hosts(kid)
    return found


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def eventually(check, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {PATIENCE:g} s"
        time.sleep(0.05)


@pytest.fixture
def nothing_loads(monkeypatch):
    """Fail the test if a bot's process would start, or a bot's spec reach the registry."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"a bot was loaded: {args}")

    monkeypatch.setattr(engine_bots, "BotProcess", refuse)
    monkeypatch.setattr(engine_bots, "split_bot_spec", refuse)
    made = registry.create

    def create(spec, **overrides):
        assert not engine_bots.is_bot(spec), spec
        return made(spec, **overrides)

    monkeypatch.setattr(registry, "create", create)


# ---------------------------------------------------------------- the catalog
def test_the_catalog_offers_each_bot_by_its_name_and_never_a_path(client, folder):
    answer = client.get("/api/catalog")
    assert answer.status_code == 200
    catalog = answer.json()
    listed = {bot["name"]: bot for bot in catalog["bots"]}
    assert sorted(listed) == ["broken", "crashes", "exits", "hangs", "illegal", "picks", "prints",
                              "raises"]  # not _helpers
    assert listed["prints"] == {"name": "prints", "available": True, "reason": ""}
    assert not listed["broken"]["available"]
    assert listed["broken"]["reason"] == "broken.py does not load: SyntaxError: expected ':' (broken.py, line 5)"
    engines = {e["name"]: e for e in catalog["engines"]}
    assert engines["prints"]["bot"] and engines["prints"]["label"] == "prints (your bot)"
    assert engines["prints"]["description"].startswith("Plays the last legal move")
    assert "broken" not in engines and "bot" not in engines["mcts"]
    assert engines["picks"]["parameters"] == [{"name": "pick", "type": "int", "default": 1},
                                              {"name": "loud", "type": "bool", "default": False}]
    assert catalog["limits"]["bots"] == {"move_seconds": 1.0, "memory_mb": 2048, "startup_seconds": 20.0}
    text = answer.text
    assert str(folder) not in text and "my bots" not in text and ".py:" not in text
    # for one game too, and the server keeps no bot's process once it has described it
    assert {e["name"] for e in client.get("/api/catalog", params={"game": "connect4"}).json()["engines"]} \
        >= {"prints", "raises", "picks"}
    if Path("/proc/self/task").exists():
        assert bot_hosts(os.getpid()) == []


def test_a_bots_parameters_are_checked_in_its_process_when_the_game_is_made(client):
    game = new(client, white="picks:pick=2")
    assert game["players"]["O"] == "picks:pick=2"
    sid = game["id"]
    client.post(f"/api/sessions/{sid}/move", json={"move": "a1"})
    view = client.post(f"/api/sessions/{sid}/engine").json()
    assert view["moves"][1]["text"] == "a2"  # a1 taken: the legal moves are b1 c1 a2 ..., the third
    assert "no parameter 'depth'" in error_of(client.post("/api/sessions", json={
        "game": "tictactoe", "white": "picks:depth=3"}), 400)
    assert "pick" in error_of(client.post("/api/sessions", json={"game": "tictactoe", "white": "picks:pick=x"}), 400)
    message = error_of(client.post("/api/sessions", json={"game": "tictactoe", "white": "broken"}), 400)
    assert "broken cannot play" in message and "SyntaxError" in message and "my bots" not in message


# ---------------------------------------------------------------- playing
def test_a_game_against_a_bot_plays_its_moves(client):
    game = new(client, white="prints")
    sid = game["id"]
    assert game["players"] == {"X": "human", "O": "prints"} and game["notes"] == []
    for move, reply in (("b2", "c3"), ("a1", "b3")):  # it plays the last legal move
        assert client.post(f"/api/sessions/{sid}/move", json={"move": move}).status_code == 200
        view = client.post(f"/api/sessions/{sid}/engine")
        assert view.status_code == 200, view.text
        assert view.json()["moves"][-1] == {"player": "O", "text": reply, "action": view.json()["moves"][-1]["action"]}
    assert view.json()["report"]["engine"] == "prints" and view.json()["human_to_move"]
    # two bots play each other, and a bot gives hints
    both = new(client, game="connect4", black="prints", white="picks")
    for _ in range(4):
        assert client.post(f"/api/sessions/{both['id']}/engine").status_code == 200
    assert [m["text"] for m in client.get(f"/api/sessions/{both['id']}").json()["moves"]] == ["7", "2", "7", "2"]
    hint = client.post(f"/api/sessions/{sid}/hint", json={"engine": "picks:pick=0"})
    assert hint.status_code == 200 and hint.json()["hint"]["move"] == "b1"


def test_a_bot_that_raises_loses_by_forfeit_with_a_clear_message(client):
    game = new(client, game="connect4", white="raises")
    sid = game["id"]
    for column in (3, 4, 5):  # it raises on its third move
        assert client.post(f"/api/sessions/{sid}/move", json={"action": column}).status_code == 200
        reply = client.post(f"/api/sessions/{sid}/engine")
        assert reply.status_code == 200, reply.text
    view = reply.json()
    reason = "yellow (raises, raised an exception): ValueError: no idea what to do (raises.py, line 15, in choose)"
    assert view["over"] and view["result"]["winner"] == "red" and view["result"]["text"] == "1-0"
    assert view["result"]["describe"] == f"red wins by forfeit: {reason}"
    assert view["result"]["forfeit"] == {"side": "yellow", "engine": "raises", "fault": "exception", "reason": reason}
    assert view["message"] == ("yellow (raises) loses by forfeit: ValueError: no idea what to do "
                               "(raises.py, line 15, in choose)")
    assert view["moves"][-1]["text"] == "forfeit" and not view["busy"] and view["legal"] == []
    assert "Traceback" not in json.dumps(view) and "my bots" not in json.dumps(view)
    assert "the game is over" in error_of(client.post(f"/api/sessions/{sid}/engine"), 409)
    assert "result: 1-0" in client.get(f"/api/sessions/{sid}/record").text
    # the server goes on, and so does the game once the forfeit is taken back
    after = client.post(f"/api/sessions/{sid}/undo").json()
    assert not after["over"] and after["result"] is None and len(after["moves"]) == 4
    assert client.get("/api/catalog").status_code == 200


@pytest.mark.parametrize("bot, moves, fault, words", [
    ("illegal", ["b2", "c3"], "illegal-move", "O (illegal, illegal move): played a1: illegal move a1"),
    ("hangs", ["b2", "c3"], "timeout", "O (hangs, too slow): gave no answer within its 1 s for a move"),
    ("crashes", ["b2"], "crash", "O (crashes, crashed): its process ended (exit code 3)"),
    ("exits", ["b2"], "exit", "O (exits, exited): ended the interpreter (sys.exit('bye'))"),
])
def test_a_bot_that_plays_illegally_or_runs_out_of_time_loses_by_forfeit(client, bot, moves, fault, words):
    sid = new(client, white=bot)["id"]
    for move in moves:
        assert client.post(f"/api/sessions/{sid}/move", json={"move": move}).status_code == 200
        reply = client.post(f"/api/sessions/{sid}/engine")
        assert reply.status_code == 200, reply.text
    result = reply.json()["result"]
    assert result["forfeit"]["fault"] == fault and words in result["describe"] and result["winner"] == "X"


def test_a_hint_from_a_bot_that_fails_says_so_and_the_game_goes_on(client):
    sid = new(client, white="human", hint="illegal")["id"]
    assert client.post(f"/api/sessions/{sid}/hint").json()["hint"]["move"] == "a1"  # it always plays a1
    client.post(f"/api/sessions/{sid}/move", json={"move": "a1"})
    view = client.post(f"/api/sessions/{sid}/hint")
    assert view.status_code == 200 and view.json()["hint"] is None and not view.json()["over"]
    assert view.json()["message"].startswith("no hint from illegal: played a1: illegal move a1")
    assert client.post(f"/api/sessions/{sid}/move", json={"move": "b2"}).status_code == 200


def test_the_page_offers_the_bots_under_their_heading_and_shows_a_forfeit(tmp_path, folder):
    browser_tests = pytest.importorskip("test_browser")  # skipped, with the reason, without Chromium or Playwright
    if browser_tests.CHROMIUM is None:
        pytest.skip("no chromium here (Debian package chromium)")
    from helpers import served

    with served(app_with(tmp_path, folder)) as url, browser_tests.sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_tests.CHROMIUM,
                                             args=browser_tests.CHROMIUM_ARGS, headless=True)
        page = browser.new_page()
        page.set_default_timeout(90_000)
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready=true]")
        offered = page.eval_on_selector("#white-engine", "s => [...s.querySelectorAll('optgroup option')]"
                                                         ".map(o => [o.value, o.textContent, o.disabled])")
        assert ["prints", "prints (your bot)", False] in offered and ["broken",
                                                                      "broken (does not load)", True] in offered
        browser_tests.start(page, "tictactoe", "raises")
        for ply, (row, col) in enumerate(((2, 2), (3, 3), (2, 3))):  # it raises on its third move
            browser_tests.point(page, row, col).click()
            browser_tests.wait_for_turn(page, 2 * ply + 2)
        status = page.locator("#status").inner_text()
        assert status == ("Game over: X wins by forfeit: O (raises, raised an exception): ValueError: no idea "
                          "what to do (raises.py, line 15, in choose)"), status
        browser.close()


# ---------------------------------------------------------------- what a page may not ask for
FILE_SPECS = [str(BOTS / "prints.py"), "tests/bots/prints.py", "prints.py", "prints.py:Prints",
              "../bots/prints.py", "prints"]


@pytest.mark.parametrize("spec", FILE_SPECS)
def test_without_bots_a_spec_naming_a_file_is_refused_and_nothing_loads(plain, nothing_loads, spec):
    for body in ({"game": "tictactoe", "white": spec}, {"game": "tictactoe", "black": spec, "white": "human"},
                 {"game": "tictactoe", "white": "human", "hint": spec}):
        message = error_of(plain.post("/api/sessions", json=body), 400)
        assert "unknown engine" in message or "key=value" in message
        assert "your bots" not in message and "FILE.py" not in message
    sgf = plain.post("/api/sessions/sgf", json={"sgf": "(;GM[1]SZ[9];B[ee])", "white": spec})
    error_of(sgf, 400)
    sid = new(plain, white="human")["id"]
    error_of(plain.post(f"/api/sessions/{sid}/hint", json={"engine": spec}), 400)
    catalog = plain.get("/api/catalog").json()
    assert catalog["bots"] == [] and "bots" not in catalog["limits"]
    assert not [e for e in catalog["engines"] if e.get("bot")]


def test_with_bots_a_file_is_still_refused_the_bot_is_asked_for_by_name(tmp_path, folder, nothing_loads):
    with TestClient(app_with(tmp_path, folder)) as client:  # nothing loads: the names are refused before
        for spec in (str(folder / "prints.py"), "prints.py", f"{folder.name}/prints.py", "prints.py:Prints",
                     str(BOTS / "raises.py"), "_helpers"):
            message = error_of(client.post("/api/sessions", json={"game": "tictactoe", "white": spec}), 400)
            assert "unknown engine" in message or "key=value" in message
            assert str(folder) not in message


def test_a_link_that_leads_out_of_the_bots_folder_is_not_offered_and_never_loads(tmp_path, folder, monkeypatch):
    shutil.copy(BOTS / "prints.py", tmp_path / "evil.py")
    (folder / "linked.py").symlink_to("../evil.py")
    loaded = []
    made = engine_bots.BotProcess
    monkeypatch.setattr(engine_bots, "BotProcess", lambda source, limits: loaded.append(source.file)
                        or made(source, limits))
    with TestClient(app_with(tmp_path, folder)) as client:
        assert "linked" not in {bot["name"] for bot in client.get("/api/catalog").json()["bots"]}
        message = error_of(client.post("/api/sessions", json={"game": "tictactoe", "white": "linked"}), 400)
        assert "unknown engine 'linked'" in message
    assert loaded and str((tmp_path / "evil.py").resolve()) not in loaded  # the folder's own bots were loaded


def test_engines_that_installed_packages_register_are_not_offered(plain, monkeypatch, nothing_loads):
    monkeypatch.setattr(engine_bots, "entry_point_engines", lambda: {"pkgbot": "somepackage.bot:Bot"})
    assert "pkgbot" in registry.engine_names()  # the command line would play it
    assert "pkgbot" not in {e["name"] for e in plain.get("/api/catalog").json()["engines"]}
    assert "unknown engine 'pkgbot'" in error_of(plain.post("/api/sessions", json={
        "game": "tictactoe", "white": "pkgbot"}), 400)


# ---------------------------------------------------------------- processes and restarts
@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads the processes in /proc (Linux)")
def test_a_bots_process_ends_with_its_session_and_with_the_server(tmp_path, folder):
    app = app_with(tmp_path, folder)
    store = app.state.store
    with TestClient(app) as client:
        first, second = new(client)["id"], new(client)["id"]
        hosts = {}
        for sid in (first, second):
            client.post(f"/api/sessions/{sid}/move", json={"move": "b2"})
            assert client.post(f"/api/sessions/{sid}/engine").status_code == 200
            worker = store.get(sid).engine.pid
            hosts[sid] = bot_hosts(worker)
            assert hosts[sid] and all(running(pid) for pid in hosts[sid])
        assert client.delete(f"/api/sessions/{first}").status_code == 204
        eventually(lambda: not any(running(pid) for pid in hosts[first]), "the closed session's bot stopped")
        assert all(running(pid) for pid in hosts[second])
    eventually(lambda: not any(running(pid) for pid in hosts[second]), "the bot stopped with the server")
    assert bot_hosts(os.getpid()) == []


def test_a_game_with_a_bot_goes_on_after_a_restart_only_where_the_bot_is_offered(tmp_path, folder):
    state = tmp_path / "state"
    with TestClient(app_with(tmp_path, folder, state=state)) as client:
        sid = new(client)["id"]
        client.post(f"/api/sessions/{sid}/move", json={"move": "b2"})
        client.post(f"/api/sessions/{sid}/engine")
        lost = new(client, game="connect4", white="raises")["id"]
        for column in (3, 4, 5):
            client.post(f"/api/sessions/{lost}/move", json={"action": column})
            client.post(f"/api/sessions/{lost}/engine")
    saved = (state / "games" / f"{sid}.json").read_text()
    assert '"spec": "prints"' in saved
    with TestClient(app_with(tmp_path, folder, state=state)) as client:
        view = client.get(f"/api/sessions/{sid}").json()
        assert [m["text"] for m in view["moves"]] == ["b2", "c3"]
        client.post(f"/api/sessions/{sid}/move", json={"move": "a1"})
        assert client.post(f"/api/sessions/{sid}/engine").json()["moves"][-1]["text"] == "b3"
        result = client.get(f"/api/sessions/{lost}").json()["result"]
        assert result["forfeit"]["fault"] == "exception" and result["text"] == "1-0"
    with TestClient(app_with(tmp_path, state=state)) as client:  # no --bots: the saved file is never loaded
        message = error_of(client.get(f"/api/sessions/{sid}"), 404)
        assert "bot 'prints'" in message and "does not offer" in message


def test_a_saved_game_is_read_back_and_its_bot_checked_off_the_event_loop(tmp_path, folder, monkeypatch):
    """Reading a game back (after a restart) checks its bot in a process of its own, seconds for a
    bot slow to load: never on the event loop, which answers every other request meanwhile."""
    state = tmp_path / "state"
    with TestClient(app_with(tmp_path, folder, state=state)) as client:
        ids = [new(client)["id"] for _ in range(7)]
    on_loop = []
    played = BotFolder.played

    def checked(self, spec):
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            on_loop.append(False)
        else:
            on_loop.append(True)
        return played(self, spec)

    monkeypatch.setattr(BotFolder, "played", checked)
    with TestClient(app_with(tmp_path, folder, state=state)) as client:
        answers = [client.get(f"/api/sessions/{ids[0]}"),
                   client.post(f"/api/sessions/{ids[1]}/move", json={"move": "b2"}),
                   client.post(f"/api/sessions/{ids[2]}/undo"),  # no move to take back
                   client.get(f"/api/sessions/{ids[3]}/record"),
                   client.get(f"/api/sessions/{ids[4]}/pass-ending"),
                   client.post(f"/api/sessions/{ids[5]}/engine"),  # a human to move
                   client.post(f"/api/sessions/{ids[6]}/hint", json={"engine": "picks:pick=2"})]
        assert [a.status_code for a in answers] == [200, 200, 409, 200, 200, 409, 200], [a.text for a in answers]
    assert on_loop == [False] * (2 * len(ids) + 1)  # each game's bot and hint engine, and the hint asked for


# ---------------------------------------------------------------- the command line
def test_dlgo_serve_takes_a_bots_folder_and_the_bots_limits(tmp_path, folder, monkeypatch, capsys):
    from dlgo.app.web import server

    given = {}
    monkeypatch.setattr(server, "serve", lambda *args, **options: given.update(options))
    assert cli.main(["serve", "--port", str(free_port()), "--bots", str(folder), "--move-seconds", "2",
                     "--bot-memory", "512", "--bot-startup", "5", "--state", str(tmp_path / "state")]) == 0
    assert given["bots"] == str(folder) and given["bot_limits"] == BotLimits(2.0, 512, 5.0)
    monkeypatch.undo()
    assert cli.main(["serve", "--port", str(free_port()), "--bots", str(tmp_path / "none"),
                     "--state", str(tmp_path / "state")]) == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and err.count("\n") == 1
