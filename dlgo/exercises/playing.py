"""The student's engine in a small match against the library's, and what a
score over so few games can and cannot tell."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from dlgo.arena.match import Task, play_matches
from dlgo.arena.ratings import Tally, wilson_interval
from dlgo.arena.tournament import task_seed
from dlgo.core.agent import Agent, Decision
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

    def choose(self, state: State) -> Decision:
        return Decision(self._choose(state), 1)


class _Factory:
    """The library's engines, plus ``student``."""

    def __init__(self, choose: Callable[[State], Move]):
        self._choose = choose

    def create(self, spec: str, seed: int | None = None) -> Agent:
        return StudentAgent(self._choose) if spec == STUDENT else ENGINES.create(spec, seed)

    def network_files(self, spec: str) -> list[Path]:
        return []


def match_tally(choose: Callable[[State], Move], game: str, opponent: str, games: int, seed: int,
                opening_plies: int = 2) -> Tally:
    """Play ``games`` games of ``game`` (colours alternating) between the
    student's ``choose`` and the library's ``opponent``: the student's tally."""
    tasks = []
    for k in range(games):
        black, white = (STUDENT, opponent) if k % 2 == 0 else (opponent, STUDENT)
        tasks.append(Task(f"student vs {opponent} #{k}", black, white, task_seed(seed, f"#{k}")))
    records = play_matches(_Factory(choose), game, tasks, opening_plies=opening_plies)
    wins = sum(r.score_for(STUDENT) == 1.0 for r in records)
    draws = sum(r.score_for(STUDENT) == 0.5 for r in records)
    return Tally(wins, draws, len(records) - wins - draws)


def describe(tally: Tally, game: str, opponent: str, opening_plies: int, player: str) -> str:
    """The match in words, with its score's 95% interval."""
    low, high = wilson_interval(tally.score, tally.games)
    plies = f"{opening_plies} random opening {'ply' if opening_plies == 1 else 'plies'}"
    return (f"{player} against {opponent} on {game}, {tally.games} games (colours alternating, {plies}): "
            f"{tally.wins} won, {tally.draws} drawn, {tally.losses} lost: "
            f"{tally.score:.0%} (95% interval {low:.0%} to {high:.0%})")


def match(choose: Callable[[State], Move], game: str, opponent: str, games: int, seed: int,
          opening_plies: int = 2, player: str = "your engine") -> str:
    """:func:`match_tally` in words (``player`` names the student's side)."""
    tally = match_tally(choose, game, opponent, games, seed, opening_plies)
    return describe(tally, game, opponent, opening_plies, player)
