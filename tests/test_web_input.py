"""Bad input to the web server (``dlgo serve``) gets a 4xx and one line of JSON, and changes nothing.

Odd sizes, names no file can have, engines that cannot play the game (refused
when the session is made, not at the first move), the file lists a page is
offered, refused requests that must leave the session as it was, values of the
wrong type, and requests naming a host the server does not answer to.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from dlgo.app.web.server import SUITE, create_app  # noqa: E402
from engines.checkpoints import SHIPPED  # noqa: E402

LONG = "a" * 260  # longer than any file name may be (255)


@pytest.fixture
def runs(tmp_path) -> Path:
    folder = tmp_path / "runs"
    folder.mkdir()
    return folder


@pytest.fixture
def client(runs):
    with TestClient(create_app(runs=runs, time_limit=5.0, max_sessions=4, grace=3.0)) as test_client:
        yield test_client


def error_of(response, status: int | None = None) -> str:
    """The one-line error of a 4xx answer (of ``status`` when given)."""
    assert 400 <= response.status_code < 500 and response.status_code == (status or response.status_code), \
        response.text
    message = response.json()["error"]
    assert message and "\n" not in message and "Traceback" not in message
    return message


def new(client, game="tictactoe", black="human", white="random", **extra):
    return client.post("/api/sessions", json={"game": game, "black": black, "white": white, **extra})


# ------------------------------------------------------------------ item 3: no 500 for odd input
@pytest.mark.parametrize("size", ["1x2x3", "()", "9x", "9jx9", "Nonex9", "...x9", '"[9]x9"', "x9", "9xx9",
                                  '"(9,9)"', '"9,9,9"', "truex9", "1e3x9", "9.5x9", "nanx9", "-x9"])
def test_a_go_size_that_is_not_rows_x_columns_is_400(client, size):
    assert "size" in error_of(new(client, game=f"go:size={size}"), 400)


def test_a_network_name_no_file_can_have_is_400(client):
    assert "names no network" in error_of(new(client, white=f"alphazero:checkpoint={LONG}"), 400)
    assert error_of(new(client, white=f"alphazero:checkpoint={'a/' * 130}"), 400)
    game = new(client, game="go:size=9").json()
    for engine in (f"predictor:model={LONG}", f"mcts:rollout={LONG}", "predictor:model=a\u0000b"):
        assert "names no network" in error_of(client.post(f"/api/sessions/{game['id']}/hint",
                                                          json={"engine": engine}), 400)


@pytest.mark.parametrize("path", ["/api/reports/a%00b.md", "/reports/a%00.png", f"/api/reports/{LONG}.md",
                                  f"/reports/{LONG}.png", f"/reports/x/{LONG}/y.png", "/api/reports/%00"])
def test_a_report_path_no_file_can_have_is_404(client, path):
    assert "no report" in error_of(client.get(path), 404)


# ------------------------------------------------------------------ item 5: every check when the session is made
@pytest.mark.parametrize("game, engine, words", [
    ("tictactoe", "mcts:rounds=-1", "rounds"),
    ("tictactoe", "mcts:resign=1", "resign"),
    ("go:size=9", "gnugo:level=11", "level"),
    ("tictactoe", "predictor", "needs model"),
    ("tictactoe", "alphazero:checkpoint=connect4", "plays connect4"),
    ("connect4", "gnugo", "play Go"),
    ("go:size=9", "alphago", "needs policy"),
    ("go:size=9", "alphago:checkpoint=go9,lam=2", "lam"),
    ("tictactoe", "alphago:checkpoint=go9", "plays go"),
    ("connect4", "mcts:rollout=go9-rollout", "Go rollout policy"),
    ("tictactoe", "alphazero:checkpoint=checkpoints", "names no network"),
    ("tictactoe", f"alphazero:checkpoint={SHIPPED}", "names no network"),
    # a network of the wrong kind for the engine: its recorded heads, read without TensorFlow
    ("go:size=9", "predictor:model=go9-value", "go9-value has only a value head"),
    ("go:size=9", "pg:model=go9-value", "policy head"),
    ("go:size=9", "alphago:policy=go9-value,lam=1", "has only a value head"),
    ("go:size=9", "alphazero:checkpoint=go9-policy", "policy and value heads"),
    ("go:size=9", "ac:model=go9-policy", "go9-policy has only a policy head (its kind: predictor)"),
    ("go:size=9", "q:model=go9-policy", "action values head"),
    ("tictactoe", "q:model=tictactoe", "has only policy and value heads"),
])
def test_an_engine_that_cannot_play_the_game_is_refused_when_the_session_is_made(client, game, engine, words):
    assert words in error_of(new(client, game=game, white=engine), 400)
    assert words in error_of(new(client, game=game, black="human", white="random", hint=engine), 400)
    session = new(client, game=game).json()
    assert words in error_of(client.post(f"/api/sessions/{session['id']}/hint", json={"engine": engine}), 400)


def test_the_file_lists_offer_only_files_that_fit_the_parameter_and_the_game(client, runs):
    from dlgo.games.go.move_features import LEVEL_NAMES
    from engines.rollouts import MovePatterns, save_move_patterns

    shutil.copyfile(SHIPPED / "go9-rollout.npz", runs / "mine-rollout.npz")
    save_move_patterns(MovePatterns(np.full(len(LEVEL_NAMES), 2.0)), runs / "mine-patterns.npz")
    np.savez(runs / "buffer.npz", features=np.zeros((2, 3)), policies=np.zeros((2, 3)))  # a replay buffer
    (runs / "broken.keras").write_bytes(b"not a zip")

    def files(game: str | None = None) -> dict[str, dict[str, list[str]]]:
        catalog = client.get("/api/catalog", params={"game": game} if game else {}).json()
        return {e["name"]: {p["name"]: p["files"] for p in e["parameters"] if "files" in p}
                for e in catalog["engines"]}

    anywhere, go9, tictactoe = files(), files("go:size=9"), files("tictactoe")
    assert sorted(Path(f).name for f in anywhere["mcts"]["rollout"]) == ["go19-rollout", "go9-rollout",
                                                                         "mine-rollout.npz"]
    assert [Path(f).name for f in go9["mcts-go"]["patterns"]] == ["go19-patterns", "mine-patterns.npz"]  # not rollouts
    assert "patterns" not in tictactoe["mcts"]  # Go's search alone has it: not offered for tic-tac-toe
    assert not any("buffer" in f or "broken" in f for lists in anywhere.values() for f in sum(lists.values(), []))
    assert go9["alphago"]["policy"] == ["go9-policy", "go9-zero"] and go9["alphago"]["checkpoint"] == ["go9"]
    assert go9["alphago"]["value"] == ["go9-value", "go9-zero"] and go9["alphazero"]["checkpoint"] == ["go9-zero"]
    assert tictactoe["mcts"]["rollout"] == [] and tictactoe["alphago"]["checkpoint"] == []
    assert tictactoe["alphazero"]["checkpoint"] == ["tictactoe"] and tictactoe["q"]["model"] == []
    assert "connect4" in anywhere["alphazero"]["checkpoint"] and "go9-value" not in anywhere["predictor"]["model"]
    assert "board size" in error_of(client.get("/api/catalog", params={"game": "go:size=1x2"}), 400)
    patterns = next(f for f in go9["mcts-go"]["patterns"] if f.endswith("mine-patterns.npz"))
    session = new(client, game="go:size=5", white=f"mcts-go:rounds=20,patterns={patterns}")
    assert session.status_code == 201, session.text
    assert "not a move patterns file" in error_of(new(client, game="go:size=5",
                                                      white=f"mcts-go:patterns={runs / 'mine-rollout.npz'}"), 400)


# ------------------------------------------------------------------ item 6: a refused request changes nothing
def test_a_refused_hint_leaves_the_hint_engine_as_it_was(client):
    session = new(client, white="alphabeta").json()
    game = client.app.state.store.get(session["id"])
    game._claim()  # the engine thinking, as far as the session knows
    try:
        assert "thinking" in error_of(client.post(f"/api/sessions/{session['id']}/hint",
                                                  json={"engine": "mcts:rounds=10"}), 409)
    finally:
        game._busy.release()
    assert client.get(f"/api/sessions/{session['id']}").json()["hint_engine"] == "alphabeta"
    error_of(client.post(f"/api/sessions/{session['id']}/hint", json={"engine": "mcts:rounds=-1"}), 400)
    assert client.get(f"/api/sessions/{session['id']}").json()["hint_engine"] == "alphabeta"


@pytest.mark.parametrize("body", [{"action": "4"}, {"action": True}, {"action": 4.0}, {"move": 4},
                                  {"move": True}, {"move": ["b2"]}])
def test_a_move_of_the_wrong_type_is_refused_not_played(client, body):
    session = new(client).json()
    assert "bad request" in error_of(client.post(f"/api/sessions/{session['id']}/move", json=body), 400)
    assert client.get(f"/api/sessions/{session['id']}").json()["moves"] == []


@pytest.mark.parametrize("extra", [{"seed": "1"}, {"seed": True}, {"seed": 1.5}, {"hint": 5}, {"white": None}])
def test_a_new_game_with_a_value_of_the_wrong_type_is_refused(client, extra):
    assert "bad request" in error_of(new(client, **extra), 400)
    assert "bad request" in error_of(client.post("/api/sessions", json={"game": 9}), 400)


# ------------------------------------------------------------------ item 7: hosts, the docs, paths, komi
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "", "[::2]:8000",
                                  # a known name with more after it: only host[:port] is read, strictly
                                  "testserver:8765@evil.example", "testserver:8765, evil.example",
                                  "testserver, evil.example", "testserver:80:80", "testserver:", "testserver:99999",
                                  "testserver:8a", "testserver/x", "[::1]x", "[testserver]"])
def test_a_request_naming_another_host_is_refused(client, host):
    assert "host" in error_of(client.get("/api/catalog", headers={"host": host}), 400)
    assert "host" in error_of(client.post("/api/sessions", headers={"host": host},
                                          json={"game": "tictactoe"}), 400)


def test_two_host_headers_are_refused(client):
    two = [(b"host", b"evil.example"), (b"host", b"testserver")]
    assert "host" in error_of(client.get("/api/catalog", headers=two), 400)


def test_the_served_host_names_are_answered(runs):
    with TestClient(create_app(runs=runs, hosts=["localhost", "127.0.0.1", "::1", "play.example"])) as client:
        for host in ("localhost:8000", "127.0.0.1", "[::1]:8000", "PLAY.example:80"):
            assert client.get("/api/catalog", headers={"host": host}).status_code == 200, host
        assert error_of(client.get("/api/catalog"), 400)  # the test client's own name, not on this list


def test_the_api_documents_itself_without_a_cdn(client):
    assert error_of(client.get("/api/docs"), 404)
    assert client.get("/api/openapi.json").json()["info"]["title"] == "dlgo"


def test_errors_show_paths_relative_to_the_suite_not_where_it_is_installed(runs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a working folder outside the suite
    with TestClient(create_app(runs=runs)) as client:
        message = error_of(new(client, white="alphazero:checkpoint=../../etc/hosts"), 400)
        assert "names no network under checkpoints or runs" in message and str(SUITE) not in message


@pytest.mark.parametrize("komi", ["1e308", "-1e308", "1001", "nan", "inf"])
def test_a_komi_past_any_board_is_refused(client, komi):
    assert "komi" in error_of(new(client, game=f"go:size=9,komi={komi}"), 400)
    assert new(client, game="go:size=9,komi=-999.5").status_code == 201


def test_the_server_checks_networks_without_tensorflow():
    """Refusing a Connect Four network on tic-tac-toe reads the file's metadata, not its weights."""
    script = ("import sys; from engines import check_engine; from dlgo.games import new_game\n"
              "check_engine('alphago:checkpoint=go9', new_game('go:size=9'))\n"
              "try:\n    check_engine('alphazero:checkpoint=connect4', new_game('tictactoe'))\n"
              "except Exception as err:\n    print(type(err).__name__, err)\n"
              "print('tensorflow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["ModelFileError this model plays connect4, not this 3x3 tictactoe", "False"]
