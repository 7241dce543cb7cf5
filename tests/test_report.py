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

    from dlgo.arena.tournament import sgf_file_name
    from dlgo.formats.records import replay
    from dlgo.formats.sgf import sgf_point

    records = run_tournament(ENGINES, tmp_path, "go:size=5", ["random", "mcts:rounds=5"], 2, seed=3,
                             workers=1, progress=False)
    files = sorted((tmp_path / "sgf").glob("*.sgf"))
    assert len(files) == 2
    record = records[0]
    sgf = (tmp_path / "sgf" / sgf_file_name(record.game_id)).read_text()
    assert sgf_file_name("a vs b #1") == "a_vs_b__1.sgf"
    long_ids = [f"alphago:policy={'x' * 300},seconds=2 vs gnugo:level={level} #0" for level in (1, 5)]
    assert len({sgf_file_name(i) for i in long_ids}) == 2 and all(len(sgf_file_name(i)) <= 200 for i in long_ids)
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


def test_a_tournament_folder_holds_one_game_and_its_ratings_never_mix_games(tmp_path, capsys):
    import json

    import pytest

    from dlgo.core.errors import RecordError
    from dlgo.formats.records import read_games

    out = tmp_path / "c4"
    assert main(["tournament", "--game", "connect4", "--engines", "random", "mcts:rounds=5", "--games-per-pair", "2",
                 "--out", str(out), "--workers", "1"]) == 0
    assert json.loads((out / "run.json").read_text())["game"] == "connectn:columns=7,rows=6,n=4"
    before = (out / "games.csv").read_bytes()
    capsys.readouterr()
    tictactoe = ["tournament", "--game", "tictactoe", "--engines", "random", "alphabeta:depth=1",
                 "--games-per-pair", "2", "--out", str(out), "--workers", "1"]
    assert main(tictactoe) == 2
    assert "holds games of connect4, and this run plays tictactoe" in capsys.readouterr().err
    (out / "run.json").unlink()  # a folder from before its manifest named the game: its games.csv tells
    assert main(tictactoe) == 2 and "holds games of connect4" in capsys.readouterr().err
    assert (out / "games.csv").read_bytes() == before

    mixed = tmp_path / "mixed"  # a folder the old tournament mixed: rated one game at a time, never both
    assert main([*tictactoe[:-4], "--out", str(mixed), "--workers", "1"]) == 0
    with (mixed / "games.csv").open("a") as handle:
        handle.write(before.decode().split("\n", 1)[1])
    capsys.readouterr()
    assert main(["ratings", str(mixed)]) == 2
    assert (f"one game, not 2 (2 of connect4 and 2 of tictactoe, in {mixed / 'games.csv'}): rate one with --game "
            "SPEC" in capsys.readouterr().err)
    with pytest.raises(RecordError, match="one game, not 2"):  # nor does a report written from Python
        write_report(tmp_path / "report", read_games(mixed / "games.csv"))
    assert main(["ratings", str(mixed), "--game", "tictactoe"]) == 0
    ratings = (mixed / "ratings.csv").read_text()
    assert "alphabeta:depth=1" in ratings and "mcts:rounds=5" not in ratings


def test_a_tournament_rates_on_the_course_scale_when_asked(tmp_path, capsys):
    from dlgo.arena.scales import course_scale

    scale = course_scale("connect4")
    assert scale is not None and scale.where == "reports/calibration-connect4"
    out = tmp_path / "course"
    assert main(["tournament", "--game", "connect4", "--engines", "random", "mcts:rounds=10", "alphabeta:depth=1",
                 "--games-per-pair", "2", "--out", str(out), "--workers", "1", "--scale", "course"]) == 0
    with (out / "ratings.csv").open() as handle:
        elo = {row["engine"]: float(row["elo"]) for row in csv.DictReader(handle)}
    assert elo["random"] == 0 and abs(elo["mcts:rounds=10"] - scale.ratings["mcts:rounds=10"]) < 0.5
    summary = (out / "summary.md").read_text()
    assert (f"on the course's connect4 scale (`reports/calibration-connect4`): `mcts:rounds=10` held at "
            f"{scale.ratings['mcts:rounds=10']:.0f}, `random` held at 0" in summary)
    assert main(["ratings", str(out), "--scale", "course"]) == 0
    capsys.readouterr()
    assert main(["ratings", str(out), "--scale", "course", "--anchor", "random"]) == 2
    assert "give one" in capsys.readouterr().err
    for game, engines, words in (("tictactoe", ["random", "mcts:rounds=10"], "no rating scale for tictactoe"),
                                 ("connect4", ["mcts:rounds=7", "mcts:rounds=9"], "none of them plays here")):
        assert main(["tournament", "--game", game, "--engines", *engines, "--games-per-pair", "2",
                     "--out", str(tmp_path / "refused"), "--scale", "course"]) == 2
        assert words in capsys.readouterr().err
    assert not (tmp_path / "refused").exists()  # refused before anything was written


def test_the_labels_of_a_crowded_plot_overlap_neither_each_other_nor_the_legend(tmp_path, monkeypatch):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    from dlgo.arena import report
    from dlgo.arena.report import ComputePoint, plot_against_compute

    drawn = []
    monkeypatch.setattr(report, "save_figure", lambda fig, path: drawn.append(fig))
    points = [ComputePoint(f"mcts:rounds={10 * (i + 1)}", "mcts" if i % 2 else "alphabeta", 0.001 * (1 + 0.05 * i),
                           500 + 8 * i, 450 + 8 * i, 550 + 8 * i, f"{0.1 + i / 1000:.1%} mistakes") for i in range(10)]
    points += [ComputePoint("random", "random", 1e-6, 0, 0, 0), ComputePoint("az", "az", 0.1, 1300, 1250, 1350)]
    plot_against_compute(points, tmp_path / "plot.png", "crowded", "Elo",
                         notes_meaning="(n% mistakes): in n% of the critical solved positions")
    fig = drawn[0]
    ax = fig.axes[0]
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()  # the labels where they are drawn
    renderer = canvas.get_renderer()
    labels = [t for t in ax.texts if "rounds=" in t.get_text()]
    assert len(labels) == 10 and "rounds=10 (10.0% mistakes)" in [t.get_text() for t in labels]
    boxes = [Text.get_window_extent(t, renderer) for t in labels]  # the words, not the lines to their points
    boxes.append(ax.get_legend().get_window_extent(renderer))
    assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b)]
    assert any("critical solved positions" in t.get_text() for t in ax.texts)  # what the notes mean, said


def test_mistakes_beside_elo_are_a_share_of_the_critical_positions():
    from dlgo.arena.mistakes import MistakeRate
    from experiments.shared.ladders import mistake_columns

    rate = MistakeRate("mcts:rounds=1000", "mcts", "all", 300, 30, 0.1, 0.07, 0.13, 152, 27, 0.178, 0.12, 0.24, 0.02)
    shown = mistake_columns([rate])
    assert shown["notes"] == {"mcts:rounds=1000": "17.8% mistakes"}
    assert "in n% of the critical solved positions" in shown["notes_meaning"]


def test_mistake_facts_give_no_rate_where_an_engine_met_no_critical_position(tmp_path):
    import math

    from dlgo.arena.mistakes import mistake_facts

    (tmp_path / "mistake_rates.csv").write_text(
        "engine,family,group,positions,mistakes,rate,low,high,critical,critical_mistakes,critical_rate,critical_low,"
        "critical_high,seconds_per_move\n"
        "random,random,all,1,0,0,0,0.79,0,0,,,,0.001\nrandom,random,middle-medium,1,0,0,0,0.79,0,0,,,,0.001\n"
        "mcts,mcts,all,4,1,0.25,0.05,0.7,3,1,0.3333,0.06,0.79,0.01\n")
    facts = {row["engine"]: row for row in mistake_facts(tmp_path)}
    assert list(facts) == ["random", "mcts"] and math.isnan(facts["random"]["critical_rate"])
    assert facts["mcts"]["critical_rate"] == 1 / 3 and facts["mcts"]["critical"] == 3
