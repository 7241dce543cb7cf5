"""Do we count a finished Go game as GNU Go does? Dead stones, estimated.

    python experiments/crosschecks/dead_stones.py             # 50 + 50 9x9 games, a few minutes on 2 cores
    python experiments/crosschecks/dead_stones.py --quick     # seconds: 4 + 4 games

GNU Go plays without ``--capture-all-dead`` here, so it passes as people do,
with dead stones still on the board. Two sets of 9x9 games (komi 7.5, area
scoring, two random opening plies, colours alternating): our engine against GNU
Go, and GNU Go against itself at two levels (close games with dead stones on
both sides). Each final position is scored three ways: by GNU Go's
``final_score`` (Chinese rules), by our plain area count (the board as it stands)
and by our count with the dead stones removed (``dlgo.games.go.deadstones``:
ownership from random playouts to the end). Writes ``games.csv`` (resumable),
``scores.csv`` and ``summary.md`` to ``--out``.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys
from pathlib import Path
from typing import Any

import pandas as pd

from dlgo.arena.match import Task
from dlgo.arena.tournament import play_games, schedule
from dlgo.core.arguments import count
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.formats.records import GameRecord, replay
from dlgo.games.go.deadstones import score_with_dead_stones
from dlgo.games.go.scoring import area_score
from dlgo.games.go.state import GoState
from dlgo.gtp.client import GNUGO
from engines.gtpbot import GTPAgent
from engines.registry import ENGINES
from experiments.shared import chapters

GAME = "go:size=9,komi=7.5"


def gnugo_command(level: int, seed: int | None = None) -> str:
    """GNU Go's command line at ``level``, Chinese rules. With a ``seed`` its choices are
    fixed (without one they vary from game to game)."""
    return f"{GNUGO} --mode gtp --chinese-rules --level {level}" + ("" if seed is None else f" --seed {seed}")


def gnugo(level: int, seed: int | None = None) -> str:
    """GNU Go as people play it (an engine spec): it passes with dead stones left on the board."""
    return f'gtp:cmd="{gnugo_command(level, seed)}"'


def score_games(records: list[GameRecord], level: int = 1) -> pd.DataFrame:
    """GNU Go's final score, our plain count and our count without dead stones, per finished game."""
    judge = GTPAgent(cmd=gnugo_command(level, seed=1))  # seeded: one count per position
    rows = []
    try:
        for record in records:
            if record.result[-1] in "RF":  # a resignation or a forfeit: nothing to count
                continue
            final = replay(record.game, record.moves)[-1]
            assert isinstance(final, GoState)  # a Go game: the schedule plays go:size=9
            theirs = judge.send("final_score", final).strip()
            rows.append({"game_id": record.game_id, "plies": record.plies, "gnugo": theirs,
                         "plain": str(area_score(final.board, final.game.komi)),
                         "dead_stones": str(score_with_dead_stones(final, seed=final.zobrist_hash()))})
    finally:
        judge.close()
    table = pd.DataFrame(rows, columns=["game_id", "plies", "gnugo", "plain", "dead_stones"])
    for ours in ("plain", "dead_stones"):
        table[f"{ours}_winner"] = table[ours].str[0] == table["gnugo"].str[0]
        table[f"{ours}_margin"] = table[ours] == table["gnugo"]
    return table


def play_and_score(out: Path, tasks: list[Task], workers: int | None) -> pd.DataFrame:
    """Play (or finish) ``tasks`` in ``out`` and score their final positions three ways."""
    records = play_games(ENGINES, out, GAME, tasks, opening_plies=2, workers=workers)
    ids = {t.game_id for t in tasks}
    return score_games([r for r in records if r.game_id in ids])


def agreement(table: pd.DataFrame) -> dict[str, int]:
    """How many games each count agrees with GNU Go's on, by winner and by margin."""
    return {column: int(table[column].sum()) for column in
            ("plain_winner", "plain_margin", "dead_stones_winner", "dead_stones_margin")} | {"games": len(table)}


#: the two sets of games: ours against GNU Go, and GNU Go against itself
SETS = ("ours against GNU Go", "GNU Go against itself")


def agreement_lines(tables: list[pd.DataFrame]) -> list[str]:
    """The summary's table: for each set of games, how many each count agrees with GNU Go's on."""
    lines = ["| games | finished | our plain count: same winner | same margin | with dead stones: same winner "
             "| same margin |", "|---|---:|---:|---:|---:|---:|"]
    for table in tables:
        a = agreement(table)
        lines.append(f"| {table['set'].iloc[0] if len(table) else ''} | {a['games']} | {a['plain_winner']} | "
                     f"{a['plain_margin']} | **{a['dead_stones_winner']}** | **{a['dead_stones_margin']}** |")
    return lines


def facts(out: Path) -> dict[str, Any]:
    """The check's headline facts (:mod:`dlgo.storage.facts`) from ``scores.csv``: ``dead_stones``,
    each set's agreement with GNU Go's count (:func:`agreement`) and the summary's table of them."""
    scores = pd.read_csv(out / "scores.csv")
    tables = [scores[scores["set"] == label] for label in SETS]  # a set with no finished game too
    return {"dead_stones": {"sets": dict(zip(SETS, map(agreement, tables))), "table": agreement_lines(tables)}}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    parser = chapters.parser(__file__, __doc__, name="dead-stones")
    parser.add_argument("--engine", default="mcts:rounds=100,plain=true",
                        help="our engine (default mcts:rounds=100,plain=true: the readable UCT, which never resigns)")
    parser.add_argument("--games", type=count("games"), default=50, help="games in each set (default 50)")
    parser.add_argument("--workers", type=count("processes"), default=None,
                        help="worker processes (default: all cores)")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.engine = 4, "mcts:rounds=20,plain=true"
    chapters.check_engines([args.engine], GAME)
    chapters.take_folders(args)
    out = Path(args.out)
    sets = dict(zip(SETS, (schedule([args.engine, gnugo(1)], args.games, args.seed),
                           schedule([gnugo(0), gnugo(1)], args.games, args.seed))))
    tables = [play_and_score(out, tasks, args.workers).assign(set=label) for label, tasks in sets.items()]
    scores = pd.concat(tables, ignore_index=True)
    with atomic_write(out / "scores.csv", newline="") as handle:
        scores.to_csv(handle, index=False)
    lines = ["# Counting finished 9x9 games as GNU Go does", "",
             f"Reproduce: `python experiments/crosschecks/dead_stones.py{' --quick' if args.quick else ''} --engine "
             f"{args.engine} --games {args.games} --seed {args.seed}`", "",
             "GNU Go 3.8 plays without `--capture-all-dead` (it passes with dead stones on the board). Each final "
             "position is scored by GNU Go's `final_score` (Chinese rules), by our plain area count and by our count "
             "with the dead stones removed (ownership from 200 random playouts to the end). Games ended by "
             "resignation are left out.", "", *agreement_lines(tables)]
    lines += ["", f"Our engine: `{args.engine}`; GNU Go at level 1 (and level 0 against level 1). Every score "
              "is in `scores.csv`, every game in `games.csv`.", ""]
    with atomic_write(out / "summary.md") as handle:
        handle.write("\n".join(lines))
    update_facts(out, facts(out))
    for table in tables:
        print(table["set"].iloc[0] if len(table) else "", agreement(table))
    print(f"report: {out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
