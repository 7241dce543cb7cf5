"""Round-robin tournaments that lose nothing.

Every pair of engine specs plays ``games_per_pair`` games, colours alternating.
Each game has a fixed id and seed derived from the tournament seed, so the
schedule is the same on every run. Finished games are appended to
``games.csv`` the moment they end (one line, flushed and synced); a rerun of
the same command reads that file and plays only the games still missing, so an
interrupted run (Ctrl-C, a killed process) loses only the games in progress.
A tournament's folder holds one game, which its manifest names: a tournament of
another game there stops before it plays (its ratings would mix the two).

A spec keeps its name when the network file it names is retrained
(``alphazero:checkpoint=connect4``), so ``networks.json`` records a digest of
each network that played: when one has changed, the games of its specs move to
``replaced-games.csv`` and are played again with the new network.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import logging
import math
import os
from pathlib import Path
from typing import Any, Callable, Collection, Iterable

from dlgo.arena.match import AgentFactory, Task, check_opening, play_match, play_matches
from dlgo.arena.workers import run_jobs, worker_pool
from dlgo.core.arguments import MOST
from dlgo.core.errors import SettingsMismatchError, SpecError
from dlgo.storage.atomic import atomic_write
from dlgo.storage.folders import hold_folder
from dlgo.display.progress import progress_bar
from dlgo.formats.records import GameRecord, append_game, open_games_file, read_games, replay, write_games
from dlgo.formats.sgf import game_to_sgf
from dlgo.games import get_game

log = logging.getLogger(__name__)


def schedule(specs: list[str], games_per_pair: int, seed: int) -> list[Task]:
    """Every pair plays ``games_per_pair`` games; the first of each pair takes
    black in even-numbered games, white in odd ones."""
    if len(set(specs)) != len(specs):
        raise SpecError("each engine spec may appear only once in a tournament")
    if len(specs) < 2:
        raise SpecError(f"a tournament needs at least two engines, got {len(specs)}")
    if games_per_pair < 1:
        raise SpecError(f"games per pair must be at least 1, got {games_per_pair}")
    games = math.comb(len(specs), 2) * games_per_pair
    if games > MOST["games"]:  # the schedule is listed up front: past this it would fill the memory first
        raise SpecError(f"a tournament plays at most {MOST['games']:,} games; {len(specs)} engines at "
                        f"{games_per_pair:,} games per pair would play {games:,}")
    tasks = []
    for a, b in itertools.combinations(specs, 2):
        for k in range(games_per_pair):
            black, white = (a, b) if k % 2 == 0 else (b, a)
            game_id = f"{a} vs {b} #{k}"
            tasks.append(Task(game_id, black, white, task_seed(seed, game_id)))
    return tasks


def task_seed(seed: int, game_id: str) -> int:
    """A game's seed, fixed by the run's seed and the game's id."""
    digest = hashlib.sha256(f"{seed}|{game_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


#: the longest SGF file name kept whole (a file system allows 255 bytes, with room for a temporary suffix)
LONGEST_NAME = 160


def sgf_file_name(game_id: str) -> str:
    """The SGF file of the game ``game_id``: its id with characters a file name cannot
    hold replaced; a long id (engines named by long paths) is cut, and a digest of the
    whole id keeps the names apart."""
    name = "".join(c if c.isalnum() or c in "=-_." else "_" for c in game_id)
    if len(name) > LONGEST_NAME:
        name = f"{name[:LONGEST_NAME - 17]}-{hashlib.sha256(game_id.encode()).hexdigest()[:16]}"
    return name + ".sgf"


def save_record(out: Path, record: GameRecord) -> None:
    """Games that have SGF (Go) are also kept as SGF files in ``out/sgf/``
    (other games: the ``moves`` column of games.csv is their record)."""
    if not get_game(record.game).has_sgf:
        return
    (out / "sgf").mkdir(exist_ok=True)
    with atomic_write(out / "sgf" / sgf_file_name(record.game_id)) as handle:
        final = replay(record.game, record.moves)[-1]
        handle.write(game_to_sgf(final, record.black, record.white, record.result))


def network_digests(factory: AgentFactory, specs: Iterable[str]) -> dict[str, str]:
    """The SHA-256 of the network files each of ``specs`` plays (the specs without any left out)."""
    current = {}
    for spec in sorted(set(specs)):
        files = factory.network_files(spec)
        if files:
            digest = hashlib.sha256()
            for file in files:
                digest.update(file.read_bytes())
            current[spec] = digest.hexdigest()
    return current


def changed_networks(stamp_path: Path, current: dict[str, str]) -> set[str]:
    """The specs whose ``current`` digests differ from those ``stamp_path`` recorded (a spec it
    never recorded, or no file at all: unchanged, its results trusted)."""
    stamps: dict[str, str] = json.loads(stamp_path.read_text()) if stamp_path.exists() else {}
    return {spec for spec, digest in current.items() if stamps.get(spec, digest) != digest}


def record_networks(stamp_path: Path, current: dict[str, str]) -> None:
    """Record ``current`` digests in ``stamp_path`` (after the results of changed networks left)."""
    stamps: dict[str, str] = json.loads(stamp_path.read_text()) if stamp_path.exists() else {}
    if {**stamps, **current} != stamps:
        with atomic_write(stamp_path) as handle:
            json.dump({**stamps, **current}, handle, indent=1, sort_keys=True)


def _drop_games_of_changed_networks(factory: AgentFactory, out: Path, done: list[GameRecord],
                                    tasks: list[Task]) -> list[GameRecord]:
    """The finished games still valid: those of a spec whose network file changed
    since they were played move to ``replaced-games.csv`` (games from before
    ``networks.json`` existed are trusted). Records the networks' digests."""
    stamp_path = out / "networks.json"
    current = network_digests(factory, [t.black for t in tasks] + [t.white for t in tasks])
    changed = changed_networks(stamp_path, current)
    if changed:
        done = set_aside(out, done, lambda r: r.black in changed or r.white in changed,
                         f"the networks of {', '.join(sorted(changed))} changed", "they are played again")
    record_networks(stamp_path, current)
    return done


#: where a folder's games that no longer count go (kept, never rated with the others)
REPLACED = "replaced-games.csv"


def set_aside(out: Path, done: list[GameRecord], stale: Callable[[GameRecord], bool], why: str,
              then: str = "") -> list[GameRecord]:
    """The games of ``done`` still current: the ``stale`` ones move from ``games.csv`` to
    ``replaced-games.csv`` (for the folder's one writer; a kill between the two writes
    leaves a game in both, and the next run moves it again: read once, as ids are)."""
    moved = [r for r in done if stale(r)]
    if not moved:
        return done
    log.warning("%s: %d games move to %s%s", why, len(moved), REPLACED, f"; {then}" if then else "")
    open_games_file(out / REPLACED)  # a file from before a column gets today's header before rows are added
    for record in moved:
        append_game(out / REPLACED, record)
    kept = [r for r in done if not stale(r)]
    write_games(out / "games.csv", kept)
    return kept


def _play(args: tuple[AgentFactory, str, Task, int, str]) -> GameRecord:
    factory, game, task, opening_plies, experiment = args
    return play_match(factory, game, task.black, task.white, task.seed, opening_plies, experiment, task.game_id)


def _play_batch(args: tuple[AgentFactory, str, list[Task], int, str, int]) -> list[GameRecord]:
    """Several games advancing together in one process (a Ray task's share)."""
    factory, game, tasks, opening_plies, experiment, batch = args
    return play_matches(factory, game, tasks, opening_plies, experiment, parallel=max(1, batch))


def run_tournament(factory: AgentFactory, out_dir: str | Path, game: str, specs: list[str], games_per_pair: int, *,
                   seed: int = 0, opening_plies: int = 0, workers: int | None = None,
                   progress: bool = True, ray: str | None = None) -> list[GameRecord]:
    """Play (or finish) a round-robin with engines from ``factory`` (on the Ray
    cluster at ``ray`` if given); returns every game in ``games.csv``. A
    tournament's folder holds one game: its manifest records it, and a run of
    another game there stops before it plays (:func:`check_one_game`)."""
    tasks = schedule(specs, games_per_pair, seed)
    check_one_game(Path(out_dir) / "games.csv", game)
    return play_games(factory, out_dir, game, tasks, opening_plies=opening_plies, workers=workers,
                      progress=progress, facts={"game": get_game(game).spec}, ray=ray)


def check_one_game(path: Path, game: str) -> None:
    """A :class:`SettingsMismatchError` if the ``games.csv`` at ``path`` holds games
    of another game than ``game``: a tournament's folder from before its manifest
    named the game."""
    spec = get_game(game).spec
    others = sorted({r.game for r in read_games(path) if get_game(r.game).spec != spec})
    if others:
        raise SettingsMismatchError(f"{path} holds games of {', '.join(others)}, and this run plays {game}",
                                    "a tournament's folder holds one game: use another folder")


def check_schedule(path: Path, done: list[GameRecord], game: str, tasks: list[Task], opening_plies: int) -> None:
    """Stop (keeping the file) if a game of ``tasks`` is already in ``done`` as
    another game: another game variant, other players, seed or random opening
    under the same id, so resuming would mix two runs."""
    by_id = {r.game_id: r for r in done}
    for task in tasks:
        old = by_id.get(task.game_id)
        if old is None:
            continue
        for what, was, now in (("game", old.game, game), ("black", old.black, task.black),
                               ("white", old.white, task.white), ("seed", old.seed, task.seed),
                               ("random opening plies", old.opening_plies, opening_plies)):
            if was != now:
                raise SettingsMismatchError(f"{path} already holds {task.game_id!r} with {what} {was!r}, where "
                                            f"this run has {now!r}",
                                            "rerun with the settings that made it, or use another folder")


def play_games(factory: AgentFactory, out_dir: str | Path, game: str, tasks: list[Task], *,
               opening_plies: int = 0, workers: int | None = None, progress: bool = True,
               kind: str = "tournament", facts: dict[str, Any] | None = None, batch: int = 0,
               ray: str | None = None, players: Collection[str] | None = None) -> list[GameRecord]:
    """Play every task not yet in ``out_dir/games.csv`` (in worker processes
    when ``workers`` > 1, default all cores; or with ``batch`` > 0, in this
    process, ``batch`` games advancing together so that network engines make one
    call for all of them: :func:`~dlgo.arena.match.play_matches`; or, with
    ``ray``, as tasks on that Ray cluster: :mod:`dlgo.arena.distributed`),
    appending each game as it ends; returns every game in the file. Tournaments and data generation share it;
    ``kind`` and ``facts`` go to the folder's manifest, which holds one kind of
    run with one set of facts (see :func:`~dlgo.storage.folders.hold_folder`). Given ``players``
    (a league's), the games of any other player (a bot whose file changed or left, a reference
    dropped) move to ``replaced-games.csv`` first."""
    games_file = Path(out_dir) / "games.csv"
    played = {r.game_id for r in read_games(games_file)} if games_file.is_file() else set()  # read: nothing written
    check_opening(game, opening_plies)
    start = get_game(game).initial_state()
    # every spec still to play checked, and its fit to the game, before the folder is touched; a finished game
    # needs no engine (a finished board's networks may be gone: a resumed report only rates its games)
    for spec in sorted({spec for t in tasks if t.game_id not in played for spec in (t.black, t.white)}):
        agent = factory.create(spec)
        try:
            agent.check_game(start)
        finally:
            agent.close()
    if ray:  # the cluster too
        from dlgo.arena.distributed import connect  # the distributed extra (Ray), imported only when asked for

        connect(ray)
    with hold_folder(out_dir, kind, **(facts or {})) as held:
        return _play_games(factory, Path(out_dir), held, game, tasks, opening_plies, workers, progress, batch, ray,
                           players)


def _play_games(factory: AgentFactory, out: Path, held: Path, game: str, tasks: list[Task], opening_plies: int,
                workers: int | None, progress: bool, batch: int, ray: str | None,
                players: Collection[str] | None) -> list[GameRecord]:
    path = out / "games.csv"
    experiment = out.name
    done = open_games_file(path)
    if players is not None:
        gone = sorted({p for r in done for p in (r.black, r.white)} - set(players))
        done = set_aside(out, done, lambda r: r.black in gone or r.white in gone,
                         f"{', '.join(gone)} no longer play here (a bot whose file changed or left, a reference "
                         "dropped)", "the current players' games that are missing are played")
    check_schedule(path, done, game, tasks, opening_plies)
    done = _drop_games_of_changed_networks(factory, out, done, tasks)
    finished = {r.game_id for r in done}
    todo = [t for t in tasks if t.game_id not in finished]
    if todo:
        bar = progress_bar(total=len(tasks), initial=len(tasks) - len(todo), unit="game",
                           desc=experiment or "games", disable=not progress)
        jobs = [(factory, game, task, opening_plies, experiment) for task in todo]
        workers = workers or os.cpu_count() or 1

        def finished_game(record: GameRecord) -> None:
            append_game(path, record)  # durable before anything else happens
            save_record(out, record)
            done.append(record)
            bar.update()

        try:
            if ray:
                from dlgo.arena.distributed import chunks, cluster_cpus, run_tasks  # joined in play_games

                if batch > 0:  # the batch's games shared among the cluster's CPUs, each share batched
                    def finished_share(records: list[GameRecord]) -> None:
                        for record in records:
                            finished_game(record)

                    shares = chunks(todo, cluster_cpus(), most=batch)
                    run_tasks(_play_batch, [(factory, game, share, opening_plies, experiment, batch)
                                            for share in shares], finished_share)
                else:
                    run_tasks(_play, jobs, finished_game)
            elif batch > 0:
                play_matches(factory, game, todo, opening_plies, experiment, parallel=batch, finished=finished_game)
            elif workers == 1:
                run_jobs(_play, jobs, finished_game)
            else:
                with worker_pool(workers) as pool:
                    run_jobs(_play, jobs, finished_game, pool)
        except KeyboardInterrupt:
            raise KeyboardInterrupt(f"{len(done)} of {len(tasks)} games kept in {path}; "
                                    "the same command finishes the run") from None
        finally:
            bar.close()
    return done
