"""Our engines against GNU Go on 9x9: ratings on GNU Go's scale, and the handicap they need.

    python experiments/crosschecks/vs_gnugo.py              # about an hour on 2 cores; resumable
    python experiments/crosschecks/vs_gnugo.py --quick      # seconds: tiny settings
    python experiments/crosschecks/vs_gnugo.py --engines mcts:seconds=5 --levels 0 10 --games 10

Needs GNU Go (Debian package ``gnugo``; `make test` installs it). Three parts,
all 9x9 with area scoring, situational superko and random opening plies:

1. **The yardstick.** GNU Go's levels play each other (komi 7.5). Their ratings
   are fitted from these games alone, with ``gnugo:level=10`` at 1800 as the
   Computer Go Server (CGOS) pinned GNU Go on its 9x9 ladder, and then held
   fixed: adding engines never moves them.
2. **Even games.** Each of our engines plays each GNU Go level, colours
   alternating, komi 7.5; its rating is fitted against the fixed levels.
3. **Handicap.** Each engine takes black with 2..9 handicap stones (komi 0.5)
   against the weakest level: how many stones make the game even? (An engine
   that already scores half its even games against that level needs none, and
   plays no handicap games.)

Writes to ``--out``: ``games.csv`` (every game), ``ratings.csv``,
``crosstable.csv``, ``strength_vs_compute.png``, ``crosstable.png``,
``handicap.csv``, ``handicap.png``, the SGF of every game in ``sgf/`` and
``summary.md``. Rerunning the command resumes: finished games are not replayed.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from dlgo.core.arguments import count, whole
from dlgo.formats.records import GameRecord
from dlgo.arena.ratings import GameResult, fit_ratings
from dlgo.arena.report import interval_text, write_report
from dlgo.arena.tournament import play_games, schedule
from dlgo.games.go.handicap import max_fixed_handicap
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.display.plotting import new_figure, save_figure
from dlgo.gtp.client import GNUGO, GNUGO_MAX_LEVEL
from engines.registry import ENGINES
from experiments.shared import chapters, ladders

EVEN = "go:size=9,komi=7.5"
#: random; MCTS before and after the Go engine (the readable UCT, plain=true, and the compiled
#: engine) at the same 0.5 and 2 s a move; chapter 13's policy alone, and AlphaGo at 2 s a move
#: before and after (the book's PUCT search, plain=true, and the compiled search it guides)
ENGINES_DEFAULT = ["random", "mcts:seconds=0.5,plain=true", "mcts:seconds=2,plain=true", "mcts:seconds=0.5",
                   "mcts:seconds=2", "predictor:model=go9-policy", ladders.BOOK_ALPHAGO, ladders.SHIPPED_ALPHAGO]
ANCHOR, ANCHOR_ELO = "gnugo:level=10", 1800.0  # GNU Go's rating on CGOS's 9x9 ladder


def handicap_game(stones: int) -> str:
    return f"go:size=9,komi=0.5,handicap={stones}"


def anchor_ratings(records: list[GameRecord], levels: list[str]) -> dict[str, float]:
    """GNU Go's levels rated from their games against each other only."""
    results = [GameResult(r.black, r.white, r.score_for(r.black)) for r in records
               if r.game == EVEN and r.black in levels and r.white in levels]
    if not results:
        return {ANCHOR: ANCHOR_ELO}
    return {r.name: r.elo for r in fit_ratings(results, anchor=ANCHOR, anchor_elo=ANCHOR_ELO, bootstrap=0)}


def handicap_table(records: list[GameRecord], ours: list[str], stones: list[int]) -> pd.DataFrame:
    """Score of each engine (black, taking the stones) at each handicap."""
    rows = []
    for engine in ours:
        for n in stones:
            games = [r for r in records if r.game == handicap_game(n) and r.black == engine]
            if games:
                rows.append({"engine": engine, "handicap": n, "games": len(games),
                             "score": sum(r.score_for(engine) for r in games) / len(games)})
    return pd.DataFrame(rows, columns=["engine", "handicap", "games", "score"])


def plot_handicap(table: pd.DataFrame, path: Path, opponent: str) -> None:
    fig, ax = new_figure((6.5, 4.2))
    for engine, rows in table.groupby("engine", sort=False):
        ax.plot(rows["handicap"], rows["score"], marker="o", label=engine)
    ax.axhline(0.5, color="grey", linestyle=":", label="even game")
    ax.set(xlabel="handicap stones (komi 0.5)", ylabel="score", ylim=(-0.05, 1.05),
           title=f"Taking black with handicap against {opponent}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    save_figure(fig, path)


def facts(out: Path) -> dict[str, Any]:
    """The check's own headline facts (:mod:`dlgo.storage.facts`; the ratings and games are the
    tournament's): ``handicap``, each engine's score and games with each handicap, from ``handicap.csv``."""
    table = pd.read_csv(out / "handicap.csv")
    return {"handicap": [{"engine": row.engine, "handicap": int(row.handicap), "score": float(row.score),
                          "games": int(row.games)} for row in table.itertuples()]}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if not os.access(GNUGO, os.X_OK):
        print(f"vs_gnugo: GNU Go is not installed at {GNUGO}; install it with `apt-get install gnugo` "
              "(make test does where it can)", file=sys.stderr)
        return 2
    args.levels = sorted(set(args.levels) | {10})  # level 10 carries the scale
    levels = [f"gnugo:level={n}" for n in args.levels]
    chapters.check_engines([*args.engines, *levels], EVEN)
    chapters.take_folders(args)
    out = Path(args.out)
    workers = args.workers or os.cpu_count() or 1
    records = play_the_yardstick_and_even_games(args, levels, out, workers)
    needing = engines_needing_stones(records, args.engines, levels[0])
    records = play_handicap_games(args, needing, levels[0], out, workers, records)
    fixed = anchor_ratings(records, levels)
    even = [r for r in records if r.game == EVEN and (r.black in args.engines + levels)
            and (r.white in args.engines + levels)]
    table = handicap_table(records, args.engines, args.handicaps)
    with atomic_write(out / "handicap.csv", newline="") as handle:
        table.to_csv(handle, index=False, float_format="%.4g")
    intro = introduction(args) + handicap_section(table, needing, levels[0], args.handicap_games, out)
    rows = write_report(out, even, title="Our engines against GNU Go (9x9)", fixed=fixed, intro="\n".join(intro))
    update_facts(out, facts(out))
    print(f"{'engine':<28} {'Elo':>7}  95% interval   score")
    for row in rows:
        held = "  (held)" if row.engine in fixed else ""
        print(f"{row.engine:<28} {row.elo:7.0f}  {interval_text(row, '{low:5.0f}..{high:<5.0f}'):<12}  "
              f"{row.score:6.1%}{held}")
    print(f"\nreport: {out}/summary.md")
    return 0


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line (``--quick``: tiny settings)."""
    parser = chapters.parser(__file__, __doc__, name="vs-gnugo")
    parser.add_argument("--engines", nargs="+", default=ENGINES_DEFAULT,
                        help=f"our engines (default {' '.join(ENGINES_DEFAULT)}; the last two are chapter 13's "
                             "shipped networks)")
    parser.add_argument("--levels", type=whole(0, GNUGO_MAX_LEVEL), nargs="+", default=[0, 5, 10],
                        help="GNU Go levels, the yardstick; level 10 always joins as the anchor (default 0 5 10)")
    parser.add_argument("--anchor-games", type=count("games", 0), default=10,
                        help="games per pair of GNU Go levels (default 10)")
    parser.add_argument("--games", type=count("games", 0), default=4,
                        help="even games per engine and level (default 4)")
    parser.add_argument("--handicaps", type=whole(2, max_fixed_handicap(9)), nargs="*", default=[3, 5, 7, 9],
                        help="handicap stones to try (default 3 5 7 9; none to skip)")
    parser.add_argument("--handicap-games", type=count("games", 0), default=4,
                        help="games per engine and handicap (default 4)")
    parser.add_argument("--workers", type=count("processes"), default=None,
                        help="worker processes (default: all cores)")
    args = parser.parse_args(argv)
    if args.quick:
        args.engines, args.levels, args.anchor_games, args.games = ["random", "mcts:rounds=20"], [0], 1, 2
        args.handicaps, args.handicap_games = [9], 1
    return args


def play_the_yardstick_and_even_games(args: argparse.Namespace, levels: list[str], out: Path, workers: int
                                      ) -> list[GameRecord]:
    """Parts 1 and 2: GNU Go's levels against each other, then each of our engines
    against each level (the weakest alone with --quick: level 10 thinks longest).
    Returns every game in ``out`` so far."""
    plies = 2  # random opening plies: GNU Go and the MCTS engines would replay a few games otherwise
    play_games(ENGINES, out, EVEN, schedule(levels, args.anchor_games, args.seed), opening_plies=plies,
               workers=workers)
    opponents = levels[:1] if args.quick else levels
    return play_games(ENGINES, out, EVEN, ladders.pairings(args.engines, opponents, args.games, args.seed),
                      opening_plies=plies, workers=workers)


def engines_needing_stones(records: list[GameRecord], engines: list[str], weakest: str) -> list[str]:
    """Our engines that score less than half their even games against the weakest level."""
    games = [r for r in records if r.game == EVEN and weakest in (r.black, r.white)]
    return [e for e in engines
            if not chapters.score_against(games, e, weakest)[0] >= 0.5]  # NaN (no games) needs them too


def play_handicap_games(args: argparse.Namespace, needing: list[str], weakest: str, out: Path, workers: int,
                        records: list[GameRecord]) -> list[GameRecord]:
    """Part 3: each engine that ``needing`` names takes black and each handicap
    against the weakest level. Returns every game in ``out`` (``records``, the
    games so far, if no handicap is tried)."""
    for stones in args.handicaps:
        records = play_games(ENGINES, out, handicap_game(stones),
                             ladders.pairings(needing, [weakest], args.handicap_games, args.seed, f"H{stones}"),
                             opening_plies=0, workers=workers)
    return records


def introduction(args: argparse.Namespace) -> list[str]:
    """The summary's opening: the reproducing command and how the ratings are fixed."""
    return [f"Reproduce: `python {chapters.script_path(__file__)}{' --quick' if args.quick else ''} --engines "
            f"{' '.join(args.engines)} --levels {' '.join(map(str, args.levels))} --games {args.games} "
            f"--anchor-games {args.anchor_games}`", "",
            f"GNU Go 3.8 ({GNUGO}) plays as `gnugo:level=N`: area scoring, situational superko, all dead stones "
            "captured before it passes. The levels' ratings come from their own games against each other "
            f"({args.anchor_games} per pair), with `{ANCHOR}` at {ANCHOR_ELO:.0f} as on CGOS's 9x9 ladder, "
            "and are held fixed while our engines are rated against them. An engine that never scored "
            "has only an upper bound: its rating is what the prior's one virtual draw per pair allows."]


def handicap_section(table: pd.DataFrame, needing: list[str], weakest: str, games: int, out: Path) -> list[str]:
    """The handicap table and ``handicap.png`` (nothing if no handicap games were played)."""
    if table.empty:
        return []
    pivot = table.pivot(index="engine", columns="handicap", values="score").reindex(needing)
    lines = ["", f"## Handicap against `{weakest}`", "",
             "Our engine takes black and the stones (komi 0.5); score per handicap "
             f"({games} games each; an engine that scores half its even games against "
             f"`{weakest}` needs none and is left out):", "",
             "| engine | " + " | ".join(f"{n} stones" for n in pivot.columns) + " |",
             "|---|" + "---:|" * len(pivot.columns)]
    lines += [f"| `{engine}` | " + " | ".join("" if v != v else f"{v:.0%}" for v in row) + " |"
              for engine, row in pivot.iterrows()]
    lines += ["", "![handicap](handicap.png)", "", "## Even games (komi 7.5)"]
    plot_handicap(table, out / "handicap.png", weakest)
    return lines


if __name__ == "__main__":
    sys.exit(main())
