"""Training games: an engine plays itself, in parallel, resumably.

``generate_games`` plays ``num_games`` self-play games of one engine spec and
appends each to ``out/games.csv`` (the arena's record format, with the moves)
the moment it ends; Go games are also written as SGF. The folder's ``run.json``
records how its games were made (game, engine, seed, random opening plies), and
games made another way are refused. Game ``k`` has the id
``self-play #k`` and a seed fixed by the run's seed, so rerunning the same
command after a kill plays only the missing games, and asking for more games
later extends the same set. The first ``opening_plies`` moves of each game are
random (seeded), for variety; they are not used as training labels.

The games are turned into encoded NumPy chunks by :mod:`dlgo.data.dataset`.
"""
from __future__ import annotations

from pathlib import Path

from dlgo.arena.match import AgentFactory, Task
from dlgo.arena.tournament import play_games, task_seed
from dlgo.formats.records import GameRecord


def self_play_tasks(engine: str, num_games: int, seed: int) -> list[Task]:
    """Game ``k`` is ``engine`` against itself with a seed fixed by ``seed``."""
    tasks = []
    for k in range(num_games):
        game_id = f"self-play #{k:06d}"
        tasks.append(Task(game_id, engine, engine, task_seed(seed, game_id)))
    return tasks


def generate_games(factory: AgentFactory, out_dir: str | Path, game: str, engine: str, num_games: int, *,
                   seed: int = 0, opening_plies: int = 2, workers: int | None = None,
                   progress: bool = True, batch: int = 0, ray: str | None = None) -> list[GameRecord]:
    """Play (or finish) ``num_games`` self-play games of the engine ``engine``
    (built by ``factory``), in ``workers`` processes or, with ``batch`` > 0,
    ``batch`` games at a time in this process (a network engine then makes one
    call for all of them), or on the Ray cluster at ``ray``; returns all games in the folder."""
    engine = factory.create(engine).spec  # validate early, and one canonical spelling
    out = Path(out_dir)
    facts = {"game": game, "engine": engine, "seed": seed, "opening_plies": opening_plies}
    return play_games(factory, out, game, self_play_tasks(engine, num_games, seed), opening_plies=opening_plies,
                      workers=workers, progress=progress, kind="generate", facts=facts, batch=batch, ray=ray)
