"""Tournament reports: files, schema, recomputation from games.csv."""
import csv

from dlgo.arena.report import family_of, write_report
from dlgo.arena.tournament import run_tournament
from dlgo.app.cli import main
from engines import ENGINES

SPECS = ["random", "mcts:rounds=10", "alphabeta:depth=2"]
PNG = b"\x89PNG\r\n\x1a\n"


def test_report_files_and_schema(tmp_path):
    records = run_tournament(ENGINES, tmp_path, "connect4", SPECS, 4, seed=2, workers=1, progress=False)
    rows = write_report(tmp_path, records, "test", bootstrap=20)
    for name in ("ratings.csv", "crosstable.csv", "summary.md", "strength_vs_compute.png", "crosstable.png"):
        assert (tmp_path / name).stat().st_size > 0
    for name in ("strength_vs_compute.png", "crosstable.png"):
        assert (tmp_path / name).read_bytes()[:8] == PNG
    with (tmp_path / "ratings.csv").open() as handle:
        ratings = list(csv.DictReader(handle))
    assert list(ratings[0]) == ["engine", "family", "elo", "elo_low", "elo_high", "games", "score",
                                "seconds_per_move", "compute_per_move", "unit"]
    assert {r["engine"] for r in ratings} == set(SPECS)
    assert next(float(r["elo"]) for r in ratings if r["engine"] == "random") == 0
    with (tmp_path / "crosstable.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == 6 and all(int(t["games"]) == 4 for t in table)
    assert sum(int(t["wins"]) for t in table) == sum(int(t["losses"]) for t in table)
    summary = (tmp_path / "summary.md").read_text()
    assert "![strength against compute](strength_vs_compute.png)" in summary and "`mcts:rounds=10`" in summary
    assert rows[0].elo >= rows[-1].elo


def test_cli_tournament_then_ratings(tmp_path, capsys):
    out = str(tmp_path / "cli")
    assert main(["tournament", "--game", "tictactoe", "--engines", "random", "alphabeta:depth=2",
                 "--games-per-pair", "4", "--out", out, "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    assert "alphabeta:depth=2" in printed and "summary.md" in printed
    (tmp_path / "cli" / "ratings.csv").unlink()
    assert main(["ratings", out]) == 0
    assert (tmp_path / "cli" / "ratings.csv").exists()
    assert main(["ratings", str(tmp_path / "nothing")]) == 2


def test_replay_shows_a_recorded_game(tmp_path, capsys):
    records = run_tournament(ENGINES, tmp_path, "go:size=5", ["random", "mcts:rounds=5"], 2, seed=1,
                             opening_plies=2, workers=1, progress=False)
    assert main(["replay", str(tmp_path), "--list"]) == 0
    assert records[1].game_id in capsys.readouterr().out
    assert main(["replay", str(tmp_path), "--index", "1"]) == 0
    out = capsys.readouterr().out
    assert f"recorded: {records[1].result})" in out and "(random opening)" in out
    assert out.count("\nmove ") == records[1].plies and "A B C D E" in out
    assert main(["replay", str(tmp_path), "--index", "7"]) == 2


def test_go_games_are_also_written_as_sgf(tmp_path):
    import re

    from dlgo.formats.records import replay
    from dlgo.formats.sgf import sgf_point

    records = run_tournament(ENGINES, tmp_path, "go:size=5", ["random", "mcts:rounds=5"], 2, seed=3,
                             workers=1, progress=False)
    files = sorted((tmp_path / "sgf").glob("*.sgf"))
    assert len(files) == 2
    record = records[0]
    sgf = (tmp_path / "sgf" / ("".join(c if c.isalnum() or c in "=-_." else "_" for c in record.game_id)
                               + ".sgf")).read_text()
    assert sgf.startswith("(;FF[4]GM[1]") and "SZ[5]" in sgf and "KM[7.5]" in sgf and "RU[Chinese]" in sgf
    assert f"PB[{record.black}]" in sgf and f"PW[{record.white}]" in sgf and f"RE[{record.result}]" in sgf
    moves = re.findall(r";([BW])\[([a-s]{0,2})\]", sgf)
    states = replay(record.game, record.moves)
    expected = [("B" if s.next_player.name == "black" else "W", sgf_point(t.last_move, 5))
                for s, t in zip(states, states[1:]) if not t.last_move.is_resign]
    assert moves == expected and len(moves) == record.plies


def test_each_search_of_an_engine_is_a_line_of_its_own():
    assert family_of("alphazero:checkpoint=connect4,simulations=50") == "alphazero"
    assert family_of("alphazero:checkpoint=connect4,simulations=50,gumbel=0") == "alphazero"
    assert family_of("alphazero:checkpoint=connect4,simulations=16,gumbel=16") == "alphazero (gumbel=16)"
    assert family_of("mcts:rounds=100,plain=true") == "mcts (plain)"
