"""``dlgo tournament``, ``dlgo ratings`` and ``dlgo replay``: engines against
each other, their ratings from the recorded games, and a recorded game move by move.
The report (pandas, matplotlib) is imported by the commands that write one."""
from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Collection, Iterator, Sequence

import engines
from dlgo.app.cli.shared import add_bot_limit_options, add_ray_option, bot_limits, engine_factory, load_record
from dlgo.app.console import describe_result
from dlgo.arena.scales import require_course_anchors
from dlgo.arena.tournament import run_tournament
from dlgo.core.arguments import count, number
from dlgo.core.errors import DlgoError
from dlgo.formats.records import one_game, recorded_games
from dlgo.games import get_game
from dlgo.storage.folders import MANIFEST, OWNER, hold_folder, read_manifest

if TYPE_CHECKING:
    from dlgo.arena.report import EngineRow


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tournament", help="round-robin between engines; resumable; writes a report")
    p.add_argument("--game", default="connect4", help="game spec (default connect4)")
    p.add_argument("--engines", nargs="+", required=True, help="engine specs, e.g. random mcts:rounds=100")
    p.add_argument("--games-per-pair", type=count("games"), default=10,
                   help="games per pair, colours alternating (default 10)")
    p.add_argument("--out", required=True, help="report folder, e.g. reports/c4-demo (rerun to resume)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--opening-plies", type=count("plies", 0), default=2,
                   help="random opening plies per game (default 2)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    add_scale_option(p)
    add_ray_option(p, "the games")
    add_bot_limit_options(p)
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("ratings", help="recompute ratings and the report from a folder's games.csv")
    p.add_argument("report", help="report folder holding games.csv")
    p.add_argument("--out", default=None,
                   help="write the report here (a new folder) and leave REPORT as it is (default: REPORT itself, "
                        "if it is a dlgo tournament's folder)")
    p.add_argument("--anchor", default=None, help="engine pinned at Elo 0 (default random, if it played)")
    p.add_argument("--game", default=None,
                   help="rate only this game's games (for a folder that holds several, from before folders kept one)")
    add_scale_option(p)
    p.set_defaults(func=cmd_ratings)

    p = sub.add_parser("replay", help="show a recorded game move by move")
    p.add_argument("report", help="report folder (or its games.csv), or an .sgf file")
    p.add_argument("--index", type=count("games", 0), default=0, help="which game (see --list; default 0)")
    p.add_argument("--list", action="store_true", help="list the recorded games")
    p.add_argument("--delay", type=number(least=0), default=0.0, help="seconds to pause after each move")
    p.set_defaults(func=cmd_replay)


def add_scale_option(parser: argparse.ArgumentParser) -> None:
    """``--scale pool|course``: what fixes the ratings' scale."""
    parser.add_argument("--scale", choices=("pool", "course"), default="pool",
                        help="pool: random = 0 (or --anchor) among these engines (default); course: the course's "
                             "scale, its calibration ladder's engines that play here held at their ratings "
                             "(reports/calibration-<game>), so the figures compare with the course's")


def scale_facts(args: argparse.Namespace, game: str, players: Collection[str]) -> dict[str, Any]:
    """``write_report``'s arguments that fix the scale ``args.scale`` names: the
    engines held on the course's scale and the words for it (a :class:`DlgoError`
    where the course has no scale for ``game`` or none of its ladder plays)."""
    if args.scale != "course":
        return {}
    held, words = require_course_anchors(game, players)
    return {"fixed": held, "anchoring": words}


def cmd_tournament(args: argparse.Namespace) -> int:
    from dlgo.arena.report import write_report  # pandas, matplotlib

    engines.check_distinct(args.engines, bot_limits(args))  # "random" and "random:seed=" would be rated as two
    scale = scale_facts(args, args.game, args.engines)  # before any game is played
    records = run_tournament(engine_factory(args), args.out, args.game, args.engines, args.games_per_pair,
                             seed=args.seed, opening_plies=args.opening_plies, workers=args.workers, ray=args.ray)
    rows = write_report(args.out, records, title=f"{args.game} round-robin", **scale)
    print_ratings(rows)
    print(f"\nreport: {args.out}/summary.md (games.csv, ratings.csv, crosstable.csv, strength_vs_compute.png)")
    return 0


def cmd_ratings(args: argparse.Namespace) -> int:
    from dlgo.arena.report import write_report  # pandas, matplotlib

    path = Path(args.report) / "games.csv"
    records = recorded_games(path)
    if args.game is not None:
        wanted = get_game(args.game).spec
        records = [r for r in records if get_game(r.game).spec == wanted]
        if not records:
            raise DlgoError(f"no games of {args.game} in {path}")
    one_game(records, str(path), "rate one with --game SPEC")
    played = sorted({r.black for r in records} | {r.white for r in records})
    if args.anchor is not None and args.anchor not in played:
        raise DlgoError(f"--anchor {args.anchor!r} played no game here; the engines are: {', '.join(played)}")
    if args.anchor is not None and args.scale == "course":
        raise DlgoError("--anchor and --scale course both fix the scale: give one")
    scale = scale_facts(args, records[0].game, played)  # the game as the tournament named it
    with ratings_folder(Path(args.report), args.out) as out:
        print_ratings(write_report(out, records, title=Path(args.report).name, anchor=args.anchor or "random",
                                   **scale))
    if args.out is not None:
        print(f"\nreport: {args.out}/summary.md")
    return 0


@contextlib.contextmanager
def ratings_folder(source: Path, out: str | None) -> Iterator[Path]:
    """Where ``dlgo ratings`` writes, held while it writes: ``out`` (a folder of
    its own, for the games of ``source`` alone), or else ``source`` itself, and
    only if it is a plain ``dlgo tournament``'s folder: an experiment script's
    folder keeps the report its script wrote, and a folder that no tournament
    wrote keeps its files (a :class:`DlgoError` before anything is written)."""
    if out is not None:
        with hold_folder(out, "ratings", games=str((source / "games.csv").resolve())):
            yield Path(out)
        return
    manifest = read_manifest(source)
    if manifest.get("kind") != "tournament" or OWNER in manifest:
        what = (f"a run of {manifest[OWNER]}, whose report that script writes" if OWNER in manifest else
                f"a {manifest['kind']} run" if "kind" in manifest else
                f"games that no dlgo tournament wrote there (it has no {MANIFEST})")
        raise DlgoError(f"{source} holds {what}; nothing written: write the ratings elsewhere with --out DIR")
    with hold_folder(source, "tournament"):
        yield source


def print_ratings(rows: Sequence[EngineRow]) -> None:
    from dlgo.arena.report import interval_text

    print(f"\n{'engine':<32} {'Elo':>6}  {'95% interval':>15} {'games':>6} {'score':>6} {'s/move':>8}")
    for r in rows:
        print(f"{r.engine:<32} {r.elo:6.0f}  {interval_text(r, '{low:6.0f} to {high:5.0f}'):>15} {r.games:6d} "
              f"{r.score:6.1%} {r.seconds_per_move:8.4f}")


def cmd_replay(args: argparse.Namespace) -> int:
    path = Path(args.report)
    if args.list:
        for i, r in enumerate(recorded_games(path)):
            first, second = get_game(r.game).side_names
            print(f"{i:4d}  {r.game_id:<48} {r.black} ({first}) vs {r.white} ({second})  {r.result}")
        return 0
    game = load_record(path, args.index)
    print(game.title)
    print(game.states[0].render())
    for ply, state in enumerate(game.states[1:], start=1):
        previous = game.states[ply - 1]
        assert state.last_move is not None
        opening = "  (random opening)" if ply <= game.opening_plies else ""
        side = previous.game.side_name(previous.next_player)
        print(f"\nmove {ply}: {side} {previous.format_move(state.last_move)}{opening}")
        print(state.render())
        if args.delay:
            time.sleep(args.delay)
    final = game.states[-1]
    print(f"\nresult: {describe_result(final) if final.is_over() else 'unfinished'}"
          + (f" (recorded: {game.result})" if game.result else ""))
    return 0
