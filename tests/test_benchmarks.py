"""The benchmark scripts run (tiny settings): speed figures are measured with
`make bench`, never asserted here, but the scripts must keep up with the API."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("script, args", [
    ("playouts.py", ["--seconds", "0.01"]),
    ("search.py", ["--moves", "1"]),
    ("predictor.py", ["--seconds", "0.01", "--model", "tiny", "--games", "3"]),
    ("selfplay.py", ["--games", "2", "--parallel", "2", "--simulations", "2", "--blocks", "1", "--filters", "4",
                     "--before"]),
    ("web_engines.py", ["--engines", "random", "--concurrent", "2"]),
    ("bots.py", ["--games", "2"]),
])
def test_benchmark_scripts_run_and_save_their_table(script, args, tmp_path):
    out = tmp_path / "table.md"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args, "--out", str(out)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    saved = out.read_text()
    assert saved.startswith(f"Measured by `python benchmarks/{script} ")
    assert saved.count("\n| ") >= 2 and saved.splitlines()[-1] in run.stdout  # the table, as printed
    if "--before" in args:  # each case beside self-play as it ran before, and the speed-up
        assert saved.count("readable (before)") == saved.count("| compiled |") >= 1 and "x |" in saved
