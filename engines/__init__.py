"""Pluggable engines behind one :class:`~dlgo.core.agent.Agent` interface.

>>> import engines
>>> bot = engines.create("mcts:rounds=200,seed=1")
>>> engines.engine_names()  # doctest: +NORMALIZE_WHITESPACE
['random', 'minimax', 'alphabeta', 'mcts', 'uct', 'mcts-go', 'predictor', 'alphazero', 'gumbel', 'alphago',
'alphago-puct', 'alphago-go', 'pg', 'q', 'ac', 'gtp', 'gnugo', 'openspiel', 'solver']
"""
from dlgo.core.agent import Agent, Compute, Decision, SearchReport
from dlgo.core.errors import EngineError
from engines.registry import (ENGINES, EngineFactory, canonical_spec, check_distinct, check_engine, create,
                              create_seeded, engine_class, engine_description, engine_names, engine_on,
                              engine_parameters)

__all__ = ["Agent", "Compute", "Decision", "SearchReport", "EngineError", "ENGINES", "EngineFactory",
           "canonical_spec", "check_distinct", "check_engine", "create", "create_seeded", "engine_class",
           "engine_description", "engine_names", "engine_on", "engine_parameters"]
