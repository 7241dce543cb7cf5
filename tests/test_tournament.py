"""Matches and resumable round-robin tournaments."""
import dataclasses
import shutil
from collections import Counter
from pathlib import Path

import pytest

from dlgo.arena import tournament
from dlgo.arena.match import play_match
from dlgo.arena.tournament import play_games, run_tournament, schedule
from dlgo.core.errors import ModelFileError, RecordError
from dlgo.formats.records import GameRecord, ending_of, open_games_file, read_games, replay, write_games
from engines import ENGINES

SPECS = ["random", "alphabeta:depth=1", "mcts:rounds=20"]


def test_schedule_alternates_colours_and_is_fixed():
    tasks = schedule(SPECS, 4, seed=1)
    assert len(tasks) == 3 * 4 and len({t.game_id for t in tasks}) == 12
    for a, b in [("random", "alphabeta:depth=1"), ("random", "mcts:rounds=20")]:
        pair = [t for t in tasks if {t.black, t.white} == {a, b}]
        assert Counter(t.black for t in pair) == {a: 2, b: 2}
    assert schedule(SPECS, 4, seed=1) == tasks and schedule(SPECS, 4, seed=2) != tasks
    with pytest.raises(ValueError, match="only once"):
        schedule(["random", "random"], 2, 0)


def test_a_match_record_replays_to_its_result():
    record = play_match(ENGINES, "connect4", "mcts:rounds=30", "random", seed=5, opening_plies=2)
    states = replay(record.game, record.moves)
    assert states[-1].is_over() and len(states) - 1 == record.plies
    assert record.winner == {None: "draw"}.get(states[-1].winner(), getattr(states[-1].winner(), "name", None))
    assert record.black_unit == "rounds" and record.white_unit == "moves"
    assert 0 < record.black_compute <= 30 and record.white_compute == 1  # the solver may stop early
    assert record.black_seconds > 0 and record.result in ("1-0", "0-1", "1/2-1/2")
    again = play_match(ENGINES, "connect4", "mcts:rounds=30", "random", seed=5, opening_plies=2)
    assert again.moves == record.moves  # reproducible from the seed
    other = play_match(ENGINES, "connect4", "mcts:rounds=30", "random", seed=6, opening_plies=2)
    assert other.moves.split()[:2] != record.moves.split()[:2] or other.moves != record.moves


def test_go_match_result_is_a_score():
    record = play_match(ENGINES, "go:size=5", "random", "mcts:rounds=5", seed=1)
    assert record.result[:2] in ("B+", "W+") and record.winner in ("black", "white")
    assert score_sum(record) == 1.0


def score_sum(record: GameRecord) -> float:
    return record.score_for(record.black) + record.score_for(record.white)


def test_tournament_writes_every_game_once_and_a_rerun_plays_nothing(tmp_path):
    games = run_tournament(ENGINES, tmp_path / "t", "tictactoe", SPECS, 2, seed=3, workers=1, progress=False)
    assert len(games) == 6 and (tmp_path / "t" / "games.csv").exists()
    on_disk = read_games(tmp_path / "t" / "games.csv")
    assert [g.game_id for g in on_disk] == [g.game_id for g in games]
    assert on_disk[0].experiment == "t" and set(GameRecord.columns()) >= {"black_compute", "moves", "seed"}
    calls = []
    original = tournament.play_match
    tournament.play_match = lambda *a, **k: calls.append(a) or original(*a, **k)
    try:
        again = run_tournament(ENGINES, tmp_path / "t", "tictactoe", SPECS, 2, seed=3, workers=1, progress=False)
    finally:
        tournament.play_match = original
    assert calls == [] and len(again) == 6


def test_an_interrupted_tournament_resumes_without_duplicates(tmp_path, monkeypatch):
    out = tmp_path / "resume"
    played = []
    original = tournament.play_match

    def flaky(*args, **kwargs):
        if len(played) == 4:
            raise KeyboardInterrupt  # Ctrl-C during the fifth game
        played.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(tournament, "play_match", flaky)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(ENGINES, out, "connect4", SPECS, 4, seed=9, workers=1, progress=False)
    assert len(read_games(out / "games.csv")) == 4
    # a kill in mid-write leaves a torn line: it is dropped, and that game replayed
    with (out / "games.csv").open("a") as handle:
        handle.write("resume,random vs alpha")
    monkeypatch.setattr(tournament, "play_match", original)
    games = run_tournament(ENGINES, out, "connect4", SPECS, 4, seed=9, workers=1, progress=False)
    ids = [g.game_id for g in read_games(out / "games.csv")]
    assert sorted(ids) == sorted(t.game_id for t in schedule(SPECS, 4, seed=9))
    assert len(ids) == len(set(ids)) == 12 and len(games) == 12


def test_games_of_a_retrained_network_are_played_again(tmp_path, monkeypatch):
    """A spec naming a network file keeps its name when the file is retrained:
    its old games move aside and are replayed; the other games stay."""
    import json

    net = tmp_path / "net.keras"
    net.write_bytes(b"the first network")
    specs = [f"alphazero:checkpoint={net},simulations=2", "random", "mcts:rounds=2"]
    played = []

    def stand_in(factory, game, black, white, seed, opening_plies, experiment, game_id):
        played.append(game_id)  # random moves under the scheduled names: no network is loaded
        record = play_match(ENGINES, game, "random", "random", seed, opening_plies, experiment, game_id)
        return dataclasses.replace(record, black=black, white=white)

    monkeypatch.setattr(tournament, "play_match", stand_in)
    out = tmp_path / "arena"

    class StandInFactory:
        """The registry's network files, with random engines (the file is no real network)."""

        def create(self, spec, seed=None):
            return ENGINES.create("random", seed)

        def network_files(self, spec):
            return ENGINES.network_files(spec)

    def rerun() -> list[str]:
        played.clear()
        games = run_tournament(StandInFactory(), out, "tictactoe", specs, 2, seed=3, workers=1, progress=False)
        assert sorted(g.game_id for g in games) == sorted(t.game_id for t in schedule(specs, 2, seed=3))
        return sorted(played)

    assert len(rerun()) == 6
    assert rerun() == []  # the same network: nothing to play
    net.write_bytes(b"the retrained network")
    again = rerun()
    assert len(again) == 4 and all(specs[0] in game_id for game_id in again)
    replaced = read_games(out / "replaced-games.csv")
    assert sorted(g.game_id for g in replaced) == again
    assert len(read_games(out / "games.csv")) == 6
    (out / "networks.json").unlink()  # games from before the digests were kept: trusted
    net.write_bytes(b"a third network")
    assert rerun() == []
    assert list(json.loads((out / "networks.json").read_text())) == [specs[0]]


def test_parallel_workers_give_the_same_games(tmp_path):
    serial = run_tournament(ENGINES, tmp_path / "a", "tictactoe", SPECS, 2, seed=4, workers=1, progress=False)
    parallel = run_tournament(ENGINES, tmp_path / "b", "tictactoe", SPECS, 2, seed=4, workers=2, progress=False)
    key = lambda g: (g.game_id, g.moves, g.result)  # noqa: E731
    assert sorted(map(key, serial)) == sorted(map(key, parallel))


def test_two_runs_of_one_seed_differ_only_in_the_columns_that_measure_wall_time(tmp_path):
    """Same seed, same report: every column of games.csv, ratings.csv and crosstable.csv is the
    same in two runs but the wall-time measurements that docs/tournaments.md names."""
    import pandas as pd

    from dlgo.arena.report import MEASURED as RATED_SECONDS, write_report
    from dlgo.formats.records import MEASURED as PLAYED_SECONDS

    runs = [tmp_path / "a" / "run", tmp_path / "b" / "run"]  # one name: games.csv records the folder's
    for run in runs:
        records = run_tournament(ENGINES, run, "tictactoe", SPECS, 2, seed=4, workers=1, progress=False)
        write_report(run, records, bootstrap=20)
    for name, measured in (("games.csv", PLAYED_SECONDS), ("ratings.csv", RATED_SECONDS), ("crosstable.csv", ())):
        first, second = (pd.read_csv(run / name) for run in runs)
        assert set(measured) <= set(first.columns)
        key = "game_id" if name == "games.csv" else list(first.columns[:2])  # games may finish in another order
        first, second = (table.drop(columns=list(measured)).sort_values(key, ignore_index=True)
                         for table in (first, second))
        pd.testing.assert_frame_equal(first, second)


def test_batched_play_gives_the_same_games_and_resumes(tmp_path):
    serial = run_tournament(ENGINES, tmp_path / "a", "tictactoe", SPECS, 2, seed=4, workers=1, progress=False)
    tasks = schedule(SPECS, 2, seed=4)
    key = lambda g: (g.game_id, g.moves, g.result)  # noqa: E731
    first = play_games(ENGINES, tmp_path / "b", "tictactoe", tasks[:3], batch=2, progress=False)
    assert len(first) == 3
    batched = play_games(ENGINES, tmp_path / "b", "tictactoe", tasks, batch=4, progress=False)  # plays the rest
    assert sorted(map(key, serial)) == sorted(map(key, batched))
    assert len(read_games(tmp_path / "b" / "games.csv")) == len(tasks)


def test_finished_games_need_no_engine_gone_networks_included(tmp_path):
    """A resumed tournament whose games are all played rates them without building
    their engines (the scaling lab's finished boards keep no networks); a game
    still to play checks its engines first, and a missing network stops it."""
    network = tmp_path / "net.keras"
    shutil.copy(Path(__file__).resolve().parent.parent / "checkpoints" / "tictactoe.keras", network)
    specs = [f"alphazero:checkpoint={network},simulations=2", "random"]
    tasks = schedule(specs, 2, seed=6)
    first = play_games(ENGINES, tmp_path / "t", "tictactoe", tasks, workers=1, progress=False)
    network.unlink()
    again = play_games(ENGINES, tmp_path / "t", "tictactoe", tasks, workers=1, progress=False)
    assert sorted(g.moves for g in again) == sorted(g.moves for g in first)
    more = schedule(specs, 4, seed=6)  # the same two games and two more, which need the gone network
    before = (tmp_path / "t" / "games.csv").read_text()
    with pytest.raises(ModelFileError, match="no model file"):
        play_games(ENGINES, tmp_path / "t", "tictactoe", more, workers=1, progress=False)
    assert (tmp_path / "t" / "games.csv").read_text() == before


def test_a_row_cut_inside_its_last_field_is_dropped(tmp_path):
    """A kill in mid-write can cut the moves column short and still leave a row
    that parses: only a row ending in a newline counts as written."""
    out = tmp_path / "cut"
    run_tournament(ENGINES, out, "tictactoe", SPECS, 2, seed=5, workers=1, progress=False)
    path = out / "games.csv"
    text = path.read_text()
    path.write_text(text[:-3])  # the last row loses its newline and two characters of moves
    kept = read_games(path)
    assert len(kept) == 5 and path.read_text() == text[:-3]  # a reader leaves the file as it is
    # the writer cuts the torn line and plays that game again
    games = run_tournament(ENGINES, out, "tictactoe", SPECS, 2, seed=5, workers=1, progress=False)
    assert len(games) == 6 and sorted(g.moves for g in games) == sorted(
        g.moves for g in read_games(tmp_path / "cut" / "games.csv"))


@pytest.mark.parametrize("plies,opening,expected", [(8, 0, (4, 4)), (7, 0, (4, 3)), (8, 1, (3, 4)), (7, 1, (3, 3)),
                                                   (9, 2, (4, 3))])
def test_engine_moves_per_side_after_the_opening(plies, opening, expected):
    record = dataclasses.replace(play_match(ENGINES, "tictactoe", "random", "mcts:rounds=5", seed=1),
                                 plies=plies, opening_plies=opening)
    assert record.engine_moves() == expected


def test_engine_moves_match_a_real_game():
    record = play_match(ENGINES, "connect4", "random", "alphabeta:depth=1", seed=2, opening_plies=3)
    moves = record.moves.split()[record.opening_plies:]
    white_first = record.opening_plies % 2 == 1
    assert record.engine_moves() == ((len(moves) + (not white_first)) // 2, (len(moves) + white_first) // 2)


def test_games_written_before_the_note_and_ending_columns_still_load(tmp_path):
    record = play_match(ENGINES, "connect4", "random", "mcts:rounds=10", seed=3)
    assert record.ending == "win" and record.note == ""
    path = tmp_path / "games.csv"
    write_games(path, [record])
    header, row = path.read_text().splitlines()
    assert header.endswith(",note,ending") and row.endswith(",,win")
    for old_header, old_row in ((header.removesuffix(",ending"), row.removesuffix(",win")),
                                (header.removesuffix(",note,ending"), row.removesuffix(",,win"))):
        path.write_text(old_header + "\n" + old_row + "\n")  # an older file
        assert read_games(path) == [record]  # the ending read off the result
        assert path.read_text().splitlines()[0] == old_header  # read as it is, not rewritten
    assert open_games_file(path) == [record]  # the one writer: its rows under today's header
    assert path.read_text().splitlines() == [header, row]
    broken = header.replace("plies,", "") + "\n" + row + "\n"  # a required column missing
    path.write_text(broken)
    with pytest.raises(RecordError, match="does not start with the games.csv header"):
        read_games(path)
    assert path.read_text() == broken  # kept as it is


@pytest.mark.parametrize("result, winner, note, ending", [
    ("1-0", "black", "", "win"), ("1/2-1/2", "draw", "", "draw"), ("B+3.5", "black", "", "score"),
    ("0", "draw", "", "score"), ("W+R", "white", "", "resignation"), ("B+F", "black", "white forfeits: x", "forfeit"),
    ("0-1", "white", "black forfeits: gnugo exited", "forfeit")])
def test_the_ending_of_an_old_row_is_read_off_its_result(result, winner, note, ending):
    assert ending_of(result, winner, note) == ending


def test_moves_text_is_what_replay_reads_back():
    record = play_match(ENGINES, "connect4", "random", "random", seed=5, opening_plies=2)
    final = replay(record.game, record.moves)[-1]
    assert final.moves_text() == record.moves
    assert replay(record.game, final.moves_text())[-1].zobrist_hash() == final.zobrist_hash()
