"""The AlphaZero network learning from the solver (``train-supervised --target solver``):
its targets, a run that resumes, a network that plays, and a ceiling above the untrained network."""
from __future__ import annotations

import numpy as np
import pytest

from dlgo.app.cli import main
from dlgo.core.errors import RecordError, SettingsMismatchError, SpecError
from dlgo.data.solved import cached_solver, generate_positions
from dlgo.formats.positions import SolvedPosition, position_state, read_positions, write_positions
from dlgo.games import new_game
from dlgo.games.solvers.bitboard import TABLE_BITS
from engines.training.solver_data import (SolverSettings, label_games, measure_network, policy_target_actions,
                                          read_solved, solver_targets)

SMALL = "connectn:columns=5,rows=4,n=4"  # 20 cells: every position solved in milliseconds
TINY = dict(blocks=1, filters=8, batch_size=64)


def labelled(spec: str, moves: str) -> SolvedPosition:
    """The position after ``moves``, with every move's score from the solver."""
    return next(p for p in label_games(spec, [moves]) if p.moves == moves)


# ------------------------------------------------------------------ targets
def test_the_targets_are_the_solvers_results_and_moves():
    win = labelled(SMALL, "1 2 1 2 1 2")  # three in column 1, the first player to move: column 1 wins now
    lost = labelled(SMALL, "2 2 3 3 4")  # the first player's three in the bottom row, open at both ends
    drawn = labelled("connectn:columns=4,rows=4,n=4", "")  # 4x4, four in a row: a draw
    assert (win.score, drawn.score) == ((20 + 1 - 6) // 2, 0) and lost.score < 0
    policies, values = solver_targets([win, lost], 5, policy="best")
    np.testing.assert_array_equal(policies[0], [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(values, [1, -1])
    np.testing.assert_allclose(policies[1], np.full(5, 0.2))  # every move loses: none is worse than another
    assert 0 in policy_target_actions(win, "keeping") and not lost.critical
    policies, values = solver_targets([drawn], 4)  # keeping: every move that keeps the draw
    assert values[0] == 0 and policies[0].sum() == pytest.approx(1)
    assert set(np.flatnonzero(policies[0])) == set(drawn.perfect_actions())
    with pytest.raises(SpecError, match="policy"):
        SolverSettings(policy="worst")
    with pytest.raises(SpecError, match="validation"):
        SolverSettings(validation=1.0)


# ------------------------------------------------------------------ a trained network
@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """Positions to learn from (seed 3, about 800 candidates) and sets to measure on (seed 1)."""
    base = tmp_path_factory.mktemp("solved")
    generate_positions(SMALL, base / "learn", per_set=200, seed=3, workers=1, max_candidates=800, progress=False)
    sets = generate_positions(SMALL, base / "sets", per_set=30, seed=1, workers=1, max_candidates=400,
                              progress=False)
    return base / "learn", sets


@pytest.fixture(scope="module")
def trained(solved, tmp_path_factory):
    from engines.training.solver_supervised import train_on_solver

    learn, sets = solved
    out = tmp_path_factory.mktemp("run") / "solver"
    run = train_on_solver(learn, out, SolverSettings(**TINY, learning_rate=5e-3), epochs=14, measure=sets,
                          simulations=8, progress=False)
    return out, run


def test_a_trained_network_plays_as_alphazero(trained):
    from engines.registry import create

    out, run = trained
    assert list(run.history["epoch"]) == list(range(1, 15)) and run.positions > 400 and run.held_out > 40
    for name in ("model.keras", "history.csv", "summary.md", "summary.json", "learning_curve.png",
                 "checkpoints/epoch-000.keras"):
        assert (out / name).exists(), name
    agent = create(f"alphazero:checkpoint={run.model},simulations=8")
    state = new_game(SMALL)
    assert agent.select_move(state) in state.legal_moves()
    assert "| the raw policy |" in (out / "summary.md").read_text()


def test_learning_from_the_solver_makes_fewer_mistakes_than_the_untrained_network(trained, solved):
    out, run = trained
    untrained = measure_network(out / "checkpoints" / "epoch-000.keras", read_positions(solved[1]), 8)
    assert run.measured is not None and run.measured.positions == untrained.positions > 40
    assert run.measured.raw <= untrained.raw - 0.1, (run.measured, untrained)


def test_self_play_positions_are_labelled_by_the_solver(trained):
    from engines.training.solver_data import self_play_positions

    _, run = trained
    positions = self_play_positions(run.model, 2, simulations=4, seed=1)
    assert positions and len({p.moves for p in positions}) == len(positions)
    solver = cached_solver(SMALL, TABLE_BITS)
    for p in positions[::3]:
        state = position_state(p)
        assert not state.is_over() and solver.move_scores(state) == p.scores


# ------------------------------------------------------------------ resuming
def test_a_rerun_resumes_with_its_optimizer_and_other_settings_are_refused(solved, tmp_path):
    from engines.neural.backend import load_model
    from engines.training.solver_supervised import train_on_solver

    positions = read_solved(solved[0])[:150]
    settings = SolverSettings(**TINY)
    train_on_solver(positions, tmp_path / "whole", settings, epochs=1, progress=False)
    for name in ("history.csv", "model.keras", "checkpoints/epoch-001.keras"):  # killed in its first epoch
        (tmp_path / "whole" / name).unlink()
    whole = train_on_solver(positions, tmp_path / "whole", settings, epochs=2, progress=False)
    train_on_solver(positions, tmp_path / "parts", settings, epochs=1, progress=False)  # killed after epoch 1
    parts = train_on_solver(positions, tmp_path / "parts", settings, epochs=2, progress=False)
    np.testing.assert_allclose(parts.history["val_loss"], whole.history["val_loss"], rtol=1e-4)
    weights = [load_model(folder / "checkpoints" / "epoch-002.keras")[0].get_weights() for folder in
               (tmp_path / "whole", tmp_path / "parts")]
    for ours, theirs in zip(*weights):  # Adam's moments came back with the network: the same steps
        np.testing.assert_allclose(ours, theirs, atol=1e-5)
    last = tmp_path / "parts" / "checkpoints" / "epoch-002.keras"
    stamp = last.stat().st_mtime_ns
    again = train_on_solver(positions, tmp_path / "parts", settings, epochs=2, progress=False)
    assert len(again.history) == 2 and last.stat().st_mtime_ns == stamp  # nothing trained twice
    with pytest.raises(SettingsMismatchError, match="other settings.*filters"):
        train_on_solver(positions, tmp_path / "parts", SolverSettings(**{**TINY, "filters": 16}), epochs=2,
                        progress=False)
    with pytest.raises(SettingsMismatchError, match="positions"):
        train_on_solver(positions[:100], tmp_path / "parts", settings, epochs=2, progress=False)
    with pytest.raises(RecordError, match="no solved positions"):
        train_on_solver([], tmp_path / "none", settings, epochs=1, progress=False)


# ------------------------------------------------------------------ the command line
def one_line_error(capsys, argv: list[str], match: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and match in err, err


def test_the_command_line_refuses_bad_input_in_one_line(tmp_path, capsys):
    out = str(tmp_path / "run")
    one_line_error(capsys, ["train-supervised", "--target", "solver", "--data", str(tmp_path / "none.csv"),
                            "--out", out], "no such file")
    one_line_error(capsys, ["train-supervised", "--target", "solver", "--data", str(tmp_path), "--out", out],
                   "holds no solved positions")
    (tmp_path / "games.csv").write_text("moves,winner\n1 2,black\n")
    one_line_error(capsys, ["train-supervised", "--target", "solver", "--data", str(tmp_path / "games.csv"),
                            "--out", out], "not a position set")
    write_positions(tmp_path / "ttt.csv", [SolvedPosition("begin-easy", 0, "tictactoe", "b2", 1, 0, 8,
                                                          {0: 0, 1: -1})])
    one_line_error(capsys, ["train-supervised", "--target", "solver", "--data", str(tmp_path / "ttt.csv"),
                            "--out", out], "no Connect-N solver")
    one_line_error(capsys, ["train-supervised", "--target", "solver", "--data", str(tmp_path / "ttt.csv"),
                            "--out", out, "--model", "tiny"], "--model: not for --target solver")
    one_line_error(capsys, ["train-supervised", "--data", str(tmp_path), "--out", out, "--blocks", "2"],
                   "--blocks: not for --target move")
    assert not (tmp_path / "run").exists()  # refused before anything is written


def test_the_command_line_trains_measures_and_names_the_engine(solved, tmp_path, capsys):
    learn, sets = solved
    argv = ["train-supervised", "--target", "solver", "--data", str(learn), "--out", str(tmp_path / "run"),
            "--epochs", "1", "--blocks", "1", "--filters", "8", "--policy", "best", "--measure", str(sets),
            "--simulations", "4"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "raw policy" in printed and f"alphazero:checkpoint={tmp_path / 'run' / 'model.keras'},simulations=4" \
        in printed
    argv[argv.index("--filters") + 1] = "16"
    one_line_error(capsys, argv, "other settings")
