"""The web server's HTTP API (``dlgo serve``), through FastAPI's test client and a live server.

Sessions, engines in their own processes, every kind of bad request, the time
limit, ten games at once, records and the report pages.
"""
from __future__ import annotations

import concurrent.futures
import shutil
import zipfile
from pathlib import Path

import pytest

fastapi = pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402
import httpx2 as httpx  # noqa: E402

from dlgo.app import cli  # noqa: E402
from dlgo.app.web.server import MAX_BODY, create_app  # noqa: E402
from dlgo.formats.sgf import read_sgf  # noqa: E402
from engines.checkpoints import SHIPPED  # noqa: E402
from helpers import served  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def client(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    app = create_app(runs=runs, reports=ROOT / "reports", time_limit=5.0, max_sessions=4, grace=3.0)
    with TestClient(app) as test_client:
        yield test_client


def new(client, game="tictactoe", black="human", white="alphabeta", **extra):
    response = client.post("/api/sessions", json={"game": game, "black": black, "white": white, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def error_of(response, status):
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert message and "\n" not in message and "Traceback" not in message
    return message


def test_the_catalog_comes_from_the_registries_and_offers_no_program_to_start(client):
    catalog = client.get("/api/catalog").json()
    assert {g["name"] for g in catalog["games"]} >= {"go", "tictactoe", "connect4", "gomoku", "mnk"}
    engines = {e["name"]: e for e in catalog["engines"]}
    assert {"random", "minimax", "alphabeta", "mcts", "predictor", "alphazero", "alphago"} <= set(engines)
    assert "gtp" not in engines  # it needs the command of a program
    assert [p["name"] for p in engines["gnugo"]["parameters"]].count("path") == 0
    mcts = {p["name"]: p for p in engines["mcts"]["parameters"]}
    assert mcts["c"]["default"] is None and "rollout" in mcts and "go9-rollout" in mcts["rollout"]["files"]
    assert "connect4" in {f for p in engines["alphazero"]["parameters"] if p["name"] == "checkpoint"
                          for f in p["files"]}


def test_the_catalog_says_which_games_a_parameter_acts_on_and_offers_it_only_there(client):
    def mcts(game=None):
        engines = client.get("/api/catalog", params={"game": game} if game else {}).json()["engines"]
        return {p["name"]: p for p in next(e for e in engines if e["name"] == "mcts")["parameters"]}

    anywhere = mcts()
    for name in ("rave", "rave_equiv", "priors", "expand", "manage", "patterns"):  # Go's search alone has them
        assert anywhere[name]["games"] == ["go"], name
    assert "games" not in anywhere["rounds"] and "games" not in anywhere["seconds"]
    assert {"rave", "priors", "expand", "manage", "patterns"} <= set(mcts("go:size=9"))
    tictactoe = mcts("tictactoe")
    assert not {"rave", "rave_equiv", "priors", "expand", "manage", "patterns"} & set(tictactoe)
    assert {"rounds", "seconds", "c", "rollout"} <= set(tictactoe)
    board = client.get("/api/catalog", params={"game": "go:size=13"}).json()["board"]  # the empty board, to draw
    assert (board["rows"], board["style"], board["sides"]) == (13, "go", {"black": "black", "white": "white"})
    games = {g["name"]: g for g in client.get("/api/catalog").json()["games"]}
    assert games["connect4"]["spec"] == "connectn:columns=7,rows=6,n=4"  # a page finds a game's form by its spec


def test_an_engine_time_over_the_servers_limit_is_said_in_every_answer(client):
    game = new(client, white="mcts:seconds=30", hint="alphabeta:seconds=60")
    assert game["notes"] == ["O (mcts:seconds=30): seconds cut to 5 (the server's limit)",
                             "hint (alphabeta:seconds=60): seconds cut to 5 (the server's limit)"]
    after = client.post(f"/api/sessions/{game['id']}/move", json={"move": "b2"}).json()
    assert after["notes"] == game["notes"]
    assert new(client, white="mcts:seconds=5")["notes"] == [] and new(client, white="human")["notes"] == []


def test_a_human_move_then_the_engines_reply_with_its_search(client):
    game = new(client, white="mcts:rounds=200,seed=3")
    assert game["human_to_move"] and len(game["legal"]) == 9 and game["board"] == [[0] * 3] * 3
    after = client.post(f"/api/sessions/{game['id']}/move", json={"action": 4}).json()
    assert after["board"][1][1] == 1 and not after["human_to_move"] and after["legal"] == []
    reply = client.post(f"/api/sessions/{game['id']}/engine")
    assert reply.status_code == 200, reply.text
    view = reply.json()
    assert [m["player"] for m in view["moves"]] == ["X", "O"] and view["human_to_move"]  # the game's names
    report = view["report"]
    assert report["engine"] == "mcts:rounds=200,seed=3" and report["player"] == "O"
    assert sum(report["visits"]) == 200 and report["top"][0]["move"] == view["moves"][1]["text"]
    assert report["compute"]["unit"] == "rounds" and report["compute"]["amount"] == 200
    assert view["last_move"]["text"] == view["moves"][1]["text"]


def test_an_illegal_move_gets_the_reason_and_the_turn_stays(client):
    game = new(client, white="alphabeta")
    client.post(f"/api/sessions/{game['id']}/move", json={"move": "b2"})
    client.post(f"/api/sessions/{game['id']}/engine")
    before = client.get(f"/api/sessions/{game['id']}").json()
    assert "occupied" in error_of(client.post(f"/api/sessions/{game['id']}/move", json={"action": 4}), 400)
    assert "not on the board" in error_of(client.post(f"/api/sessions/{game['id']}/move", json={"move": "z9"}), 400)
    assert "outside" in error_of(client.post(f"/api/sessions/{game['id']}/move", json={"action": 99}), 400)
    after = client.get(f"/api/sessions/{game['id']}").json()
    assert after["moves"] == before["moves"] and after["human_to_move"]


def test_requests_out_of_turn_are_refused_with_409(client):
    game = new(client)
    assert "human" in error_of(client.post(f"/api/sessions/{game['id']}/engine"), 409)
    client.post(f"/api/sessions/{game['id']}/move", json={"action": 0})
    assert "turn" in error_of(client.post(f"/api/sessions/{game['id']}/move", json={"action": 1}), 409)
    assert "no move to take back" in error_of(client.post(f"/api/sessions/{new(client)['id']}/undo"), 409)


@pytest.mark.parametrize("body, words", [
    ({"game": "chess", "black": "human", "white": "random"}, "unknown game"),
    ({"game": "go:size=25", "black": "human", "white": "random"}, "larger than the browser plays"),
    ({"game": "go:sise=9", "black": "human", "white": "random"}, "no parameter"),
    ({"game": "tictactoe", "black": "human", "white": "stockfish"}, "unknown engine"),
    ({"game": "tictactoe", "black": "mcts:rounds=many", "white": "human"}, "must be int"),
    ({"game": "tictactoe", "black": "gtp:cmd=/bin/sh", "white": "human"}, "program"),
    ({"game": "go", "black": "gnugo:path=/bin/sh", "white": "human"}, "cannot be set from a page"),
    ({"game": "tictactoe", "black": "predictor:model=/etc/passwd", "white": "human"}, "names no network"),
    ({"game": "tictactoe", "black": "alphazero:checkpoint=../../etc/hosts", "white": "human"}, "names no network"),
    ({"game": "tictactoe", "black": "human", "white": "random", "colour": "red"}, "colour: no such field"),
    ({"game": "tictactoe", "black": "human", "white": "random", "seed": -1}, "seed"),
    ({"black": "human", "white": "random"}, "game: Field required"),
    ({"game": "x" * 400, "black": "human", "white": "random"}, "at most 300 characters"),
])
def test_bad_specs_and_bodies_get_400_with_a_clear_line(client, body, words):
    assert words in error_of(client.post("/api/sessions", json=body), 400)


def test_malformed_and_oversized_requests(client):
    assert "not valid JSON" in error_of(client.post("/api/sessions", content=b"{game:",
                                                    headers={"Content-Type": "application/json"}), 400)
    big = b'{"game": "' + b"g" * (MAX_BODY + 10) + b'"}'
    assert "larger than" in error_of(client.post("/api/sessions", content=big,
                                                 headers={"Content-Type": "application/json"}), 413)

    def chunks():  # no Content-Length: the limit counts what arrives
        for _ in range(40):
            yield b" " * 1024

    assert "larger than" in error_of(client.post("/api/sessions", content=chunks(),
                                                 headers={"Content-Type": "application/json"}), 413)
    assert "no game" in error_of(client.get("/api/sessions/nonexistent"), 404)
    assert "no game" in error_of(client.get("/api/sessions/" + "a" * 100), 404)
    assert error_of(client.get("/api/nothing-here"), 404)


def test_an_engine_that_fails_shows_why_and_the_session_goes_on(client, tmp_path):
    # a network whose metadata is whole (the session is made) and whose weights are not: it fails as it loads
    damaged = tmp_path / "runs" / "damaged.keras"
    with zipfile.ZipFile(SHIPPED / "tictactoe.keras") as source, zipfile.ZipFile(damaged, "w") as target:
        for entry in source.namelist():
            target.writestr(entry, source.read(entry) if entry.endswith(".json") else b"damaged")
    game = new(client, white=f"alphazero:checkpoint={damaged}")
    client.post(f"/api/sessions/{game['id']}/move", json={"action": 4})
    response = client.post(f"/api/sessions/{game['id']}/engine")
    message = error_of(response, 502)
    assert "damaged" in message
    assert response.json()["session"]["message"] == message
    hint = client.post(f"/api/sessions/{game['id']}/hint", json={"engine": "alphabeta"})
    assert hint.status_code == 200 and hint.json()["hint"]["engine"] == "alphabeta"
    assert client.post(f"/api/sessions/{game['id']}/undo").json()["moves"] == []


def test_an_engine_past_the_time_limit_is_stopped_and_the_session_goes_on(tmp_path):
    app = create_app(runs=tmp_path, time_limit=0.5, grace=1.0)
    with TestClient(app) as client:
        game = new(client, game="connect4", white="minimax")  # plain minimax to the end: it never finishes
        client.post(f"/api/sessions/{game['id']}/move", json={"action": 3})
        message = error_of(client.post(f"/api/sessions/{game['id']}/engine"), 504)
        # stopped at its deadline, the time limit and the grace of its search (however long its start took)
        assert "did not answer within 1.5 s" in message
        view = client.get(f"/api/sessions/{game['id']}").json()
        assert not view["busy"] and len(view["moves"]) == 1
        # the same session still plays: a hint from another engine, in a fresh process
        hint = client.post(f"/api/sessions/{game['id']}/hint", json={"engine": "mcts:rounds=50"}).json()
        assert hint["hint"]["move"] in [str(c) for c in range(1, 8)]


def test_hint_undo_and_a_game_to_its_end(client):
    game = new(client, white="alphabeta")
    sid = game["id"]
    hint = client.post(f"/api/sessions/{sid}/hint", json={}).json()["hint"]  # the opponent's engine
    assert hint["engine"] == "alphabeta" and hint["player"] == "X" and hint["value"] == 0.0
    while True:  # black follows alpha-beta's hints: a perfect game, a draw
        view = client.get(f"/api/sessions/{sid}").json()
        if view["over"]:
            break
        if view["human_to_move"]:
            hint = client.post(f"/api/sessions/{sid}/hint", json={}).json()["hint"]
            client.post(f"/api/sessions/{sid}/move", json={"action": hint["action"]})
        else:
            client.post(f"/api/sessions/{sid}/engine")
    assert view["result"]["winner"] == "draw" or view["result"]["text"] == "1/2-1/2"
    assert "game is over" in error_of(client.post(f"/api/sessions/{sid}/move", json={"action": 0}), 409)
    undone = client.post(f"/api/sessions/{sid}/undo").json()
    assert undone["human_to_move"] and len(undone["moves"]) == 8  # back to black's last turn


def test_go_pass_twice_scores_and_the_record_is_sgf(client):
    game = new(client, game="go:size=9", black="human", white="human")
    sid = game["id"]
    assert game["game"]["star_points"] and game["game"]["column_labels"][8] == "J"
    client.post(f"/api/sessions/{sid}/move", json={"move": "E5"})
    one = client.post(f"/api/sessions/{sid}/move", json={"move": "pass"}).json()
    assert one["passes_end_game"] and not one["over"]
    view = client.post(f"/api/sessions/{sid}/move", json={"move": "pass"}).json()
    assert view["over"] and view["result"]["text"] == "B+73.5"
    record = client.get(f"/api/sessions/{sid}/record")
    assert record.headers["content-type"].startswith("application/x-go-sgf")
    assert 'filename="' in record.headers["content-disposition"]
    sgf = read_sgf(record.text)
    assert [m.point for m in sgf.plies()[0] if m.point][:1][0].row == 5


def test_a_move_list_record_for_games_without_sgf(client):
    game = new(client, game="connect4", white="human")
    client.post(f"/api/sessions/{game['id']}/move", json={"move": "4"})
    text = client.get(f"/api/sessions/{game['id']}/record").text
    assert "game: connectn:columns=7,rows=6,n=4\n" in text and "moves: 4" in text and "result: unfinished" in text
    assert "\nred: human\nyellow: human\n" in text  # the sides by the game's names


def test_networks_under_the_runs_folder_play_and_others_are_refused(tmp_path):
    runs, elsewhere = tmp_path / "runs", tmp_path / "elsewhere"
    runs.mkdir()
    elsewhere.mkdir()
    shutil.copyfile(SHIPPED / "tictactoe.keras", runs / "mine.keras")
    shutil.copyfile(SHIPPED / "tictactoe.keras", elsewhere / "theirs.keras")
    (runs / "link.keras").symlink_to(elsewhere / "theirs.keras")
    with TestClient(create_app(runs=runs)) as client:
        catalog = client.get("/api/catalog").json()
        assert str(runs / "mine.keras") in catalog["networks"]["keras"] or "mine" in str(catalog["networks"])
        new(client, white=f"alphazero:checkpoint={runs / 'mine.keras'},simulations=10")
        for path in (elsewhere / "theirs.keras", runs / "link.keras"):
            body = {"game": "tictactoe", "black": "human", "white": f"alphazero:checkpoint={path}"}
            assert "names no network" in error_of(client.post("/api/sessions", json=body), 400)


def test_the_session_limit_and_closing(client):
    ids = [new(client, white="random")["id"] for _ in range(4)]
    assert "most this server keeps" in error_of(client.post("/api/sessions", json={
        "game": "tictactoe", "black": "human", "white": "random"}), 409)
    assert client.delete(f"/api/sessions/{ids[0]}").status_code == 204
    assert "no game" in error_of(client.get(f"/api/sessions/{ids[0]}"), 404)
    new(client, white="random")


def test_report_pages_and_their_files_and_nothing_outside(client):
    reports = client.get("/api/reports").json()
    assert any(r["path"] == "ch04b_mcts/summary.md" for r in reports)
    page = client.get("/api/reports/ch04b_mcts/summary.md").json()
    assert page["title"].startswith("Chapter 4") and "<table>" in page["html"]
    assert 'src="/reports/ch04b_mcts/tournament/strength_vs_compute.png"' in page["html"]
    assert 'href="#/reports/ch04b_mcts/tournament/summary.md"' in page["html"]
    picture = client.get("/reports/ch04b_mcts/tournament/strength_vs_compute.png")
    assert picture.status_code == 200 and picture.headers["content-type"] == "image/png"
    for bad in ("../pyproject.toml", "..%2F..%2Fetc%2Fpasswd", "ch04b_mcts/../../setup.py", "nothing/summary.md"):
        assert error_of(client.get(f"/reports/{bad}"), 404)
        assert error_of(client.get(f"/api/reports/{bad}"), 404)


def test_reports_that_share_a_title_are_told_apart(client):
    titles = [r["title"] for r in client.get("/api/reports").json()]
    assert len(titles) == len(set(titles))
    reports = {r["path"]: r["title"] for r in client.get("/api/reports").json()}
    assert reports["ch10_policy_gradient-go9/summary.md"] == "Chapter 10: policy gradients (go9)"
    assert reports["ch05_numpy_network-go5/summary.md"] == "Chapter 5: a neural network from scratch (go5)"
    assert reports["ch05_numpy_network/summary.md"] == "Chapter 5: a neural network from scratch"


def test_titles_are_told_apart_by_whole_words_else_by_path():
    from dlgo.app.web.reports import distinct_titles

    def titles(*reports: tuple[str, str, str]) -> list[str]:
        return [r["title"] for r in distinct_titles([{"path": p, "folder": f, "title": t} for p, f, t in reports])]

    assert titles(("a-go5/summary.md", "a-go5", "A"), ("a-go7/summary.md", "a-go7", "A"), ("b/s.md", "b", "B")) \
        == ["A (go5)", "A (go7)", "B"]
    assert titles(("x/one.md", "x", "A"), ("x/two.md", "x", "A")) == ["A (x/one.md)", "A (x/two.md)"]


def test_report_titles_are_never_read_through_a_link_out_of_the_folder(tmp_path):
    reports, outside = tmp_path / "reports", tmp_path / "outside"
    (reports / "mine").mkdir(parents=True)
    (reports / "mine" / "summary.md").write_text("# Mine\n")
    (outside / "folder").mkdir(parents=True)
    (outside / "secret.md").write_text("# The secret's first line\n")
    (outside / "folder" / "summary.md").write_text("# Another secret\n")
    (reports / "linked").mkdir()
    (reports / "linked" / "summary.md").symlink_to(outside / "secret.md")
    (reports / "linked-folder").symlink_to(outside / "folder")
    with TestClient(create_app(runs=tmp_path, reports=reports)) as client:
        listed = client.get("/api/reports").json()
        assert listed == [{"path": "mine/summary.md", "folder": "mine", "title": "Mine"}]
        assert "secret" not in client.get("/api/reports").text.lower()


def test_the_page_and_its_scripts_are_served_from_the_package(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script type="module" src="/static/app.js">' in page.text
    assert "http" not in page.text.replace("http://www.w3.org/2000/svg", "")  # nothing from a CDN
    for name in ("app.js", "board.js", "reports.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200


# ---------------------------------------------------------------- a live server


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    """The app served by uvicorn on 127.0.0.1, in a thread: its base URL."""
    with served(create_app(runs=tmp_path_factory.mktemp("runs"), reports=ROOT / "reports", time_limit=5.0,
                           max_sessions=16, max_engines=10)) as url:  # ten engines at once, whatever the memory
        yield url


def test_ten_games_at_once_each_get_their_engines_reply(live_server):
    def one_game(k: int) -> int:
        with httpx.Client(base_url=live_server, timeout=60) as http:
            game = http.post("/api/sessions", json={"game": "connect4", "black": "human",
                                                    "white": f"mcts:rounds=300,seed={k}"}).json()
            http.post(f"/api/sessions/{game['id']}/move", json={"action": k % 7})
            reply = http.post(f"/api/sessions/{game['id']}/engine")
            assert http.get("/api/catalog").status_code == 200  # the server answers while ten engines think
            http.delete(f"/api/sessions/{game['id']}")
            return len(reply.json()["moves"])

    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        assert list(pool.map(one_game, range(10))) == [2] * 10


def test_dlgo_serve_says_in_one_line_when_its_port_is_taken(live_server, capsys):
    port = int(live_server.rsplit(":", 1)[1])
    assert cli.main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dlgo: error: cannot listen on 127.0.0.1:") and err.count("\n") == 1


def test_an_old_alphazero_spec_with_gumbel_plays_in_the_browser(client):
    """``alphazero:...,gumbel=K`` (Gumbel AlphaZero's spec before it had a name) starts a game."""
    for spec in ("alphazero:checkpoint=tictactoe,simulations=8,gumbel=4",
                 "alphazero:checkpoint=tictactoe,simulations=8,gumbel=0"):
        game = new(client, white=spec)
        assert game["human_to_move"]
