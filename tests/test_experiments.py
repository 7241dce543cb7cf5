"""The experiment scripts run end to end on tiny settings."""
from experiments import strength_per_compute as spc


def test_mcts_ladder_steps_by_root_ten():
    assert spc.mcts_ladder(1000) == [10, 32, 100, 316, 1000]
    assert spc.ladder_specs(32, 2) == ["random", "mcts:rounds=10", "mcts:rounds=32",
                                       "alphabeta:depth=1,nodes=0", "alphabeta:depth=2,nodes=0"]


def test_strength_per_compute_writes_its_report_and_resumes(tmp_path, capsys):
    args = ["--game", "tictactoe", "--mcts-max", "10", "--depth-max", "1", "--games-per-pair", "2",
            "--workers", "1", "--out", str(tmp_path)]
    assert spc.main(args) == 0
    for name in ("games.csv", "ratings.csv", "crosstable.csv", "strength_vs_compute.png", "summary.md"):
        assert (tmp_path / name).exists()
    lines = (tmp_path / "games.csv").read_text().splitlines()
    assert len(lines) == 1 + 3 * 2
    assert spc.main(args) == 0  # a rerun plays nothing new
    assert (tmp_path / "games.csv").read_text().splitlines() == lines
    assert "report: " in capsys.readouterr().out
