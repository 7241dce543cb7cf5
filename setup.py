"""The package's metadata, dependencies and entry points live in ``pyproject.toml``;
this file only lets tools that still call ``setup.py`` (and ``pip install -e .``
with an old pip) find them."""
from setuptools import setup

setup()
