"""Training games: an engine plays itself, in parallel, resumably.

``generate_games`` plays ``num_games`` self-play games of one engine spec and
appends each to ``out/games.csv`` (the arena's record format, with the moves)
the moment it ends; Go games are also written as SGF. Game ``k`` has the id
``self-play #k`` and a seed fixed by the run's seed, so rerunning the same
command after a kill plays only the missing games, and asking for more games
later extends the same set. The first ``opening_plies`` moves of each game are
random (seeded), for variety; they are not used as training labels.

The games are turned into encoded NumPy chunks by :mod:`dlgo.data.dataset`.
"""
from __future__ import annotations

import json
from pathlib import Path

from dlgo.arena.match import AgentFactory
from dlgo.arena.tournament import Task, play_games, task_seed
from dlgo.core.errors import RecordError
from dlgo.formats.atomic import atomic_write
from dlgo.formats.records import GameRecord

SOURCE_FILE = "source.json"


def self_play_tasks(engine: str, num_games: int, seed: int) -> list[Task]:
    """Game ``k`` is ``engine`` against itself with a seed fixed by ``seed``."""
    tasks = []
    for k in range(num_games):
        game_id = f"self-play #{k:06d}"
        tasks.append(Task(game_id, engine, engine, task_seed(seed, game_id)))
    return tasks


def check_source(out: Path, source: dict) -> None:
    """Record how a dataset's games were made in ``out/source.json``, and refuse
    to add games made another way to an existing dataset."""
    path = out / SOURCE_FILE
    if path.exists():
        old = json.loads(path.read_text())
        if old != source:
            changed = ", ".join(f"{k}: {old.get(k)!r} -> {v!r}" for k, v in source.items() if old.get(k) != v)
            raise RecordError(f"{out} holds games made differently ({changed}); use another --out folder")
        return
    out.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        json.dump(source, handle, indent=2)


def generate_games(factory: AgentFactory, out_dir: str | Path, game: str, engine: str, num_games: int, *,
                   seed: int = 0, opening_plies: int = 2, workers: int | None = None,
                   progress: bool = True) -> list[GameRecord]:
    """Play (or finish) ``num_games`` self-play games of the engine ``engine``
    (built by ``factory``); returns all games in the folder."""
    engine = factory.create(engine).spec  # validate early, and one canonical spelling
    out = Path(out_dir)
    check_source(out, {"kind": "self-play", "game": game, "engine": engine, "seed": seed,
                       "opening_plies": opening_plies})
    return play_games(factory, out, game, self_play_tasks(engine, num_games, seed), opening_plies=opening_plies,
                      workers=workers, progress=progress)
