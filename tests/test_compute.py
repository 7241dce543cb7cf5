"""Compute figures leave one-off start-up out: a move's seconds are the engine's own.

A fresh process pays once for its imports, its compiled kernels loading and its
networks' first calls. Before each spec's first game in a process the arena
warms it with an untimed move of a throwaway engine, so that the first game's
moves cost what the later ones do, and the games played are the same either way.
"""
from __future__ import annotations

import subprocess
import sys

from dlgo.arena import match
from dlgo.arena.match import play_match, warm_up
from dlgo.formats.records import open_games_file
from dlgo.games import new_game
from engines.registry import ENGINES


def test_mcts_seconds_a_move_rise_with_its_rounds_in_a_fresh_process(tmp_path):
    """10 against 3,162 rounds, the cheap engine moving first in a fresh process:
    316x the work must cost more per move. Before the warm-up the first move of
    the process (kernels loading, about a second) made 10 rounds the dearer."""
    out = tmp_path / "t"
    done = subprocess.run([sys.executable, "-m", "dlgo", "tournament", "--game", "connect4", "--engines",
                           "mcts:rounds=10", "mcts:rounds=3162", "--games-per-pair", "1", "--workers", "1",
                           "--opening-plies", "0", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    [record] = open_games_file(out / "games.csv")
    assert record.black == "mcts:rounds=10" and record.white == "mcts:rounds=3162"
    assert 0 < record.black_seconds < record.white_seconds


def test_warming_up_changes_no_game():
    """The throwaway engine has its own seed: the seeded engines that play
    afterwards draw the same moves whether or not the process was warm."""
    spec = "mcts:rounds=40"
    match._warmed.discard((spec, new_game("connect4").game.spec))
    cold = play_match(ENGINES, "connect4", spec, "random", seed=3)
    warm = play_match(ENGINES, "connect4", spec, "random", seed=3)
    assert cold.moves == warm.moves and cold.result == warm.result


def test_warm_up_runs_once_per_spec_and_game():
    made = []

    class Counting:
        def create(self, spec, seed=None):
            made.append((spec, seed))
            return ENGINES.create(spec, seed)

        def network_files(self, spec):
            return []

    for game in ("tictactoe", "connect4"):
        match._warmed.discard(("random", new_game(game).game.spec))
    for game in ("tictactoe", "connect4", "tictactoe", "connect4"):
        warm_up(Counting(), "random", new_game(game))
    assert made == [("random", 0), ("random", 0)]


def test_engines_that_no_time_limit_shortens_warm_up_without_searching_the_position():
    """minimax and the solver search to the end whatever the time limit (from one
    stone of Connect Four: hours and minutes): the first warms nothing (plain
    Python), the second solves a nearly full board instead. An external program
    starts its own process, outside the clock: nothing to warm in this one."""
    from engines.gtpbot import GTPAgent
    from engines.solver import SolverAgent

    state = new_game("connect4").apply_action(3)
    minimax = ENGINES.create("minimax", seed=0)
    minimax.warm_up(state)
    assert minimax.last_compute.amount == 0
    solved = []

    class Recording(SolverAgent):
        def solver_for(self, position):
            solved.append(position)
            return super().solver_for(position)

    Recording().warm_up(state)
    assert len(solved) == 1 and len(solved[0].legal_actions()) <= 7
    assert all(solved[0].apply_action(a).is_over() for a in solved[0].legal_actions())
    GTPAgent(cmd="/no/such/program --mode gtp").warm_up(new_game("go:size=5"))  # nothing started or raised


def test_no_move_pays_for_a_garbage_collection():
    """Python's cyclic collector scans every object of the process (a tenth of a
    second beside a 3,162-round tree) in whichever move trips it: a cheap
    engine's too. It waits for each move to end, and runs again after."""
    import gc

    from dlgo.core.agent import Agent, Decision

    seen = []

    class Watching(Agent):
        name = "watching"

        def choose(self, state):
            seen.append(gc.isenabled())
            return Decision(state.index_to_move(state.legal_actions()[0]), 1)

    class Factory:
        def create(self, spec, seed=None):
            return Watching() if spec == "watching" else ENGINES.create(spec, seed)

        def network_files(self, spec):
            return []

    match._warmed.add(("watching", new_game("tictactoe").game.spec))  # its untimed warm-up move: not watched
    assert gc.isenabled()
    play_match(Factory(), "tictactoe", "watching", "random", seed=0)
    assert seen and not any(seen) and gc.isenabled()
