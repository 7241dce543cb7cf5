"""``dlgo league``: a class's bots (a folder of files) against each other and the
suite's reference engines, rated on the course's scale, with a leaderboard."""
from __future__ import annotations

import argparse
import math
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import engines
from dlgo.app.cli.shared import add_bot_limit_options, bot_limits, engine_factory
from dlgo.arena.match import random_positions
from dlgo.arena.roster import find_bots
from dlgo.arena.scales import course_anchors, course_scale
from dlgo.core.arguments import count
from dlgo.core.errors import DlgoError
from dlgo.data.solved import bitboard_solver, board_name, shipped_sets
from dlgo.formats.positions import SolvedPosition, load_sets
from dlgo.formats.records import faults_text
from dlgo.games import get_game
from dlgo.storage.folders import check_folder

if TYPE_CHECKING:
    from dlgo.arena.leaderboard import BoardRow

#: the references where the course has a rating scale for the game: its ladder's engines, from
#: random (0) through MCTS to alpha-beta, so that a bot's Elo reads on the course's scale
LADDER_REFERENCES = ("random", "mcts:rounds=32", "mcts:rounds=316", "alphabeta:depth=4,nodes=0")
#: the references elsewhere, those that can play the game (GNU Go plays Go only; alpha-beta
#: stands in for it on the other boards)
REFERENCES = ("random", "mcts:rounds=100", "gnugo:level=1", "alphabeta:depth=4,nodes=0")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("league", help="a class's bot files against each other and reference engines; resumable; "
                                      "a leaderboard (Markdown and one HTML page)")
    p.add_argument("--game", default="connect4", help="game spec (default connect4)")
    p.add_argument("--bots", required=True, metavar="FOLDER",
                   help="the folder of bot files: each *.py not starting with _ is a bot, named by its file")
    p.add_argument("--out", required=True, help="the league's folder, e.g. league/ (rerun to resume, or after a "
                                                "bot changed: only its games are played again)")
    p.add_argument("--references", nargs="*", default=None, metavar="SPEC",
                   help="reference engines every bot meets (default: the course's ladder where the game has a "
                        "rating scale, else random, MCTS and GNU Go or alpha-beta; the option alone: none)")
    p.add_argument("--games-per-pair", type=count("games"), default=10,
                   help="games per pair, colours alternating (default 10)")
    p.add_argument("--positions", type=count("positions", 0), default=60,
                   help="solved positions each bot is judged on, where the game has them (default 60; 0: none)")
    p.add_argument("--seed", type=int, default=0, help="league seed (default 0)")
    p.add_argument("--opening-plies", type=count("plies", 0), default=2,
                   help="random opening plies per game (default 2)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    add_bot_limit_options(p)
    p.set_defaults(func=cmd_league)


def default_references(game: str) -> list[str]:
    """The references of a league of ``game``: the course's ladder where it has a scale
    for the game, else those of :data:`REFERENCES` that can play it (asked, not assumed)."""
    if course_scale(game) is not None:
        return list(LADDER_REFERENCES)
    state = get_game(game).initial_state()
    references: list[str] = []
    for spec in REFERENCES:
        try:
            engines.check_engine(spec, state)
        except DlgoError:
            continue  # GNU Go on Connect Four, or not installed
        if spec.startswith("alphabeta") and any(r.startswith("gnugo") for r in references):
            continue  # a depth-4 search is too slow for Go's boards, and GNU Go is the better reference there
        references.append(spec)
    return references


def league_positions(game: str, count: int, seed: int) -> list[SolvedPosition]:
    """``count`` solved positions of ``game``: the suite's shipped sets (Connect Four, evenly
    from each), or seeded random positions solved here for a game the suite can solve
    (tic-tac-toe, small Connect-N); none for a game it cannot (Go)."""
    if count == 0:
        return []
    spec = get_game(game).spec
    if shipped_sets(spec) is not None:
        solver = bitboard_solver(spec)
        return load_sets(None, board_name(solver), per_set=math.ceil(count / 6))[:count]
    exact = get_game(game).solver()
    if exact is None:
        return []
    cells = get_game(game).num_rows * get_game(game).num_cols
    positions: list[SolvedPosition] = []
    for state in random_positions(game, count, seed):
        scores = exact.move_scores(state)
        stones = state.num_moves_played
        positions.append(SolvedPosition("random", len(positions), spec, state.moves_text(), stones,
                                        max(scores.values()), cells - stones, scores))
    return positions


def cmd_league(args: argparse.Namespace) -> int:
    from dlgo.arena.league import run_league  # pandas, matplotlib

    game = get_game(args.game)
    bots = find_bots(args.bots)
    references = default_references(args.game) if args.references is None else list(args.references)
    start = game.initial_state()
    for spec in references:
        engines.check_engine(spec, start)  # each reference plays this game, before anything is played
    limits = bot_limits(args)
    facts = {"move_seconds": limits.move_seconds, "memory_mb": limits.memory_mb,
             "startup_seconds": limits.startup_seconds}
    check_folder(args.out, "league", None, game=game.spec, **facts)
    fixed, anchoring = course_anchors(args.game, references)
    positions = league_positions(args.game, args.positions, args.seed)
    about = (f"Bots play in processes of their own: {limits.move_seconds:g} s a move, {limits.memory_mb:,} MB, "
             f"{limits.startup_seconds:g} s to start; {args.games_per_pair} games a pair, "
             f"{args.opening_plies} random opening plies."
             + (f" Mistakes: the share of {len(positions)} solved positions where the bot's move changes the "
                "result." if positions else ""))
    records, rows = run_league(engine_factory(args), args.out, args.game, bots, references, args.games_per_pair,
                               seed=args.seed, opening_plies=args.opening_plies, workers=args.workers,
                               positions=positions, fixed=fixed, anchoring=anchoring,
                               title=f"{game.name} league: {len(bots)} bots", about=about,
                               reproduce=command_of(args), limits=facts)
    print_board(rows)
    print(f"\nleaderboard: {Path(args.out) / 'leaderboard.md'} and leaderboard.html ({len(records)} games in "
          "games.csv)")
    return 0


def command_of(args: argparse.Namespace) -> str:
    """The ``dlgo league`` command that plays this league again, its settings spelt out."""
    given = [] if args.references is None else ["--references", *map(shlex.quote, args.references)]
    return " ".join(["dlgo league", f"--game {shlex.quote(args.game)}", f"--bots {shlex.quote(args.bots)}",
                     f"--out {shlex.quote(args.out)}", *given,
                     f"--games-per-pair {args.games_per_pair}", f"--positions {args.positions}", f"--seed {args.seed}",
                     f"--opening-plies {args.opening_plies}", f"--move-seconds {args.move_seconds:g}",
                     f"--bot-memory {args.bot_memory}", f"--bot-startup {args.bot_startup:g}"])


def print_board(rows: Sequence[BoardRow]) -> None:
    """The leaderboard in the console."""
    from dlgo.arena.report import interval_text  # pandas, matplotlib

    print(f"\n{'#':>3} {'bot':<20} {'Elo':>6}  {'95% interval':>15} {'games':>6} {'score':>6} {'s/move':>8}  faults")
    for row in rows:
        r = row.rating
        if r is None:
            print(f"{'-':>3} {row.bot.name:<20} {'finished no game':>31}  {'':>15} faults: {faults_text(row.faults)}")
            continue
        print(f"{row.rank:>3} {row.bot.name:<20} {r.elo:6.0f}  {interval_text(r, '{low:6.0f} to {high:5.0f}'):>15} "
              f"{r.games:6d} {r.score:6.1%} {r.seconds_per_move:8.4f}  {faults_text(row.faults) or '-'}")
