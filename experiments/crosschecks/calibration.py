"""The course's rating scale: a long round-robin of fixed engines whose ratings every report then holds.

    python experiments/crosschecks/calibration.py --out reports/calibration-connect4  # the committed scale, < 1 hour
    python experiments/crosschecks/calibration.py --quick

Ratings from two tournaments are not comparable on their own: each is fitted to
its own games, so an engine's Elo moves with the company it keeps (MCTS with
1,000 rounds rated +1,040 in one chapter's report and 821 in another's). This
script plays the course's ladder (random, MCTS from 10 to 3,162 rounds,
alpha-beta at depth 1 to 5, and the 300-round MCTS that chapter 8 plays) against
itself, many games per pair, and rates it with random = 0. Every chapter's
tournament then holds the ladder's engines that play in it at these ratings and
fits only the others (``experiments.shared.ladders.write_rated_report``), so an
engine rates the same in every report, within its interval, and each summary
names the engines it holds.
On Connect Four every engine of the ladder also plays one move in each of the
suite's solved positions (``--mistake-positions`` of each of the six sets,
default all 170), and the report shows its mistakes there beside its Elo
(``mistake_rates.csv``, ``mistakes_vs_compute.png``): the scale's distance from
perfect play.
Writes the tournament's report (``ratings.csv`` is the scale) to --out.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys

from dlgo.arena.report import interval_text, write_report
from dlgo.arena.tournament import run_tournament
from engines.registry import ENGINES
from dlgo.core.arguments import count
from experiments.shared import chapters, ladders

#: engines that chapters play besides the ladder (chapter 8's teacher)
EXTRA = ["mcts:rounds=300"]


def members(mcts_max: int, depth_max: int, game: str) -> list[str]:
    """The calibration ladder on ``game``."""
    return ladders.ladder_specs(mcts_max, depth_max, game) + [chapters.course_spec(s, game) for s in EXTRA
                                                               if int(s.split("=")[1]) <= mcts_max]


@chapters.script
def main(argv: list[str] | None = None) -> int:
    p = chapters.parser(__file__, __doc__)
    p.add_argument("--game", default="connect4", help="the game (default connect4)")
    p.add_argument("--mcts-max", type=count("simulations"), default=3200,
                   help="largest MCTS rounds on the ladder (default 3200)")
    p.add_argument("--depth-max", type=count("plies"), default=5, help="deepest alpha-beta on the ladder (default 5)")
    p.add_argument("--games-per-pair", type=count("games"), default=30, help="games per pair (default 30)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    p.add_argument("--mistake-positions", type=count("positions", 0), default=170,
                   help="solved positions per set each engine is measured on (default 170: all; 0: none)")
    args = p.parse_args(argv)
    if args.quick:
        args.mcts_max, args.depth_max, args.games_per_pair, args.workers = 32, 1, 2, 1
        args.mistake_positions = min(args.mistake_positions, 2)
    specs = members(args.mcts_max, args.depth_max, args.game)
    chapters.check_engines(specs, args.game)
    chapters.take_folders(args)
    print(f"{len(specs)} engines, {len(specs) * (len(specs) - 1) // 2 * args.games_per_pair} games", flush=True)
    records = run_tournament(ENGINES, args.out, args.game, specs, args.games_per_pair, seed=args.seed,
                             opening_plies=2, workers=args.workers)
    mistakes, shown = ladders.measure_mistakes_of(args, specs)
    intro = (f"Reproduce: `{chapters.command(__file__, argv)}`\n\nThe course's {args.game} scale: every chapter's "
             "tournament holds the engines below that play in it at these ratings.")
    rows = write_report(args.out, records, title=f"The course's rating scale: {args.game}", intro=intro,
                        outro=shown, **ladders.mistake_columns(mistakes))
    rates = {r.engine: r for r in mistakes}
    for row in rows:
        mistake = f"  {rates[row.engine].critical_rate:6.1%} mistakes" if row.engine in rates else ""
        print(f"{row.engine:<28} Elo {row.elo:6.0f} {interval_text(row, '[{low:5.0f}, {high:5.0f}]')}{mistake}")
    print(f"\nreport: {args.out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
