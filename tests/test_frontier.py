"""The compute frontier's statistics (experiments/shared/frontier.py), tested on their own:
fits on made-up data with known answers, the knees and their intervals, the compute that
reaches a mistake level, and the iso-Elo exchange of search for training compute."""
import math

import numpy as np
import pandas as pd
import pytest

from experiments.shared import frontier


def test_the_frontier_keeps_only_points_no_cheaper_point_beats():
    points = pd.DataFrame({"train_flops": [0, 10, 20, 30, 40, 50], "elo": [-50, 100, 80, 150, 150, 300]})
    assert frontier.frontier(points)["elo"].tolist() == [100, 150, 300]


def test_the_change_point_fit_recovers_a_known_slope_and_plateau():
    logs = np.arange(6, 14)
    elos = np.minimum(-2000 + 300 * logs, 1400.0) + np.array([5, -5, 5, -5, 5, -5, 5, -5])
    fit = frontier.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs, "elo": elos}))
    assert fit is not None
    assert fit.slope == pytest.approx(300, abs=10)
    assert fit.low <= fit.slope <= fit.high
    assert fit.plateau == pytest.approx(1400, abs=60)
    assert fit.points == 6  # 6..11 rise; 12 and 13 sit on the plateau
    assert math.log10(fit.knee_flops) == pytest.approx(3400 / 300, abs=0.2)  # where the line meets 1400
    assert frontier.fit_frontier(pd.DataFrame({"train_flops": [1.0, 10.0], "elo": [0.0, 1.0]})) is None


def test_the_knee_has_an_interval_and_boards_compare_their_knees():
    logs = np.arange(6, 16)
    wiggle = np.array([5, -5] * 5)
    early = frontier.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs,
                                                "elo": np.minimum(-2000 + 300 * logs, 1400.0) + wiggle}))
    late = frontier.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs,  # the same frontier, 10x the compute
                                               "elo": np.minimum(-2300 + 300 * logs, 1400.0) + wiggle}))
    assert early is not None and late is not None
    low, high = early.knee_interval
    assert low <= early.knee_flops <= high and high / low < 20  # within about a point either side (a decade apart)
    ratio, low_ratio, high_ratio = frontier.knee_ratio(early, late)
    assert ratio == pytest.approx(10, rel=0.2) and low_ratio <= ratio <= high_ratio
    straight = frontier.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs, "elo": 200.0 * logs + wiggle}))
    assert straight is not None and all(math.isnan(v) for v in (*straight.knee_interval,
                                                                 *frontier.knee_ratio(early, straight)))


def test_a_straight_frontier_gets_no_plateau():
    rng = np.random.default_rng(1)
    logs = np.arange(5, 15)
    fit = frontier.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs,
                                              "elo": 200 * logs + rng.normal(0, 30, len(logs))}))
    assert fit is not None and fit.plateau is None and fit.points == len(logs) and math.isnan(fit.knee_flops)
    assert fit.low < 200 < fit.high


def test_runs_that_go_on_without_beating_the_frontier_make_it_a_plateau():
    # the frontier rose 300 Elo a decade up to 1e13; the runs then spent 1,000x more without beating it
    logs = np.arange(6, 14)
    front = pd.DataFrame({"train_flops": 10.0 ** logs, "elo": 300 * logs + np.array([5, -5] * 4)})
    assert frontier.fit_frontier(front).plateau is None  # its improving points alone show no flat part
    fit = frontier.fit_frontier(front, until=1e16)
    assert fit is not None and fit.plateau == pytest.approx(3900, abs=30)
    assert fit.slope == pytest.approx(300, abs=15)
    assert fit.points >= 7 and 12.8 < math.log10(fit.knee_flops) < 13.5  # the last rising point sits at the knee
    assert fit.flat_share > 0.9  # that last point is a bound, not a measurement: every resample keeps it
    assert frontier.fit_frontier(front, until=math.nan).plateau is None  # no runs' end known: no tail


def test_a_plateau_needs_two_points_and_most_resamples():
    logs = np.arange(6.0, 13.0)
    dip = pd.DataFrame({"train_flops": 10.0 ** logs, "elo": 300 * logs - np.array([0, 4, 0, 4, 0, 4, 400])})
    assert frontier.fit_frontier(dip).plateau is None  # one point below the line is not a plateau
    logs, elos = np.array([6.0, 6, 6, 7, 8, 9, 10, 11]), np.array([0, 1, 2, 300, 600, 900, 900, 900.0])
    knee, _, _ = frontier.change_point(logs, elos)
    assert knee is not None and knee >= 8  # three distinct computes rise, however often one was drawn
    # the full run's 6x5 frontier: the line bends only at its last point, and most resamples lose the bend
    six_by_five = pd.DataFrame({"train_flops": 10 ** np.array([10.21, 10.5, 10.81, 11.1, 11.71, 11.97, 12.03, 12.65,
                                                               12.9, 13.22, 13.52, 14.43]),
                                "elo": [301, 360, 371, 450, 515, 547, 589, 672, 715, 725, 781, 842]})
    fit = frontier.fit_frontier(six_by_five)
    assert fit is not None and fit.plateau is None and fit.points == 12 and fit.low < fit.slope < fit.high
    # the runs ended at the frontier's last point: no flat stretch to add (not even one rounded into being)
    end = float(six_by_five["train_flops"].max())
    assert frontier.fit_frontier(six_by_five, until=end * (1 + 1e-12)) == fit


def test_perfect_compute_brackets_the_first_perfect_network():
    points = pd.DataFrame({"train_flops": [0, 1, 10, 100, 1000, 2000], "mistakes": [0.0, 0.3, 0.02, 0.005, 0.02, 0]})
    assert frontier.perfect_compute(points) == frontier.Reach(100.0, 10.0, 1, 2)  # the untrained network left out
    never = frontier.perfect_compute(points.assign(mistakes=0.5))
    assert math.isnan(never.flops) and never.after == 2000


def test_crossing_interpolates_in_log_compute():
    front = pd.DataFrame({"train_flops": [1e6, 1e8], "elo": [0.0, 200.0]})
    assert frontier.crossing(front, 100.0) == pytest.approx(1e7)
    assert math.isnan(frontier.crossing(front, 300.0))   # never reached
    assert math.isnan(frontier.crossing(front, -10.0))   # below what was measured


def test_iso_elo_puts_each_crossing_at_its_own_networks_search_compute():
    # the small network needs 100x the training of the big one to reach Elo 100, and its search costs 1/10
    rows = []
    for net, flops, train in (("small", 1e3, 1e10), ("big", 1e4, 1e8)):
        for k, elo in enumerate((0.0, 200.0)):
            rows.append({"net": net, "simulations": 8, "search_flops": 8 * flops, "games": 10,
                         "train_flops": train * 10.0 ** (2 * k - 1), "elo": elo})
    curves = frontier.iso_elo(pd.DataFrame(rows), [100.0])
    assert curves[["net", "search_flops", "train_flops"]].values.tolist() == [["small", 8e3, 1e10], ["big", 8e4, 1e8]]


def test_the_exchange_rate_recovers_a_known_trade():
    # each 10x of search compute saves 100x of training compute: log10 T = c(curve) - 2 log10 S, measured with noise
    rng = np.random.default_rng(0)
    rows = [{"board": board, "level": level, "search_flops": 10.0 ** s,
             "train_flops": 10.0 ** (offset - 2 * s + rng.normal(0, 0.05))}
            for board in ("5x4-4", "6x5-4") for level, offset in ((100, 14), (200, 15)) for s in (4, 5, 6)]
    slope, low, high, count = frontier.exchange_rate(pd.DataFrame(rows))
    assert slope == pytest.approx(-2, abs=0.1)
    assert low < slope < high and high - low < 0.5
    assert count == 12
    alone = frontier.exchange_rate(pd.DataFrame(rows[:1]))
    assert math.isnan(alone[0]) and alone[3] == 0
