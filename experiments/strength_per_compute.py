"""Which engine is stronger, and at what compute? A round-robin of engine ladders.

    python experiments/strength_per_compute.py                       # Connect Four, a few minutes
    python experiments/strength_per_compute.py --game tictactoe --depth-max 9
    python experiments/strength_per_compute.py --mcts-max 10000 --games-per-pair 20 --out reports/c4-big

Ladders: MCTS at 10, 32, 100, 316, ... rounds (x sqrt(10) steps up to
--mcts-max), alpha-beta at depth 1..--depth-max (no node cap), the shipped
AlphaZero network of the game (checkpoints/<game>.keras, for tic-tac-toe and
Connect Four) at --alphazero-simulations (0 = its raw policy), a supervised
move predictor if --predictor names one, and the random engine as the Elo
anchor (0). Every pair plays --games-per-pair games with
colours alternating and a few seeded random opening plies. Writes games.csv,
ratings.csv, crosstable.csv, strength_vs_compute.png, crosstable.png and
summary.md to --out. Rerunning the same command resumes: finished games are
never replayed.
"""
from __future__ import annotations

import argparse
import math
import sys

from dlgo.arena.report import write_report
from dlgo.arena.tournament import run_tournament
from engines.checkpoints import shipped_network
from engines.registry import ENGINES


def mcts_ladder(maximum: int, start: int = 10) -> list[int]:
    """10, 32, 100, 316, 1000, ... (x sqrt(10) per step) up to ``maximum``."""
    rounds, k = [], 0
    while (r := round(start * math.sqrt(10) ** k)) <= maximum:
        rounds.append(r)
        k += 1
    return rounds


def ladder_specs(mcts_max: int, depth_max: int) -> list[str]:
    return (["random"] + [f"mcts:rounds={r}" for r in mcts_ladder(mcts_max)]
            + [f"alphabeta:depth={d},nodes=0" for d in range(1, depth_max + 1)])


def alphazero_specs(game: str, simulations: list[int]) -> list[str]:
    """The shipped AlphaZero network of ``game`` at each simulation count (none
    if the suite ships no network for exactly this game)."""
    if not simulations or shipped_network(game) is None:
        return []
    return [f"alphazero:checkpoint={game},simulations={n}" for n in simulations]


def add_options(parser: argparse.ArgumentParser, mcts_max: int = 3200, depth_max: int = 5,
                seed_and_out: bool = True) -> None:
    """The tournament's options (shared with the chapter script, whose parser has --seed and --out)."""
    parser.add_argument("--game", default="connect4", help="game spec (default connect4)")
    parser.add_argument("--mcts-max", type=int, default=mcts_max,
                        help=f"largest MCTS rounds on the ladder (default {mcts_max})")
    parser.add_argument("--depth-max", type=int, default=depth_max,
                        help=f"deepest alpha-beta on the ladder (default {depth_max})")
    parser.add_argument("--alphazero-simulations", type=int, nargs="*", default=[0, 50],
                        help="the shipped AlphaZero network at these simulations per move (default 0 50; "
                             "none: leave it out)")
    parser.add_argument("--predictor", default=None,
                        help="a supervised move predictor (.keras) to add to the round-robin")
    parser.add_argument("--games-per-pair", type=int, default=10, help="games per pair (default 10)")
    parser.add_argument("--opening-plies", type=int, default=2, help="random opening plies (default 2)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    if seed_and_out:
        parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
        parser.add_argument("--out", default="reports/strength-per-compute", help="report folder")


def run(args: argparse.Namespace, intro: str = "", outro: str = "") -> list:
    """Play (or finish) the round-robin and write its report; returns the rating rows."""
    specs = ladder_specs(args.mcts_max, args.depth_max) + alphazero_specs(args.game, args.alphazero_simulations)
    if args.predictor:
        specs.append(f"predictor:model={args.predictor}")
    print(f"{len(specs)} engines, {len(specs) * (len(specs) - 1) // 2 * args.games_per_pair} games: "
          + ", ".join(specs), flush=True)
    records = run_tournament(ENGINES, args.out, args.game, specs, args.games_per_pair, seed=args.seed,
                             opening_plies=args.opening_plies, workers=args.workers)
    rows = write_report(args.out, records, title=f"Strength against compute: {args.game}", intro=intro, outro=outro)
    for r in rows:
        print(f"{r.engine:<28} Elo {r.elo:6.0f} [{r.elo_low:5.0f}, {r.elo_high:5.0f}]  {r.seconds_per_move:.4f} s/move")
    print(f"\nreport: {args.out}/summary.md")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    add_options(parser)
    run(parser.parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
