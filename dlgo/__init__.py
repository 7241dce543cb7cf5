"""The dlgo suite: games, formats, the arena, data sets and the applications."""

#: the suite's version: pyproject.toml reads it from here (the package's metadata), and
#: ``dlgo --version`` and GTP's ``version`` answer it
__version__ = "0.2.0"
