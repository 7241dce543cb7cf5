"""Pluggable engines behind one :class:`~engines.base.Agent` interface.

>>> import engines
>>> bot = engines.create("mcts:rounds=200,seed=1")
>>> engines.engine_names()
['random', 'minimax', 'alphabeta', 'mcts']
"""
from engines.base import Agent, Compute, EngineError
from engines.registry import create, create_seeded, engine_description, engine_names, engine_parameters

__all__ = ["Agent", "Compute", "EngineError", "create", "create_seeded", "engine_description", "engine_names", "engine_parameters"]
