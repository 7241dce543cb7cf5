"""A league for a class: every bot file of a folder against every other and against
reference engines, rated on the course's scale, rerun as the files change.

A bot is known by its file's content: ``alice.py`` plays as ``alice@1a2b3c4d`` (its
name and the first hex digits of its SHA-256), from a copy of that content kept in the
league's ``bots/`` folder (``bots/1a2b3c4d/alice.py``), so that a file edited while the league runs changes nothing in
it. When a student changes the file, the next run sees another bot: the games of the old
one move to ``replaced-games.csv`` (kept, never mixed into the ratings) and only the new
one's games are played; everyone else's stand. The references (``random``, MCTS and
alpha-beta at fixed budgets, GNU Go on Go) play every bot but not each other: on the
course's scale they are held at its ratings, so a league's Elo compares with last year's
and with the course's reports.

The arena never imports the engines: the league is handed a factory, and builds the
bots' specs from their files' paths (any factory that takes ``FILE.py`` specs, as the
suite's registry does, plays them in processes of their own).
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from dlgo.arena.leaderboard import BoardRow, write_leaderboard
from dlgo.arena.match import AgentFactory, check_opening
from dlgo.arena.mistakes import measure_mistakes
from dlgo.arena.roster import LeagueBot, LeagueFactory, copy_bots, league_schedule, write_roster
from dlgo.arena.tournament import play_games
from dlgo.formats.positions import SolvedPosition
from dlgo.formats.records import GameRecord
from dlgo.games import get_game
from dlgo.storage.folders import hold_folder


def run_league(factory: AgentFactory, out_dir: str | Path, game: str, bots: Sequence[LeagueBot],
               references: Sequence[str], games_per_pair: int, *, seed: int = 0, opening_plies: int = 0,
               workers: int | None = None, progress: bool = True, positions: Sequence[SolvedPosition] = (),
               fixed: dict[str, float] | None = None, anchoring: str = "", title: str = "",
               about: str = "", reproduce: str = "",
               limits: dict[str, float] | None = None) -> tuple[list[GameRecord], list[BoardRow]]:
    """Play (or finish) the league in ``out_dir`` and write its leaderboard: the games of
    the current bots and references not yet played (those of a bot no longer in the
    folder, or of an old version of one, move to ``replaced-games.csv``), each bot's moves
    on the solved ``positions`` not yet judged, then ``leaderboard.md`` and ``.html`` with
    the tournament's report (``fixed``: references held on the course's scale, ``anchoring``
    its words; ``reproduce``: the command that plays it again). The folder holds one game and
    one set of the bots' ``limits`` (its manifest names them: a rerun under others would mix
    two leagues), and one writer.
    Returns the current games and the leaderboard's rows."""
    out = Path(out_dir)
    ids = [bot.id for bot in bots]
    tasks = league_schedule(ids, references, games_per_pair, seed)
    players = set(ids) | set(references)
    spec = get_game(game).spec
    check_opening(game, opening_plies)
    with hold_folder(out, "league", None, game=spec, **(limits or {})):
        league = LeagueFactory(factory, copy_bots(out, bots))
        records = play_games(league, out, game, tasks, opening_plies=opening_plies, workers=workers,
                             progress=progress, kind="league", facts={"game": spec},
                             players=players)
        write_roster(out, bots)  # the games are this roster's: a refused run leaves the last one
        verdicts = measure_mistakes(league, ids, positions, out, seed=seed, workers=workers, progress=progress,
                                    kind="league") if positions else []
        rows = write_leaderboard(out, records, bots, references, title=title or f"{game} league", fixed=fixed,
                                 anchoring=anchoring, verdicts=verdicts, about=about,
                                 reproduce=reproduce)
    return records, rows
