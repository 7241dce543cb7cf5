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
