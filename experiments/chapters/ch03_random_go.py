"""Chapter 3: Go with random players. What does a game of pure chance look like?

    python experiments/chapters/ch03_random_go.py                   # 1,000 games on 9x9, under a minute
    python experiments/chapters/ch03_random_go.py --size 5 --komi 0
    python experiments/chapters/ch03_random_go.py --quick           # seconds

Two random engines (a uniformly random legal move that never fills the
mover's own eye, passing when nothing else is left) play --games games of Go
under area scoring. Writes ``games.csv`` (every game, resumable) and ``sgf/``,
``results.png`` (histograms of game length and of the final margin),
``game.png`` and ``game.gif`` (the first game, its final position and the
whole game) and ``summary.md`` to --out.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from dlgo.arena.match import Task
from dlgo.arena.tournament import play_games, task_seed
from dlgo.core.arguments import count, whole
from dlgo.core.zobrist import MAX_BOARD_SIZE
from dlgo.display.plotting import count_histogram, new_figure, save_figure
from dlgo.formats.records import GameRecord, read_games
from dlgo.storage.facts import update_facts
from dlgo.games import new_game
from engines.registry import ENGINES
from experiments.shared import chapters


def margin(record: GameRecord) -> float | None:
    """Black's points minus White's (komi included) from ``B+3.5``/``W+2.5``; None if not a count."""
    side, _, amount = record.result.partition("+")
    try:
        return float(amount) * (1 if side == "B" else -1)
    except ValueError:
        return None


def playout_speed(game: str, seed: int, playouts: int) -> tuple[int, float]:
    """(playouts, seconds): random games to the end from the empty board, as MCTS plays them
    (after one untimed playout: the compiled kernels load once per process, not in the rate)."""
    rng, state = random.Random(seed), new_game(game)
    state.random_playout(random.Random(seed + 1))
    start = time.perf_counter()
    for _ in range(playouts):
        state.random_playout(rng)
    return playouts, time.perf_counter() - start


def plot_results(records: list[GameRecord], path: Path, title: str) -> None:
    """Game lengths and final margins as two histograms."""
    fig, (left, right) = new_figure((10, 3.8), 1, 2)
    count_histogram(left, [r.plies for r in records], bins=30, color="tab:blue")
    left.set(xlabel="moves in the game (passes included)", ylabel="games", title="game length")
    margins = [m for r in records if (m := margin(r)) is not None]
    count_histogram(right, margins, bins=30, color="tab:green")
    right.axvline(0, color="black", lw=1)
    right.set(xlabel="Black's area minus White's, komi included", title="final margin (> 0: Black wins)")
    fig.suptitle(title)
    save_figure(fig, path)


def facts(out: Path) -> dict[str, Any]:
    """The run's headline facts (:mod:`dlgo.storage.facts`) from its ``games.csv``: ``random_games``
    (games, moves per game: mean, fewest, most; the komi, the board's points, the games one colour
    won with the whole board, White's share of the wins)."""
    records = read_games(out / "games.csv")
    settings = dict(item.split("=") for item in records[0].game.split(":", 1)[1].split(","))
    komi, points = float(settings["komi"]), int(settings["size"]) ** 2
    margins = [m for r in records if (m := margin(r)) is not None]
    plies = [r.plies for r in records]
    return {"random_games": {"games": len(records), "plies": [statistics.mean(plies), min(plies), max(plies)],
                             "komi": komi, "points": points,
                             "wipe_outs": sum(m in (points - komi, -points - komi) for m in margins),
                             "white_wins": sum(r.winner == "white" for r in records) / len(records)}}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    p = chapters.parser(__file__, __doc__)
    p.add_argument("--size", type=whole(2, MAX_BOARD_SIZE), default=9, help="board size (default 9)")
    p.add_argument("--komi", type=float, default=7.5, help="White's compensation for moving second (default 7.5)")
    p.add_argument("--games", type=count("games"), default=1000, help="games to play (default 1000)")
    p.add_argument("--workers", type=count("processes"), default=1,
                   help="worker processes (default 1: the games are fast)")
    args = p.parse_args(argv)
    games = 20 if args.quick else args.games
    game = f"go:size={args.size},komi={args.komi:g}"
    new_game(game)  # the board checked before the folders are taken
    chapters.take_folders(args)
    out = Path(args.out)

    tasks = [Task(f"random vs random #{i}", "random", "random", task_seed(args.seed, f"random vs random #{i}"))
             for i in range(games)]
    records = [r for r in play_games(ENGINES, out, game, tasks, workers=args.workers) if r.game == game][:games]
    black_wins = sum(r.winner == "black" for r in records)
    playouts, playout_seconds = playout_speed(game, args.seed, 10 if args.quick else 200)
    margins = [m for r in records if (m := margin(r)) is not None]
    title = f"random vs random, {args.size}x{args.size} Go, komi {args.komi:g}: {len(records)} games"
    plot_results(records, out / "results.png", title)
    body = [f"{len(records)} games of `random` against itself on {args.size}x{args.size}, komi {args.komi:g}, "
            "area scoring (every game in `games.csv` and `sgf/`).", "",
            "| measure | value |", "|---|---:|",
            f"| Black wins | {black_wins} ({black_wins / len(records):.1%}) |",
            f"| White wins | {len(records) - black_wins} ({1 - black_wins / len(records):.1%}) |",
            f"| moves per game: mean (shortest, longest) | {statistics.mean(r.plies for r in records):.1f} "
            f"({min(r.plies for r in records)}, {max(r.plies for r in records)}) |",
            f"| median margin for Black, komi included | {statistics.median(margins):+.1f} |",
            f"| random playouts from the empty board per second (one core) | {playouts / playout_seconds:,.0f} |",
            "",
            "![game lengths and margins](results.png)", "",
            "The first game's final position:", "",
            *chapters.draw_game(records[0], out, "game", f"random vs random: {records[0].result}")]
    points = args.size * args.size
    wipe_outs = sum(m in (points - args.komi, -points - args.komi) for m in margins)
    look_for = f"""\
Random players do not know what a group, a territory or a capture is, yet every
game ends: the random engine never fills its own eye, so groups with two eyes
live, and when only eye-filling moves are left it passes. Look at the margins:
a wide hump around 0, and two spikes at the edges, {points - args.komi:g} and
{-points - args.komi:g}, where one colour owns the whole board because every
stone of the other died. That happened in {wipe_outs} of {len(records)} games
({wipe_outs / len(records):.0%}). They are the long games too, the second hump of
the lengths: the dead stones are captured and the emptied space filled again.
Black's share of the wins is the komi talking: with {args.komi:g} points for
White, Black wins {black_wins / len(records):.0%}. Try `--komi 0`, then a
smaller board (`--size 5`): who wins more, and why? The playouts-per-second
figure is the budget that Monte Carlo tree search (chapter 4) spends on rollouts."""
    summary = chapters.write_summary(out, "Chapter 3: random players on the Go board",
                                     chapters.command(__file__, argv), body, look_for)
    update_facts(out, facts(out))
    print(f"Black wins {black_wins}/{len(records)}; report: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
