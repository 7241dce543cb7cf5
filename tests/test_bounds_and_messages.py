"""Bounds and messages: every count a command line reads has a ceiling, what the
suite says comes once and whole, and a Python without the suite hears which to use."""
from __future__ import annotations

import argparse
import importlib.metadata
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import dlgo
import engines
from dlgo.app import cli
from dlgo.app.gtp_server import GtpFrontend
from dlgo.arena.match import check_opening
from dlgo.arena.tournament import run_tournament, schedule
from dlgo.core.arguments import MOST, count
from dlgo.core.errors import RecordError, SpecError
from dlgo.formats.sgf import read_sgf
from engines import ENGINES
from engines.training.alphazero_config import AlphaZeroConfig

ROOT = Path(__file__).resolve().parents[1]
HUGE = "99999999999999999999"


def parse_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The error line argparse ends ``dlgo argv`` with (it exits 2)."""
    with pytest.raises(SystemExit) as stopped:
        cli.main(argv)
    assert stopped.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


# ------------------------------------------------------------------ counts
def test_a_count_past_its_kind_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "t"
    line = parse_error(["tournament", "--engines", "random", "mcts", "--games-per-pair", HUGE, "--out", str(out)],
                       capsys)
    assert line.endswith(f"--games-per-pair: must be at most 1,000,000 games, got {HUGE}")
    assert not out.exists()
    with pytest.raises(argparse.ArgumentTypeError, match="at most 1,024 processes"):
        count("processes")("1025")
    assert count("plies", 0)("0") == 0 and count("games")(str(MOST["games"])) == MOST["games"]


def test_a_run_setting_past_its_kind_is_refused_on_the_command_line_and_from_a_file(tmp_path, capsys):
    assert "--games: must be at most 1,000,000 games" in parse_error(
        ["train-alphazero", "--out", str(tmp_path / "r"), "--games", HUGE], capsys)
    with pytest.raises(SpecError, match="games must be at most 1,000,000 games"):  # config.json read back
        AlphaZeroConfig(games=10**20)
    assert not (tmp_path / "r").exists()


def every_action(parser: argparse.ArgumentParser):
    """Every option and argument of ``parser`` and of its subcommands, with the command's name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from every_action(sub)
        else:
            yield parser.prog, action


def test_every_count_of_the_dlgo_command_is_bounded():
    """A whole number is a seed, an exercise's number or hint level, or a bounded count."""
    loose = sorted(f"{prog} {action.dest}" for prog, action in every_action(cli.build_parser())
                   if action.type is int and action.dest not in ("seed", "number", "level"))
    assert loose == []


def test_a_tournament_too_big_to_list_is_refused_before_it_is_listed():
    specs = [f"mcts:rounds={n}" for n in range(1, 12)]  # 55 pairs
    with pytest.raises(SpecError, match="at most 1,000,000 games; 11 engines at 20,000 games per pair"):
        schedule(specs, 20_000, seed=0)


def test_an_experiment_script_bounds_its_counts(tmp_path, capsys):
    from experiments.chapters import ch03_random_go

    with pytest.raises(SystemExit) as stopped:
        ch03_random_go.main(["--games", HUGE, "--out", str(tmp_path / "r")])
    assert stopped.value.code == 2 and "must be at most 1,000,000 games" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


# ------------------------------------------------------------------ dlgo serve
def test_a_port_past_65535_is_a_usage_error(capsys):
    assert parse_error(["serve", "--port", "70000"], capsys).endswith("--port: must be at most 65,535, got 70000")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("state", ["a file", "a folder of other files"])
def test_serve_refuses_its_state_folder_before_it_says_it_serves(state, tmp_path, capsys):
    pytest.importorskip("uvicorn")
    place = tmp_path / "state"
    if state == "a file":
        place.write_text("notes\n")
    else:
        place.mkdir()
        (place / "notes.txt").write_text("mine\n")
    assert cli.main(["serve", "--state", str(place), "--port", str(free_port())]) == 2
    out, err = capsys.readouterr()
    assert "serving on" not in out and err.count("\n") == 1 and f"{place}" in err
    assert ("is a file" if state == "a file" else "holds other files") in err


# ------------------------------------------------------------------ tournaments
def test_one_engine_spelled_two_ways_is_refused(tmp_path, capsys):
    assert engines.canonical_spec("random:") == engines.canonical_spec("random:seed=") == "random"
    assert engines.canonical_spec("mcts:c=1.4,rounds=100") == engines.canonical_spec("mcts:rounds=100,c=1.4")
    out = tmp_path / "t"
    assert cli.main(["tournament", "--game", "tictactoe", "--engines", "random:", "random:seed=",
                     "--out", str(out)]) == 2
    assert "'random:' and 'random:seed=' are one engine, random" in capsys.readouterr().err
    assert not out.exists()


def test_an_opening_that_ends_every_game_is_refused(tmp_path, capsys):
    out = tmp_path / "t"
    assert cli.main(["tournament", "--game", "tictactoe", "--engines", "random", "alphabeta:depth=1",
                     "--opening-plies", "50", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "50 random opening plies leave no tictactoe game to play" in err and "after 9 plies" in err
    assert not out.exists()
    check_opening("tictactoe", 8)  # some openings of 8 plies leave a move to play
    check_opening("go:size=9", 40)


# ------------------------------------------------------------------ SGF
def test_an_sgf_handicap_its_stones_do_not_back_is_refused():
    with pytest.raises(RecordError, match=r"its handicap \(HA\): HA\[99\] says 99 stones, but AB places 0"):
        read_sgf("(;GM[1]FF[4]SZ[19]HA[99];B[dd])")
    with pytest.raises(RecordError, match=r"HA must be 0 or a number of stones from 2"):
        read_sgf("(;GM[1]FF[4]SZ[19]HA[1];B[dd])")
    assert read_sgf("(;GM[1]FF[4]SZ[9]HA[2]AB[cc][gg];W[ee])").setup


def test_an_sgf_error_says_what_is_wrong_after_its_colon():
    with pytest.raises(RecordError) as error:
        read_sgf("(;GM[1]FF[4]SZ[9];B[zz])")
    assert str(error.value) == "not a readable SGF game: node 1: a move off the board"
    with pytest.raises(RecordError) as error:
        read_sgf("(;GM[3]SZ[9];B[aa])")
    assert str(error.value) == "not a Go game (GM[3])"


# ------------------------------------------------------------------ ratings
def test_the_ratings_warnings_are_said_once(tmp_path, caplog):
    folder = tmp_path / "t"
    run_tournament(ENGINES, folder, "tictactoe", ["random", "alphabeta:depth=1"], 2, workers=1, progress=False)
    games = folder / "games.csv"
    header, *rows = games.read_text().splitlines(keepends=True)
    games.write_text(header + "".join(rows) + rows[0] + rows[1][:-9])  # a duplicated id and a torn last line
    caplog.set_level(logging.WARNING)
    assert cli.main(["ratings", str(folder)]) == 0
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sum("unfinished last line" in w for w in warnings) == 1
    assert sum("1 rows with a game id seen before" in w for w in warnings) == 1


# ------------------------------------------------------------------ a Python without the suite
#: one script of each folder a user runs scripts from
SCRIPTS = ["experiments/chapters/ch03_random_go.py", "experiments/headline/go19.py",
           "experiments/crosschecks/calibration.py", "scripts/refresh_facts.py", "benchmarks/solver.py"]
FOLDERS = sorted({str(Path(script).parent) for script in SCRIPTS})


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_script_run_by_a_python_without_the_suite_says_which_to_use(script):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    run = subprocess.run([sys.executable, "-S", script, "--help"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60)  # -S: no site-packages, as a Python without the suite
    assert run.returncode != 0 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert f"cannot import dlgo: run it with the suite's, .venv/bin/python {script}" in run.stderr


def test_every_script_checks_its_python_with_one_text():
    """Every script a user runs imports its folder's which_python.py first, and the message is
    scripts/which_python.py's alone (the other folders' run that one)."""
    saying = [folder for folder in FOLDERS if "sys.exit(" in (ROOT / folder / "which_python.py").read_text()]
    assert saying == ["scripts"]
    helpers = {"__init__.py", "which_python.py", "markdown.py"}
    unchecked = [str(path.relative_to(ROOT)) for folder in FOLDERS for path in sorted((ROOT / folder).glob("*.py"))
                 if path.name not in helpers and "    import which_python" not in path.read_text()]
    assert unchecked == []


# ------------------------------------------------------------------ the version
def test_the_version_is_the_packages_everywhere(capsys):
    assert dlgo.__version__ == importlib.metadata.version("dlgo-suite")
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0 and capsys.readouterr().out == f"dlgo {dlgo.__version__}\n"
    assert GtpFrontend(engines.create("random")).handle("version") == f"= {dlgo.__version__} (random)\n\n"
