"""The scaling lab (experiments/headline/scaling.py): its compute accounting, its fits on
made-up data with known answers, and a quick run end to end that resumes."""
import math

import numpy as np
import pandas as pd
import pytest

from engines.neural.resnet import resnet_flops
from experiments.headline import scaling


def test_resnet_flops_count_every_kernel_of_the_built_network():
    from engines.neural.resnet import build_resnet

    model = build_resnet((5, 6, 3), 6, blocks=2, filters=16, auxiliary=("moves_left", "ownership"))
    counted = 0
    for layer in model.layers:
        kernel = getattr(layer, "kernel", None)
        if kernel is not None:  # a multiply-add per weight at every output point
            shape = layer.output.shape
            counted += 2 * int(np.prod(kernel.shape)) * (shape[1] * shape[2] if len(shape) == 4 else 1)
    assert resnet_flops((5, 6, 3), 6, blocks=2, filters=16, auxiliary=("moves_left", "ownership")) == counted


def test_training_compute_adds_self_play_and_three_passes_per_trained_position():
    history = pd.DataFrame({"iteration": [1, 2], "selfplay_evaluations": [1000, 3000], "train_steps": [10, 10],
                            "seconds": [5.0, 7.0]})
    table = scaling.training_compute(history, batch_size=4, flops=100)
    assert table.loc[0, "train_flops"] == 0 and table.loc[0, "train_seconds"] == 0
    assert table.loc[1, "train_flops"] == (1000 + 3 * 40) * 100
    assert table.loc[2, "train_flops"] == (4000 + 3 * 80) * 100 and table.loc[2, "train_seconds"] == 12


def test_evaluated_iterations_are_powers_of_two_and_the_last():
    assert scaling.evaluated_iterations(20) == [0, 1, 2, 4, 8, 16, 20]
    assert scaling.evaluated_iterations(1) == [0, 1]


def test_the_frontier_keeps_only_points_no_cheaper_point_beats():
    points = pd.DataFrame({"train_flops": [0, 10, 20, 30, 40, 50], "elo": [-50, 100, 80, 150, 150, 300]})
    assert scaling.frontier(points)["elo"].tolist() == [100, 150, 300]


def test_the_change_point_fit_recovers_a_known_slope_and_plateau():
    logs = np.arange(6, 14)
    elos = np.minimum(-2000 + 300 * logs, 1400.0) + np.array([5, -5, 5, -5, 5, -5, 5, -5])
    fit = scaling.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs, "elo": elos}))
    assert fit is not None
    assert fit.slope == pytest.approx(300, abs=10)
    assert fit.low <= fit.slope <= fit.high
    assert fit.plateau == pytest.approx(1400, abs=60)
    assert fit.points == 6  # 6..11 rise; 12 and 13 sit on the plateau
    assert math.log10(fit.knee_flops) == pytest.approx(3400 / 300, abs=0.2)  # where the line meets 1400
    assert scaling.fit_frontier(pd.DataFrame({"train_flops": [1.0, 10.0], "elo": [0.0, 1.0]})) is None


def test_the_knee_has_an_interval_and_boards_compare_their_knees():
    logs = np.arange(6, 16)
    wiggle = np.array([5, -5] * 5)
    early = scaling.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs,
                                               "elo": np.minimum(-2000 + 300 * logs, 1400.0) + wiggle}))
    late = scaling.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs,  # the same frontier, 10x the compute
                                              "elo": np.minimum(-2300 + 300 * logs, 1400.0) + wiggle}))
    assert early is not None and late is not None
    low, high = early.knee_interval
    assert low <= early.knee_flops <= high and high / low < 20  # within about a point either side (a decade apart)
    ratio, low_ratio, high_ratio = scaling.knee_ratio(early, late)
    assert ratio == pytest.approx(10, rel=0.2) and low_ratio <= ratio <= high_ratio
    straight = scaling.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs, "elo": 200.0 * logs + wiggle}))
    assert straight is not None and all(math.isnan(v) for v in (*straight.knee_interval,
                                                                 *scaling.knee_ratio(early, straight)))


def test_a_straight_frontier_gets_no_plateau():
    rng = np.random.default_rng(1)
    logs = np.arange(5, 15)
    fit = scaling.fit_frontier(pd.DataFrame({"train_flops": 10.0 ** logs,
                                             "elo": 200 * logs + rng.normal(0, 30, len(logs))}))
    assert fit is not None and fit.plateau is None and fit.points == len(logs) and math.isnan(fit.knee_flops)
    assert fit.low < 200 < fit.high


def test_runs_that_go_on_without_beating_the_frontier_make_it_a_plateau():
    # the frontier rose 300 Elo a decade up to 1e13; the runs then spent 1,000x more without beating it
    logs = np.arange(6, 14)
    front = pd.DataFrame({"train_flops": 10.0 ** logs, "elo": 300 * logs + np.array([5, -5] * 4)})
    assert scaling.fit_frontier(front).plateau is None  # its improving points alone show no flat part
    fit = scaling.fit_frontier(front, until=1e16)
    assert fit is not None and fit.plateau == pytest.approx(3900, abs=30)
    assert fit.slope == pytest.approx(300, abs=15)
    assert fit.points >= 7 and 12.8 < math.log10(fit.knee_flops) < 13.5  # the last rising point sits at the knee
    assert fit.flat_share > 0.9  # that last point is a bound, not a measurement: every resample keeps it
    assert scaling.fit_frontier(front, until=math.nan).plateau is None  # no runs' end known: no tail


def test_a_plateau_needs_two_points_and_most_resamples():
    logs = np.arange(6.0, 13.0)
    dip = pd.DataFrame({"train_flops": 10.0 ** logs, "elo": 300 * logs - np.array([0, 4, 0, 4, 0, 4, 400])})
    assert scaling.fit_frontier(dip).plateau is None  # one point below the line is not a plateau
    knee, _, _ = scaling.change_point(np.array([6.0, 6, 6, 7, 8, 9, 10, 11]), np.array([0, 1, 2, 300, 600, 900, 900, 900.0]))
    assert knee is not None and knee >= 8  # three distinct computes rise, however often one was drawn
    # the full run's 6x5 frontier: the line bends only at its last point, and most resamples lose the bend
    six_by_five = pd.DataFrame({"train_flops": 10 ** np.array([10.21, 10.5, 10.81, 11.1, 11.71, 11.97, 12.03, 12.65,
                                                               12.9, 13.22, 13.52, 14.43]),
                                "elo": [301, 360, 371, 450, 515, 547, 589, 672, 715, 725, 781, 842]})
    fit = scaling.fit_frontier(six_by_five)
    assert fit is not None and fit.plateau is None and fit.points == 12 and fit.low < fit.slope < fit.high
    # the runs ended at the frontier's last point: no flat stretch to add (not even one rounded into being)
    end = float(six_by_five["train_flops"].max())
    assert scaling.fit_frontier(six_by_five, until=end * (1 + 1e-12)) == fit


def test_crossing_interpolates_in_log_compute():
    front = pd.DataFrame({"train_flops": [1e6, 1e8], "elo": [0.0, 200.0]})
    assert scaling.crossing(front, 100.0) == pytest.approx(1e7)
    assert math.isnan(scaling.crossing(front, 300.0))   # never reached
    assert math.isnan(scaling.crossing(front, -10.0))   # below what was measured


def test_iso_elo_puts_each_crossing_at_its_own_networks_search_compute():
    # the small network needs 100x the training of the big one to reach Elo 100, and its search costs 1/10
    rows = []
    for net, flops, train in (("small", 1e3, 1e10), ("big", 1e4, 1e8)):
        for k, elo in enumerate((0.0, 200.0)):
            rows.append({"net": net, "simulations": 8, "search_flops": 8 * flops, "games": 10,
                         "train_flops": train * 10.0 ** (2 * k - 1), "elo": elo})
    curves = scaling.iso_elo(pd.DataFrame(rows), [100.0])
    assert curves[["net", "search_flops", "train_flops"]].values.tolist() == [["small", 8e3, 1e10], ["big", 8e4, 1e8]]


def test_the_exchange_rate_recovers_a_known_trade():
    # each 10x of search compute saves 100x of training compute: log10 T = c(curve) - 2 log10 S, measured with noise
    rng = np.random.default_rng(0)
    rows = [{"board": board, "level": level, "search_flops": 10.0 ** s,
             "train_flops": 10.0 ** (offset - 2 * s + rng.normal(0, 0.05))}
            for board in ("5x4-4", "6x5-4") for level, offset in ((100, 14), (200, 15)) for s in (4, 5, 6)]
    slope, low, high, count = scaling.exchange_rate(pd.DataFrame(rows))
    assert slope == pytest.approx(-2, abs=0.1)
    assert low < slope < high and high - low < 0.5
    assert count == 12
    alone = scaling.exchange_rate(pd.DataFrame(rows[:1]))
    assert math.isnan(alone[0]) and alone[3] == 0


def test_growth_per_step_reads_each_crossing_between_its_neighbours():
    never = scaling.Reach(math.nan, 1e12, 0, 0)

    def facts(board, reaches, knee=None):
        fit = scaling.Fit(100.0, 90.0, 110.0, 0.0, None if knee is None else 100.0 * knee, 5, knee)
        levels = {level: reaches.get(level, never) for level in scaling.MISTAKE_LEVELS}
        return scaling.BoardFacts(board, fit, 5, 1000.0, levels, pd.Series(dtype=float), pd.Series(dtype=float),
                                  perfect_low=950.0)

    lines = scaling.growth_per_step([
        facts("5x4-4", {0.05: scaling.Reach(1e8, 0.0, 0, 4), scaling.PERFECT: scaling.Reach(1e9, 0.0, 0, 3)}, 10.0),  # plateau 1000
        facts("6x5-4", {0.05: scaling.Reach(1e9, 1e8, 0, 4), scaling.PERFECT: scaling.Reach(1e11, 5e10, 1, 4)}, 11.0),
        facts("7x5-4", {0.05: scaling.Reach(4e9, 2e9, 0, 2)}, 9.0),  # a stall at 900, below the solver
        facts("8x7-4", {})])
    assert "perfect play took **100.0x**" in lines[0] and "between 50.0x and any multiple" in lines[0]
    assert "20 to 30 points, a row and a column more" in lines[0] and "the solver's level on both, at **10x**" in lines[0]
    assert "at most 5% mistakes" in lines[1] and "**4.0x**" in lines[1] and "between 2.0x and 40.0x" in lines[1]
    assert "30 to 35 points, a column more" in lines[1] and "did not turn flat at the solver's level on both" in lines[1]
    assert "no mistake level reached on both boards" in lines[2] and "35 to 56 points, 21 points more" in lines[2]
    assert lines[3].startswith("- 5x4-4 to 8x7-4") and "at most 5% mistakes" not in lines[3]  # 8x7 reached none
    assert "Jones measured about 7x" in lines[4]


def test_perfect_compute_brackets_the_first_perfect_network():
    points = pd.DataFrame({"train_flops": [0, 1, 10, 100, 1000, 2000], "mistakes": [0.0, 0.3, 0.02, 0.005, 0.02, 0]})
    assert scaling.perfect_compute(points) == scaling.Reach(100.0, 10.0, 1, 2)  # the untrained network left out
    never = scaling.perfect_compute(points.assign(mistakes=0.5))
    assert math.isnan(never.flops) and never.after == 2000


def test_larger_boards_train_longer_unless_told():
    def iterations(*argv):
        args = scaling.build_parser().parse_args(list(argv))
        scaling.settle(args)
        return [args.board_iterations[board] for board in args.boards]

    assert iterations() == [64, 128, 256]
    assert iterations("--iterations", "10") == [10, 10, 10]
    assert iterations("--iterations", "3", "2", "1", "--boards", *reversed(scaling.BOARDS)) == [1, 2, 3]  # as given


def test_bad_settings_exit_with_one_line(tmp_path, capsys):
    out, work = str(tmp_path / "out"), str(tmp_path / "work")
    assert scaling.main(["--out", out, "--work", work, "--boards", "go:size=5"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--nets", "big"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--ladder", "random", "mcts:rounds=10"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--frontier-simulations", "3"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--simulations", "8", "8"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--ladder", "random", "solver", "gnugo"]) == 2
    assert scaling.main(["--out", out, "--work", str(tmp_path / "a=b")]) == 2
    assert scaling.main(["--out", out, "--work", work, "--iterations", "8", "16"]) == 2  # three boards
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 8 and all(line.startswith("error: ") for line in errors)
    assert not (tmp_path / "work").exists()


def test_quick_run_rates_every_network_and_resumes(tmp_path):
    out, work = tmp_path / "out", tmp_path / "work"
    argv = ["--quick", "--out", str(out), "--work", str(work), "--workers", "1"]
    assert scaling.main(argv) == 0
    points = pd.read_csv(out / "points.csv")
    assert len(points) == 3 * 2  # iterations 0, 1, 2 at 1 and 4 simulations
    assert (points.groupby("simulations")["search_evaluations"].mean().diff().dropna() > 0).all()
    assert (points[points["iteration"] == 0]["train_flops"] == 0).all()
    assert (points[points["iteration"] > 0]["train_flops"] > 0).all()
    assert points["mistakes"].between(0, 1).all()
    ladder = pd.read_csv(out / "ladder.csv")
    assert set(ladder["engine"]) == {"random", "mcts:rounds=10", "solver"}
    assert ladder.set_index("engine").loc["random", "elo"] == 0
    for name in ("summary.md", "elo_vs_training.png", "mistakes_vs_training.png", "iso_elo.png", "exchange.csv"):
        assert (out / name).stat().st_size > 0
    board = pd.read_csv(out / "boards.csv").iloc[0]
    assert board["board"] == "5x4-4" and board["train_hours"] > 0 and board["game_hours"] > 0
    assert board["solver_elo"] == ladder.set_index("engine").loc["solver", "elo"]
    games = (work / "5x4-4" / "games" / "games.csv").read_text()
    mistakes = (work / "5x4-4" / "mistakes-3" / "mistakes.csv").read_text()
    assert scaling.main(argv) == 0  # resumes: nothing left to train, measure or play
    assert (work / "5x4-4" / "games" / "games.csv").read_text() == games
    assert (work / "5x4-4" / "mistakes-3" / "mistakes.csv").read_text() == mistakes
