"""Test helpers: build positions from diagrams and play move lists."""
from __future__ import annotations

import contextlib
import importlib.util
import json
import socket
import threading
import time
from pathlib import Path
from textwrap import dedent
from typing import Any, Iterator, Sequence

import numpy as np

from dlgo.core.game import State
from dlgo.goboard import Board, GameState
from dlgo.gotypes import Player, Point
from dlgo.storage.facts import read_facts
from dlgo.games.solvers.brute_force import exact_value  # the brute-force oracle, for the tests
from engines.puct import Evaluator, RolloutEvaluator

SYMBOLS = {"X": Player.black, "O": Player.white}


def go_board(diagram: str) -> Board:
    """A board from rows of ``X`` (black), ``O`` (white) and ``.``, top row first."""
    rows = [line.split() for line in dedent(diagram).strip().splitlines()]
    board = Board(len(rows), len(rows[0]))
    for i, cells in enumerate(rows):
        assert len(cells) == len(rows[0]), "ragged diagram"
        for j, cell in enumerate(cells):
            if cell in SYMBOLS:
                board.place_stone(SYMBOLS[cell], Point(len(rows) - i, j + 1))
    return board


#: the book's scoring example (chapter 3): 9 stones and 4 points of territory for black, 9 and 3 for
#: white, no dame; with komi 7.5 white wins by 6.5
BOOK_SCORING_DIAGRAM = """
    . O . O O
    O O O O .
    X X X O O
    . X X X X
    . X . X .
"""


def go_position(diagram: str, next_player: Player = Player.black, komi: float = 7.5) -> GameState:
    return GameState.from_board(go_board(diagram), next_player, komi)


def play(state: State, *moves: str) -> State:
    """Apply moves given as text (``parse_move`` syntax)."""
    for text in moves:
        state = state.apply_move(state.parse_move(text))
    return state


class CountingRollouts(RolloutEvaluator):
    """Rollout values, and the size of every evaluator call in ``batches``."""

    def __init__(self, seed):
        super().__init__(seed=seed)
        self.batches = []

    def evaluate(self, states):
        self.batches.append(len(states))
        return super().evaluate(states)


def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def served(app) -> Iterator[str]:
    """An ASGI ``app`` served by uvicorn on a free port of 127.0.0.1, in a thread: its base URL."""
    import uvicorn  # the web extra: only the web tests need it

    with socket.socket() as listener:  # bound here and handed over: no other process can take the port between
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            thread.join(10)


class ExactEvaluator(Evaluator):
    """Uniform priors and the exact game value: a perfect value network for tic-tac-toe."""

    def evaluate(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        self.evaluations += len(states)
        return (np.ones((len(states), states[0].num_actions), np.float32),
                np.array([exact_value(s) for s in states], np.float32))


def load_script(name: str) -> Any:
    """A module of ``scripts/`` (not a package), loaded from its file."""
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def written_facts_differ(folders: Sequence[Path]) -> dict[str, list[str]]:
    """The runs among ``folders`` (those with a summary) and their report subfolders whose
    ``facts.json`` is not what their files give (``scripts/refresh_facts.py``), with the sections
    they should hold (none: a run with no facts at all)."""
    refresh = load_script("refresh_facts")
    differ = {}
    for top in (f for f in folders if (f / "summary.md").exists()):
        sections = 0
        for folder, experiment in [(top, True), *((sub, False) for sub in refresh.report_folders(top))]:
            derived, written = refresh.derived(folder, experiment), read_facts(folder)
            sections += len(derived)
            if json.dumps(derived, sort_keys=True) != json.dumps({k: written.get(k) for k in derived}, sort_keys=True):
                differ[str(folder.relative_to(top.parent))] = sorted(derived)
        if not sections:
            differ[top.name] = []
    return differ
