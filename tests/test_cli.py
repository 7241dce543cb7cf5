"""The dlgo command line: lists, demo games, clear errors."""
import re
import subprocess
import sys

from dlgo.app.cli import main


def without_timings(text: str) -> str:
    return re.sub(r"\[[0-9.]+ s, ", "[", text)


def test_games_lists_every_game_with_options(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    for name in ("go", "tictactoe", "connect4", "gomoku", "mnk", "connectn"):
        assert f"\n{name} " in "\n" + out
    assert "pie_rule=False" in out and "komi=7.5" in out


def test_demo_plays_games_to_the_end_reproducibly(capsys):
    assert main(["demo", "--games", "tictactoe", "connect4", "--seed", "3"]) == 0
    first = capsys.readouterr().out
    assert first.count("result: ") == 2
    assert ("=== connect4: alphazero:checkpoint=connect4,simulations=200 (red) vs mcts:rounds=2000 (yellow), "
            "seed 3 ===") in first
    assert "1 2 3 4 5 6 7" in first and "a b c" in first
    main(["demo", "--games", "tictactoe", "connect4", "--seed", "3"])
    assert without_timings(capsys.readouterr().out) == without_timings(first)


def test_play_bot_vs_bot_on_go(capsys):
    assert main(["play", "--game", "go:size=5", "--black", "random", "--white", "mcts:rounds=50", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "A B C D E" in out and "result: " in out and "white (O, mcts:rounds=50,seed=3)" in out


def test_bad_game_or_engine_spec_is_a_clear_error(capsys):
    assert main(["play", "--game", "chess", "--black", "random", "--white", "random"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert main(["play", "--game", "connect4", "--black", "random", "--white", "mcts:rounds=x"]) == 2
    assert "'rounds' must be int" in capsys.readouterr().err


def test_console_script_reports_bad_arguments():
    result = subprocess.run([sys.executable, "-m", "dlgo.app.cli", "demo", "--games", "chess"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "invalid choice: 'chess'" in result.stderr


def test_generate_train_evaluate_and_play_from_the_command_line(tmp_path, capsys, monkeypatch):
    data, run = tmp_path / "data", tmp_path / "run"
    assert main(["generate", "--game", "go", "--size", "5", "--engine", "mcts:rounds=10", "--games", "3",
                 "--out", str(data), "--workers", "1", "--encoder", "sevenplane"]) == 0
    out = capsys.readouterr().out
    assert "3 games" in out and "encoded with sevenplane" in out
    assert main(["train-supervised", "--data", str(data), "--out", str(run), "--model", "tiny",
                 "--encoder", "sevenplane", "--epochs", "1"]) == 0
    out = capsys.readouterr().out
    assert "top-1 accuracy" in out and (run / "learning_curve.png").exists()
    assert main(["evaluate-predictor", "--model", str(run / "model.keras"), "--data", str(data),
                 "--split", "train"]) == 0
    assert "uniform over legal moves" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("C3\nquit\n"))
    assert main(["play", "--game", "go:size=5", "--black", "human",
                 "--white", f"predictor:model={run / 'model.keras'}"]) == 0
    assert "predictor" in capsys.readouterr().out
    assert main(["generate", "--game", "go:size=5", "--engine", "nosuch", "--games", "1",
                 "--out", str(tmp_path / "x")]) == 2
    assert "unknown engine 'nosuch'" in capsys.readouterr().err


def test_train_alphazero_from_the_command_line(tmp_path, capsys):
    args = ["train-alphazero", "--out", str(tmp_path), "--iterations", "1", "--game", "tictactoe",
            "--blocks", "1", "--filters", "8", "--games", "2", "--parallel", "2", "--simulations", "4",
            "--train-steps", "2", "--eval-games", "1", "--eval-simulations", "2", "--previous-games", "2",
            "--baselines", "random"]
    assert main(args) == 0
    assert "checkpoint.keras" in capsys.readouterr().out and (tmp_path / "checkpoint.keras").exists()
    assert (tmp_path / "learning_curve.png").exists()
    # --resume continues with the saved settings; repeating a setting with it is refused clearly.
    assert main(["train-alphazero", "--out", str(tmp_path), "--iterations", "2", "--resume"]) == 0
    import pandas as pd
    # the start measured: it may be published
    assert list(pd.read_csv(tmp_path / "history.csv")["iteration"]) == [0, 1, 2]
    assert main(["train-alphazero", "--out", str(tmp_path), "--resume", "--games", "4"]) == 2
    assert "drop games" in capsys.readouterr().err
    assert main(["train-alphazero", "--out", str(tmp_path / "none"), "--resume"]) == 2
    assert "no AlphaZero run to resume" in capsys.readouterr().err
    # a setting out of range is refused before a run folder records it
    bad = tmp_path / "bad"
    assert main(["train-alphazero", "--out", str(bad), "--search-value-weight", "1.5"]) == 2
    assert "search_value_weight must lie in [0, 1]" in capsys.readouterr().err
    assert not (bad / "config.json").exists()


def test_the_command_line_starts_without_tensorflow():
    code = ("import sys; from dlgo.app.cli import build_parser; build_parser(); "
            "import engines; engines.engine_parameters('alphazero'); engines.engine_parameters('predictor'); "
            "print('tensorflow' in sys.modules, 'keras' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_classic_engines_console_gtp_and_arena_work_without_tensorflow(tmp_path):
    """With TensorFlow and Keras unimportable, everything but the neural engines works,
    and asking for a neural engine is a one-line error, not a traceback."""
    code = f"""
import io, sys
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tensorflow", "keras"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Blocked())
import engines
from dlgo.app.cli import main
from dlgo.app.console import ConsoleGame
from dlgo.app.gtp_server import GtpFrontend
from dlgo.arena.report import write_report
from dlgo.arena.tournament import run_tournament
from dlgo.core.types import Player
from dlgo.games import new_game
records = run_tournament(engines.ENGINES, {str(tmp_path)!r}, "connect4",
                         ["random", "mcts:rounds=5", "alphabeta:depth=1"], 2, workers=1, progress=False)
write_report({str(tmp_path)!r}, records)
out = io.StringIO()
players = {{Player.black: engines.create("alphabeta"), Player.white: engines.create("random:seed=1")}}
ConsoleGame(new_game("tictactoe"), players, out=out).run()
gtp = GtpFrontend(engines.create("mcts:rounds=5,seed=1"), size=5)
print(gtp.handle("genmove b").startswith("= "), "result:" in out.getvalue(), len(records))
print(main(["play", "--game", "tictactoe", "--black", "alphazero:checkpoint=tictactoe", "--white", "random"]))
print("tensorflow" in sys.modules, "keras" in sys.modules)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True", "6", "2", "False", "False"]
    assert "dlgo: error: the neural engines need TensorFlow" in run.stderr and "Traceback" not in run.stderr


def test_tensorflow_starts_without_a_line_of_log_above_the_board():
    import os

    network_call = ("import numpy as np; from engines.neural.models import build_model; "
                    "build_model('tiny', (3, 3, 2), 10)(np.zeros((1, 3, 3, 2), 'float32'))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_CPP")}
    quiet = subprocess.run([sys.executable, "-c", network_call], capture_output=True, text=True, env=env)
    assert quiet.returncode == 0 and quiet.stderr == ""
    failing = subprocess.run([sys.executable, "-c", "from engines.neural import backend; import nosuchmodule"],
                             capture_output=True, text=True, env=env)
    assert failing.returncode == 1 and failing.stderr.strip().endswith("No module named 'nosuchmodule'")


def test_output_into_a_pipe_whose_reader_has_gone_ends_quietly():
    """``dlgo engines | head``: no BrokenPipeError traceback, the status a stopped pipe writer has."""
    import os

    for command in (["engines"], ["games"]):
        read, write = os.pipe()
        os.close(read)  # the reader has gone before the first line
        try:
            run = subprocess.run([sys.executable, "-m", "dlgo.app.cli", *command], stdout=write,
                                 stderr=subprocess.PIPE, text=True)
        finally:
            os.close(write)
        assert run.stderr == "" and run.returncode == 141, (command, run.stderr)
