"""What the web server keeps on disk: games that survive a restart, games from
SGF, the network files a game plays pinned when it begins, and a plain answer
for a game the server does not have."""
from __future__ import annotations

import json
import os
import shutil
import time
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from dlgo.app.web import safety  # noqa: E402
from dlgo.app.web.safety import Pins  # noqa: E402
from dlgo.app.web.saved import SavedGames  # noqa: E402
from dlgo.app.web.server import create_app  # noqa: E402
from dlgo.formats.sgf import read_sgf  # noqa: E402
from engines.checkpoints import SHIPPED  # noqa: E402

#: a 9x9 game from SGF: black stones set up on C7 and G7, a white one on C3, then white E5 and black D6
SGF = "(;FF[4]GM[1]SZ[9]KM[6.5]PB[Ann]PW[Bob]AB[cc][gc]AW[cg];W[ee];B[dd])"


@pytest.fixture
def folders(tmp_path) -> tuple[Path, Path]:
    """The runs folder and the state folder of a server."""
    runs = tmp_path / "runs"
    runs.mkdir()
    return runs, tmp_path / "state"


def server(folders: tuple[Path, Path], **options) -> TestClient:
    runs, state = folders
    return TestClient(create_app(runs=runs, state=state, time_limit=5.0, grace=3.0, **options))


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


def error_of(response, status: int) -> str:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert message and "\n" not in message and "Traceback" not in message
    return message


def damaged_network(path: Path) -> None:
    """A tic-tac-toe network whose metadata is whole and whose weights are not: it fails as it loads."""
    with zipfile.ZipFile(SHIPPED / "tictactoe.keras") as source, zipfile.ZipFile(path, "w") as target:
        for entry in source.namelist():
            target.writestr(entry, source.read(entry) if entry.endswith(".json") else b"damaged")


# ------------------------------------------------------------------ a restart
def test_a_game_goes_on_after_the_server_restarts(folders):
    with server(folders) as client:
        game = ok(client.post("/api/sessions", json={"game": "tictactoe", "black": "human",
                                                     "white": "alphazero:checkpoint=tictactoe,simulations=20",
                                                     "seed": 5}), 201)
        ok(client.post(f"/api/sessions/{game['id']}/move", json={"move": "b2"}))
        before = ok(client.post(f"/api/sessions/{game['id']}/engine"))
    with server(folders) as client:  # a new server on the same folder: the game is read back when asked for
        after = ok(client.get(f"/api/sessions/{game['id']}"))
        assert after["moves"] == before["moves"] and after["human_to_move"] and after["seed"] == 5
        assert after["players"]["O"] == "alphazero:checkpoint=tictactoe,simulations=20"
        free = next(move["action"] for move in after["legal"])
        ok(client.post(f"/api/sessions/{game['id']}/move", json={"action": free}))
        reply = ok(client.post(f"/api/sessions/{game['id']}/engine"))  # its network, pinned, plays on
        assert len(reply["moves"]) == 4
        ok(client.post(f"/api/sessions/{game['id']}/undo"))
    with server(folders) as client:
        assert len(ok(client.get(f"/api/sessions/{game['id']}"))["moves"]) == 2  # the undo was saved too
        assert client.delete(f"/api/sessions/{game['id']}").status_code == 204
    with server(folders) as client:  # a closed game is gone for good
        assert "start a new one" in error_of(client.get(f"/api/sessions/{game['id']}"), 404)


def test_a_finished_game_by_resignation_is_read_back(folders):
    with server(folders) as client:
        game = ok(client.post("/api/sessions", json={"game": "connect4", "black": "human", "white": "human"}), 201)
        for move in ("4", "5", "resign"):
            ok(client.post(f"/api/sessions/{game['id']}/move", json={"move": move}))
    with server(folders) as client:
        view = ok(client.get(f"/api/sessions/{game['id']}"))
        assert view["over"] and view["result"]["describe"] == "yellow wins by resignation"
        assert [m["text"] for m in view["moves"]] == ["4", "5", "resign"]


def test_a_game_the_server_does_not_have_is_said_plainly(folders):
    with server(folders) as client:
        message = error_of(client.get("/api/sessions/abcdefgh"), 404)
        assert message == "no game with id 'abcdefgh': it was closed, or left idle too long; start a new one"
        assert "start a new one" in error_of(client.post("/api/sessions/abcdefgh/move", json={"move": "a1"}), 404)
        assert "no game has an id like that" in error_of(client.get("/api/sessions/a.b"), 404)
        assert "start a new one" in error_of(client.delete("/api/sessions/abcdefgh"), 404)


def test_a_saved_game_that_cannot_be_read_back_says_why(folders):
    with server(folders) as client:
        game = ok(client.post("/api/sessions", json={"game": "tictactoe", "white": "human"}), 201)
    path = folders[1] / "games" / f"{game['id']}.json"
    saved = json.loads(path.read_text())
    path.write_text(json.dumps({**saved, "moves": [4, 4]}))  # the same point twice
    with server(folders) as client:
        message = error_of(client.get(f"/api/sessions/{game['id']}"), 404)
        assert "cannot be read back" in message and "start a new one" in message
    path.write_text("{not json")
    with server(folders) as client:
        assert "cannot be read back" in error_of(client.get(f"/api/sessions/{game['id']}"), 404)


def test_a_game_left_idle_is_deleted_from_disk_too(folders):
    with server(folders) as client:
        game = ok(client.post("/api/sessions", json={"game": "tictactoe", "white": "human"}), 201)
        path = folders[1] / "games" / f"{game['id']}.json"
        assert path.is_file()
        store = client.app.state.store
        store.idle_seconds = 0.2  # from now on, however long the machine took to get here
        time.sleep(0.3)
        store.expire()
        assert not path.exists()
        assert "start a new one" in error_of(client.get(f"/api/sessions/{game['id']}"), 404)


# ------------------------------------------------------------------ games from SGF
def test_a_game_starts_from_an_sgf_record_at_its_end(folders):
    with server(folders) as client:
        view = ok(client.post("/api/sessions/sgf", json={"sgf": SGF, "black": "human", "white": "random"}), 201)
        assert view["game"]["spec"] == "go:size=9,komi=6.5"
        assert [m["text"] for m in view["moves"]] == ["E5", "D6"] and view["moves"][0]["player"] == "white"
        assert view["board"][6][2] == 1 and view["board"][6][6] == 1 and view["board"][2][2] == 2  # C7, G7; C3
        assert view["captures"] == {"black": 0, "white": 0} and view["next_player"] == "white"
        reply = ok(client.post(f"/api/sessions/{view['id']}/engine"))
        assert len(reply["moves"]) == 3
        record = read_sgf(client.get(f"/api/sessions/{view['id']}/record").text)
        assert len(record.setup[record.moves[0][0].other]) + len(record.setup[record.moves[0][0]]) == 3
    with server(folders) as client:  # read back after a restart: the set-up stones too
        again = ok(client.get(f"/api/sessions/{view['id']}"))
        assert again["board"] == reply["board"] and again["moves"] == reply["moves"]
        undone = ok(client.post(f"/api/sessions/{view['id']}/undo"))  # back into the record's moves: black's turn
        assert [m["text"] for m in undone["moves"]] == ["E5"] and undone["human_to_move"]


def test_an_engine_process_replays_a_game_from_sgf_with_its_set_up_stones():
    from dlgo.app.web.sessions import sgf_game
    from dlgo.app.web.workers import Setup, replay_actions

    final = sgf_game(SGF)
    setup = Setup.of(final)
    assert setup is not None and len(setup.black) == 2 and len(setup.white) == 1 and setup.first == "white"
    actions = tuple(final.move_to_index(m) for m in final.move_history())
    replayed = replay_actions(final.game.spec, actions, setup=setup)  # as the engine's process makes it
    assert replayed.zobrist_hash() == final.zobrist_hash() and replayed.next_player == final.next_player
    assert Setup.of(replay_actions("go:size=9,handicap=2", ())) is None  # a game's own start needs no setup


@pytest.mark.parametrize("sgf, words", [
    ("not a game", "not a readable SGF game"),
    ("(;GM[1]SZ[25];B[aa])", "larger than the browser plays"),
    ("(;GM[1]SZ[9];B[ee];W[ee])", "move 2"),
    ("(;GM[1]SZ[9]KM[1e308])", "komi"),
])
def test_an_sgf_record_that_cannot_start_a_game_is_400(folders, sgf, words):
    with server(folders) as client:
        assert words in error_of(client.post("/api/sessions/sgf", json={"sgf": sgf}), 400)


def test_an_sgf_record_with_long_comments_is_accepted(folders):
    long = SGF[:-1] + ";W[ff]C[" + "a long comment " * 4000 + "])"  # 60 KB: more than other requests may send
    with server(folders) as client:
        assert len(ok(client.post("/api/sessions/sgf", json={"sgf": long}), 201)["moves"]) == 3


# ------------------------------------------------------------------ networks pinned
def test_a_network_swapped_for_a_link_after_the_game_begins_is_not_loaded(folders, tmp_path):
    runs, _ = folders
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    damaged_network(elsewhere / "theirs.keras")
    shutil.copyfile(SHIPPED / "tictactoe.keras", runs / "mine.keras")
    with server(folders) as client:
        spec = f"alphazero:checkpoint={runs / 'mine.keras'},simulations=10"
        game = ok(client.post("/api/sessions", json={"game": "tictactoe", "white": spec}), 201)
        (runs / "mine.keras").unlink()
        (runs / "mine.keras").symlink_to(elsewhere / "theirs.keras")  # before the first move
        ok(client.post(f"/api/sessions/{game['id']}/move", json={"move": "b2"}))
        reply = ok(client.post(f"/api/sessions/{game['id']}/engine"))  # the network as it was checked
        assert len(reply["moves"]) == 2 and reply["players"]["O"] == spec and reply["report"]["engine"] == spec


def test_a_network_parameter_is_checked_as_its_engine_reads_it(folders, tmp_path):
    """alphazero's checkpoint is one file: a set of that name under runs/ does not vouch for it."""
    runs, _ = folders
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copyfile(SHIPPED / "tictactoe.keras", elsewhere / "theirs.keras")
    shutil.copyfile(SHIPPED / "tictactoe.keras", runs / "set-policy.keras")
    (runs / "set").symlink_to(elsewhere / "theirs.keras")
    with server(folders) as client:
        body = {"game": "tictactoe", "white": f"alphazero:checkpoint={runs / 'set'}"}
        assert "names no network" in error_of(client.post("/api/sessions", json=body), 400)


def test_the_copies_of_networks_no_game_plays_are_removed(folders, monkeypatch):
    with server(folders) as client:
        game = ok(client.post("/api/sessions", json={"game": "go:size=9", "white": "alphago:checkpoint=go9"}), 201)
        copies = folders[1] / "networks"
        [pinned] = list(copies.iterdir())
        assert sorted(p.name for p in pinned.iterdir()) == ["go9-policy.keras", "go9-rollout.npz", "go9-value.keras"]
        monkeypatch.setattr(safety, "PIN_GRACE", 0.0)
        client.app.state.store.expire()
        assert pinned.is_dir()  # its game plays it
        client.delete(f"/api/sessions/{game['id']}")
        client.app.state.store.expire()
        assert not pinned.exists()


# ------------------------------------------------------------------ what a pass would end the game with
def test_a_human_to_move_is_told_what_a_pass_would_end_the_game_with(folders):
    with server(folders) as client:
        game = ok(client.post("/api/sessions", json={"game": "go:size=9", "black": "human", "white": "human"}), 201)
        ending = f"/api/sessions/{game['id']}/pass-ending"
        assert ok(client.get(ending)) == {"at_once": False, "text": "W+7.5", "winner": "white",
                                          "describe": "W+7.5 (white wins)"}
        ok(client.post(f"/api/sessions/{game['id']}/move", json={"move": "E5"}))
        ok(client.post(f"/api/sessions/{game['id']}/move", json={"move": "pass"}))
        assert ok(client.get(ending)) == {"at_once": True, "text": "B+73.5", "winner": "black",
                                          "describe": "B+73.5 (black wins)"}
        tictactoe = ok(client.post("/api/sessions", json={"game": "tictactoe", "white": "human"}), 201)
        assert ok(client.get(f"/api/sessions/{tictactoe['id']}/pass-ending")) is None
        engine_to_move = ok(client.post("/api/sessions", json={"game": "go:size=9", "black": "random"}), 201)
        assert ok(client.get(f"/api/sessions/{engine_to_move['id']}/pass-ending")) is None  # only a human is asked
        assert "start a new one" in error_of(client.get("/api/sessions/nosuchgame/pass-ending"), 404)


# ------------------------------------------------------------------ the state folder
def test_dlgo_serve_holds_its_state_folder_and_finds_it_by_xdg(tmp_path, monkeypatch):
    from dlgo.app.web import server as web_server

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert web_server.default_state() == tmp_path / "xdg" / "dlgo" / "serve"
    seen = {}

    def run(app, **options):  # instead of serving: what the server was given, while it runs
        seen["folder"] = app.state.store.folder
        seen["manifest"] = json.loads((app.state.store.folder / "run.json").read_text())

    monkeypatch.setattr(web_server.uvicorn, "run", run)
    web_server.serve(runs=tmp_path)
    assert seen == {"folder": (tmp_path / "xdg" / "dlgo" / "serve").resolve(), "manifest": {"kind": "serve"}}
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "run.json").write_text('{"kind": "train-alphazero"}')
    with pytest.raises(Exception, match="holds other files: dlgo serve keeps its games in a folder of its own"):
        web_server.serve(state=tmp_path / "training", runs=tmp_path)


def test_the_state_folder_is_the_servers_own_and_it_deletes_only_what_it_made(tmp_path, monkeypatch):
    """`dlgo serve --state .` in a project: refused, since expiring games deletes
    files. And in its own folder the server deletes only the names it makes:
    games of its 16-character ids, copies named by their digest."""
    from dlgo.app.web import server as web_server

    project = tmp_path / "project"
    (project / "games").mkdir(parents=True)
    (project / "networks" / "run1").mkdir(parents=True)
    (project / "games" / "run.json").write_text("{}")
    with pytest.raises(Exception, match="holds other files"):
        web_server.serve(state=project, runs=tmp_path)
    assert (project / "games" / "run.json").exists() and (project / "networks" / "run1").is_dir()

    store = tmp_path / "state"
    (store / "games").mkdir(parents=True)
    (store / "networks" / "mine").mkdir(parents=True)
    (store / "networks" / ("0" * 32)).mkdir()
    for name in ("notes", "AAAAAAAAAAAAAAAA"):
        (store / "games" / f"{name}.json").write_text("{}")
    old = time.time() - 7 * 86_400
    for path in [*(store / "games").iterdir(), *(store / "networks").iterdir()]:
        os.utime(path, (old, old))
    assert SavedGames(store / "games").stale(60) == ["AAAAAAAAAAAAAAAA"]
    assert [p.name for p in Pins(store / "networks").collect([], grace=60)] == ["0" * 32]
    assert (store / "networks" / "mine").is_dir()
