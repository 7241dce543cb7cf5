"""What a report says about its scale and its intervals is true of the games
it has: the anchor named from the pool, and no interval where the games give none."""
from __future__ import annotations

import math

from dlgo.arena.ratings import GameResult, describe_scale, fit_ratings
from dlgo.arena.report import write_report
from dlgo.arena.tournament import run_tournament
from engines import ENGINES


def test_a_pool_without_random_is_anchored_at_its_mean_and_two_games_give_no_interval(tmp_path):
    records = run_tournament(ENGINES, tmp_path, "tictactoe", ["alphabeta:depth=2", "mcts:rounds=5"], 2, seed=1,
                             workers=1, progress=False)
    rows = write_report(tmp_path, records, "two games", bootstrap=50)
    summary = (tmp_path / "summary.md").read_text()
    assert "anchored at random" not in summary
    assert "anchored at the mean rating = 0 (random is not in the pool)" in summary
    assert all(math.isnan(r.elo_low) for r in rows) and summary.count("| n/a (2 games) |") == 2
    ratings_csv = (tmp_path / "ratings.csv").read_text().splitlines()
    assert all(",,," in line for line in ratings_csv[1:])  # no bounds written, not a point twice


def test_the_scale_is_named_from_the_pool():
    assert describe_scale(["random", "mcts"]) == "anchored at random = 0"
    assert describe_scale(["a", "b"], anchor="b") == "anchored at b = 0"
    assert describe_scale(["a", "b"], anchor=None) == "anchored at the mean rating = 0"
    assert describe_scale(["a", "b"], fixed={"b": 900.0, "gone": 5.0}) == "with `b` held at 900"


def test_only_a_degenerate_bootstrap_loses_its_interval():
    """All of a few games alike: every resample is the same, so no interval; the
    anchor's and the held players' intervals are their ratings, as before."""
    alike = {r.name: r for r in fit_ratings([GameResult("a", "random", 1.0)] * 3, bootstrap=50)}
    assert math.isnan(alike["a"].lower) and math.isnan(alike["a"].upper)
    assert alike["random"].lower == alike["random"].upper == 0.0
    mixed = {r.name: r for r in fit_ratings([GameResult("a", "b", 1.0), GameResult("a", "b", 0.0)], bootstrap=50)}
    assert mixed["a"].lower < mixed["a"].elo < mixed["a"].upper


def test_a_ladder_without_random_does_not_claim_random_as_its_anchor():
    from dlgo.arena.report import EngineRow
    from experiments.shared.ladders import scale_words

    rows = [EngineRow(name, name, elo, elo - 50, elo + 50, 10, 0.5, 0.01, 1, "moves")
            for name, elo in (("mcts:rounds=17", 40.0), ("mcts:rounds=3", -40.0))]
    assert scale_words(rows, "go:size=7") == "Elo is anchored at the mean rating = 0 (random is not in the pool)"


def test_a_pinned_rating_says_pinned_where_a_measured_one_gives_its_interval(tmp_path):
    """An engine held at a given rating has no interval to show: the summary says ``pinned``
    (not "300 to 300") and the facts mark it, while the engines measured keep their intervals."""
    import json

    records = run_tournament(ENGINES, tmp_path, "tictactoe", ["random", "alphabeta:depth=1", "mcts:rounds=5"], 6,
                             seed=2, workers=1, progress=False)
    write_report(tmp_path, records, "held", fixed={"alphabeta:depth=1": 300.0}, bootstrap=50)
    summary = (tmp_path / "summary.md").read_text()
    assert "| `alphabeta:depth=1` | 300 | pinned |" in summary and "300 to 300" not in summary
    pinned = {row["engine"]: row["pinned"] for row in json.loads((tmp_path / "facts.json").read_text())["ratings"]}
    assert pinned == {"alphabeta:depth=1": True, "random": False, "mcts:rounds=5": False}


def test_the_summary_quotes_the_elo_that_ratings_csv_holds(tmp_path):
    """Rounded once: the summary's Elo (and so the README's, from the facts) is the rounding of
    the number ratings.csv writes, never of a more precise one beside it (763 in the table, 764
    in the README)."""
    import pandas as pd

    records = run_tournament(ENGINES, tmp_path, "tictactoe", ["random", "alphabeta:depth=1", "mcts:rounds=5"], 6,
                             seed=2, workers=1, progress=False)
    rows = write_report(tmp_path, records, "rounded once", bootstrap=50)
    written = pd.read_csv(tmp_path / "ratings.csv").set_index("engine")
    summary = (tmp_path / "summary.md").read_text()
    for row in rows:
        assert row.elo == written.loc[row.engine, "elo"]  # the row holds the written number
        assert f"| `{row.engine}` | {written.loc[row.engine, 'elo']:.0f} |" in summary


def test_on_top_is_the_strongest_engine_measured_never_a_pinned_one():
    """Chapter 15's quick run: alpha-beta at depth 1 pinned at 642 scores 50%, the network
    measured at 571 scores 83%; the network is the run's finding, the pinned rating is the course's."""
    from dlgo.arena.report import EngineRow
    from experiments.chapters.ch15_strength_per_compute import what_to_look_for

    def row(engine, family, elo, low, high, score):
        return EngineRow(engine, family, elo, low, high, 6, score, 0.001, 1, "moves")

    rows = [row("alphabeta:depth=1,nodes=0", "alphabeta", 642.0, 642.0, 642.0, 0.5),
            row("alphazero:checkpoint=connect4,simulations=0", "alphazero", 571.0, 248.0, 888.0, 0.833),
            row("mcts:rounds=10", "mcts", 327.0, 327.0, 327.0, 0.667),
            row("random", "random", 0.0, 0.0, 0.0, 0.0)]
    text = " ".join(what_to_look_for(rows).split())
    assert "`alphabeta:depth=1,nodes=0` is on top" not in text
    assert ("`alphazero:checkpoint=connect4,simulations=0` rates highest of the engines this run measures "
            "(571, 248 to 888; 83% of its games)") in text
    assert "`alphabeta:depth=1,nodes=0` (642, 50% of its games) rates higher, but its rating is pinned" in text
    assert "up to `mcts:rounds=10` (327, pinned)" in text
    measured_on_top = [rows[1]._replace(elo=700.0, elo_low=600.0, elo_high=800.0), *rows[:1], *rows[2:]]
    assert "`alphazero:checkpoint=connect4,simulations=0` is on top (700)" in " ".join(
        what_to_look_for(measured_on_top).split())


def test_a_compute_of_one_is_singular_in_the_table_and_at_the_console(tmp_path):
    from dlgo.app.console import describe_compute
    from dlgo.display.words import amount
    from dlgo.games import new_game
    from engines.registry import create

    assert [amount(1, "moves"), amount(1.4, "evaluations"), amount(0.6, "rounds"), amount(2048.2, "rounds")] == \
        ["1 move", "1 evaluation", "1 round", "2,048 rounds"]
    records = run_tournament(ENGINES, tmp_path, "tictactoe", ["random", "alphabeta:depth=1"], 2, seed=1,
                             workers=1, progress=False)
    write_report(tmp_path, records, "one move a move", bootstrap=0)
    summary = (tmp_path / "summary.md").read_text()
    assert "| 1 move |" in summary and "1 moves" not in summary
    engine = create("random")
    assert describe_compute(engine.decide(new_game("tictactoe")).report).endswith(" 1 move")


def test_a_summarys_ratings_table_is_written_again_from_ratings_csv_and_nothing_else_changes(tmp_path):
    """A summary written before a change of wording ("0 to 0", "1 moves") is put right
    from ratings.csv alone, cell for cell as write_report writes it now; the rest is kept."""
    from dlgo.arena.report import refresh_ratings_table

    records = run_tournament(ENGINES, tmp_path, "tictactoe", ["random", "alphabeta:depth=1", "mcts:rounds=5"], 4,
                             seed=2, workers=1, progress=False)
    write_report(tmp_path, records, "three engines", bootstrap=20,
                 columns={"note": {"random": "the anchor"}}, outro="Mine: | `random` | 7 | kept |")
    summary = tmp_path / "summary.md"
    written = summary.read_text()
    assert "| `random` | 0 | pinned |" in written and "| 1 move | the anchor |" in written
    assert refresh_ratings_table(tmp_path) is False  # as written now: nothing to do
    old = written.replace("| 0 | pinned |", "| 0 | 0 to 0 |").replace("| 1 move |", "| 1 moves |")
    summary.write_text(old)
    assert refresh_ratings_table(tmp_path) is True and summary.read_text() == written
