"""The dlgo command line: game list, demo games, clear errors."""
import subprocess
import sys

from dlgo.cli import main


def test_games_lists_every_game_with_options(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    for name in ("go", "tictactoe", "connect4", "gomoku", "mnk", "connectn"):
        assert f"\n{name} " in "\n" + out
    assert "pie_rule=False" in out and "komi=7.5" in out


def test_demo_plays_each_game_to_the_end(capsys):
    assert main(["demo", "--games", "tictactoe", "connect4", "go", "--size", "5", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("result: ") == 3
    assert "=== go: random vs random (seed 3) ===" in out
    assert "A B C D E" in out and "1 2 3 4 5 6 7" in out


def test_demo_is_reproducible(capsys):
    main(["demo", "--games", "connect4", "--seed", "9"])
    first = capsys.readouterr().out
    main(["demo", "--games", "connect4", "--seed", "9"])
    assert capsys.readouterr().out == first


def test_console_script_reports_bad_arguments():
    result = subprocess.run([sys.executable, "-m", "dlgo.cli", "demo", "--games", "chess"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "invalid choice: 'chess'" in result.stderr
