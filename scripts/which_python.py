"""Imported first by the scripts a user runs as files (``python PATH``), here and in
experiments/ and benchmarks/ (whose own which_python.py runs this one): in a Python
without the dlgo suite (``python3`` outside its environment) one line says which
Python runs them, and the script stops."""
import sys

try:
    import dlgo.core  # noqa: F401  (the suite and its packages: numpy, ...)
except ModuleNotFoundError as missing:
    sys.exit(f"{sys.argv[0]}: this Python ({sys.executable}) cannot import {missing.name}: run it with the suite's, "
             f".venv/bin/python {sys.argv[0]} (or `. .venv/bin/activate` first; README.md's Install sets it up)")
