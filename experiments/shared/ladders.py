"""Engine ladders and the course's rating scale (chapters 4 and 15, the calibration
and the cross-checks): MCTS and alpha-beta at growing budgets, the shipped
AlphaZero networks, one round-robin, and reports that hold the calibrated
engines at their ratings so that an engine rates the same in every report.
Imports :mod:`experiments.shared.chapters` alone of :mod:`experiments.shared`.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any, Callable, Sequence

import pandas as pd

from dlgo.arena.mistakes import MistakeRate, measure_mistakes, write_mistakes_report
from dlgo.arena.ratings import describe_scale
from dlgo.arena.report import EngineRow, interval_text, is_pinned, write_report
from dlgo.arena.scales import REPORTS, course_anchors, course_scale
from dlgo.data.solved import shipped_sets
from dlgo.formats.positions import first_of_each_set, read_positions
from dlgo.arena.match import Task
from dlgo.arena.tournament import run_tournament, task_seed
from dlgo.core.arguments import count
from dlgo.core.errors import RecordError
from dlgo.formats.records import GameRecord
from engines.checkpoints import shipped_network
from engines.registry import ENGINES
from experiments.shared import chapters

#: chapter 13's shipped 9x9 AlphaGo networks at 2 s a move, guiding the compiled Go search
SHIPPED_ALPHAGO = "alphago:checkpoint=go9,simulations=100000,seconds=2"
#: the same networks in the book's readable PUCT search, as chapter 13's match played GNU Go level 10
#: (reports/ch13_alphago)
BOOK_ALPHAGO = f"{SHIPPED_ALPHAGO},plain=true"


def write_rated_report(out: str | Path, records: Sequence[GameRecord], game: str, title: str, intro: str = "",
                       outro: str | Callable[[list[EngineRow]], str] = "", subjects: Sequence[str] = (),
                       mistakes: Sequence[MistakeRate] = ()) -> list[EngineRow]:
    """:func:`~dlgo.arena.report.write_report` on the course's scale: the engines of
    ``game``'s calibration ladder that played here, except the report's
    ``subjects`` (the engines it measures), are held at their calibrated ratings,
    so that an engine rates the same in every report (within its interval); the
    summary names them. Without a calibration, random = 0. ``mistakes``: the
    engines' mistake rates on the solved positions, shown beside their Elo."""
    held, anchoring = course_anchors(game, {r.black for r in records} | {r.white for r in records}, subjects)
    if not held:
        return write_report(out, records, title=title, intro=intro, outro=outro, **mistake_columns(mistakes))
    return write_report(out, records, title=title, fixed=held, intro=intro, outro=outro, anchoring=anchoring,
                        **mistake_columns(mistakes))


def critical_mistakes(out: str | Path) -> dict[str, float]:
    """Each engine's mistake rate in the critical solved positions of a report
    folder's ``mistake_rates.csv`` (empty where it has none)."""
    path = Path(out) / "mistake_rates.csv"
    if not path.exists():
        return {}
    table = pd.read_csv(path)
    return dict(zip(table[table.group == "all"].engine, table[table.group == "all"].critical_rate))


def mistake_columns(mistakes: Sequence[MistakeRate]) -> dict[str, Any]:
    """:func:`~dlgo.arena.report.write_report`'s ``columns`` and ``notes`` that put mistake rates beside Elo."""
    if not mistakes:
        return {}
    return {"columns": {"mistakes (critical)": {r.engine: f"{r.critical_rate:.1%}" for r in mistakes},
                        "mistakes 95% interval": {r.engine: f"{r.critical_low:.0%}-{r.critical_high:.0%}"
                                                  for r in mistakes}},
            "notes": {r.engine: f"{r.critical_rate:.1%} mistakes" for r in mistakes},
            "notes_meaning": "(n% mistakes): in n% of the critical solved positions, the engine's move changed the "
                             "game-theoretic result"}


def connect4_sets() -> Path:
    """The suite's solved Connect Four position sets (a :class:`RecordError` if they are missing)."""
    path = shipped_sets("connect4")
    if path is None:
        raise RecordError("the Connect Four position sets are missing: dlgo positions --ship makes them")
    return path


def measure_mistakes_of(args: argparse.Namespace, specs: Sequence[str], kind: str = "tournament"
                        ) -> tuple[list[MistakeRate], str]:
    """Every engine of ``specs`` on the first ``--mistake-positions`` of each of
    the game's solved sets (none where the suite ships none, or with 0), into the
    report folder: the rates over all sets and the Markdown that shows them."""
    path = shipped_sets(args.game)
    if path is None or not args.mistake_positions:
        return [], ""
    positions = first_of_each_set(read_positions(path), args.mistake_positions)
    verdicts = measure_mistakes(ENGINES, specs, positions, args.out, seed=args.seed, workers=args.workers,
                                kind=kind)
    rows = write_mistakes_report(args.out, verdicts, f"Distance from perfect play: {args.game}")
    critical = sum(p.critical for p in positions)
    text = (f"**Mistakes beside Elo.** Every engine also played one move in each of {len(positions)} solved "
            f"positions (the first {args.mistake_positions} of each of the suite's six sets, "
            f"`{path.relative_to(REPORTS.parent) if path.is_relative_to(REPORTS.parent) else path}`; {critical} "
            f"critical, where some move changes the game-theoretic "
            "result); *mistakes (critical)* is how often its move changed the result there (95% Wilson "
            "interval; all positions and per set in `mistake_rates.csv`). The second plot puts that against "
            "seconds a move.\n\n![mistakes against compute](mistakes_vs_compute.png)")
    return rows, text


def scale_words(rows: Sequence[EngineRow], game: str) -> str:
    """How a report's Elo is fixed, for its own text: the course's scale, or the
    pool's anchor (random = 0, or the mean where random did not play)."""
    scale = course_scale(game)
    held = [r.engine for r in rows if scale and r.engine in scale.ratings and is_pinned(r)]
    if held == ["random"]:
        return (f"Elo is on the course's {game} scale, anchored at random = 0 (the engines measured here are not "
                "held)")
    if not held:
        return "Elo is " + describe_scale([r.engine for r in rows])
    assert scale is not None  # held engines are on it
    return (f"Elo is on the course's {game} scale: {', '.join(f'`{e}`' for e in held)} are held at their ratings in "
            f"`{scale.where}`, the others fitted around them")


def mcts_ladder(maximum: int, start: int = 10) -> list[int]:
    """10, 32, 100, 316, 1000, ... (x sqrt(10) per step) up to ``maximum``."""
    rounds, k = [], 0
    while (r := round(start * math.sqrt(10) ** k)) <= maximum:
        rounds.append(r)
        k += 1
    return rounds


def ladder_specs(mcts_max: int, depth_max: int, game: str) -> list[str]:
    """Random, the course's MCTS up to ``mcts_max`` rounds and alpha-beta to
    ``depth_max`` plies (no node cap), on ``game``."""
    return (["random"] + [chapters.course_spec(f"mcts:rounds={r}", game) for r in mcts_ladder(mcts_max)]
            + [f"alphabeta:depth={d},nodes=0" for d in range(1, depth_max + 1)])


def pairings(ours: Sequence[str], theirs: Sequence[str], games: int, seed: int, label: str = "") -> list[Task]:
    """Each of ``ours`` against each of ``theirs``, ``games`` times, colours
    alternating (or ours always black when ``label`` names a handicap)."""
    tasks = []
    for engine in ours:
        for opponent in theirs:
            for k in range(games):
                black, white = (engine, opponent) if label or k % 2 == 0 else (opponent, engine)
                game_id = f"{engine} vs {opponent}{' ' + label if label else ''} #{k}"
                tasks.append(Task(game_id, black, white, task_seed(seed, game_id)))
    return tasks


def pairings_in_rounds(ours: Sequence[str], theirs: Sequence[str], games: int, seed: int) -> list[Task]:
    """:func:`pairings` a round at a time: every pairing's k-th game before any pairing's next, so a
    run stopped part-way has games in every row (the same games, by the same ids, in another order)."""
    each = [pairings([engine], [opponent], games, seed) for engine in ours for opponent in theirs]
    return [task for one_round in zip(*each) for task in one_round]


def alphazero_specs(game: str, simulations: list[int]) -> list[str]:
    """The shipped AlphaZero network of ``game`` at each simulation count (none
    if the suite ships no network for exactly this game)."""
    if not simulations or shipped_network(game) is None:
        return []
    return [f"alphazero:checkpoint={game},simulations={n}" for n in simulations]


def add_ladder_options(parser: argparse.ArgumentParser, mcts_max: int = 3200, depth_max: int = 5) -> None:
    """The ladder tournament's options (beside the shared ones of :func:`~experiments.shared.chapters.parser`)."""
    parser.add_argument("--game", default="connect4", help="game spec (default connect4)")
    parser.add_argument("--mcts-max", type=count("simulations"), default=mcts_max,
                        help=f"largest MCTS rounds on the ladder (default {mcts_max})")
    parser.add_argument("--depth-max", type=count("plies"), default=depth_max,
                        help=f"deepest alpha-beta on the ladder (default {depth_max})")
    parser.add_argument("--alphazero-simulations", type=count("simulations", 0), nargs="*", default=[0, 50],
                        help="the shipped AlphaZero network at these simulations per move (default 0 50; "
                             "none: leave it out)")
    parser.add_argument("--predictor", default=None,
                        help="a supervised move predictor (.keras) to add to the round-robin")
    parser.add_argument("--engines", nargs="*", default=[],
                        help="more engine specs to add to the round-robin (e.g. pg:model=PATH)")
    parser.add_argument("--games-per-pair", type=count("games"), default=10, help="games per pair (default 10)")
    parser.add_argument("--opening-plies", type=count("plies", 0), default=2, help="random opening plies (default 2)")
    parser.add_argument("--workers", type=count("processes"), default=None,
                        help="worker processes (default: all cores)")
    parser.add_argument("--mistake-positions", type=count("positions", 0), default=50,
                        help="solved positions per set each engine is measured on, beside its Elo (default 50 of "
                             "each of the six sets; 0: none; games the suite has no solved sets of: none)")


def run_ladder(args: argparse.Namespace, intro: str = "", outro: str | Callable[[list[EngineRow]], str] = "",
               on_scale: bool = False, title: str = "Strength against compute") -> list[EngineRow]:
    """Play (or finish) the ladder round-robin and write its report; returns the
    rating rows. ``on_scale``: the ladder's engines are held on the course's
    scale and the rest (networks, ``--engines``) measured against them;
    otherwise every engine is measured, random = 0."""
    specs = ladder_specs(args.mcts_max, args.depth_max, args.game) + alphazero_specs(args.game,
                                                                                     args.alphazero_simulations)
    if args.predictor:
        specs.append(f"predictor:model={args.predictor}")
    specs += [spec for spec in args.engines if spec not in specs]
    chapters.check_engines(specs, args.game)
    chapters.take_folders(args)
    print(f"{len(specs)} engines, {len(specs) * (len(specs) - 1) // 2 * args.games_per_pair} games: "
          + ", ".join(specs), flush=True)
    records = run_tournament(ENGINES, args.out, args.game, specs, args.games_per_pair, seed=args.seed,
                             opening_plies=args.opening_plies, workers=args.workers)
    subjects = [] if on_scale else specs
    mistakes, shown = measure_mistakes_of(args, specs)

    def closing(rows: list[EngineRow]) -> str:  # the mistakes' plot and words after the table, then the outro
        return "\n\n".join(t for t in (shown, outro(rows) if callable(outro) else outro) if t)

    rows = write_rated_report(args.out, records, args.game, f"{title}: {args.game}", intro, closing,
                              subjects=subjects, mistakes=mistakes)
    rates = {r.engine: r for r in mistakes}
    for r in rows:
        mistake = f"  {rates[r.engine].critical_rate:6.1%} mistakes" if r.engine in rates else ""
        print(f"{r.engine:<28} Elo {r.elo:6.0f} {interval_text(r, '[{low:5.0f}, {high:5.0f}]')}  "
              f"{r.seconds_per_move:.4f} s/move{mistake}")
    print(f"\nreport: {args.out}/summary.md")
    return rows
