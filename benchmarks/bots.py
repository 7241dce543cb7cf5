"""A bot of your own: what playing it from a file, in a process of its own, costs a move.

    python benchmarks/bots.py               # 200 games a row
    python benchmarks/bots.py --games 1000  # steadier figures

A bot named by a file (``alice.py``) plays in a process of its own
(:mod:`engines.bots`, :mod:`dlgo.arena.bot_host`): each move is a round trip over
two pipes, the moves so far sent as text, the bot's move checked on both sides.
To see that boundary alone, the file here is the suite's own ``random`` engine
(a subclass of :class:`engines.randombot.RandomAgent`, nothing changed, so it plays
the very same moves) and each game is played twice with the same seeds, by
:func:`dlgo.arena.match.play_matches` one game at a time in this process: the
built-in ``random`` against itself, then the file's ``random`` (black in even
games, white in odd ones) against the built-in. ``same moves`` counts the games
the two runs played move for move alike; ``process boundary`` is the file's mean
seconds a move less the built-in's over those same moves (each a move's wall time,
as the arena's records keep it). The process's start-up (spawning it, importing the
file, loading the bot's class) is paid once, before every game, and left out of
every figure, as the suite's compute figures leave one-off start-up out; building
the bot for each game is in its games per second.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import tempfile
import time
from pathlib import Path

from dlgo.arena.match import Task, play_matches
from dlgo.core.arguments import count
from dlgo.formats.records import GameRecord
from engines.registry import ENGINES, create
from markdown import DEFAULT_FOLDER, Table

#: the issue's target: what the process boundary may cost a move, in milliseconds
TARGETS = {"connect4": 1.0}

#: (label, game spec)
CASES = [("connect4", "connect4"), ("tictactoe", "tictactoe"), ("go 9x9", "go:size=9")]

#: the bot file: the built-in random engine's own class, played from a file
BOT = '''"""The suite's random engine, played from a file (benchmarks/bots.py)."""
from engines.randombot import RandomAgent


class FileRandom(RandomAgent):
    """Uniform over legal moves: engines.randombot.RandomAgent, unchanged."""
'''


def play(game: str, tasks: list[Task]) -> tuple[list[GameRecord], float]:
    """The records of ``tasks``' games, played one at a time, and the seconds they took."""
    started = time.perf_counter()
    records = play_matches(ENGINES, game, tasks, parallel=1)
    seconds = time.perf_counter() - started
    for record in records:
        if record.note:
            raise SystemExit(f"bots: game {record.game_id} of {game} ended by a fault: {record.note}")
    return records, seconds


def seat_seconds(records: list[GameRecord]) -> tuple[float, int]:
    """(wall seconds, moves) of the seat the file's bot has in :func:`tasks_of`'s games:
    black in even games, white in odd ones (black moves first)."""
    seconds, moves = 0.0, 0
    for record in records:
        if int(record.game_id) % 2 == 0:
            played, mean = (record.plies + 1) // 2, record.black_seconds
        else:
            played, mean = record.plies // 2, record.white_seconds
        seconds, moves = seconds + mean * played, moves + played
    return seconds, moves


def tasks_of(games: int, seed: int, bot: str, built_in: str = "random") -> list[Task]:
    """``games`` games, ``bot`` black in even ones and white in odd ones, against ``built_in``."""
    return [Task(str(i), *((bot, built_in) if i % 2 == 0 else (built_in, bot)), seed + i) for i in range(games)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=count("games"), default=200, help="games a row (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=f"{DEFAULT_FOLDER}/bots.md", help="where the table is saved")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dlgo-bench-") as folder:
        path = Path(folder) / "random_bot.py"
        path.write_text(BOT)
        bot = str(path)
        started = time.perf_counter()  # the one-off start-up: spawn, import the file, load the class
        agent = create(bot)
        agent.start()
        startup = time.perf_counter() - started
        agent.close()  # its process waits, idle, for the first game
        table = Table(["game", "engines", "games", "games/s", "moves/game", "ms a move", "process boundary ms a move",
                       "same moves", "target"], [False, False, True, True, True, True, True, False, False],
                      f"one game at a time, {args.games} games a row")
        for label, game in CASES:
            for spec in ("random", bot):  # untimed: the game's kernels, and the bot built once for it
                play(game, tasks_of(2, args.seed, spec))
            built_in, built_in_wall = play(game, tasks_of(args.games, args.seed, "random"))
            from_file, from_file_wall = play(game, tasks_of(args.games, args.seed, bot))
            same = sum(a.moves == b.moves for a, b in zip(built_in, from_file))
            if same < args.games:  # then the two runs timed different moves: no boundary to read off
                raise SystemExit(f"bots: on {label} the file's random played {args.games - same} of "
                                 f"{args.games} games unlike the built-in's")
            plies = sum(r.plies for r in built_in) / args.games
            seconds, moves = seat_seconds(built_in)  # the built-in, on the seat the file has below
            built_in_ms = 1000 * seconds / moves
            seconds, moves = seat_seconds(from_file)
            from_file_ms = 1000 * seconds / moves
            boundary = from_file_ms - built_in_ms
            target = TARGETS.get(label)
            verdict = "" if target is None else f"≤ {target:g} ms {'met' if boundary <= target else 'MISSED'}"
            table.row(label, "`random` vs `random`", f"{args.games:,}", f"{args.games / built_in_wall:,.0f}",
                      f"{plies:.0f}", f"{built_in_ms:.3f}", "", "", "")
            table.row(label, "`random` from a file vs `random`", f"{args.games:,}",
                      f"{args.games / from_file_wall:,.0f}", f"{plies:.0f}", f"{from_file_ms:.3f}", f"{boundary:.3f}",
                      f"{same:,} of {args.games:,}", verdict)
    table.lines += ["", f"The bot's process started (spawned, imported the file, loaded its class) in "
                    f"{startup:.2f} s, once: left out of every figure above."]
    print(table.lines[-1])
    table.save(args.out)


if __name__ == "__main__":
    main()
