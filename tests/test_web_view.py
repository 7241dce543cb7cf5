"""What the page draws, as the server's view gives it: each game's sides by
the names players know, star points, the winning line of a k-in-a-row game and
the count at the end of a Go game (territory, dead stones, the score's parts)."""
from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
from fastapi.testclient import TestClient  # noqa: E402

from dlgo.app.web.server import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(runs=tmp_path_factory.mktemp("runs"), reports=tmp_path_factory.mktemp("reports"))
    with TestClient(app) as test_client:
        yield test_client


def played(client, game: str, *moves: str) -> dict:
    """The view after ``moves`` (as typed) in a game between two humans."""
    response = client.post("/api/sessions", json={"game": game, "black": "human", "white": "human"})
    assert response.status_code == 201, response.text
    view = response.json()
    for move in moves:
        response = client.post(f"/api/sessions/{view['id']}/move", json={"move": move})
        assert response.status_code == 200, response.text
        view = response.json()
    client.delete(f"/api/sessions/{view['id']}")
    return view


@pytest.mark.parametrize("game, sides", [("go", {"black": "black", "white": "white"}),
                                         ("connect4", {"black": "red", "white": "yellow"}),
                                         ("tictactoe", {"black": "X", "white": "O"}),
                                         ("gomoku", {"black": "X", "white": "O"})])
def test_each_game_names_its_sides_as_players_do(client, game, sides):
    assert played(client, game)["game"]["sides"] == sides
    catalog = {g["name"]: g["sides"] for g in client.get("/api/catalog").json()["games"]}
    assert catalog[game] == [sides["black"], sides["white"]]  # the setup form names them before a game starts


def test_the_api_names_each_side_as_the_game_does_and_takes_either_name(client):
    view = played(client, "connect4", *"454545", "4")
    assert view["players"] == {"red": "human", "yellow": "human"} and view["captures"] == {"red": 0, "yellow": 0}
    assert [m["player"] for m in view["moves"][:2]] == ["red", "yellow"] and view["result"]["winner"] == "red"
    assert played(client, "tictactoe", "a1")["next_player"] == "O"
    assert played(client, "go:size=5", "C3", "pass", "pass")["count"]["black"]["total"] == 25  # Go: black and white
    # a request may name the sides as the game does (any case), or black and white as before
    for sides in ({"red": "random", "Yellow": "human"}, {"black": "random", "yellow": "human"}):
        response = client.post("/api/sessions", json={"game": "connect4", **sides})
        assert response.status_code == 201, response.text
        assert response.json()["players"] == {"red": "random", "yellow": "human"}
    for sides, message in (({"black": "random", "red": "human"}, "red: the side red (or black) is given twice"),
                           ({"X": "random"}, "X: no such field; the sides of connect4 are red and yellow"),
                           ({"red": 5}, "red: 'human' or an engine spec")):
        response = client.post("/api/sessions", json={"game": "connect4", **sides})
        assert response.status_code == 400 and message in response.json()["error"], response.text
    sgf = client.post("/api/sessions/sgf", json={"sgf": "(;GM[1]SZ[9];B[ee])", "White": "random"}).json()
    assert sgf["players"] == {"black": "human", "white": "random"}


def test_the_result_names_the_winner_by_its_side(client):
    assert played(client, "connect4", *"4545454")["result"]["describe"] == "red wins"
    assert played(client, "tictactoe", "a1", "resign")["result"]["describe"] == "X wins by resignation"
    assert played(client, "go:size=5", "C3", "pass", "pass")["result"]["describe"] == "B+17.5 (black wins)"


@pytest.mark.parametrize("size, count", [(9, 5), (13, 5), (19, 9)])
def test_star_points_as_go_boards_mark_them(client, size, count):
    view = played(client, f"go:size={size}")
    assert len(view["game"]["star_points"]) == count and [(size + 1) // 2] * 2 in view["game"]["star_points"]


def test_the_winning_line_is_given_once_a_line_wins(client):
    assert played(client, "tictactoe", "a1", "a2", "b1", "b2")["winning_line"] == []
    assert played(client, "tictactoe", "a1", "a2", "b1", "b2", "c1")["winning_line"] == [[1, 1], [1, 2], [1, 3]]
    assert played(client, "connect4", *"4545454")["winning_line"] == [[1, 4], [2, 4], [3, 4], [4, 4]]
    assert played(client, "connect4", *"454545", "resign")["winning_line"] == []  # no line won it
    # the last stone, b2, makes both diagonals: both are marked
    both = played(client, "tictactoe", "a1", "b1", "c1", "a2", "a3", "c2", "c3", "b3", "b2")
    assert sorted(map(tuple, both["winning_line"])) == [(1, 1), (1, 3), (2, 2), (3, 1), (3, 3)]


def test_a_finished_go_game_gives_its_count(client):
    assert played(client, "go:size=5", "C3", "pass")["count"] is None  # not over yet
    assert played(client, "go:size=5", "C3", "resign")["count"] is None  # over, but not counted
    view = played(client, "go:size=5", "C3", "pass", "pass")
    count = view["count"]
    assert count["owners"] == [[1] * 5] * 5 and count["dead"] == []
    assert count["black"] == {"stones": 1, "territory": 24, "komi": 0.0, "total": 25.0}
    assert count["white"] == {"stones": 0, "territory": 0, "komi": 7.5, "total": 7.5}
    assert view["result"]["text"] == "B+17.5" and view["winning_line"] == []
    assert played(client, "tictactoe", "a1", "a2", "b1", "b2", "c1")["count"] is None


def test_the_count_takes_dead_stones_off_as_the_result_does(client):
    walls = [text for row in range(1, 8) for text in (f"D{row}", f"E{row}")]  # black D, white E
    view = played(client, "go:size=7,komi=0.5,dead_stones=true", *walls, "pass", "B4", "pass", "pass")
    count = view["count"]
    assert count["dead"] == [[4, 2]] and count["owners"][3][1] == 1  # white's B4 is dead: black's point
    assert count["black"] == {"stones": 7, "territory": 21, "komi": 0.0, "total": 28.0}
    assert count["white"] == {"stones": 7, "territory": 14, "komi": 0.5, "total": 21.5}
    assert view["result"]["text"] == "B+6.5"
