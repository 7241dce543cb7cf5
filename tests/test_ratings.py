"""The Bradley–Terry / Elo fit: known ratings recovered, draws, anchors, intervals."""
import math
import random

import pytest

from dlgo.arena.ratings import GameResult, cross_table, expected_score, fit_ratings


def simulate(true_elo: dict[str, float], games_per_pair: int, draw_rate: float, seed: int) -> list[GameResult]:
    """Games drawn from the Elo model: draws are likeliest between equals
    (probability draw_rate * 4p(1-p)) and the expected score stays p."""
    rng = random.Random(seed)
    names = sorted(true_elo)
    results = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = expected_score(true_elo[a], true_elo[b])
            for _ in range(games_per_pair):
                draw = draw_rate * 4 * p * (1 - p)
                u = rng.random()
                if u < draw:
                    results.append(GameResult(a, b, 0.5))
                elif u < draw + (p - draw / 2):
                    results.append(GameResult(a, b, 1.0))
                else:
                    results.append(GameResult(a, b, 0.0))
    return results


def test_fit_recovers_known_ratings_within_its_intervals():
    truth = {"random": 0.0, "weak": 150.0, "medium": 400.0, "strong": 650.0, "negative": -120.0}
    results = simulate(truth, games_per_pair=300, draw_rate=0.2, seed=1)
    ratings = {r.name: r for r in fit_ratings(results, anchor="random", bootstrap=200)}
    assert ratings["random"].elo == 0.0 and ratings["random"].lower == ratings["random"].upper == 0.0
    for name, elo in truth.items():
        r = ratings[name]
        assert r.lower <= elo <= r.upper, (name, elo, r)
        assert abs(r.elo - elo) < 60
        if name != "random":
            assert 10 < r.upper - r.lower < 150  # intervals are real, not degenerate
    assert [r.name for r in fit_ratings(results, bootstrap=0)] == ["strong", "medium", "weak", "random", "negative"]


def test_two_players_match_the_closed_form_with_draws():
    # 60 wins, 20 draws, 20 losses: 70% -> 400 log10(0.7 / 0.3), with one virtual draw added
    results = [GameResult("a", "b", 1.0)] * 60 + [GameResult("a", "b", 0.5)] * 20 + [GameResult("b", "a", 1.0)] * 20
    ratings = {r.name: r for r in fit_ratings(results, anchor="b", bootstrap=0)}
    p = (70 + 0.5) / 101
    assert ratings["a"].elo == pytest.approx(400 * math.log10(p / (1 - p)), abs=0.01)
    assert ratings["a"].score == pytest.approx(0.7) and ratings["a"].games == 100


def test_only_draws_mean_equal_ratings():
    ratings = fit_ratings([GameResult("x", "y", 0.5)] * 10, anchor=None, bootstrap=50)
    assert all(abs(r.elo) < 1e-6 for r in ratings)


def test_a_perfect_score_stays_finite_and_the_mean_is_the_default_anchor():
    ratings = fit_ratings([GameResult("a", "b", 1.0)] * 10, anchor="nobody", bootstrap=0)
    elo = {r.name: r.elo for r in ratings}
    assert math.isfinite(elo["a"]) and elo["a"] + elo["b"] == pytest.approx(0)
    assert elo["a"] - elo["b"] == pytest.approx(400 * math.log10(10.5 / 0.5), abs=0.01)  # one virtual draw


def test_unlinked_players_are_refused():
    with pytest.raises(ValueError, match="linked"):
        fit_ratings([GameResult("a", "b", 1.0), GameResult("c", "d", 0.0)])


def test_cross_table_counts_both_sides():
    rows = {(r.player, r.opponent): r for r in cross_table(
        [GameResult("a", "b", 1.0), GameResult("b", "a", 0.5), GameResult("b", "a", 1.0)])}
    assert (rows["a", "b"].wins, rows["a", "b"].draws, rows["a", "b"].losses) == (1, 1, 1)
    assert (rows["b", "a"].wins, rows["b", "a"].draws, rows["b", "a"].losses) == (1, 1, 1)
    assert rows["a", "b"].tally.score == 0.5 and rows["a", "b"].tally.games == 3


def test_the_same_games_in_another_order_give_the_same_intervals():
    results = simulate({"random": 0.0, "weak": 100.0, "strong": 300.0}, games_per_pair=20, draw_rate=0.2, seed=3)
    shuffled = list(results)
    random.Random(7).shuffle(shuffled)
    assert shuffled != results
    assert fit_ratings(shuffled, bootstrap=50) == fit_ratings(results, bootstrap=50)


def test_a_score_gives_the_elo_difference_the_model_predicts_it_from():
    from dlgo.arena.ratings import elo_from_score

    assert elo_from_score(0.5, 20) == 0
    assert elo_from_score(0.75, 20) == pytest.approx(400 * math.log10(3))  # 3:1 odds, about +191
    assert elo_from_score(0.25, 20) == pytest.approx(-elo_from_score(0.75, 20))
    assert expected_score(elo_from_score(0.75, 20), 0) == pytest.approx(0.75)  # one model, both ways
    assert math.isnan(elo_from_score(float("nan"), 20))
    assert elo_from_score(1.0, 20) == pytest.approx(400 * math.log10(19.5 / 0.5))  # 20-0 counts as 19.5-0.5
