"""Positions from any games, labelled with a teacher's move.

A teacher's own games show a network the positions the teacher reaches; the
positions the *learner* reaches can look different, and there the network has
never been told what to play. Labelling the learner's positions with the
teacher's choice (Ross, Gordon & Bagnell, "A reduction of imitation learning
to no-regret online learning", AISTATS 2011: DAgger) closes the gap: the same
data set grows with ``(position, teacher's move)`` pairs from the suite's own
games, e.g. GNU Go's move in every position of an engine's games against it.

Each labelled position is stored as a :class:`~dlgo.formats.records.GameRecord`
like any game of a data set, so the encoder, the splits and every trainer take
it as it is: its moves are the game's moves up to the position and then the
teacher's, with all but the last counted as opening plies (context, not labels),
and its result is the game's. Its id is the source game's id and the ply,
``"<game id> @<ply>"``; the data set's split follows the source game
(:func:`dlgo.data.dataset.split_of`), so no game lends positions to both
training and testing. A position the teacher resigns in is kept with ``resign``
as its last move, which the encoder never takes as a label, so that no rerun asks
again. A run appends each game's positions once they are all labelled, and a
rerun labels only the missing ones.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from dlgo.arena.match import AgentFactory
from dlgo.arena.tournament import task_seed
from dlgo.arena.workers import run_jobs, worker_pool
from dlgo.core.errors import RecordError
from dlgo.data.dataset import PLY_MARK
from dlgo.display.progress import progress_bar
from dlgo.formats.records import GameRecord, append_game, games_file_of, open_games_file, recorded_games, \
    replay
from dlgo.games import new_game
from dlgo.storage.folders import hold_folder


def labelled_id(game_id: str, ply: int) -> str:
    """The id of the position before ply ``ply`` (0-based) of the game ``game_id``."""
    return f"{game_id}{PLY_MARK}{ply:03d}"


def positions_to_label(record: GameRecord, engine: str | None) -> list[int]:
    """The plies of ``record`` whose positions are labelled: every one chosen by a
    player (after the random opening), or only those ``engine`` chose (a
    :class:`RecordError` if the game cannot be replayed)."""
    states = replay(record.game, record.moves)
    players = {"black": record.black, "white": record.white}
    return [ply for ply in range(record.opening_plies, record.plies)
            if engine is None or players[states[ply].next_player.name] == engine]


def label_game(job: tuple[AgentFactory, str, GameRecord, list[int], int, str]) -> list[GameRecord]:
    """The teacher's move in each asked-for position of one game (a worker's job):
    (factory, teacher, game, plies, seed, experiment) -> one record per position. Each
    position gets a fresh teacher seeded by its id, so its label never depends on the
    positions asked before it (nor on where a killed run stopped)."""
    factory, teacher, record, plies, seed, experiment = job
    states = replay(record.game, record.moves)
    moves = record.moves.split()
    labelled = []
    for ply in plies:
        game_id = labelled_id(record.game_id, ply)
        agent = factory.create(teacher, seed=task_seed(seed, game_id))  # fresh: the label is the position's alone
        try:
            move = agent.choose(states[ply]).move
        finally:
            agent.close()
        labelled.append(replace(
            record, experiment=experiment, game_id=game_id, plies=ply + 1, opening_plies=ply,
            moves=" ".join([*moves[:ply], states[ply].format_move(move)]), black_seconds=0.0, white_seconds=0.0,
            black_compute=0.0, white_compute=0.0, black_unit="", white_unit="",
            note=f"the last move is {teacher}'s choice" + (": no label" if move.is_resign else "")))
    return labelled


def label_games(factory: AgentFactory, games_file: str | Path, out_dir: str | Path, teacher: str, *,
                engine: str | None = None, seed: int = 0, workers: int = 1,
                progress: bool = True) -> list[GameRecord]:
    """Label every position of the games in ``games_file`` (or a folder's ``games.csv``;
    only ``engine``'s, if given) with ``teacher``'s move, appending them to
    ``out_dir/games.csv``, ``workers`` games at once; returns every position in the
    file. A folder holds the positions of one source file, one teacher and one seed."""
    sources = recorded_games(Path(games_file))
    if engine is not None and not any(engine in (r.black, r.white) for r in sources):
        played = sorted({spec for r in sources for spec in (r.black, r.white)})
        raise RecordError(f"no game in {games_file} was played by {engine}; its engines: {', '.join(played)}")
    wanted = {r.game_id: positions_to_label(r, engine) for r in sources}  # every game replays, before any write
    agent = factory.create(teacher)
    try:
        for game in sorted({r.game for r in sources}):  # a teacher that cannot play fails before anything is written
            agent.check_game(new_game(game))
        teacher = agent.spec  # one spelling
    finally:
        agent.close()
    out = Path(out_dir)
    source = str(games_file_of(Path(games_file)).resolve())  # ids repeat across files: a folder labels one
    with hold_folder(out, "label", teacher=teacher, seed=seed, source=source):
        path = out / "games.csv"
        done = open_games_file(path)
        have = {r.game_id for r in done}
        jobs = []
        for record in sources:
            plies = [p for p in wanted[record.game_id] if labelled_id(record.game_id, p) not in have]
            if plies:
                jobs.append((factory, teacher, record, plies, seed, out.name))
        total = len(have) + sum(len(job[3]) for job in jobs)
        bar = progress_bar(total=total, initial=len(have), unit="position", desc="label", disable=not progress)

        def finished(records: list[GameRecord]) -> None:
            for labelled in records:
                append_game(path, labelled)
                done.append(labelled)
            bar.update(len(records))

        try:
            if workers > 1 and len(jobs) > 1:
                with worker_pool(min(workers, len(jobs))) as pool:
                    run_jobs(label_game, jobs, finished, pool)
            else:
                run_jobs(label_game, jobs, finished)
        except KeyboardInterrupt:
            raise KeyboardInterrupt(f"{len(done)} positions kept in {path}; the same command finishes the run") \
                from None
        finally:
            bar.close()
    return done
