"""The command line for people and for logs: a light start, help for every
option, plain progress when piped, tables of rounded numbers, and a damaged
data set as one line."""
from __future__ import annotations

import argparse
import socket
import subprocess
import sys

import pytest

from dlgo.app.cli import build_parser, main

HEAVY = ("pandas", "matplotlib", "tensorflow", "keras", "numba")


def test_the_command_line_starts_without_pandas_matplotlib_or_tensorflow():
    code = ("import sys; from dlgo.app.cli import build_parser; build_parser(); "
            f"print([name for name in {HEAVY!r} if name in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_option_says_what_it_is_not_only_its_default():
    for command, parser in subcommands().items():
        for action in parser._actions:
            if not action.option_strings or action.help == argparse.SUPPRESS:
                continue
            text = action.help or ""
            assert text and not text.startswith("(default"), (command, action.option_strings, text)
            assert "(default )" not in text, (command, action.option_strings)
    helps = {action.dest: action.help for action in subcommands()["train-rl"]._actions}
    assert helps["method"] == "pg (policy gradients), q (Q-learning) or ac (actor-critic) (default pg)"
    assert helps["init"].endswith("(default none)")


def test_a_closing_table_rounds_its_numbers(capsys):
    import pandas as pd

    from dlgo.app.cli.training import print_last_rows

    print_last_rows(pd.DataFrame({"iteration": [1, 2], "loss": [0.123456789, 2.0 / 3.0], "elo": [12.3456, 1234.5678]}))
    out = capsys.readouterr().out
    assert "0.1235" in out and "0.6667" in out and "1235" in out and "0.123456789" not in out


def test_progress_into_a_log_has_no_cursor_movement_or_colours(capsys):
    """stderr and stdout are captured here (not terminals), as when piped to a file."""
    from dlgo.display.progress import fit_verbosity, progress_bar

    for _ in progress_bar(range(3), desc="outer"):
        for _ in progress_bar(range(2), desc="inner", leave=False):
            pass
    err = capsys.readouterr().err
    assert "outer" in err and "\x1b" not in err and "\u2588" not in err
    assert fit_verbosity(True) == 2 and fit_verbosity(False) == 0  # Keras: one plain line per epoch


@pytest.fixture(scope="module")
def damaged_dataset(tmp_path_factory):
    """A tic-tac-toe data set whose encoded/ manifest is not JSON."""
    data = tmp_path_factory.mktemp("damaged") / "data"
    assert main(["generate", "--game", "tictactoe", "--engine", "random", "--games", "6", "--out", str(data),
                 "--workers", "1"]) == 0
    manifest = next((data / "encoded").glob("*/manifest.json"))
    manifest.write_bytes(b'{"encoder": "pla\xff')
    return data, manifest


@pytest.mark.parametrize("command", [["train-supervised", "--out", "RUN", "--epochs", "1", "--model", "tiny"],
                                     ["evaluate-predictor", "--model", "tictactoe"]])
def test_a_damaged_dataset_manifest_is_one_line_naming_it(command, damaged_dataset, tmp_path, capsys):
    data, manifest = damaged_dataset
    args = [str(tmp_path / "run") if a == "RUN" else a for a in command]
    assert main([*args, "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"dlgo: error: {manifest} is damaged")
    assert f"delete {manifest.parent}" in err and not (tmp_path / "run").exists()


def test_dlgo_serve_hands_its_limits_to_the_server(monkeypatch, capsys):
    import dlgo.app.web.server

    handed = {}
    monkeypatch.setattr(dlgo.app.web.server, "serve", lambda host, port, allowed, **options: handed.update(options))
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    assert main(["serve", "--port", str(port), "--idle-minutes", "2.5", "--max-engines", "3", "--start-limit", "9",
                 "--state", "games-here"]) == 0
    assert (handed["idle_seconds"], handed["max_engines"], handed["start_seconds"]) == (150.0, 3, 9.0)
    assert handed["state"] == "games-here"
