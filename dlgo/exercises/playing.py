"""The student's engine in a small match against the library's."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from dlgo.arena.match import Task, play_matches
from dlgo.arena.tournament import task_seed
from dlgo.core.agent import Agent
from dlgo.core.game import State
from dlgo.core.types import Move
from engines.registry import ENGINES

STUDENT = "student"


class StudentAgent(Agent):
    """An engine whose moves come from the student's function."""

    name = STUDENT

    def __init__(self, choose: Callable[[State], Move]):
        super().__init__()
        self._choose = choose

    def choose(self, state: State) -> Move:
        return self._choose(state)


class _Factory:
    """The library's engines, plus ``student``."""

    def __init__(self, choose: Callable[[State], Move]):
        self._choose = choose

    def create(self, spec: str, seed: int | None = None) -> Agent:
        return StudentAgent(self._choose) if spec == STUDENT else ENGINES.create(spec, seed)

    def network_files(self, spec: str) -> list[Path]:
        return []


def match(choose: Callable[[State], Move], game: str, opponent: str, games: int, seed: int,
          opening_plies: int = 2) -> str:
    """Play ``games`` games of ``game`` (colours alternating) between the
    student's ``choose`` and the library's ``opponent``; the score in words."""
    tasks = []
    for k in range(games):
        black, white = (STUDENT, opponent) if k % 2 == 0 else (opponent, STUDENT)
        tasks.append(Task(f"student vs {opponent} #{k}", black, white, task_seed(seed, f"#{k}")))
    records = play_matches(_Factory(choose), game, tasks, opening_plies=opening_plies)
    wins = sum(r.score_for(STUDENT) == 1.0 for r in records)
    draws = sum(r.score_for(STUDENT) == 0.5 for r in records)
    losses = len(records) - wins - draws
    score = sum(r.score_for(STUDENT) for r in records) / len(records)
    return (f"your engine against {opponent} on {game}, {games} games (colours alternating, {opening_plies} random "
            f"opening plies): {wins} won, {draws} drawn, {losses} lost: {score:.0%}")
