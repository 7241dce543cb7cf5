"""Every bad command line gets a clear error and a non-zero exit, and writes nothing."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from dlgo.app import cli
from dlgo.core.errors import SpecError
from engines import create

GO9 = ["--game", "go:size=9"]

#: (why it is wrong, the command line); DIR is a finished tournament folder, FILE a plain file
BAD_COMMAND_LINES = [
    ("a tournament of one engine", ["tournament", "--engines", "random", "--out", "t"]),
    ("no games per pair", ["tournament", "--engines", "random", "mcts", "--games-per-pair", "0", "--out", "t"]),
    ("komi not a number", ["tournament", "--game", "go:size=9,komi=nan", "--engines", "random", "mcts",
                           "--out", "t"]),
    ("a game option twice", ["tournament", "--game", "go:size=9,size=13", "--engines", "random", "mcts",
                             "--out", "t"]),
    ("an infinite exploration constant", ["tournament", "--engines", "random", "mcts:c=inf", "--out", "t"]),
    ("NaN exploration", ["tournament", "--engines", "random", "mcts:c=nan", "--out", "t"]),
    ("an infinite budget", ["tournament", "--engines", "random", "mcts:seconds=inf", "--out", "t"]),
    ("a negative budget", ["tournament", "--engines", "random", "mcts:rounds=-5", "--out", "t"]),
    ("a resign threshold above 1", ["tournament", "--engines", "random", "mcts:resign=2", "--out", "t"]),
    ("a negative depth", ["tournament", "--engines", "random", "alphabeta:depth=-1", "--out", "t"]),
    ("no workers", ["tournament", "--engines", "random", "mcts", "--workers", "0", "--out", "t"]),
    ("an unknown engine", ["tournament", "--engines", "random", "nobody", "--out", "t"]),
    ("an output folder that is a file", ["tournament", "--engines", "random", "mcts", "--out", "FILE"]),
    ("generate into a tournament's folder", ["generate", "--game", "tictactoe", "--engine", "random",
                                             "--games", "2", "--out", "DIR", "--encoder", "none"]),
    ("no games to generate", ["generate", "--game", "tictactoe", "--games", "0", "--out", "d"]),
    ("labels for a file of no games", ["label-games", "FILE", "--out", "d"]),
    ("a teacher that cannot play the games", ["label-games", "DIR", "--teacher", "gnugo", "--out", "d"]),
    ("labels for an engine that played no game", ["label-games", "DIR", "--engine", "nobody", "--out", "d"]),
    ("an anchor that never played", ["ratings", "DIR", "--anchor", "nobody"]),
    ("ratings of a folder with no games", ["ratings", "EMPTY"]),
    ("a picture that is not PNG or GIF", ["render", "DIR", "--out", "game.txt"]),
    ("a GIF with no time per move", ["render", "DIR", "--out", "game.gif", "--seconds", "0"]),
    ("a move past the end", ["render", "DIR", "--out", "game.png", "--move", "99"]),
    ("a game index past the end", ["replay", "DIR", "--index", "99"]),
    ("an SGF file in a missing folder", ["play", *GO9, "--black", "random", "--white", "random",
                                         "--sgf", "missing/x.sgf"]),
    ("a board of three sides", ["play", "--game", "go:size=1x2x3", "--black", "random", "--white", "random"]),
    ("a board side that is not a number", ["play", "--game", "go:size=9jx9", "--black", "random",
                                           "--white", "random"]),
    ("a komi past any board", ["play", "--game", "go:size=9,komi=1e308", "--black", "random", "--white", "random"]),
    ("a network for another game", ["play", "--game", "tictactoe", "--black", "random",
                                    "--white", "alphazero:checkpoint=connect4"]),
    ("a value network as a move predictor", ["play", "--game", "go:size=9", "--black", "random",
                                             "--white", "predictor:model=go9-value"]),
    ("a hint engine for another game", ["play", "--game", "connect4", "--black", "human", "--white", "random",
                                        "--hint", "gnugo"]),
    ("a network name no file can have", ["play", "--game", "tictactoe", "--black", "predictor:model=" + "a" * 300,
                                         "--white", "random"]),
    ("a tournament engine for another game", ["tournament", "--game", "connect4", "--engines", "random", "gnugo",
                                              "--out", "t"]),
    ("a GTP program that cannot start", ["play", *GO9, "--black", "gtp:cmd=/nonexistent/prog", "--white", "random"]),
    ("a GTP engine that cannot start", ["gtp", "--engine", "gtp:cmd=/nonexistent/prog"]),
    ("a batch size of 0", ["train-supervised", "--data", "DIR", "--out", "r", "--batch-size", "0"]),
    ("no iterations", ["train-alphazero", "--out", "r", "--iterations", "0"]),
    ("an unknown game", ["train-alphazero", "--out", "r", "--game", "bogus"]),
    ("an unknown baseline", ["train-alphazero", "--out", "r", "--baselines", "random", "nobody"]),
    ("a NaN learning rate", ["train-alphazero", "--out", "r", "--learning-rate", "nan"]),
    ("a --like run with no settings", ["train-alphazero", "--out", "r", "--like", "nowhere"]),
    ("a missing model file", ["analyze", "--model", "missing.keras"]),
    ("a plot that is not PNG", ["analyze", "--model", "tictactoe", "--plot", "x.jpg"]),
    ("an SGF with a move off the board", ["replay", "OFFBOARD"]),
    ("a model file that is not one", ["analyze", "--model", "FILE"]),
    # bounded where they are checked, refused with a reason before anything is written
    ("a GTP wait past any clock", ["play", "--game", "go:size=5", "--black", "gnugo:timeout=1e308", "--white",
                                   "random"]),
    ("a time share above 1", ["export-kaggle", "--out", "submission.py", "--time-fraction", "2"]),
    ("beginnings past a third of the board", ["positions", "--begin-from", "1000", "--out", "p"]),
    ("an empty output folder", ["tournament", "--game", "tictactoe", "--engines", "random", "alphabeta:depth=1",
                                "--games-per-pair", "1", "--workers", "1", "--out", ""]),
    ("fast searches longer than full ones", ["train-alphazero", "--out", "r", "--fast-simulations", "100",
                                             "--simulations", "4"]),
    ("a baseline out of range", ["train-alphazero", "--out", "r", "--baselines", "mcts:rounds=-1"]),
    ("a baseline of another game", ["train-rl", "--out", "r", "--game", "tictactoe", "--baselines", "gnugo"]),
    ("an --init that is no network", ["train-alphazero", "--out", "r", "--init", "FILE"]),
    ("an --init of another game", ["train-alphazero", "--out", "r", "--init", "C4NET"]),
    ("an --init of another game, for train-rl", ["train-rl", "--out", "r", "--game", "tictactoe", "--init", "C4NET"]),
    ("an --init with the wrong heads", ["train-rl", "--out", "r", "--method", "q", "--init", "C4NET"]),
    ("a saved game that is a number", ["train-alphazero", "--out", "BADCONFIG", "--resume"]),
    ("a saved game that is a number, for train-rl", ["train-rl", "--out", "BADCONFIG", "--resume"]),
    ("a solve's time limit past any clock", ["solve", "--game", "tictactoe", "--time-limit", "1e10"]),
    ("a check's time limit past any clock", ["exercise", "check", "2", "--time-limit", "1e9"]),
    ("a browser's time limit past any clock", ["serve", "--time-limit", "1e10"]),
]


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("finished") / "DIR"
    assert cli.main(["tournament", "--game", "tictactoe", "--engines", "random", "alphabeta:depth=1",
                     "--games-per-pair", "2", "--workers", "1", "--out", str(folder)]) == 0
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("why, line", BAD_COMMAND_LINES, ids=[why for why, _ in BAD_COMMAND_LINES])
def test_a_bad_command_line_is_one_clear_error_and_writes_nothing(why, line, finished, tmp_path, monkeypatch,
                                                                  capsys):
    monkeypatch.chdir(tmp_path)
    Path("FILE").write_text("not a folder, not a model\n")
    Path("EMPTY").mkdir()
    Path("OFFBOARD.sgf").write_text("(;GM[1]FF[4]SZ[9];B[zz])")
    Path("BADCONFIG").mkdir()
    Path("BADCONFIG", "config.json").write_text('{"game": 5, "baselines": "random"}')  # a run's settings, mistyped
    places = {"DIR": str(finished), "FILE": "FILE", "EMPTY": "EMPTY", "OFFBOARD": "OFFBOARD.sgf",
              "C4NET": str(Path(__file__).parent.parent / "checkpoints" / "connect4.keras")}
    args = [places.get(a, a) for a in line]
    before, finished_before = snapshot(tmp_path), snapshot(finished)
    try:
        code = cli.main(args)
    except SystemExit as exit:  # argparse's own errors: usage and one error line
        code = exit.code
    err = capsys.readouterr().err
    assert code not in (0, None), why
    last = err.strip().splitlines()[-1]
    assert "error: " in last and len(last.split("error: ", 1)[1]) > 3, (why, err)
    assert "Traceback" not in err
    assert snapshot(tmp_path) == before, why
    assert snapshot(finished) == finished_before, why


@pytest.mark.parametrize("spec", ["mcts:rounds=-1", "mcts:seconds=-1", "mcts:c=-1", "mcts:resign=1",
                                  "alphabeta:nodes=-1", "alphabeta:table_size=0", "alphabeta:seconds=inf",
                                  "minimax:depth=-2", "gtp:cmd=x,timeout=0", "gnugo:level=11",
                                  "alphazero:checkpoint=tictactoe,simulations=-1",
                                  "alphazero:checkpoint=tictactoe,c=0",
                                  "alphazero:checkpoint=tictactoe,temperature=-1",
                                  "alphazero:checkpoint=tictactoe,fpu=-0.5",
                                  "random:seed=1,seed=2",
                                  # bounded: the platform's clocks overflow near 1e10 s, numpy's integers at 2**63
                                  "gnugo:timeout=1e308", "gtp:cmd=x,timeout=1e6", "mcts:seconds=1e308",
                                  "alphabeta:seconds=86401", "alphazero:checkpoint=tictactoe,seconds=1e20",
                                  "random:seed=100000000000000000000", "mcts:rounds=100000000000000000000"])
def test_engines_refuse_parameters_out_of_range(spec):
    with pytest.raises(SpecError):
        create(spec)


def test_engines_built_in_python_refuse_nan_and_infinite_budgets():
    from engines.aliases import MCTSAgent
    from engines.minimax import AlphaBetaAgent

    for bad in (math.nan, math.inf, -1.0):
        with pytest.raises(SpecError):
            MCTSAgent(seconds=bad)
        with pytest.raises(SpecError):
            AlphaBetaAgent(seconds=bad)
