"""Chapter 4, part 2: Monte Carlo tree search. How much does each round buy?

    python experiments/chapters/ch04b_mcts.py                        # Connect Four, a few minutes
    python experiments/chapters/ch04b_mcts.py --c 0.5                # less exploration: better or worse?
    python experiments/chapters/ch04b_mcts.py --game tictactoe --rounds-max 316
    python experiments/chapters/ch04b_mcts.py --quick

Rollout MCTS with UCT (``mcts:rounds=N``) at 10, 32, 100, 316, 1000 rounds per
move (x sqrt(10) steps up to --rounds-max) plays a round-robin with the random
engine, which anchors the Elo scale at 0: every pair plays --games-per-pair
games, colours alternating, after a few seeded random opening plies. Writes the
tournament (``tournament/``: games, ratings, cross-table, strength against
compute), ``visits.png`` (where the strongest MCTS spends its rounds in one
position) and ``summary.md`` to --out. Rerunning resumes the tournament.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys
import textwrap
from pathlib import Path

from dlgo.arena.report import EngineRow, interval_text
from dlgo.arena.tournament import run_tournament
from dlgo.core.arguments import count
from dlgo.display.pictures import render_position
from dlgo.formats.records import GameRecord, replay
from engines.registry import ENGINES, create_seeded
from experiments.shared import chapters, ladders


def visit_picture(record: GameRecord, spec: str, ply: int, seed: int, path: Path) -> str:
    """Run ``spec`` (an MCTS) on the position after ``ply`` moves of ``record`` and draw
    the share of its rounds that went to each move; returns the move it chose."""
    states = replay(record.game, record.moves)
    state = states[min(ply, len(states) - 2)]
    agent = create_seeded(spec, seed)
    move, _, report = agent.decide(state)
    visits = report.visits
    assert visits is not None
    render_position(state, path, visits / max(1, visits.sum()), heat_label="share of rounds",
                    title=f"{spec}: where the rounds went (it plays {state.format_move(move)})")
    return state.format_move(move)


def what_to_look_for(ladder: list[str], by_engine: dict[str, EngineRow], records: list[GameRecord]) -> str:
    """The closing paragraph, its figures from this run."""
    first, _ = chapters.score_against(records, ladder[0], "random")
    steps = [by_engine[b].elo - by_engine[a].elo for a, b in zip(ladder, ladder[1:])]
    gains = ", ".join(f"{g:+.0f}" for g in steps)
    rising = all(g > 0 for g in steps)
    text = (f"Even `{ladder[0]}` scores {first:.0%} against random: a few random playouts already tell a winning "
            "move from a losing one. ")
    if steps:
        text += (f"Each step up the ladder (about three times the rounds) adds {gains} Elo here, while the cost per "
                 "move grows in proportion to the rounds"
                 + (", so strength rises with the logarithm of compute: the pattern every search engine in this "
                    "suite follows. " if rising else
                    ". With this few games a pair a step can come out flat or negative: look at the intervals "
                    "before reading anything into one step. "))
    text += ("In the visit picture the rounds pile onto a few moves: UCT spends on what looks good, and the "
             "exploration constant c decides how much it still spends on the rest. Predict, then measure: with "
             "`--c 0.5` the search trusts its first impressions more; with `--c 3` it spreads its rounds wider. "
             "Which is stronger at 100 rounds?")
    return "\n".join(textwrap.wrap(text, 78, break_on_hyphens=False))


@chapters.script
def main(argv: list[str] | None = None) -> int:
    p = chapters.parser(__file__, __doc__)
    p.add_argument("--game", default="connect4", help="game spec (default connect4)")
    p.add_argument("--rounds-max", type=count("simulations"), default=1000,
                   help="most MCTS rounds on the ladder (default 1000)")
    p.add_argument("--c", type=float, default=1.4, help="UCT exploration constant (default 1.4)")
    p.add_argument("--games-per-pair", type=count("games"), default=10, help="games per pair (default 10)")
    p.add_argument("--opening-plies", type=count("plies", 0), default=2, help="random opening plies (default 2)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    args = p.parse_args(argv)
    if args.quick:
        args.rounds_max, args.games_per_pair, args.workers = 32, 2, 1
    out = Path(args.out)
    suffix = "" if args.c == 1.4 else f",c={args.c:g}"
    ladder = [chapters.course_spec(f"mcts:rounds={r}{suffix}", args.game) for r in ladders.mcts_ladder(args.rounds_max)]
    chapters.take_folders(args)

    records = run_tournament(ENGINES, out / "tournament", args.game, ["random", *ladder], args.games_per_pair,
                             seed=args.seed, opening_plies=args.opening_plies, workers=args.workers)
    rows = ladders.write_rated_report(out / "tournament", records, args.game,
                                      f"{args.game}: MCTS at several budgets and random", subjects=ladder)
    by_engine = {r.engine: r for r in rows}
    body = [f"`random` and rollout MCTS (UCT, c = {args.c:g}) at {len(ladder)} budgets on {args.game}, "
            f"{args.games_per_pair} games per pair, colours alternating after {args.opening_plies} random "
            f"opening plies. {ladders.scale_words(rows, args.game)}; the brackets are a 95% bootstrap interval.",
            "",
            "| engine | score against random | Elo | 95% interval | seconds per move |",
            "|---|---:|---:|---|---:|"]
    for spec in ladder:
        row, (score, games) = by_engine[spec], chapters.score_against(records, spec, "random")
        body.append(f"| `{spec}` | {score:.0%} of {games} | {row.elo:+.0f} | "
                    f"{interval_text(row, '[{low:+.0f}, {high:+.0f}]')} | {row.seconds_per_move:.4f} |")
    top = ladder[-1]
    game_of_top = next(r for r in records if top in (r.black, r.white) and r.plies > 8)
    chosen = visit_picture(game_of_top, top, 6, args.seed, out / "visits.png")
    body += ["", "![strength against compute](tournament/strength_vs_compute.png)", "",
             "The whole tournament (every game, the cross-table): [tournament/summary.md](tournament/summary.md).", "",
             f"Where `{top}` spends its rounds, six moves into one of its games (it plays {chosen}):", "",
             "![visit counts](visits.png)"]
    look_for = what_to_look_for(ladder, by_engine, records)
    summary = chapters.write_summary(out, f"Chapter 4, part 2: Monte Carlo tree search on {args.game}",
                                     chapters.command(__file__, argv), body, look_for)
    print(f"report: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
