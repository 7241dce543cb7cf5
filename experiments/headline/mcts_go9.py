"""MCTS as Go programs play it, against GNU Go: the match, each feature alone and together, 13x13 handicap.

    python experiments/headline/mcts_go9.py --out reports/mcts-go9   # hours on 2 cores; resumable
    python experiments/headline/mcts_go9.py --quick               # a minute: tiny settings
    python experiments/headline/mcts_go9.py --parts match         # any of: match ablation handicap
    python experiments/headline/mcts_go9.py --parts               # the summary of the games played

Needs GNU Go (Debian package ``gnugo``; `make test` installs it). Every game
has area scoring, situational superko, two random opening plies and colours
alternating; ``gnugo:level=10`` is GNU Go's strongest level, 1800 on CGOS's 9x9
ladder. One core a game (``--workers`` games at once).

1. **The match** (9x9, komi 7.5): ``mcts:seconds=2``, the compiled engine with
   every feature, and chapter 13's ``alphago:checkpoint=go9`` at 2 s a move
   (the same engine guided by the networks) against GNU Go level 10,
   ``--games`` and ``--alphago-games`` each, and ``--value-games`` of
   ``alphago`` with its value network mixed in (``lam=0.5``); the book's
   ``alphago`` search (``plain=true``, PUCT, its rollouts now compiled) and the
   readable UCT (``plain=true``) at the same 2 s for what they were.
2. **The ablation** (9x9, ``--ablation-seconds`` a move): the full engine
   and the engine without each feature against GNU Go level 10 (what each
   feature is worth in the company of the others), and the bare engine (UCT,
   ``c=1.4``, uniform playouts, nothing else) with each feature alone against
   the bare engine (what it is worth by itself).
3. **Handicap on 13x13**: ``mcts:seconds=2`` takes black and ``--stones``
   handicap stones (komi 0.5; 0 stones: black without komi, the traditional
   one-stone handicap) against GNU Go level 10: the fewest that win half.

``--quick`` plays one or two games of each part against GNU Go level 0, at
hundredths of a second a move.

Writes ``summary.md``, ``ablation.png``, ``handicap.png`` and each part's
games (``match/``, ``ablation/``, ``handicap/``: ``games.csv`` and SGF files)
to ``--out``; reruns resume. The summary reports every part that has games in
``--out``, played now or before.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import math
import os
import re
import sys
from pathlib import Path
from typing import Any, Sequence

from dlgo.core.arguments import count, whole
from dlgo.display.plotting import new_figure, save_figure
from dlgo.formats.records import GameRecord, game_facts, score_in
from dlgo.games.go.handicap import max_fixed_handicap
from dlgo.gtp.client import GNUGO
from experiments.shared import chapters, ladders
from experiments.shared.go_matches import TABLE, add_parts_option, games_of, row, score, score_bars, \
    without_parts, write_report

EVEN = "go:size=9,komi=7.5"
#: the features, and the setting that turns each off (Gelly & Silver; Coulom and Michi; the
#: rollout policy; the kept tree; Huang, Coulom & Lin)
FEATURES = {"RAVE": "rave=false", "priors": "priors=false", "heavy playouts": "rollout=random",
            "tree reuse": "reuse=false", "time management": "manage=false"}
PARTS = ("match", "ablation", "handicap")


def engine(seconds: float, *settings: str) -> str:
    """The ``mcts`` spec at ``seconds`` a move with these settings."""
    return ",".join([f"mcts:seconds={seconds:g}", *settings])


def bare(seconds: float) -> str:
    """The compiled engine with every feature off: UCT (c = 1.4) over uniform playouts."""
    return engine(seconds, "c=1.4", *FEATURES.values())


def alone(seconds: float, feature: str) -> str:
    """The bare engine with ``feature`` back on."""
    return engine(seconds, "c=1.4", *(off for name, off in FEATURES.items() if name != feature))


def match_specs(seconds: float) -> dict[str, str]:
    """The match's engines at ``seconds`` a move, by role."""
    alphago = f"alphago:checkpoint=go9,simulations=100000,seconds={seconds:g}"
    return {"engine": engine(seconds), "alphago": alphago,
            "valued": f"{alphago},lam=0.5",  # the value network mixed in as AlphaGo did
            "book": f"{alphago},plain=true",  # the same networks in the book's PUCT search
            "plain": engine(seconds, "plain=true")}  # the readable UCT


# ------------------------------------------------------------------ the parts
def match(args: argparse.Namespace, out: Path, workers: int) -> tuple[list[str], list[GameRecord]]:
    """Part 1: the compiled engine, AlphaGo and the readable UCT against GNU Go level 10."""
    seconds = args.match_seconds
    specs = match_specs(seconds)
    strong, alphago, valued, book, plain = (specs[k] for k in ("engine", "alphago", "valued", "book", "plain"))
    tasks = (ladders.pairings([strong], [args.opponent], args.games, args.seed)
             + ladders.pairings([alphago, book], [args.opponent], args.alphago_games, args.seed)
             + ladders.pairings([valued], [args.opponent], args.value_games, args.seed)
             + ladders.pairings([plain], [args.opponent], args.plain_games, args.seed))
    records = games_of(out / "match", EVEN, tasks, args, workers)
    if not records:
        return [], records
    value, games, low, high = score(records, strong, args.opponent)
    lines = ["## The match", "",
             f"9x9, komi 7.5, {seconds:g} s a move, against `{args.opponent}`. The compiled engine scores "
             f"**{value:.1%}** of {games} games (95% interval {low:.0%} to {high:.0%}).", "", TABLE,
             *(row(records, spec, args.opponent) for spec in (strong, alphago, valued, book, plain)), ""]
    return lines, records


def ablation(args: argparse.Namespace, out: Path, workers: int) -> list[str]:
    """Part 2: without each feature against GNU Go; each feature alone against the bare engine."""
    s = args.ablation_seconds
    full, base = engine(s), bare(s)
    without = {name: engine(s, off) for name, off in FEATURES.items()}
    only = {name: alone(s, name) for name in FEATURES}
    tasks = (ladders.pairings([full, *without.values()], [args.opponent], args.ablation_games, args.seed)
             + ladders.pairings([full, *only.values()], [base], args.ablation_games, args.seed))
    records = games_of(out / "ablation", EVEN, tasks, args, workers)
    if not records:
        return []
    together = ["### Together: the full engine without each feature, against GNU Go level 10", "", TABLE,
                row(records, full, args.opponent, "all five"),
                *(row(records, spec, args.opponent, f"without {name}") for name, spec in without.items())]
    by_itself = ["### Alone: the bare engine with each feature, against the bare engine", "",
                 f"The bare engine: `{base}` (UCT over uniform playouts).", "", TABLE,
                 row(records, full, base, "all five"),
                 *(row(records, spec, base, f"{name} alone") for name, spec in only.items())]
    plot_ablation(records, full, without, only, base, args.opponent, out / "ablation.png")
    return ["## Each feature alone and together", "",
            f"9x9, komi 7.5, {s:g} s a move, {args.ablation_games} games each. A feature's worth *together* is what "
            "the full engine loses without it against GNU Go; *alone*, what the bare engine gains with it, "
            "against the bare engine.", "", *together, "", *by_itself, "", "![ablation](ablation.png)", ""]


def plot_ablation(records: Sequence[GameRecord], full: str, without: dict[str, str], only: dict[str, str],
                  base: str, opponent: str, path: Path) -> None:
    fig, (left, right) = new_figure((10, 4.2), cols=2)
    for ax, entries, against, title in ((left, {"all five": full, **{f"without {k}": v for k, v in without.items()}},
                                         opponent, f"against {opponent}"),
                                        (right, {"all five": full, **{f"{k} alone": v for k, v in only.items()}},
                                         base, "against the bare engine")):
        score_bars(ax, records, entries, against, title)
    save_figure(fig, path)


def handicap(args: argparse.Namespace, out: Path, workers: int) -> list[str]:
    """Part 3: the engine takes black and the stones on 13x13 against GNU Go level 10."""
    strong = engine(args.match_seconds)
    lines = ["## Handicap on 13x13", "",
             f"`{strong}` takes black and the stones (komi 0.5) against `{args.opponent}`, {args.handicap_games} games "
             "at each handicap.", "", "| stones | games | score | 95% interval |", "|---:|---:|---:|---|"]
    points = []
    for stones in args.stones:
        game = "go:size=13,komi=0.5" + (f",handicap={stones}" if stones else "")  # 0: black without komi
        records = games_of(out / "handicap", game, ladders.pairings([strong], [args.opponent], args.handicap_games,
                                                                    args.seed, f"H{stones}"), args, workers, 0)
        played = [r for r in records if r.game == game]
        if not played:
            continue
        value, games, low, high = score(played, strong, args.opponent)
        points.append((stones, value, low, high))
        lines.append(f"| {stones} | {games} | {value:.0%} | {low:.0%} to {high:.0%} |")
    if not points:
        return []
    lines += ["", fewest_stones_sentence(points), "", "![handicap](handicap.png)", ""]
    plot_handicap(points, out / "handicap.png", strong, args.opponent)
    return lines


def fewest_stones_sentence(points: list[tuple[int, float, float, float]]) -> str:
    """The fewest handicap that won half the games, and whether fewer stones were tried and lost."""
    tried = sorted(stones for stones, _, _, _ in points)
    winning = [stones for stones, value, _, _ in points if value >= 0.5]
    if not winning:
        return f"No handicap tried ({', '.join(map(str, tried))}) won half the games."
    fewest = min(winning)
    if fewest == 0:
        return "It wins half its games with **no handicap stones** (black, komi 0.5)."
    fewer = [stones for stones in tried if stones < fewest]
    if not fewer:
        return f"The fewest stones tried that win half the games: **{fewest}** (fewer were not tried)."
    return f"The fewest stones that win half the games: **{fewest}** ({max(fewer)} did not)."


def plot_handicap(points: list[tuple[int, float, float, float]], path: Path, spec: str, opponent: str) -> None:
    fig, ax = new_figure((6, 4))
    x = [p[0] for p in points]
    ax.errorbar(x, [p[1] for p in points], yerr=[[max(0.0, p[1] - p[2]) for p in points],
                                               [max(0.0, p[3] - p[1]) for p in points]],
                marker="o", capsize=3)
    ax.axhline(0.5, color="grey", linestyle=":")
    ax.set_xticks(x)
    ax.set(xlabel="handicap stones (komi 0.5)", ylabel="score (95% interval)", ylim=(-0.05, 1.05),
           title=f"13x13: {spec} takes black against {opponent}")
    ax.grid(alpha=0.3)
    save_figure(fig, path)


def full_engine(games: dict[str, Any]) -> str | None:
    """The Go engine with every feature on (``mcts:seconds=S``) among a part's players (None: none yet)."""
    return next((spec for spec in games["seconds_per_move"] if re.fullmatch(r"mcts:seconds=[\d.]+", spec)), None)


def facts(out: Path) -> dict[str, Any]:
    """The experiment's headline facts (:mod:`dlgo.storage.facts`) from its parts' ``games.csv``:
    ``match`` (each role's spec, its score and games against GNU Go and its seconds a move; the
    opponent) and ``ablation`` (the full engine's seconds a move, the bare engine, and per
    feature the full engine without it against GNU Go and the bare engine with it alone against
    the bare engine: score and games)."""
    facts: dict[str, Any] = {}
    if (out / "match" / "games.csv").exists():
        games = game_facts(out / "match")
        strong = full_engine(games)
        if strong is None:  # the engine has played no game yet
            return facts
        roles = match_specs(float(strong.split("=")[1]))
        opponent = next(row[1] for row in games["results"] if row[0] == strong)  # --opponent, GNU Go or not
        facts["match"] = {"opponent": opponent, "roles": {
            role: {"spec": spec, "against": list(score_in(games, spec, opponent)),
                   "seconds_per_move": games["seconds_per_move"].get(spec, math.nan)} for role, spec in roles.items()}}
    if (out / "ablation" / "games.csv").exists() and "match" in facts:
        games = game_facts(out / "ablation")
        opponent = facts["match"]["opponent"]
        full = full_engine(games)
        if full is None:
            return facts
        seconds = float(full.split("=")[1])
        base = bare(seconds)
        rows = [("all five", full, full)] + [(name, engine(seconds, off), alone(seconds, name))
                                             for name, off in FEATURES.items()]
        facts["ablation"] = {"seconds": seconds, "bare": base, "features": [
            {"feature": name, "without": list(score_in(games, without, opponent)),
             "alone": list(score_in(games, by_itself, base))} for name, without, by_itself in rows]}
    return facts


# -------------------------------------------------------------------- main
@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if not os.access(GNUGO, os.X_OK):
        print(f"mcts_go9: GNU Go is not installed at {GNUGO}; install it with `apt-get install gnugo`",
              file=sys.stderr)
        return 2
    chapters.check_engines([args.opponent], EVEN)
    chapters.take_folders(args)
    out = Path(args.out)
    workers = args.workers or os.cpu_count() or 1
    lines = ["# MCTS as Go programs play it, against GNU Go", "",
             f"Reproduce: `{chapters.command(__file__, without_parts(argv))}`", ""]
    lines += match(args, out, workers)[0]  # each part plays if asked to, and is reported if it has games
    lines += ablation(args, out, workers)
    lines += handicap(args, out, workers)
    write_report(out, lines, facts(out))
    return 0


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line (``--quick``: tiny settings)."""
    p = chapters.parser(__file__, __doc__, name="mcts-go9")
    add_parts_option(p, PARTS)
    p.add_argument("--opponent", default="gnugo:level=10", help="the yardstick (default gnugo:level=10)")
    p.add_argument("--match-seconds", type=float, default=2.0, help="seconds a move in the match (default 2)")
    p.add_argument("--games", type=count("games", 0), default=40,
                   help="games of the compiled engine in the match (default 40)")
    p.add_argument("--alphago-games", type=count("games", 0), default=40,
                   help="games of alphago, and of the book's alphago (plain=true), in the match (default 40)")
    p.add_argument("--value-games", type=count("games", 0), default=20,
                   help="games of alphago with its value network mixed in, lam=0.5 (default 20)")
    p.add_argument("--plain-games", type=count("games", 0), default=10, help="games of the readable UCT (default 10)")
    p.add_argument("--ablation-seconds", type=float, default=1.0, help="seconds a move in the ablation (default 1)")
    p.add_argument("--ablation-games", type=count("games", 0), default=20,
                   help="games per engine in the ablation (default 20)")
    p.add_argument("--stones", type=whole(0, max_fixed_handicap(13)), nargs="+", default=[0, 2, 4],
                   help="13x13 handicaps to try (default 0 2 4; 0: black without komi, one stone's handicap)")
    p.add_argument("--handicap-games", type=count("games", 0), default=6, help="games at each handicap (default 6)")
    p.add_argument("--workers", type=count("processes"), default=None, help="games at once (default: all cores)")
    args = p.parse_args(argv)
    if args.quick:
        args.opponent, args.match_seconds, args.games, args.alphago_games, args.value_games = \
            "gnugo:level=0", 0.05, 2, 0, 0
        args.plain_games = 1
        args.ablation_seconds, args.ablation_games, args.stones, args.handicap_games = 0.02, 1, [9], 1
    return args


if __name__ == "__main__":
    sys.exit(main())
