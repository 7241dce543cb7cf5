"""``dlgo league``: a class's bot files against each other and the references, a
leaderboard, and reruns that play again only the games of a bot whose file changed."""
from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pytest

from dlgo.app.cli import main
from dlgo.arena.roster import find_bots, league_schedule
from dlgo.core.errors import DlgoError, SpecError
from dlgo.formats.records import read_games

BOTS = Path(__file__).parent / "bots"
GREEDY = '''"""Wins at once where it can, else plays at random."""
import random

from dlgo.core.agent import Agent, Decision


class Greedy(Agent):
    """Takes a winning move when there is one."""

    def __init__(self, seed: int | None = None):
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, state):
        moves = state.legal_moves()
        for move in moves:
            if state.apply_move(move).winner() == state.next_player:
                return Decision(move, 1)
        return Decision(self.rng.choice(moves), 1)
'''
QUICK = ["--move-seconds", "1", "--workers", "1", "--games-per-pair", "2", "--positions", "6"]


@pytest.fixture()
def classroom(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("prints", "raises", "hangs"):
        shutil.copy(BOTS / f"{name}.py", folder / f"{name}.py")
    (folder / "greedy.py").write_text(GREEDY)
    (folder / "_helpers.py").write_text("# not a bot: a module the bots may import\n")
    return folder


def league(folder: Path, out: Path, *more: str) -> int:
    return main(["league", "--game", "tictactoe", "--bots", str(folder), "--out", str(out),
                 "--references", "random", "mcts:rounds=10", *QUICK, *more])


def test_a_league_rates_every_bot_and_reruns_only_what_changed(classroom, tmp_path, capsys):
    out = tmp_path / "league"
    assert league(classroom, out) == 0
    printed = capsys.readouterr().out
    assert "leaderboard:" in printed and "hangs" in printed
    games = read_games(out / "games.csv")
    assert len(games) == 6 * 2 + 4 * 2 * 2  # every pair of bots, every bot against each reference
    board = (out / "leaderboard.md").read_text()
    for name in ("greedy", "prints", "raises", "hangs"):
        assert f"| **{name}** |" in board
    table = board.split("## References")[0]
    assert "_helpers" not in board and str(classroom) not in table  # the board names bots, not paths
    assert "vs random" in board and "vs mcts:rounds=10" in board and "mistakes" in board
    assert re.search(r"\*\*hangs\*\*: \d+ timeout", board) and "gave no answer within its 1 s" in board
    assert "ValueError: no idea what to do (raises.py, line 15, in choose)" in board
    page = (out / "leaderboard.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "data:image/png;base64," in page
    assert not re.search(r"(src|href)=\"(?!data:)", page)  # self-contained: nothing fetched from elsewhere
    with (out / "ratings.csv").open() as handle:
        rated = {row["engine"] for row in csv.DictReader(handle)}
    ids = {bot.name: bot.id for bot in find_bots(classroom)}
    assert rated == set(ids.values()) | {"random", "mcts:rounds=10"}
    assert f"| greedy | `{ids['greedy']}` | `greedy.py` |" in board and f"<td>{ids['greedy']}</td>" in page
    assert {"timeout", "exception"} <= {r.ending for r in games}

    before = (out / "games.csv").read_bytes()
    assert league(classroom, out) == 0  # a rerun plays nothing
    assert (out / "games.csv").read_bytes() == before

    old = {bot.name: bot.id for bot in find_bots(classroom)}
    (classroom / "prints.py").write_text((classroom / "prints.py").read_text() + "\n# a student's change\n")
    assert league(classroom, out) == 0
    new = {bot.name: bot.id for bot in find_bots(classroom)}
    assert new["prints"] != old["prints"] and new["greedy"] == old["greedy"]
    replaced = read_games(out / "replaced-games.csv")
    assert len(replaced) == 3 * 2 + 2 * 2 and all(old["prints"] in (r.black, r.white) for r in replaced)
    now = read_games(out / "games.csv")
    assert len(now) == len(games) and not any(old["prints"] in (r.black, r.white) for r in now)
    kept = {r.game_id: r.moves for r in games if old["prints"] not in (r.black, r.white)}
    assert {r.game_id: r.moves for r in now if r.game_id in kept} == kept  # everyone else's games stand
    assert (out / "bots" / old["prints"].split("@")[1] / "prints.py").is_file()  # the old code is kept

    (classroom / "raises.py").unlink()  # a bot that left the class
    assert league(classroom, out) == 0
    assert not any(old["raises"] in (r.black, r.white) for r in read_games(out / "games.csv"))
    assert "raises" not in (out / "leaderboard.md").read_text().split("## References")[0]


def test_a_connect_four_league_rates_on_the_course_scale(classroom, tmp_path, capsys):
    solo = tmp_path / "solo"
    solo.mkdir()
    (solo / "greedy.py").write_text(GREEDY)
    out = tmp_path / "c4"
    assert main(["league", "--game", "connect4", "--bots", str(solo), "--out", str(out), *QUICK]) == 0
    board = (out / "leaderboard.md").read_text()
    assert "on the course's connect4 scale" in board and "`random` held at 0" in board
    assert "| `alphabeta:depth=4,nodes=0` | 1067 | pinned |" in board
    assert re.search(r"\| \*\*greedy\*\* \| -?\d+ \| -?\d+ to -?\d+ \| 8 \|", board)
    assert "% of 6 |" in board  # judged on six of the shipped solved positions


def test_a_league_refuses_what_it_cannot_play_in_one_line(classroom, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["league", "--bots", str(empty), "--out", str(tmp_path / "x")]) == 2
    assert "holds no bot files" in capsys.readouterr().err
    assert main(["league", "--bots", str(tmp_path / "absent"), "--out", str(tmp_path / "x")]) == 2
    assert "no folder of bots" in capsys.readouterr().err
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.md").write_text("my notes")
    assert league(classroom, mine) == 2
    err = capsys.readouterr().err
    assert err.startswith("dlgo: error:") and err.count("\n") == 1 and "Traceback" not in err
    assert sorted(p.name for p in mine.iterdir()) == ["notes.md"]  # nothing written
    assert league(classroom, tmp_path / "x", "--references", "nonsense") == 2
    assert "unknown engine 'nonsense'" in capsys.readouterr().err


def test_the_schedule_pairs_bots_with_each_other_and_with_each_reference():
    tasks = league_schedule(["a@1", "b@2"], ["random", "mcts"], 2, seed=0)
    pairs = {frozenset((t.black, t.white)) for t in tasks}
    assert pairs == {frozenset(p) for p in (("a@1", "b@2"), ("a@1", "random"), ("a@1", "mcts"),
                                            ("b@2", "random"), ("b@2", "mcts"))}
    assert len(tasks) == 10 and league_schedule(["a@1", "b@2"], ["random", "mcts"], 2, seed=0) == tasks
    with pytest.raises(SpecError, match="at least one bot"):
        league_schedule([], ["random"], 2, 0)

def test_a_bot_file_misnamed_is_left_out_and_the_others_play(tmp_path, caplog):
    (tmp_path / "my bot.py").write_text(GREEDY)
    (tmp_path / "2nd.py").write_text(GREEDY)
    with pytest.raises(DlgoError, match="with a name it can enter"):
        find_bots(tmp_path)
    (tmp_path / "greedy.py").write_text(GREEDY)
    assert [bot.name for bot in find_bots(tmp_path)] == ["greedy"]
    assert "left out 2nd.py, my bot.py" in caplog.text and "rename it" in caplog.text


def test_a_bot_imports_the_helper_modules_beside_it(tmp_path, capsys):
    folder = tmp_path / "helped"
    folder.mkdir()
    (folder / "_moves.py").write_text("def first(moves):\n    return moves[0]\n")
    (folder / "helped.py").write_text(
        "from _moves import first\n\nfrom dlgo.core.agent import Agent, Decision\n\n\n"
        "class Helped(Agent):\n    def choose(self, state):\n        return Decision(first(state.legal_moves()), 1)\n")
    out = tmp_path / "league"
    assert main(["league", "--game", "tictactoe", "--bots", str(folder), "--out", str(out), "--references",
                 "random", *QUICK]) == 0
    games = read_games(out / "games.csv")
    assert len(games) == 2 and all(r.ending in ("win", "draw") for r in games), [r.note for r in games]
    (folder / "_moves.py").write_text("def first(moves):\n    raise ValueError('changed')\n")
    copy = next((out / "bots").glob("*/_moves.py"))
    assert "return moves[0]" in copy.read_text()  # the copy keeps the helper the bot played with


def test_a_bot_that_finishes_no_game_is_listed_and_rates_nobody(tmp_path, capsys):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "greedy.py").write_text(GREEDY)
    shutil.copy(BOTS / "broken.py", folder / "broken.py")
    out = tmp_path / "league"
    assert main(["league", "--game", "tictactoe", "--bots", str(folder), "--out", str(out), "--references",
                 "random", *QUICK]) == 0
    assert "broken" in capsys.readouterr().out
    board = (out / "leaderboard.md").read_text()
    assert re.search(r"\| - \| \*\*broken\*\* \| - \| finished no game \|", board)
    assert "broken.py does not load: SyntaxError" in board and "(1, 1)" not in board
    with (out / "ratings.csv").open() as handle:
        assert {row["engine"] for row in csv.DictReader(handle)} == {find_bots(folder)[1].id, "random"}
    assert "rate nobody" in (out / "summary.md").read_text()
    assert len(read_games(out / "games.csv")) == 3 * 2  # its games are kept all the same
