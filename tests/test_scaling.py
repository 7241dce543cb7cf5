"""The scaling lab (experiments/headline/scaling.py): its compute accounting, its
settings, the report's sentences on each board-size step (experiments/shared/scaling_report.py),
and a quick run end to end that resumes. Its statistics have their own tests (test_frontier.py)."""
import math

import numpy as np
import pandas as pd

from engines.checkpoints import read_metadata
from engines.neural.resnet import resnet_flops
from experiments.headline import recipe_ablation, scaling
from experiments.shared import connectn, scaling_report
from experiments.shared.frontier import PERFECT, Fit, Reach


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


def test_growth_per_step_reads_each_crossing_between_its_neighbours():
    never = Reach(math.nan, 1e12, 0, 0)

    def facts(board, reaches, knee=None):
        fit = Fit(100.0, 90.0, 110.0, 0.0, None if knee is None else 100.0 * knee, 5, knee)
        levels = {level: reaches.get(level, never) for level in scaling_report.MISTAKE_LEVELS}
        return scaling_report.BoardFacts(board, fit, 5, 1000.0, levels, pd.Series(dtype=float),
                                         pd.Series(dtype=float), perfect_low=950.0)

    lines = scaling_report.growth_per_step([
        facts("5x4-4", {0.05: Reach(1e8, 0.0, 0, 4), PERFECT: Reach(1e9, 0.0, 0, 3)}, 10.0),  # plateau 1000
        facts("6x5-4", {0.05: Reach(1e9, 1e8, 0, 4), PERFECT: Reach(1e11, 5e10, 1, 4)}, 11.0),
        facts("7x5-4", {0.05: Reach(4e9, 2e9, 0, 2)}, 9.0),  # a stall at 900, below the solver
        facts("8x7-4", {})])
    assert "perfect play took **100.0x**" in lines[0] and "between 50.0x and any multiple" in lines[0]
    assert "20 to 30 points, a row and a column more" in lines[0]
    assert "the solver's level on both, at **10x**" in lines[0]
    assert "at most 5% mistakes" in lines[1] and "**4.0x**" in lines[1] and "between 2.0x and 40.0x" in lines[1]
    assert "30 to 35 points, a column more" in lines[1]
    assert "did not turn flat at the solver's level on both" in lines[1]
    assert "no mistake level reached on both boards" in lines[2] and "35 to 56 points, 21 points more" in lines[2]
    assert lines[3].startswith("- 5x4-4 to 8x7-4") and "at most 5% mistakes" not in lines[3]  # 8x7 reached none
    assert "Jones measured about 7x" in lines[4]


def test_a_count_of_one_is_singular_in_the_summary():
    """``--quick`` measures at 1 simulation a move: the summary says so, never "1 simulations"."""
    import argparse

    args = argparse.Namespace(nets=[connectn.Net(1, 8)], board_iterations={scaling.BOARDS[0]: 1}, simulations=[1],
                              ladder=["random"], games=2, opening_plies=2, positions=3, mistake_simulations=[1],
                              frontier_simulations=1)
    best = pd.Series({"net": "1x8", "iteration": 1, "simulations": 1, "elo": 230.0})
    fewest = pd.Series({"net": "1x8", "iteration": 1, "simulations": 1, "mistakes": 0.5})
    facts = scaling_report.BoardFacts("5x4-4", None, 1, 286.0, {level: Reach(math.nan, 1e8, 0, 0)
                                      for level in scaling_report.MISTAKE_LEVELS}, best, fewest)
    text = "\n".join(scaling_report.frontier_lines(args, "python x.py", pd.DataFrame({"board": ["5x4-4"]}), [facts])
                     + scaling_report.perfect_lines(args, [facts]))
    assert "1 simulations" not in text and "1 iterations" not in text
    assert "for 1 iteration on 5x4-4" in text and "plays at 1 simulation a move" in text
    assert "1x8 after 1 iteration at 1 simulation: 230" in text and "(1x8 after 1 iteration, 1 simulation)" in text


def test_the_quick_runs_positions_fill_every_set_without_a_warning(tmp_path, caplog):
    from dlgo.formats.positions import SETS, read_positions

    connectn.measured_positions(scaling.BOARDS[0], tmp_path, 3, 1, quick=True)  # the quick run's 3 a set
    assert "stay short" not in caplog.text
    assert {p.set for p in read_positions(tmp_path / "positions.csv")} == set(SETS)


def test_larger_boards_train_longer_unless_told():
    def iterations(*argv):
        args = scaling.build_parser().parse_args(list(argv))
        scaling.settle(args)
        return [args.board_iterations[board] for board in args.boards]

    assert iterations() == [192, 384, 768]  # twice the ablation's recipe runs
    assert iterations("--iterations", "10") == [10, 10, 10]
    assert iterations("--iterations", "3", "2", "1", "--boards", *reversed(scaling.BOARDS)) == [1, 2, 3]  # as given


def test_the_lab_trains_with_the_recipe():
    config = connectn.training_config(scaling.BOARDS[0], connectn.Net(2, 32), seed=0, quick=False, iterations=96)
    assert config.merge_positions and (config.policy_filters, config.value_filters) == (32, 32)
    assert config.temperature_floor == 0.3 and config.temperature_moves == 10  # 20/42 of 20 cells
    assert config.opening_moves == 10 and config.learning_rate_drops == [65] and config.previous_games == 0
    assert config.simulations == 16 and config.search_value_weight == 0.5  # the lab's economy
    # the ablation's recipe is the same changes, on its 4x64 network with references to publish the best by
    recipe = recipe_ablation.VARIANTS["openings"].settings(20, 96)
    assert {name: recipe[name] for name in connectn.recipe_settings(20, 96)} == \
        {name: getattr(config, name) for name in connectn.recipe_settings(20, 96)}
    assert recipe["reference_positions"] > 0 and recipe["publish"] == "best"


def test_bad_settings_exit_with_one_line(tmp_path, capsys):
    out, work = str(tmp_path / "out"), str(tmp_path / "work")
    assert scaling.main(["--out", out, "--work", work, "--boards", "go:size=5"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--nets", "big"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--ladder", "random", "mcts:rounds=10"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--frontier-simulations", "3"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--mistake-simulations", "64", "32"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--simulations", "8", "8"]) == 2
    assert scaling.main(["--out", out, "--work", work, "--ladder", "random", "solver", "gnugo"]) == 2
    assert scaling.main(["--out", out, "--work", str(tmp_path / "a=b")]) == 2
    assert scaling.main(["--out", out, "--work", work, "--iterations", "8", "16"]) == 2  # three boards
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 9 and all(line.startswith("error: ") for line in errors)
    assert not (tmp_path / "work").exists()


def test_quick_run_rates_every_network_and_resumes(tmp_path, capsys):
    out, work = tmp_path / "out", tmp_path / "work"
    argv = ["--quick", "--out", str(out), "--work", str(work), "--workers", "1"]
    assert scaling.main(argv) == 0
    points = pd.read_csv(out / "points.csv")
    assert len(points) == 3 * 2  # iterations 0, 1, 2 at 1 and 4 simulations
    assert (points.groupby("simulations")["search_evaluations"].mean().diff().dropna() > 0).all()
    assert (points[points["iteration"] == 0]["train_flops"] == 0).all()
    assert (points[points["iteration"] > 0]["train_flops"] > 0).all()
    at_frontier = points["simulations"] == 4  # the quick run's frontier budget, the only one measured
    assert points[at_frontier]["mistakes"].between(0, 1).all() and points[~at_frontier]["mistakes"].isna().all()
    assert points["mistakes_raw"].between(0, 1).all()  # a network's raw policy is the same at every budget
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
    # the largest run's published network shipped, playable by its board's name
    ship = tmp_path / "ship"
    capsys.readouterr()
    assert scaling.main([*argv, "--ship", "--checkpoints", str(ship)]) == 0
    assert f"shipped {ship / 'connect-5x4.keras'}: 1x8 after iteration 2, " in capsys.readouterr().out
    assert read_metadata(ship / "connect-5x4.keras")["iteration"] == 2
    import engines
    from dlgo.games import new_game

    agent = engines.create(f"alphazero:checkpoint={ship / 'connect-5x4.keras'},simulations=4")
    assert new_game(scaling.BOARDS[0]).is_valid_move(agent.select_move(new_game(scaling.BOARDS[0])))
