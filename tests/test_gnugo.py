"""GNU Go as the referee: whole games over GTP, the SGF they leave, area
scores and move legality checked against GNU Go's own (the readable board's
and the compiled board's), handicap points.

GNU Go comes from Debian (``apt-get install gnugo``; `make test` installs it
where it can). Without it these tests skip and say why."""
import os
import random

import pytest

from dlgo.arena.tournament import run_tournament
from dlgo.formats.records import read_games
from engines import ENGINES
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.gtp.client import GNUGO, GNUGO_RULES, GtpClient
from dlgo.games.go.handicap import fixed_handicap_points
from dlgo.gtp.protocol import format_vertex
from dlgo.games.go import playouts
from dlgo.games.go.scoring import GameResult
from dlgo.games.go.state import compute_game_result
from dlgo.formats.sgf import read_sgf, sgf_to_state

pytestmark = pytest.mark.skipif(not os.access(GNUGO, os.X_OK),
                                reason=f"GNU Go is not installed at {GNUGO} (apt-get install gnugo)")

GNUGO_GTP = f"{GNUGO} {GNUGO_RULES} --level 1"


def played_out(seed: int, size: int = 9) -> GameState:
    """A random game to its end: both sides pass only when nothing but their
    own eyes is left, so no dead stones remain and area scoring is exact."""
    state, rng = GameState.new_game(size, komi=7.5), random.Random(seed)
    while not state.is_over():
        state = state.apply_move(state.random_move(rng))
    return state


@pytest.fixture(scope="module")
def gnugo():
    with GtpClient(GNUGO_GTP, timeout=30) as client:
        yield client


def test_a_full_game_against_gnugo_finishes_and_its_sgf_replays(tmp_path):
    spec = "gnugo:level=1"
    records = run_tournament(ENGINES, tmp_path, "go:size=9,komi=7.5", ["random", spec], games_per_pair=2, workers=1,
                             progress=False)
    assert len(records) == 2 and all(r.note == "" for r in records)
    assert all(r.winner == "white" if r.white == spec else r.winner == "black" for r in records)  # GNU Go wins
    assert read_games(tmp_path / "games.csv") == records
    files = sorted((tmp_path / "sgf").glob("*.sgf"))
    assert len(files) == 2
    for record, path in zip(sorted(records, key=lambda r: r.game_id), files):
        sgf = read_sgf(path.read_bytes())
        assert (sgf.black, sgf.white, sgf.result, sgf.komi) == (record.black, record.white, record.result, 7.5)
        from dlgo.formats.records import replay

        final = replay(record.game, record.moves)[-1]
        assert sgf_to_state(sgf).zobrist_hash() == final.zobrist_hash()


@pytest.mark.parametrize("seed", range(4))
def test_our_area_score_agrees_with_gnugo_under_chinese_rules(gnugo, seed):
    state = played_out(seed)
    gnugo.sync(state)
    assert gnugo.send("final_score") == str(compute_game_result(state))
    black, white = playouts.area_points(state)  # the compiled board's count, the playouts' and the search's
    assert gnugo.send("final_score") == str(GameResult(black, white, 7.5))


@pytest.mark.parametrize("seed", range(3))
def test_legal_moves_agree_with_gnugo(gnugo, seed):
    rng = random.Random(100 + seed)
    state, checked = GameState.new_game(9, komi=7.5), 0
    while not state.is_over() and state.num_moves_played < 150:
        if state.num_moves_played % 5 == 4:
            gnugo.sync(state)
            colour = state.next_player
            compiled = set(playouts.legal_plays(state))
            for row in range(1, 10):
                for col in range(1, 10):
                    move = Move.play(Point(row, col))
                    ours = state.is_valid_move(move)
                    theirs = gnugo.send(f"is_legal {colour} {format_vertex(move)}") == "1"
                    assert ours == theirs, (state.num_moves_played, move)
                    assert (state.move_to_index(move) in compiled) == theirs
                    checked += 1
        state = state.apply_move(state.random_move(rng))
    assert checked >= 81 * 20


@pytest.mark.parametrize("size, stones", [(19, n) for n in range(2, 10)] + [(13, 5), (9, 9), (9, 2), (8, 4),
                                                                            (7, 4)])
def test_fixed_handicap_points_agree_with_gnugo(gnugo, size, stones):
    gnugo.send(f"boardsize {size}")
    gnugo.send("clear_board")
    theirs = set(gnugo.send(f"fixed_handicap {stones}").split())
    gnugo._board = None  # its board no longer matches what sync sent
    assert theirs == {format_vertex(Move.play(p)) for p in fixed_handicap_points(size, stones)}


def test_gnugo_plays_our_gtp_engine_through_the_tournament_cli(tmp_path, capsys):
    import sys

    from dlgo.app.cli import main

    ours = f'gtp:cmd="{sys.executable} -m dlgo gtp --engine random --seed 1"'
    assert main(["tournament", "--game", "go:size=5,komi=0.5", "--engines", ours, f'gtp:cmd="{GNUGO_GTP}"',
                 "--games-per-pair", "2", "--out", str(tmp_path), "--workers", "1"]) == 0
    records = read_games(tmp_path / "games.csv")
    assert len(records) == 2 and all(r.note == "" for r in records)
    assert "gnugo" in (tmp_path / "summary.md").read_text()


def test_our_final_score_with_dead_stones_agrees_with_gnugo_on_20_games(tmp_path):
    """20 whole 9x9 games between our engine and GNU Go (which passes with dead
    stones on the board); our count with dead stones removed names GNU Go's
    winner in all but one and its margin in all but two. (The issue's yardstick,
    50 games each way, is reports/dead-stones/: 50 of 50 and 49 of 50 winners;
    the plain count of the board as it stands is far off.)"""
    from dlgo.arena.tournament import schedule
    from experiments.crosschecks import dead_stones

    tasks = schedule(["mcts:rounds=50,plain=true", dead_stones.gnugo(1, seed=1)], 20, seed=7)  # the same 20 games
    table = dead_stones.play_and_score(tmp_path, tasks, workers=2)
    result = dead_stones.agreement(table)
    assert result["games"] >= 19, result  # games ended by a resignation have nothing to count
    assert result["dead_stones_winner"] >= result["games"] - 1 and result["dead_stones_margin"] >= result["games"] - 2
    assert result["plain_margin"] < result["dead_stones_margin"]  # the estimate is what makes the difference


def test_label_games_gives_each_position_gnugos_move_and_resumes(tmp_path):
    """``dlgo label-games``: GNU Go labels the positions black (``--engine``) moved in
    with the move a fresh GNU Go (its seed fixed by the position's id) plays there; each position
    is stored as its game's prefix plus the teacher's move, its split is its game's, and
    a rerun after a kill labels only what is missing."""
    from dlgo.data.dataset import encode_dataset, split_of
    from dlgo.arena.tournament import task_seed
    from dlgo.data.labels import label_games, labelled_id
    from dataclasses import replace

    from dlgo.core.errors import SettingsMismatchError
    from dlgo.formats.records import GameRecord, replay, write_games

    moves = "D5 E5 D6 E6 D7 E7 F5 A1 F6 A2 F7 A3 E8 A4 J9 A5".split()
    source = GameRecord("t", "capture #0", "go:size=9,komi=7.5", "black-engine", "white-engine", "B+R", "black",
                        len(moves), 0.1, 0.1, 1, 1, "rounds", "rounds", 7, 0, " ".join(moves))
    write_games(tmp_path / "source.csv", [source])
    out = tmp_path / "labelled"
    records = label_games(ENGINES, tmp_path / "source.csv", out, "gnugo:level=0", engine="black-engine",
                          progress=False)
    assert sorted(r.game_id for r in records) == [labelled_id("capture #0", ply) for ply in range(0, 16, 2)]
    for r in records:
        ply = r.opening_plies
        assert r.plies == ply + 1 and r.moves.split()[:ply] == moves[:ply] and r.winner == "black"
        state = replay(source.game, " ".join(moves[:ply]))[-1]
        teacher = ENGINES.create("gnugo:level=0", seed=task_seed(0, r.game_id))
        assert r.moves.split()[-1] == state.format_move(teacher.choose(state).move)
        teacher.close()
        assert split_of(r.game_id) == split_of(source.game_id)
    assert len({r.moves.split()[-1] for r in records}) > 4  # not one move for all
    manifest = encode_dataset(out, progress=False)  # one training position per labelled record
    assert sum(manifest.split_sizes().values()) == len(records) == 8

    with (out / "games.csv").open("r+b") as handle:  # a kill in mid-write: two rows lost, one torn
        lines = handle.read().splitlines(keepends=True)
        handle.seek(0)
        handle.truncate()
        handle.write(b"".join(lines[:-3]) + lines[-3][:10])
    again = label_games(ENGINES, tmp_path / "source.csv", out, "gnugo:level=0", engine="black-engine",
                        progress=False)
    assert sorted(r.game_id for r in again) == sorted(r.game_id for r in records)
    both = label_games(ENGINES, tmp_path / "source.csv", out, "gnugo:level=0", engine="white-engine",
                       progress=False)  # white's positions join the same set
    assert sorted(r.opening_plies for r in both) == list(range(16))
    write_games(tmp_path / "other.csv", [replace(source, moves="C3 D4")])  # the same game id, another game
    with pytest.raises(SettingsMismatchError, match="source"):  # would be taken for labelled already
        label_games(ENGINES, tmp_path / "other.csv", out, "gnugo:level=0", progress=False)

