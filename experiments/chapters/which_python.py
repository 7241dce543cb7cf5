"""Imported first by this folder's scripts run as files: scripts/which_python.py, run here, says
which Python runs them where this one cannot import the suite."""
from pathlib import Path

exec((Path(__file__).resolve().parents[2] / "scripts" / "which_python.py").read_text())
