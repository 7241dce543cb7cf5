"""The experiment scripts run end to end on tiny settings."""
import argparse
import json
import os
from pathlib import Path

import pytest

from dlgo.storage.facts import read_facts
from helpers import written_facts_differ
from experiments.chapters import ch15_strength_per_compute as spc
from experiments.shared import alphazero, chapters, ladders


def test_mcts_ladder_steps_by_root_ten():
    assert ladders.mcts_ladder(1000) == [10, 32, 100, 316, 1000]
    assert ladders.ladder_specs(32, 2, "connect4") == ["random", "mcts:rounds=10", "mcts:rounds=32",
                                                   "alphabeta:depth=1,nodes=0", "alphabeta:depth=2,nodes=0"]
    assert ladders.ladder_specs(10, 0, "go:size=5") == ["random", "mcts:rounds=10,plain=true"]  # the course's UCT


def test_the_course_names_its_uct_on_go_and_nothing_else_changes():
    assert chapters.course_spec("mcts:rounds=100", "connect4") == "mcts:rounds=100"
    assert chapters.course_spec("mcts:rounds=100", "go:size=9") == "mcts:rounds=100,plain=true"
    assert chapters.course_spec("mcts:rounds=100,plain=false", "go:size=9") == "mcts:rounds=100,plain=false"
    assert chapters.course_spec("random", "go:size=9") == "random"


def test_the_shipped_alphazero_networks_join_their_own_game_only():
    assert ladders.alphazero_specs("tictactoe", [0, 50]) == ["alphazero:checkpoint=tictactoe,simulations=0",
                                                           "alphazero:checkpoint=tictactoe,simulations=50"]
    assert ladders.alphazero_specs("tictactoe", []) == []
    assert ladders.alphazero_specs("go:size=9", [50]) == []  # no shipped 9x9 network


def test_strength_per_compute_writes_its_report_and_resumes(tmp_path, capsys):
    args = ["--preset", "full", "--game", "tictactoe", "--mcts-max", "10", "--depth-max", "1", "--games-per-pair", "2",
            "--workers", "1", "--out", str(tmp_path), "--alphazero-simulations"]
    assert spc.main(args) == 0
    for name in ("games.csv", "ratings.csv", "crosstable.csv", "strength_vs_compute.png", "summary.md"):
        assert (tmp_path / name).exists()
    lines = (tmp_path / "games.csv").read_text().splitlines()
    assert len(lines) == 1 + 3 * 2
    assert spc.main(args) == 0  # a rerun plays nothing new
    assert (tmp_path / "games.csv").read_text().splitlines() == lines
    assert "report: " in capsys.readouterr().out
    assert ("Reproduce: `python experiments/chapters/ch15_strength_per_compute.py --preset full --game tictactoe "
            "--mcts-max 10") in (tmp_path / "summary.md").read_text()  # the suite's ladder says how to run it again


def test_the_chapter_ladder_names_the_chapters_that_made_the_networks_it_rates(tmp_path, monkeypatch):
    """Its Reproduce starts with the commands that make what it found in data/: a fresh clone runs them first."""
    from experiments.shared import supervised

    monkeypatch.chdir(tmp_path)
    for network in (supervised.predictor_model_path(True, game="go:size=5"),
                    Path("data/ch11_q_learning-go5-quick/run/current.keras")):
        network.parent.mkdir(parents=True)
        network.write_bytes(b"a network")
    args = argparse.Namespace(quick=True, game="go:size=5", predictor=None, engines=[])
    assert spc.add_the_course_networks(args) == [
        "python experiments/chapters/ch06_07_train_predictor.py --game go:size=5 --quick",
        "python experiments/chapters/ch11_q_learning.py --game go:size=5 --quick"]
    assert args.engines == ["q:model=data/ch11_q_learning-go5-quick/run/current.keras"]
    assert spc.add_the_course_networks(argparse.Namespace(quick=False, game="connect4", predictor=None,
                                                          engines=[])) == []  # nothing made: nothing to name


def test_supervised_experiments_run_quick_and_write_their_reports(tmp_path):
    from experiments.headline import supervised_connect4, supervised_go9

    for module in (supervised_go9, supervised_connect4):
        out = tmp_path / module.PRESET.name
        args = ["--quick", "--workers", "1", "--out", str(out), "--work", str(tmp_path / "work" / module.PRESET.name)]
        assert module.main(args) == 0
        for name in ("accuracy.csv", "learning_curve.png", "summary.md", "tournament/games.csv"):
            assert (out / name).exists(), name
        summary = (out / "summary.md").read_text()
        assert "top-1" in summary and "| random |" in summary
    assert "8.35%" in (tmp_path / "supervised-go9" / "summary.md").read_text()
    assert written_facts_differ([tmp_path / "supervised-go9", tmp_path / "supervised-connect4"]) == {}


def test_alphazero_tictactoe_runs_quick_and_checks_perfect_lines(tmp_path):
    from experiments.chapters import ch14a_alphazero_tictactoe as az

    out = tmp_path / "rep"
    assert az.main(["--preset", "full", "--quick", "--out", str(out), "--work", str(tmp_path / "work"),
                    "--workers", "1", "--ship", str(tmp_path / "ship" / "ttt.keras")]) == 0
    summary = (out / "summary.md").read_text()
    assert "Against perfect play" in summary and "| X |" in summary and "| O |" in summary
    assert (out / "learning_curve.png").exists() and (tmp_path / "ship" / "ttt.keras").exists()
    assert summary.startswith("# AlphaZero on tic-tac-toe\n") and "## What the network sees" not in summary
    assert ("Reproduce: `python experiments/chapters/ch14a_alphazero_tictactoe.py --preset full --quick "
            "--ship ") in summary
    assert written_facts_differ([out]) == {} and read_facts(out)["perfect_play"][0]["side"] == "X"


@pytest.mark.parametrize("script, preset", [("chapters/ch14b_alphazero_connect4", "full"),
                                            ("headline/alphazero_go5", None)])
def test_alphazero_experiments_run_quick_and_play_their_final_match(tmp_path, script, preset):
    import importlib

    import pandas as pd

    az = importlib.import_module(f"experiments.{script.replace('/', '.')}")
    experiment = az.PRESETS[preset] if preset else az.EXPERIMENT
    chosen = ["--preset", preset] if preset else []
    out = tmp_path / "rep"
    assert az.main([*chosen, "--quick", "--out", str(out), "--work", str(tmp_path / "work"), "--workers", "1"]) == 0
    summary = (out / "summary.md").read_text()
    assert f"## Against {experiment.opponent}" in summary and "Elo" in summary
    if experiment.target is not None:  # two games of a tiny net: far from the target, and said so
        assert f"Target: a score of at least {experiment.target:.0%}: **not met**." in summary
    typed = " ".join([*chosen, "--quick"])
    assert f"python experiments/{script}.py {typed} --iterations 2 --seed 0 --workers 1" in summary
    history = pd.read_csv(out / "history.csv")
    assert list(history["iteration"]) == [1, 2] and "elo" in history
    assert len(pd.read_csv(out / "match" / "games.csv")) == 2
    assert (out / "learning_curve.png").stat().st_size > 10_000
    assert written_facts_differ([out]) == {} and read_facts(out)["matches"]["match"]["games"] == 2


def test_alphazero_summaries_name_the_self_play_processes_per_stretch():
    import pandas as pd

    old = pd.DataFrame({"iteration": [1, 2, 3]})  # rows from before the workers column: in-process
    assert alphazero.self_play_processes(old) == "the training process"
    mixed = pd.DataFrame({"iteration": [1, 2, 3, 4], "workers": [None, 1, 2, 2]})
    assert alphazero.self_play_processes(mixed) == \
        "the training process (iterations 1-2), 2 worker processes (iterations 3-4)"


def test_alphazero_summaries_show_the_reference_mistakes_and_no_elo_without_previous_games():
    from dataclasses import replace

    import pandas as pd

    from dlgo.data.solved import shipped_sets
    from engines.training.alphazero_config import AlphaZeroConfig

    history = pd.DataFrame({"iteration": [0, 1, 2, 3], "seconds": [60.0, 120.0, 120.0, 120.0],
                            "loss": [None, 2.0, 1.5, 1.2], "policy_loss": [None, 1.5, 1.2, 1.0],
                            "value_loss": [None, 0.4, 0.3, 0.2], "elo": [0.0, None, None, None],
                            "reference_positions": [600, None, 600, 600], "mistakes_raw": [0.5, None, 0.3, 0.25],
                            "mistakes_search": [0.4, None, 0.2, 0.125]})
    config = AlphaZeroConfig(game="connect4", previous_games=0, baselines=[], reference_positions=100,
                             eval_simulations=16)
    lines = alphazero.training_section(history, config, "")
    text = "\n".join(lines)
    assert "Elo" not in text and "Scores by iteration" not in text and "Last iteration: loss 1.200 " in text
    assert "| 0 | 600 | 50.0% | 40.0% | 1 |" in lines and "| 3 | 600 | 25.0% | 12.5% | 7 |" in lines
    assert not any(line.startswith("| 1 |") for line in lines)  # iteration 1 measured nothing
    refs = str(shipped_sets("connect4"))
    published = " ".join(alphazero.published_words(replace(config, reference_every=8, reference_file=refs),
                                                   history.assign(published=2)))
    shown = os.path.relpath(refs)  # a file under the working folder, named relative to it
    assert f"fewest mistakes on 600 critical solved positions of `{shown}`" in published and not shown.startswith("/")
    assert "measured every 8 iterations and for the start): here iteration 2's" in published


def test_alphazero_summaries_show_baseline_scores_without_previous_games(tmp_path):
    """A run gated on a baseline every few iterations and playing no previous network (the
    Go runs): its scores table lists the measured iterations, with no Elo and no empty column,
    and its learning curve is drawn."""
    import pandas as pd

    from engines.training.alphazero import plot_history
    from experiments.headline import alphazero_go7

    config = alphazero_go7.config(0)
    score = f"score_vs_{alphazero_go7.OPPONENT}"
    history = pd.DataFrame({"iteration": range(9), "seconds": [60.0] * 9, "loss": [None] + [2.0] * 8,
                            "policy_loss": [None] + [1.5] * 8, "value_loss": [None] + [0.4] * 8, "elo": [0.0] * 9,
                            score: [0.1, None, None, None, 0.3, None, None, None, 0.45],
                            "score_vs_previous": [None] * 9, "published": [0, 0, 0, 0, 4, 4, 4, 4, 8]})
    lines = alphazero.training_section(history, config, "")
    text = "\n".join(lines)
    assert "Elo" not in text and "previous network" not in text and "| elo |" not in text
    assert f"| iteration | {alphazero_go7.OPPONENT} | minutes |" in lines
    assert "| 4 | 30% | 1.0 |" in lines and "| 8 | 45% | 1.0 |" in lines
    plot_history(history, tmp_path / "curve.png", "go7")
    assert (tmp_path / "curve.png").stat().st_size > 0


def test_alphazero_summaries_describe_the_economies_only_when_used():
    from engines.training.alphazero_config import AlphaZeroConfig

    assert alphazero.search_budget(AlphaZeroConfig(simulations=100)) == "100 simulations per move"
    capped = alphazero.search_budget(AlphaZeroConfig(simulations=100, fast_simulations=20, full_fraction=0.25))
    assert capped.startswith("25% of the moves searched with 100 simulations")
    assert "after 20 simulations" in capped
    mixed = alphazero.search_budget(AlphaZeroConfig(simulations=100, search_value_weight=0.5))
    assert mixed.startswith("100 simulations per move; value targets 0.5 x the game's result")
    gumbel = alphazero.search_budget(AlphaZeroConfig(game="go:size=5", simulations=16, gumbel=16, auxiliary=["all"]))
    assert gumbel == ("16 simulations per move, Gumbel AlphaZero's search over 16 root moves with its improved policy "
                      "as the target; auxiliary targets: all (weight 0.15 each)")
    forced = alphazero.search_budget(AlphaZeroConfig(simulations=100, forced_playouts=2.0))
    assert forced == "100 simulations per move, forced playouts and policy target pruning (k = 2)"


@pytest.mark.skipif(not __import__("os").access("/usr/games/gnugo", __import__("os").X_OK),
                    reason="GNU Go is not installed (apt-get install gnugo)")
def test_vs_gnugo_runs_quick_holds_the_levels_and_resumes(tmp_path, capsys):
    import pandas as pd

    from experiments.crosschecks import vs_gnugo

    args = ["--quick", "--workers", "1", "--out", str(tmp_path)]
    assert vs_gnugo.main(args) == 0
    for name in ("games.csv", "ratings.csv", "crosstable.png", "handicap.csv", "handicap.png", "summary.md"):
        assert (tmp_path / name).exists(), name
    games = pd.read_csv(tmp_path / "games.csv")
    assert len(games) == 1 + 2 * 2 + 2 and len(list((tmp_path / "sgf").glob("*.sgf"))) == len(games)
    handicap = games[games["game"] == "go:size=9,komi=0.5,handicap=9"]
    assert len(handicap) == 2 and set(handicap["black"]) == {"random", "mcts:rounds=20"}
    ratings = pd.read_csv(tmp_path / "ratings.csv").set_index("engine")
    assert ratings.loc["gnugo:level=10", "elo"] == 1800  # the anchor, held
    assert ratings.loc["gnugo:level=0", "elo_low"] == ratings.loc["gnugo:level=0", "elo_high"]  # held too
    summary = (tmp_path / "summary.md").read_text()
    assert "`gnugo:level=10` held at 1800" in summary and "## Handicap against `gnugo:level=0`" in summary
    assert vs_gnugo.main(args) == 0  # resumes: nothing new is played
    assert len(pd.read_csv(tmp_path / "games.csv")) == len(games)
    assert written_facts_differ([tmp_path]) == {} and read_facts(tmp_path)["handicap"]


def test_fixed_ratings_hold_the_yardstick_and_fit_the_rest():
    from dlgo.arena.ratings import GameResult, fit_ratings

    results = [GameResult("a", "b", 1.0)] * 3 + [GameResult("a", "b", 0.0)] + \
        [GameResult("x", "a", 0.5)] * 4 + [GameResult("x", "b", 1.0)] * 4
    ratings = {r.name: r for r in fit_ratings(results, fixed={"a": 1000.0, "b": 900.0}, bootstrap=20)}
    assert ratings["a"].elo == 1000.0 and ratings["b"].elo == 900.0
    assert ratings["a"].lower == ratings["a"].upper == 1000.0
    assert 900 < ratings["x"].elo < 1300 and ratings["x"].lower < ratings["x"].elo < ratings["x"].upper


def test_the_reproducing_command_keeps_the_settings_not_the_folders():
    argv = ["--quick", "--out", "reports/x", "--komi", "0", "--work=data/x", "--fresh", "--size", "5"]
    assert chapters.command("experiments/chapters/ch03_random_go.py", argv) == \
        "python experiments/chapters/ch03_random_go.py --quick --komi 0 --size 5"
    # options the run settled itself (all cores for --workers 0) replace what was typed, each once
    argv = ["--workers", "0", "--out", "r", "--supervised-epochs", "2", "--seed=3"]
    assert chapters.command("experiments/headline/alphazero_go9.py", argv,
                            {"--iterations": 6, "--seed": 3, "--workers": 2}) == \
        "python experiments/headline/alphazero_go9.py --supervised-epochs 2 --iterations 6 --seed 3 --workers 2"
    # a script's own file names it from the repository's root; a preset other than the default comes first
    from experiments.chapters import ch14a_alphazero_tictactoe

    argv = ["--workers", "1", "--preset=full", "--quick"]
    assert chapters.command(ch14a_alphazero_tictactoe.__file__, argv, {"--workers": 1}, preset="full") == \
        "python experiments/chapters/ch14a_alphazero_tictactoe.py --preset full --quick --workers 1"


def test_reports_hold_the_course_scale_so_an_engine_rates_the_same_in_each(tmp_path, monkeypatch):
    import pandas as pd

    from dlgo.arena import scales
    from experiments.chapters import ch04b_mcts, ch15_strength_per_compute
    from experiments.crosschecks import calibration

    scale = tmp_path / "reports" / "calibration-connect4"
    assert calibration.main(["--quick", "--out", str(scale)]) == 0  # random, mcts 10 and 32, alpha-beta depth 1
    monkeypatch.setattr(scales, "REPORTS", tmp_path / "reports")
    found = scales.course_scale("connect4")
    assert found is not None and found.where == "reports/calibration-connect4"
    held = found.ratings
    assert set(held) == {"random", "mcts:rounds=10", "mcts:rounds=32", "alphabeta:depth=1,nodes=0"}
    assert scales.course_scale("tictactoe") is None  # no scale: random = 0, as before

    # the capstone measures the networks against the ladder held on the scale
    assert ch15_strength_per_compute.main(["--quick", "--out", str(tmp_path / "ch15")]) == 0
    ratings = pd.read_csv(tmp_path / "ch15" / "ratings.csv").set_index("engine")["elo"]
    for engine in set(ratings.index) & set(held):
        assert ratings[engine] == pytest.approx(held[engine], abs=0.5), engine
    assert "alphazero:checkpoint=connect4,simulations=0" in ratings.index  # measured around the held ones
    summary = (tmp_path / "ch15" / "summary.md").read_text()
    assert "on the course's connect4 scale (`reports/calibration-connect4`): `" in summary
    assert f"`mcts:rounds=10` held at {held['mcts:rounds=10']:.0f}" in summary and "`random` held at 0" in summary

    # mistakes on the solved positions beside Elo, in both reports
    for folder in (scale, tmp_path / "ch15"):
        rates = pd.read_csv(folder / "mistake_rates.csv")
        assert {"all", "begin-hard"} <= set(rates.group) and (folder / "mistakes_vs_compute.png").exists()
        assert "| mistakes (critical) |" in (folder / "summary.md").read_text()
    rates = pd.read_csv(tmp_path / "ch15" / "mistake_rates.csv").query("group == 'all'").set_index("engine")
    assert rates.loc["random", "positions"] == 12 and set(rates.index) == set(ratings.index)  # every engine

    # a chapter that measures the ladder itself holds only random
    assert ch04b_mcts.main(["--quick", "--out", str(tmp_path / "ch04b")]) == 0
    ratings = pd.read_csv(tmp_path / "ch04b" / "tournament" / "ratings.csv").set_index("engine")
    assert (ratings.loc["mcts:rounds=32", "elo_high"] > ratings.loc["mcts:rounds=32", "elo_low"])  # measured
    assert "(the engines measured here are not held)" in (tmp_path / "ch04b" / "summary.md").read_text()


def test_a_run_on_another_game_gets_folders_of_its_own():
    assert chapters.game_slug("go:size=5") == "go5" and chapters.game_slug("go:size=9,komi=7.5") == "go9-komi-7-5"
    p = chapters.parser("experiments/chapters/ch04b_mcts.py", "doc", work="the games")
    p.add_argument("--game", default="connect4")
    assert (p.parse_args([]).out, p.parse_args([]).work) == ("runs/ch04b_mcts", "data/ch04b_mcts")
    on_go = p.parse_args(["--game", "go:size=5", "--quick"])
    assert (on_go.out, on_go.work) == ("runs/ch04b_mcts-go5-quick", "data/ch04b_mcts-go5-quick")
    assert p.parse_args(["--game", "go:size=5", "--out", "x"]).out == "x"
    from pathlib import Path

    from experiments.shared.supervised import predictor_model_path

    assert predictor_model_path(game="go:size=5") == \
        Path("data/ch06_07_train_predictor-go5/runs/small-planes/model.keras")


def test_alphago_zero_on_9x9_starts_from_a_supervised_network_and_says_so(tmp_path):
    import pandas as pd

    from engines.neural.backend import read_metadata
    from engines.training.replay import ReplayBuffer
    from experiments.headline import alphazero_go9

    out, work = tmp_path / "rep", tmp_path / "alphazero-go9"
    assert alphazero_go9.main(["--quick", "--out", str(out), "--work", str(work), "--workers", "1"]) == 0
    start = tmp_path / "alphazero-go9-supervised" / "network" / "model.keras"
    assert read_metadata(start)["kind"] == "policy-value"
    assert read_metadata(work / "checkpoints" / "iter-000.keras")  # the run's generation 0: the supervised start
    summary = (out / "summary.md").read_text()
    assert f"the network of `{start}` (its own shape, with fresh auxiliary heads)" in summary
    assert "| the supervised start, before self-play | `alphazero:checkpoint=" in summary
    assert "| the final network | `alphazero:checkpoint=" in summary and "| 95% interval |" in summary
    assert "Self-play " in summary and "with 2 games each, the two 95% intervals overlap" in summary
    assert "over the network it started from" in summary and "over the untrained network" not in summary
    assert "--supervised-epochs" not in summary  # only options that differ from their defaults are repeated
    assert len(pd.read_csv(out / "match-supervised" / "games.csv")) == 2
    # one iteration with --quick, after row 0: the supervised start measured against the fixed opponent (publish best)
    assert list(pd.read_csv(out / "history.csv")["iteration"]) == [0, 1]
    # the gated run starts from the same supervised network, its buffer filled with the games it learnt from
    gated = tmp_path / "alphazero-go9-gated"
    assert alphazero_go9.main(["--preset", "gated", "--quick", "--out", str(tmp_path / "gated-rep"), "--work",
                               str(gated), "--workers", "1"]) == 0
    config = json.loads((gated / "config.json").read_text())
    assert config["init"] == str(start) and config["publish"] == "gate"
    assert Path(config["teacher_games"]).resolve() == tmp_path / "alphazero-go9-supervised" / "games" / "games.csv"
    assert (gated / "teacher-games.csv").exists()  # the fill's games, copied: a resumed run fills with the same
    history = pd.read_csv(tmp_path / "gated-rep" / "history.csv")
    own = sum(len(g[2]) for g in ReplayBuffer.load(gated / "buffer-001.npz").games)
    assert history["examples"].iloc[-1] > own  # the teacher's games beside its own four
    assert history["gate_pairs"].notna().iloc[-1]  # the last iteration's gate, on Go's seeded openings


def test_a_script_with_two_runs_names_them_with_preset_each_with_its_defaults_and_folders():
    from dataclasses import fields, replace

    from engines.checkpoints import resolve_model_path

    from experiments.chapters import ch14a_alphazero_tictactoe as ch14a
    from experiments.chapters import ch14b_alphazero_connect4 as ch14b

    def parsed(module, *argv):
        preset = chapters.chosen_preset(list(module.PRESETS), argv)
        return alphazero.alphazero_parser(module.PRESETS[preset], module.__doc__, module.PRESETS).parse_args(argv)

    chapter, full = parsed(ch14a), parsed(ch14a, "--preset", "full")
    assert (chapter.out, chapter.work, chapter.preset) == ("runs/ch14a_alphazero_tictactoe",
                                                           "data/ch14a_alphazero_tictactoe", "chapter")
    assert (full.out, full.work, full.preset) == ("runs/alphazero-tictactoe", "data/alphazero-tictactoe", "full")
    assert (chapter.iterations, chapter.simulations) == (full.iterations, full.simulations) == (20, 50)
    assert ch14a.CHAPTER.config(3) == ch14a.FULL.config(3)  # the same training, two reports

    chapter, full = parsed(ch14b), parsed(ch14b, "--preset=full", "--quick")
    assert (chapter.out, chapter.iterations, chapter.games) == ("runs/ch14b_alphazero_connect4", 16, 20)
    assert (full.out, full.work, full.iterations, full.games) == ("runs/alphazero-connect4-quick",
                                                                  "data/alphazero-connect4-quick", 73, 200)
    assert ch14b.CHAPTER.config(0) == replace(ch14b.FULL.config(0), baseline_every=4)
    assert (ch14b.FULL.opponent, ch14b.FULL.target, ch14b.CHAPTER.opponent) == ("mcts:rounds=1000", 0.9,
                                                                                 "mcts:rounds=300")
    recipe = parsed(ch14b, "--preset", "recipe")
    assert (recipe.out, recipe.work, recipe.iterations, recipe.games) == ("runs/alphazero-connect4-recipe",
                                                                         "data/alphazero-connect4-recipe", 2400, 200)
    settings = ch14b.RECIPE.config(0)  # the small boards' recipe on the full board, the full run's shape
    assert (settings.game, settings.blocks, settings.filters, settings.policy_filters, settings.value_filters) == \
        ("connect4", 5, 64, 32, 32)
    assert (settings.simulations, settings.learning_rate_drops, settings.opening_moves, settings.merge_positions) == \
        (16, [1601], 21, True)
    assert (settings.publish, settings.reference_positions, settings.reference_every) == ("best", 100, 8)
    assert ch14b.solved_references(argparse.Namespace(quick=True)) == {}  # a quick run measures the shipped sets
    continued = ch14b.CONTINUED.config(0)  # the recipe's network searched deeper, the recipe otherwise
    changed = {f.name for f in fields(settings) if getattr(settings, f.name) != getattr(continued, f.name)}
    assert changed == {"init", "simulations", "games", "buffer_games", "train_steps", "learning_rate",
                       "learning_rate_drops", "reference_every"}
    assert (continued.simulations, Path(continued.init).resolve()) == (64, resolve_model_path("connect4-recipe"))

    chapter = spc.build_parser(spc.PRESETS["chapter"]).parse_args([])
    full = spc.build_parser(spc.PRESETS["full"]).parse_args(["--preset", "full"])
    assert (chapter.out, chapter.mcts_max, chapter.depth_max) == ("runs/ch15_strength_per_compute", 1000, 4)
    assert (full.out, full.mcts_max, full.depth_max) == ("runs/strength-per-compute", 3200, 5)
    with pytest.raises(SystemExit):  # an unknown preset is refused by the command line, not a KeyError
        spc.main(["--preset", "nope"])


@pytest.mark.skipif(not __import__("os").access("/usr/games/gnugo", __import__("os").X_OK),
                    reason="GNU Go is not installed (apt-get install gnugo)")
def test_the_go_engine_experiment_plays_its_parts_quick_and_resumes(tmp_path):
    import pandas as pd

    from experiments.headline import mcts_go9

    args = ["--quick", "--workers", "1", "--out", str(tmp_path)]
    assert mcts_go9.main(args) == 0
    match = pd.read_csv(tmp_path / "match" / "games.csv")
    assert set(match.black) | set(match.white) == {"mcts:seconds=0.05", "mcts:seconds=0.05,plain=true",
                                                   "gnugo:level=0"}
    ablation = pd.read_csv(tmp_path / "ablation" / "games.csv")
    bare = "mcts:seconds=0.02,c=1.4,rave=false,priors=false,rollout=random,reuse=false,manage=false"
    assert len(ablation) == 12 and bare in set(ablation.black) | set(ablation.white)
    assert "mcts:seconds=0.02,c=1.4,priors=false,rollout=random,reuse=false,manage=false" in \
        set(ablation.black) | set(ablation.white)  # RAVE alone
    handicap = pd.read_csv(tmp_path / "handicap" / "games.csv")
    assert list(handicap.game) == ["go:size=13,komi=0.5,handicap=9"] and list(handicap.black) == ["mcts:seconds=0.05"]
    summary = (tmp_path / "summary.md").read_text()
    for heading in ("## The match", "## Each feature alone and together", "## Handicap on 13x13"):
        assert heading in summary
    assert (tmp_path / "ablation.png").exists() and (tmp_path / "handicap.png").exists()
    assert mcts_go9.main(args) == 0  # resumes: nothing new is played
    assert len(pd.read_csv(tmp_path / "ablation" / "games.csv")) == 12
    facts = read_facts(tmp_path)
    assert written_facts_differ([tmp_path]) == {} and facts["match"]["opponent"] == "gnugo:level=0"
    full = facts["ablation"]["features"][0]  # the full engine against GNU Go, in its games
    pairs = set(zip(ablation.black, ablation.white))
    both_ways = (("mcts:seconds=0.02", "gnugo:level=0"), ("gnugo:level=0", "mcts:seconds=0.02"))
    against = sum(pair in pairs for pair in both_ways)
    assert full["feature"] == "all five" and against and full["without"][1] == len(
        ablation[((ablation.black == "mcts:seconds=0.02") & (ablation.white == "gnugo:level=0"))
                 | ((ablation.white == "mcts:seconds=0.02") & (ablation.black == "gnugo:level=0"))])


def test_mcts_go9_names_the_fewest_handicap_only_when_fewer_stones_lost() -> None:
    from experiments.headline.mcts_go9 import fewest_stones_sentence

    assert "**4** (2 did not)" in fewest_stones_sentence([(2, 0.33, 0.1, 0.7), (4, 0.5, 0.2, 0.8)])
    assert "fewer were not tried" in fewest_stones_sentence([(4, 0.67, 0.3, 0.9), (6, 1.0, 0.6, 1.0)])
    assert fewest_stones_sentence([(2, 0.0, 0.0, 0.4)]).startswith("No handicap tried (2)")
    assert "no handicap stones" in fewest_stones_sentence([(0, 0.5, 0.2, 0.8), (2, 0.83, 0.4, 0.97)])


def test_the_economies_ablation_runs_quick_and_reports_each_variant(tmp_path):
    """Three variants, one tiny iteration each: every run measured on the solved
    positions from its start, published by them, and reported with its compute."""
    import pandas as pd

    from experiments.headline import alphazero_economies as economies

    out, work = tmp_path / "out", tmp_path / "work"
    argv = ["--quick", "--out", str(out), "--work", str(work), "--variants", "gumbel16", "puct16", "forced"]
    assert economies.main(argv) == 0
    table = pd.read_csv(out / "economies.csv")
    assert list(table["variant"].unique()) == ["gumbel16", "puct16", "forced"]
    assert {v: list(runs["iteration"]) for v, runs in table.groupby("variant")} == \
        {"gumbel16": [0, 1], "puct16": [0, 1], "forced": [0, 1]}  # row 0: the random start, measured
    first = table[table["iteration"] == 1]
    assert (first["selfplay_evaluations"] > 0).all() and (first["cumulative_evaluations"] > 0).all()
    assert json.loads((work / "gumbel16" / "config.json").read_text())["gumbel"] == 16
    assert json.loads((work / "forced" / "config.json").read_text())["forced_playouts"] == 2.0
    summary = (out / "summary.md").read_text()
    assert "| gumbel16 | Gumbel search, 16 simulations, improved-policy targets; Gumbel AlphaZero" in summary
    assert (out / "mistakes_vs_evaluations.png").exists()
    assert economies.main(argv) == 0  # a finished run: nothing to train, the same report
    assert economies.main(["--quick", "--out", str(out), "--variants", "nope"]) == 2
    # another command trains another variant elsewhere: the report keeps the three, each with its command
    assert economies.main(["--quick", "--out", str(out), "--work", str(tmp_path / "elsewhere"),
                           "--variants", "puct200"]) == 0
    table = pd.read_csv(out / "economies.csv")
    assert list(table["variant"].unique()) == ["gumbel16", "puct16", "puct200", "forced"]  # the report's order
    assert table.groupby("variant")["iteration"].apply(list).to_dict()["forced"] == [0, 1]
    summary = (out / "summary.md").read_text()
    assert "- gumbel16, puct16, forced: `python experiments/headline/alphazero_economies.py --quick --variants " \
           "gumbel16 puct16 forced --seed 0 --workers 1`" in summary
    assert "- puct200: `python experiments/headline/alphazero_economies.py --quick --variants puct200" in summary
    assert written_facts_differ([out]) == {}
    assert [row["variant"] for row in read_facts(out)["economies"]["published"]] == sorted(table["variant"].unique())


def test_the_economies_report_keeps_earlier_variants_with_the_command_its_summary_named(tmp_path):
    """A report written before rows carried their command: the variants another command
    did not train keep their rows, and take the command of the summary they came with."""
    import pandas as pd

    from experiments.headline.alphazero_economies import earlier_variants

    pd.DataFrame({"variant": ["gumbel16", "gumbel16", "puct200"], "iteration": [0, 1, 0]}).to_csv(
        tmp_path / "economies.csv", index=False)
    (tmp_path / "summary.md").write_text("# title\n\nReproduce: `python x.py --variants gumbel16 puct200`\n")
    kept = earlier_variants(tmp_path / "economies.csv", ["puct200"], tmp_path / "summary.md")
    assert list(kept["variant"]) == ["gumbel16", "gumbel16"]
    assert set(kept["command"]) == {"python x.py --variants gumbel16 puct200"}
    assert earlier_variants(tmp_path / "absent.csv", [], tmp_path / "summary.md").empty


def test_the_economies_report_prices_each_variant_against_the_reference_runs_best():
    """The evaluations each run took to first match puct200's published mistake
    rate, as a share of puct200's; a run that never did says so."""
    import pandas as pd

    from experiments.headline.alphazero_economies import reach_rows

    def run(name: str, rates: list[float], evaluations: list[int], published: int) -> pd.DataFrame:
        return pd.DataFrame({"variant": name, "iteration": range(len(rates)), "mistakes_search": rates,
                             "cumulative_evaluations": evaluations, "published": published,
                             "reference_positions": 293})

    table = pd.concat([run("gumbel16", [0.5, 0.2, 0.16, 0.14], [0, 30, 60, 90], 3),
                       run("puct200", [0.5, 0.15, 0.18], [0, 400, 800], 1),
                       run("puct16", [0.5, 0.3], [0, 30], 1)], ignore_index=True)
    lines = reach_rows(table)
    assert "puct200's published mistake rate (15.0% with search, after 400 self-play evaluations)" in lines[0]
    assert "| gumbel16 | 3 | 90 | 22% |" in lines and "| puct200 | 1 | 400 | 100% |" in lines
    assert "| puct16 | not reached by iteration 1 | - | - |" in lines
    assert reach_rows(table[table["variant"] != "puct200"]) == []


def test_the_economies_report_compares_every_variant_at_the_smallest_runs_evaluations():
    """At the evaluations of the run that spent fewest (puct16's 30): the network each
    run would have published by then, and the mean of its last three iterations by then."""
    import pandas as pd

    from experiments.headline.alphazero_economies import common_budget_rows

    def run(name: str, rates: list[float], evaluations: list[int]) -> pd.DataFrame:
        return pd.DataFrame({"variant": name, "iteration": range(len(rates)), "mistakes_search": rates,
                             "cumulative_evaluations": evaluations, "reference_positions": 100})

    table = pd.concat([run("gumbel16", [0.5, 0.2, 0.3, 0.4, 0.1], [0, 10, 20, 30, 40]),
                       run("puct16", [0.5, 0.3], [0, 30])], ignore_index=True)
    lines = common_budget_rows(table)
    assert lines[0].startswith("Every variant at the same compute, 30 self-play evaluations")
    assert "| gumbel16 | 3 | 1 | 20.0% (13.3%-28.9%) | 30.0% |" in lines  # not iteration 4's 10%: past the budget
    assert "| puct16 | 1 | 1 | 30.0% (21.9%-39.6%) | 30.0% |" in lines


def test_gumbel_search_crosscheck_runs_quick_and_reports_both_searches(tmp_path):
    from experiments.crosschecks import gumbel_search

    out = tmp_path / "out"
    assert gumbel_search.main(["--quick", "--out", str(out), "--workers", "1"]) == 0
    summary = (out / "summary.md").read_text()
    assert "## Head to head" in summary and "simulations=8,gumbel=16` against" in summary
    rates = (out / "mistake_rates.csv").read_text()
    assert "simulations=2,gumbel=16" in rates and "simulations=8," in rates
    assert (out / "mistakes_vs_compute.png").exists() and (out / "match" / "games.csv").exists()


def test_the_go_runs_train_with_the_recipe_and_the_auxiliary_heads():
    """7x7 from zero and 9x9 from the supervised start take the recipe's defaults (heads of 32,
    merged positions, the board-scaled temperature schedule with its floor), drop the learning
    rate for the last third, learn the auxiliary targets and publish the best score against
    GNU Go, with no random openings."""
    from dataclasses import fields

    from engines.training.alphazero_config import AlphaZeroConfig
    from experiments.headline import alphazero_go7, alphazero_go9

    defaults = {f.name: f.default for f in fields(AlphaZeroConfig)}
    recipe = ("policy_filters", "value_filters", "merge_positions", "temperature_moves", "temperature_floor",
              "temperature_decay_moves", "opening_moves", "publish")
    for module in (alphazero_go7, alphazero_go9):
        config = module.config(0)
        assert {name: getattr(config, name) for name in recipe} == {name: defaults[name] for name in recipe}
        assert config.learning_rate_drops == [2 * module.ITERATIONS // 3 + 1] == [module.EXPERIMENT.iterations
                                                                                  * 2 // 3 + 1]
        assert config.auxiliary == ["all"] and config.publish_margin == 0.0 and config.previous_games == 0
        assert config.baselines == [module.OPPONENT]

    # the anchored run is the gated one but for its value target's anchors, and shares the supervised start
    from dataclasses import asdict
    from types import SimpleNamespace

    gated, anchored = asdict(alphazero_go9.gated_config(0)), asdict(alphazero_go9.anchored_config(0))
    assert {k: v for k, v in anchored.items() if gated[k] != v} == {
        "search_value_weight": 0.5, "buffer_games": 2000, "teacher_keep": 400, "train_steps": 50}
    for folder in ("alphazero-go9-anchored", "alphazero-go9-gated", "alphazero-go9"):
        assert alphazero_go9.supervised_folder(SimpleNamespace(work=f"data/{folder}")) == \
            Path("data/alphazero-go9-supervised")


def test_zero_knowledge_go7_runs_quick_with_its_economies_and_publishes_its_best(tmp_path):
    """The 7x7 run's quick version keeps its economies (Gumbel search, auxiliary
    targets, publishing the best by the fixed opponent): the start is measured
    as row 0 and the summary names the published network."""
    import pandas as pd

    from experiments.headline import alphazero_go7

    out, work = tmp_path / "rep", tmp_path / "work"
    assert alphazero_go7.main(["--quick", "--out", str(out), "--work", str(work), "--workers", "1"]) == 0
    history = pd.read_csv(out / "history.csv")
    assert list(history["iteration"]) == [0, 1, 2] and history["score_vs_random"].notna().all()
    assert {"ownership_loss", "score_loss", "moves_left_loss", "published"} <= set(history.columns)
    config = json.loads((work / "config.json").read_text())
    assert config["gumbel"] == 16 and config["auxiliary"] == ["all"] and config["publish"] == "best"
    summary = (out / "summary.md").read_text()
    assert "The run publishes its best network by a fixed reference (best score against `random`" in summary


def test_the_connect4_ceiling_learns_nested_shares_for_equal_steps_and_measures_nothing_twice(tmp_path):
    """The ceiling's quick run: one network per nested share of the solved learning set, each
    for the same number of steps, and the self-play network measured the same way; a rerun
    trains and measures nothing again, and the facts are what the files give."""
    import pandas as pd

    from experiments.headline import connect4_ceiling

    out, work = tmp_path / "connect4-ceiling", tmp_path / "work"
    argv = ["--quick", "--out", str(out), "--work", str(work), "--workers", "1"]
    assert connect4_ceiling.main(argv) == 0
    table = pd.read_csv(out / "ceiling.csv")
    ceilings = table[table.kind == "ceiling"]
    assert list(ceilings.network) == [f"ceiling-1of{share}" for share in connect4_ceiling.SHARES]
    assert list(ceilings.learnt) == sorted(ceilings.learnt) and ceilings.learnt.iloc[0] < ceilings.learnt.iloc[-1]
    assert list(ceilings.epochs) == [2 * share for share in connect4_ceiling.SHARES]  # the whole set's steps each
    assert list(table[table.kind == "self-play"].network) == ["connect4"]
    assert (table.positions == 12).all() and table[["mistakes_raw", "mistakes_search"]].stack().between(0, 1).all()
    learn = connect4_ceiling.learning_set(argparse.Namespace(quick=True, work=str(work), workers=1))
    quarter, half = ({p.moves for p in connect4_ceiling.nested_share(learn, share, 0)} for share in (4, 2))
    assert quarter < half and len(half) == (len(learn) + 1) // 2  # nested shares
    before = {path: path.stat().st_mtime_ns for path in (out / "ceiling.csv", out / "labelling.csv",
                                                         work / "ceiling-1of1" / "model.keras")}
    assert connect4_ceiling.main(argv) == 0
    assert {path: path.stat().st_mtime_ns for path in before} == before
    assert "| `connect4` | self-play |" in (out / "summary.md").read_text()
    assert written_facts_differ([out]) == {}


CHALLENGER_REPORTS = sorted(p.name for p in ladders.REPORTS.glob("challenger-*"))


@pytest.mark.parametrize("folder", CHALLENGER_REPORTS)
def test_each_shipped_network_is_the_one_its_committed_challenger_report_shipped(folder):
    """A shipped network passed the shipping protocol: the committed report's challenger is
    the shipped file (``checkpoints/connect4.keras``, ``connect-6x5.keras``) byte for byte,
    every recorded game replays to its score, and the verdict recomputed from those games and
    the measured positions ships it."""
    import pandas as pd

    from dlgo.arena.sprt import SPRT
    from dlgo.core.types import Player
    from dlgo.formats.records import replay
    from engines.checkpoints import resolve_model_path
    from engines.training.paired_match import PairedResult, pentanomial
    from experiments.crosschecks import challenger as protocol

    report = ladders.REPORTS / folder
    run = json.loads((report / "run.json").read_text())
    game = run.get("game", "connect4")
    shipped = resolve_model_path(protocol.report_name(["--game", game]).removeprefix("challenger-"))
    assert Path(run["challenger"]).read_bytes() == shipped.read_bytes()
    assert resolve_model_path(run["shipped"]).read_bytes() != shipped.read_bytes()
    games = (report / "games.csv").read_text().splitlines()[1:]
    scores = []
    for line in games:
        number, pair, opening, first, moves, score = line.split(",")
        final = replay(game, moves)[-1]
        assert final.is_over() and moves.startswith(opening)
        winner = final.winner()
        challenger = Player.black if first == "1" else Player.white
        assert float(score) == (0.5 if winner is None else float(winner == challenger))
        scores.append(float(score))
    verdict = SPRT(run["elo0"], run["elo1"]).verdict(pentanomial(scores))
    positions = pd.read_csv(report / "positions.csv").set_index("network")
    mine, theirs = (positions.loc[role, "mistakes_search"] for role in ("challenger", "shipped"))
    result = PairedResult(len(scores) // 2, 0.0, 0.0, 0.0, pentanomial(scores), verdict)
    assert protocol.decide(result, mine < theirs, mine <= theirs)[0]


def test_the_unseen_positions_check_judges_each_set_apart_on_positions_of_every_depth(tmp_path, capsys):
    import pandas as pd

    from dlgo.formats.positions import read_positions
    from experiments.crosschecks import unseen_positions as unseen

    board = "connectn:columns=6,rows=4,n=4"
    argv = ["--quick", "--boards", board, "--workers", "1", "--out", str(tmp_path / "out"),
            "--work", str(tmp_path / "work")]
    assert unseen.main(argv) == 0
    table = pd.read_csv(tmp_path / "out" / "judged.csv")
    staged, table = table[table["stage"] != "all"], table[table["stage"] == "all"]
    assert list(zip(table["play"], table["simulations"])) == [("uniform", 0), ("uniform", 4), ("strong", 0),
                                                              ("strong", 4)]
    by_stage = staged.groupby(["play", "simulations"], sort=False)[["positions", "critical", "mistakes"]].sum()
    assert (by_stage.values == table[["positions", "critical", "mistakes"]].values).all()  # the stages add up
    assert (table["network"] == "connect-6x4").all() and (table["critical"] > 0).all()
    assert ((table["low"] <= table["rate"]) & (table["rate"] <= table["high"])).all()
    for play in ("uniform", "strong"):
        positions = read_positions(tmp_path / "work" / f"6x4-4-{play}" / "positions.csv")
        assert len(positions) == 12 and all(4 <= p.stones <= 20 for p in positions)
    before = (tmp_path / "out" / "judged.csv").read_text()
    assert unseen.main(argv) == 0 and (tmp_path / "out" / "judged.csv").read_text() == before  # resumed: the same
    assert unseen.main(["--quick", "--networks", "connect-6x4", "--out", str(tmp_path / "x")]) == 2
    assert "one a board" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_a_challenger_replaces_the_shipped_network_only_when_it_beats_it(tmp_path):
    """The shipped Connect Four network against an untrained one, both ways: it
    wins on the solved positions and in colour-swapped pairs from the balanced openings, and is copied; the untrained
    one does not, and nothing is copied."""
    import pandas as pd

    from dlgo.encoders import get_encoder_by_name
    from engines.neural import backend
    from engines.neural.resnet import build_resnet
    from experiments.crosschecks import challenger

    encoder = get_encoder_by_name(None, "connect4")
    untrained = tmp_path / "untrained.keras"
    backend.save_model(build_resnet(encoder.shape, encoder.num_moves, blocks=1, filters=4), untrained,
                       {"kind": "alphazero", "encoder": encoder.config()})
    shipped = Path(__file__).resolve().parent.parent / "checkpoints" / "connect4.keras"
    ship = tmp_path / "shipped" / "connect4.keras"
    assert challenger.main(["--quick", "--network", str(shipped), "--shipped", str(untrained), "--ship", str(ship),
                            "--out", str(tmp_path / "wins")]) == 0
    positions = pd.read_csv(tmp_path / "wins" / "positions.csv").set_index("network")
    assert positions.loc["challenger", "mistakes_search"] < positions.loc["shipped", "mistakes_search"]
    assert pd.read_csv(tmp_path / "wins" / "games.csv")["score"].mean() > 0.5
    games = pd.read_csv(tmp_path / "wins" / "games.csv")
    assert list(games["first"]) == [1, 0] * (len(games) // 2)  # colour-swapped pairs, one opening each
    assert (games["opening"].iloc[::2].values == games["opening"].iloc[1::2].values).all()
    assert games["opening"].nunique() == len(games) // 2
    assert "The challenger replaces the shipped network" in (tmp_path / "wins" / "summary.md").read_text()
    assert (tmp_path / "wins" / "test.png").exists()
    assert ship.read_bytes() == shipped.read_bytes()
    other = tmp_path / "other.keras"
    assert challenger.main(["--quick", "--network", str(untrained), "--shipped", str(shipped), "--ship", str(other),
                            "--out", str(tmp_path / "loses")]) == 0
    assert "does not replace" in (tmp_path / "loses" / "summary.md").read_text() and not other.exists()
    assert challenger.main(["--quick", "--network", str(tmp_path / "none.keras"), "--out", str(tmp_path / "x")]) == 2


def test_a_challenger_on_a_connect_n_board_plays_the_labs_sets_and_its_openings(tmp_path, capsys):
    """On a board the suite ships no solved sets for, the challenger measures the scaling lab's
    (solved into --work), plays the openings it is given, and names its folders by the board;
    without openings it stops with one line that says how to make them."""
    import pandas as pd

    from dlgo.data.solved import generate_openings
    from experiments.crosschecks import challenger

    board = "connectn:columns=5,rows=4,n=4"
    openings = generate_openings(board, tmp_path / "openings", count=4, workers=1, progress=False)
    argv = ["--quick", "--game", board, "--network", "connect-5x4", "--shipped", "connect-5x4", "--workers", "1",
            "--out", str(tmp_path / "out"), "--work", str(tmp_path / "work")]
    parser = challenger.build_parser(argv)  # its folders named once by the board, its default the board's network
    assert (parser.name, parser.get_default("game"), parser.get_default("shipped")) == \
        ("challenger-connect-5x4", board, "connect-5x4")
    assert challenger.build_parser([]).name == "challenger-connect4"
    assert challenger.main([*argv, "--openings", str(openings)]) == 0
    positions = pd.read_csv(tmp_path / "out" / "positions.csv")
    assert (positions["positions"] > 0).all() and (tmp_path / "work" / "positions-10" / "positions.csv").exists()
    games = pd.read_csv(tmp_path / "out" / "games.csv")
    assert len(games) == 8 and games["opening"].nunique() == 4  # the 4 openings, each with both colours
    assert "`connectn:columns=5,rows=4,n=4`" in (tmp_path / "out" / "summary.md").read_text()
    assert challenger.main([*argv[:-4], "--out", str(tmp_path / "none")]) == 2
    assert "dlgo openings --game connectn" in capsys.readouterr().err and not (tmp_path / "none").exists()


def test_the_chapters_call_tic_tac_toes_sides_x_and_o():
    from experiments.chapters.ch04a_minimax_alphabeta import search_table
    from experiments.chapters.ch14a_alphazero_tictactoe import check_perfect_play

    table = search_table("tictactoe", ["a1 b2 c3 a2 b1", "a1 b2 c3 a2"], depth=0)
    assert list(dict.fromkeys(table.to_move)) == ["O", "X"]
    lines, console, facts = check_perfect_play("alphabeta", 0)
    assert "| X | 4 | 0 |" in lines and "| O | 99 | 0 |" in lines
    assert console[0].startswith("network as X: lost 0 of 4")
    assert facts == {"perfect_play": [{"side": "X", "lines": 4, "lost": 0}, {"side": "O", "lines": 99, "lost": 0}]}


def test_a_variants_interval_is_never_narrower_than_its_positions_allow():
    import pandas as pd

    from experiments.shared.recipe_report import mean_and_variance

    binomial = 0.02 * 0.98 / 3376
    assert mean_and_variance(pd.Series([0.02]), 3376) == pytest.approx((0.02, binomial))
    assert mean_and_variance(pd.Series([0.0205, 0.0195]), 3376) == pytest.approx((0.02, binomial))  # seeds agree
    spread = mean_and_variance(pd.Series([0.01, 0.03]), 3376)[1]  # seeds disagree: their spread
    assert spread == pytest.approx(pd.Series([0.01, 0.03]).var() / 2) and spread > binomial


def test_every_recipe_variant_is_a_valid_run(tmp_path):
    """Each variant's settings make a run the trainer accepts (a misspelt or out-of-range
    setting fails here, not an hour into a run), and each changes the lab's recipe."""
    from dataclasses import asdict

    from dlgo.data.solved import generate_positions
    from experiments.headline import recipe_ablation as ablation
    from experiments.shared.connectn import Net, baseline_config, cells

    board = "connectn:columns=5,rows=4,n=4"
    references = generate_positions(board, tmp_path, per_set=2, seed=0, max_candidates=300)
    base = baseline_config(board, Net(2, 32), 0, False)
    args = ablation.build_parser().parse_args(["--boards", board])
    args.board_iterations, args.net, args.quick = {board: 64}, Net(2, 32), False
    for name, variant in ablation.VARIANTS.items():
        config = ablation.run_config(args, board, name, 0, references)
        assert variant.length > 0 and (name == "baseline") == (config == base), name
        assert set(variant.settings(cells(board), 64)) <= set(asdict(config)), name
        assert config.init == ("connect-5x4" if variant.continues else ""), name  # the lab's, by its shipped name
    # on 6x5 networks trained on from the lab's have taken the shipped name: the lab's is connect-6x5-lab,
    # continued-deep's connect-6x5-continued
    from experiments.shared.recipe_variants import start_network

    six_by_five = "connectn:columns=6,rows=5,n=4"
    assert [start_network(six_by_five, c) for c in ("lab", "continued")] == ["connect-6x5-lab",
                                                                             "connect-6x5-continued"]
    with pytest.raises(ValueError, match="continues 'lab' or 'continued'"):
        start_network(six_by_five, "yes")


def test_the_recipe_ablation_trains_ceilings_on_the_boards_named():
    """``--ceilings`` picks the boards whose ceilings are trained (default all, the option
    alone none), and the summary names the boards still without one."""
    import pandas as pd

    from experiments.headline import recipe_ablation as ablation
    from experiments.shared.recipe_report import ceilings_missing

    boards = ["--boards", "connectn:columns=5,rows=4,n=4", "connectn:columns=6,rows=5,n=4"]
    for extra, ceilings in (([], ["5x4-4", "6x5-4"]), (["--ceilings"], []), (["--ceilings", "5x4-4"], ["5x4-4"])):
        args = ablation.build_parser().parse_args(boards + extra)
        ablation.settle(args)
        assert args.ceilings == ceilings
    table = pd.DataFrame({"board": ["5x4-4", "5x4-4", "6x5-4"],
                          "variant": ["openings", "ceiling-4x64-heads32", "openings"]})
    assert ceilings_missing(table) == " (none trained yet on 6x5-4)"
    assert ceilings_missing(table[:2]) == ""


def test_the_recipe_ablation_runs_quick_and_sets_each_variant_beside_the_baseline(tmp_path, monkeypatch):
    """Two variants, one seed, two tiny iterations: every run measured on the board's critical
    solved positions at the end (and at the network it publishes), the recipe's settings in its run."""
    import pandas as pd

    from experiments.headline import recipe_ablation as ablation

    out, work = tmp_path / "out", tmp_path / "work"
    argv = ["--quick", "--out", str(out), "--work", str(work), "--workers", "1"]
    assert ablation.main(argv) == 0
    mistakes = pd.read_csv(out / "mistakes.csv")
    assert set(mistakes["variant"]) == {"baseline", "recipe", "ceiling-1x8"}  # the network's ceiling beside the runs
    assert set(mistakes["iteration"]) >= {1, 2}
    assert mistakes["positions"].nunique() == 1 and (mistakes["positions"] > 0).all()  # one set of positions for all
    table = pd.read_csv(out / "variants.csv")
    assert list(table["variant"]) == ["baseline", "recipe", "ceiling-1x8"]
    assert table["search_change"].notna().all()
    assert (work / "5x4-4" / "ceiling-1x8" / "model.keras").exists()
    config = json.loads((work / "5x4-4" / "recipe-s0" / "config.json").read_text())
    assert config["merge_positions"] and config["temperature_floor"] == 0.3 and config["publish"] == "best"
    assert config["reference_file"].endswith("positions.csv") and "references-" in config["reference_file"]
    summary = (out / "summary.md").read_text()
    assert "| 5x4-4 | `recipe` | 1 |" in summary and (out / "mistakes_by_iteration.png").exists()
    runs = pd.read_csv(out / "runs.csv")  # each run's length and compute
    assert sorted(runs["variant"]) == ["baseline", "recipe"] and (runs["iterations"] == 2).all()
    assert (runs["minutes"] > 0).all() and (table.set_index("variant").loc["recipe", "iterations"] == 2)
    targets = pd.read_csv(out / "targets.csv")  # the recipe's half-way network judged by each search's targets
    assert list(zip(targets["search"], targets["simulations"])) == ablation.TARGET_SEARCHES
    assert (targets["variant"] == "recipe").all() and (targets["iteration"] == 1).all()
    assert targets[["policy_mistakes", "mistake_mass", "value_right"]].stack().between(0, 1).all()
    assert "## How right are self-play's targets?" in summary
    values = pd.read_csv(out / "value_targets.csv")  # each value target judged on self-play's own positions
    assert list(values["simulations"].unique()) == ablation.VALUE_SIMULATIONS
    assert set(values["target"]) == {"result", "search value", "mixed", "greedy return"}
    assert values["right"].between(0, 1).all() and (values["positions"] > 0).all()
    assert "## Which value target is right?" in summary
    assert ablation.main(argv) == 0  # finished runs: nothing trained or measured again
    assert len(pd.read_csv(out / "mistakes.csv")) == len(mistakes)
    assert pd.read_csv(out / "targets.csv").equals(targets)
    assert pd.read_csv(out / "value_targets.csv").equals(values)
    assert written_facts_differ([out]) == {}
    assert not (out / "unseen.csv").exists()  # judged off the training path only when asked
    assert ablation.main([*argv, "--unseen", "2"]) == 0
    unseen = pd.read_csv(out / "unseen.csv")
    whole = unseen[unseen["stage"] == "all"]
    assert sorted(set(zip(whole["variant"], whole["play"]))) == [("baseline", "strong"), ("baseline", "uniform"),
                                                                ("recipe", "strong"), ("recipe", "uniform")]
    assert sorted(whole["simulations"].unique()) == [0, 64] and (whole["critical"] > 0).all()  # --simulations
    assert (whole["network"].str.endswith(".keras")).all() and "## Off the training path" in \
        (out / "summary.md").read_text()
    assert ablation.main([*argv, "--unseen", "2"]) == 0 and pd.read_csv(out / "unseen.csv").equals(unseen)
    assert (unseen["per_set"] == 2).all()  # the sets' size, so rows judged on other sets are never mixed in
    assert ablation.main([*argv, "--variants", "nope"]) == 2
    # the best of a variant's networks shipped, playable by its board's name
    ship = tmp_path / "ship"
    assert ablation.main([*argv, "--ship", "recipe", "--checkpoints", str(ship)]) == 0
    import engines
    from dlgo.games import new_game

    board = new_game("connectn:columns=5,rows=4,n=4")
    agent = engines.create(f"alphazero:checkpoint={ship / 'connect-5x4.keras'},simulations=4")
    assert board.is_valid_move(agent.select_move(board))
    assert ablation.main([*argv, "--ship", "anneal", "--checkpoints", str(ship)]) == 2  # not among --variants
    assert ablation.main([*argv, "--variants", "recipe:one"]) == 2
    assert ablation.main([*argv, "--variants", "recipe:0,0"]) == 2
    assert ablation.main([*argv, "--variants", "baseline:0", "recipe:0"]) == 0  # each its own seeds: the same runs
    assert pd.read_csv(out / "mistakes.csv").equals(mistakes)
    assert ablation.main([*argv, "--variants", "baseline", "5x4-4/recipe:0"]) == 0  # a variant on its board alone
    assert pd.read_csv(out / "mistakes.csv").equals(mistakes)
    assert ablation.main([*argv, "--variants", "baseline", "6x4-4/recipe"]) == 2  # a board not in --boards
    assert ablation.main([*argv, "--ceilings", "6x4-4"]) == 2
    trained = []  # --ceilings alone: no board's ceilings are trained
    monkeypatch.setattr(ablation, "train_ceilings", lambda *args: trained.append(args[1]))
    assert ablation.main([*argv, "--ceilings"]) == 0 and trained == []
    assert ablation.main(argv) == 0 and trained == ["connectn:columns=5,rows=4,n=4"]
    monkeypatch.undo()
    assert pd.read_csv(out / "mistakes.csv").equals(mistakes)  # the bad command wrote nothing
    # another session, its work folder gone: the report's rows stand, nothing is trained again
    import shutil

    shutil.rmtree(work / "5x4-4" / "recipe-s0")
    shutil.rmtree(work / "5x4-4" / "measured")
    assert ablation.main(argv) == 0
    assert not (work / "5x4-4" / "recipe-s0").exists()
    assert pd.read_csv(out / "mistakes.csv").equals(mistakes)
    assert pd.read_csv(out / "targets.csv").equals(targets)
    assert pd.read_csv(out / "value_targets.csv").equals(values)
    assert pd.read_csv(out / "unseen.csv").equals(unseen)  # the judged rows stand too
    # a variant of its own length: anneal runs half as long again, its rate dropped for the last third
    assert ablation.main([*argv, "--variants", "baseline", "anneal"]) == 0
    runs = pd.read_csv(out / "runs.csv").set_index("variant")
    assert runs.loc["anneal", "iterations"] == 3 and runs.loc["baseline", "iterations"] == 2
    anneal = pd.read_csv(out / "mistakes.csv").query("variant == 'anneal'")
    assert set(anneal["iteration"]) >= {1, 3}  # half way (rounded down) and its own end
    config = json.loads((work / "5x4-4" / "anneal-s0" / "config.json").read_text())
    assert config["learning_rate_drops"] == [3] and config["previous_games"] == 0 and config["reference_every"] == 4
    history = pd.read_csv(work / "5x4-4" / "anneal-s0" / "history.csv")  # references at the first and the last only
    assert list(history.dropna(subset=["mistakes_search"])["iteration"]) == [0, 1, 3]
    assert "| 5x4-4 | `anneal` | 1 |" in (out / "summary.md").read_text()


def test_the_full_board_ablation_names_the_shipped_set_so_it_resumes_in_any_folder(tmp_path):
    """Once shipped, the ablation's specs name checkpoints/go19-* by name, not the run's work
    folder (gone in a later session), and each row's label still follows from its spec."""
    from engines.checkpoints import resolve_model_path
    from experiments.headline import go19

    engines = go19.Models(tmp_path / "work", 19, shipped=True).engines(2)
    assert not any(str(tmp_path) in spec for spec in engines.values())
    assert engines["+ network and patterns"] == \
        "alphago:policy=go19-policy,rollout=go19-rollout,seconds=2,patterns=go19-patterns"
    assert {go19.row_name(spec, "19x19") for spec in engines.values()} == set(engines)
    assert resolve_model_path("go19-policy").name == "go19-policy.keras"
    assert resolve_model_path("go19-patterns", ".npz").name == "go19-patterns.npz"
    argv = ["--parts", "--workers", "2"]  # a summary-only run names the command that made the shipped set
    assert go19.reproduce(go19.parse(argv), argv).endswith("go19.py --workers 2 --ship")
    assert not go19.reproduce(go19.parse(["--quick"]), ["--quick"]).endswith("--ship")  # 7x7: nothing shipped


def test_pairings_in_rounds_play_every_pairings_kth_game_before_any_next():
    """A run stopped part-way has games in every row: the same games as ``pairings``, in rounds."""
    from experiments.shared import ladders

    rounds = ladders.pairings_in_rounds(["a", "b"], ["g1"], 2, seed=0)  # every engine's first game, then the second
    assert [(t.black, t.white) for t in rounds] == [("a", "g1"), ("b", "g1"), ("g1", "a"), ("g1", "b")]
    match = ladders.pairings_in_rounds(["a"], ["g1", "g10"], 2, seed=0)  # one engine: each opponent in turn
    assert [t.game_id for t in match] == ["a vs g1 #0", "a vs g10 #0", "a vs g1 #1", "a vs g10 #1"]
    assert sorted(match) == sorted(ladders.pairings(["a"], ["g1", "g10"], 2, seed=0))  # same ids, colours, seeds


@pytest.mark.skipif(not __import__("os").access("/usr/games/gnugo", __import__("os").X_OK),
                    reason="GNU Go is not installed (apt-get install gnugo)")
def test_the_full_board_experiment_learns_from_its_teacher_plays_its_parts_and_resumes(tmp_path):
    """go19 --quick (on 7x7): GNU Go's games kept in the report, the three models fitted to them
    and measured on the same held-out games, the ablation adding each in turn, the match; a
    rerun plays and fits nothing new, and a run elsewhere starts from the report's games."""
    import pandas as pd

    from dlgo.formats.records import read_games
    from experiments.headline import go19

    out, work = tmp_path / "report", tmp_path / "work"
    args = ["--quick", "--workers", "1", "--out", str(out), "--work", str(work)]
    assert go19.main(args) == 0
    teacher = read_games(out / "teacher-games.csv.gz")
    assert len(teacher) == 4 and {r.black for r in teacher} == {"gnugo:level=0"}
    learning = pd.read_csv(out / "learning.csv").set_index("model")
    assert list(learning.index) == ["move patterns", "rollout policy", "network"]
    assert (learning["games"] == 4).all() and (learning["top1"].between(0, 1)).all()
    ablation = pd.read_csv(out / "ablation" / "games.csv")
    engines = go19.Models(work, 7).engines(0.05)
    assert set(ablation.black) | set(ablation.white) == {*engines.values(), "gnugo:level=0"}
    assert any("patterns=" in spec and spec.startswith("alphago:") for spec in engines.values())
    assert engines["the network alone (no search)"].startswith("predictor:model=")
    assert read_facts(out)["ablation"]["labels"] == {spec: label for label, spec in engines.items()}
    match = pd.read_csv(out / "match" / "games.csv")
    assert set(match.black) | set(match.white) == {engines["+ network and patterns"], "gnugo:level=0"}
    summary = (out / "summary.md").read_text()
    for heading in ("# 7x7 Go against GNU Go", "## The teacher's games", "## What each model learnt",
                    "## The search, and what each learned piece adds", "## Against GNU Go", "## Compute"):
        assert heading in summary
    assert written_facts_differ([out]) == {} and read_facts(out)["learning"]["network"]["games"] == 4
    spent, fits = read_facts(out)["compute"], learning["minutes"] * learning["cores"] / 60
    assert (learning["cores"] == (__import__("os").cpu_count() or 1)).all()
    assert spent["teacher_core_hours"] > 0
    assert read_facts(out)["teacher"]["core_hours"] == pytest.approx(spent["teacher_core_hours"])
    assert spent["core_hours"] == pytest.approx(spent["teacher_core_hours"] + fits.sum())
    stamp = (work / "go7-patterns.npz").stat().st_mtime
    assert go19.main(args) == 0  # resumes: nothing new is played or fitted
    assert (work / "go7-patterns.npz").stat().st_mtime == stamp
    assert len(pd.read_csv(out / "ablation" / "games.csv")) == len(engines)
    elsewhere = tmp_path / "elsewhere"
    assert go19.main(["--quick", "--workers", "1", "--out", str(out), "--work", str(elsewhere),
                      "--parts", "teacher"]) == 0
    assert read_games(elsewhere / "games" / "games.csv") == teacher  # the report's games, not played again
