"""19x19 Go, the book's board, against GNU Go: a teacher's games, learned knowledge, and the search that uses it.

    python experiments/headline/go19.py --out reports/go19        # a day of 2 cores in all; resumable part by part
    python experiments/headline/go19.py --parts teacher patterns  # any of: teacher patterns rollout network
                                                                  #         ablation match
    python experiments/headline/go19.py --parts                   # only the summary of what is done
    python experiments/headline/go19.py --quick                   # minutes: tiny settings

Needs GNU Go (Debian package ``gnugo``; ``make test`` installs it). Every game is
19x19, area scoring, komi 7.5, situational superko. No game records can be
downloaded here, so the teacher is GNU Go itself (a user's own SGF collection,
the book's KGS route, comes in through ``dlgo import-sgf`` and ``--teacher-games``).

1. **teacher**: GNU Go (``--teacher``) plays itself ``--games`` times after four
   random plies, ``--workers`` games at once (``--ray`` on a cluster). Its games,
   move lists of about half a kilobyte each, go to ``teacher-games.csv.gz`` in
   ``--out`` after every hundred, and a run elsewhere (another session, a lent
   machine) starts from them: ``--out`` holds what the run cannot make again in
   minutes.
2. **patterns**: Coulom's Bradley-Terry ratings of move features ("Computing Elo
   Ratings of Move Patterns", 2007; ``dlgo train-patterns``) fitted to the
   teacher's moves.
3. **rollout**: the fast rollout policy learns the same moves (``dlgo train-rollout``).
4. **network**: a policy-value ResNet (``resnet6``: 6 blocks of 64 filters, thin
   heads; ``dlgo train-supervised --model resnet6 --target both``) learns the
   teacher's moves and results.
5. **ablation**: against ``--ablation-opponent``, the network's own move with no
   search (Clark & Storkey's test), then at ``--ablation-seconds`` a move the
   search alone (``mcts``: the compiled Go engine as shipped, with its 9x9
   rollout policy) and then with each learned piece added in turn: the 19x19
   rollout policy, the move patterns, the network (``alphago``: the same search
   guided by it), the network and the patterns.
6. **match**: the full engine at ``--seconds`` a move against GNU Go levels 1, 5
   and 10 (``--levels``), ``--games-per-level`` each, colours alternating.

The ablation and the match play a round at a time (every row's k-th game before
any row's next), so a run stopped part-way reports every row.

The models learn from the teacher's ``--games`` once they are all played (the
patterns and the rollout policy are fitted again if more are added later; the
network trains once, resuming epoch by epoch). Every learned model is measured
on the same held-out games (a tenth of them, by a hash of each game's id), and
every step's compute is its own. Writes
``summary.md``, ``learning.csv``, ``strength.png`` and each part's games
(``ablation/``, ``match/``) to ``--out``; the models live in ``--work``, and
``--ship`` copies them to ``checkpoints/go19-*`` (``alphago:checkpoint=go19``).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from dlgo.core.arguments import count, whole
from dlgo.core.specs import split_spec
from dlgo.data.dataset import encode_dataset
from dlgo.data.generate import generate_games
from dlgo.display.plotting import new_figure, save_figure
from dlgo.formats.records import game_facts, read_games, write_games
from dlgo.gtp.client import GNUGO, GNUGO_MAX_LEVEL
from dlgo.storage.atomic import atomic_copy, atomic_write
from engines.checkpoints import SET_FILES, SHIPPED
from engines.registry import ENGINES
from engines.rollouts import read_move_patterns, read_rollout_policy
from engines.training.accuracy import evaluate_predictor
from engines.training.rollout_policy import train_rollout
from experiments.shared import chapters, ladders, supervised
from experiments.shared.go_matches import TABLE, add_parts_option, engine_minutes, games_of, row, score, \
    score_bars, without_parts, write_report

KOMI = 7.5
SHIPPED_SIZE = 19  # --ship writes checkpoints/go19-*
PARTS = ("teacher", "patterns", "rollout", "network", "ablation", "match")
TEACHER_GAMES = "teacher-games.csv.gz"
SAVE_EVERY = 100  # the teacher's games are copied to --out after every hundred
OPENING_PLIES = 4  # GNU Go nearly repeats itself: four random plies make each game new (chapter 13)
BUDGET_CORE_HOURS = 24  # the limit on the teacher's games and every model together


class Models:
    """Where the run keeps its learned models (in ``--work``), and their specs' parts."""

    def __init__(self, work: Path, size: int, shipped: bool = False):
        name, self.board = f"go{size}", f"{size}x{size}"
        self.games = work / "games"
        self.patterns = work / f"{name}-patterns.npz"
        self.rollout = work / f"{name}-rollout.npz"
        self.network = work / "network"
        self.policy = self.network / "model.keras"
        # what the engines' specs name: the shipped set's files once shipped (found from any
        # folder, in any later session), else the run's own
        self.named = ({role: f"{name}-{role}" for role in ("policy", "rollout", "patterns")} if shipped else
                      {"policy": str(self.policy), "rollout": str(self.rollout), "patterns": str(self.patterns)})

    def engines(self, seconds: float) -> dict[str, str]:
        """The ablation's engines: the network alone (no search), then at ``seconds`` a move the
        search, each engine after it adding a learned piece to the one before."""
        policy, rollout, patterns = self.named["policy"], self.named["rollout"], self.named["patterns"]
        search = f"mcts:seconds={seconds:g}"
        guided = f"alphago:policy={policy},rollout={rollout},seconds={seconds:g}"
        return {"the network alone (no search)": f"predictor:model={policy}",
                "search alone (9x9 rollout policy)": search,
                f"+ {self.board} rollout policy": f"{search},rollout={rollout}",
                "+ move patterns": f"{search},rollout={rollout},patterns={patterns}",
                "+ network (no patterns)": guided,
                "+ network and patterns": f"{guided},patterns={patterns}"}


# ------------------------------------------------------------------ the learning steps
def teacher(args: argparse.Namespace, out: Path, models: Models) -> list[str]:
    """Step 1: GNU Go's games against itself (resumed from ``--out``'s own copy, kept up to date)."""
    kept = Path(args.teacher_games) if args.teacher_games else out / TEACHER_GAMES
    if "teacher" in args.parts:
        if kept.exists():
            supervised.start_from_games(models.games, kept)
        print(f"1. teacher: {args.games} games of {args.teacher} against itself -> {models.games}", flush=True)
        played = len(read_games(models.games / "games.csv")) if (models.games / "games.csv").exists() else 0
        for target in [*range(played // SAVE_EVERY * SAVE_EVERY + SAVE_EVERY, args.games, SAVE_EVERY), args.games]:
            generate_games(ENGINES, models.games, args.game, args.teacher, target, seed=args.seed,
                           opening_plies=OPENING_PLIES, workers=args.workers, ray=args.ray)
            write_games(out / TEACHER_GAMES, read_games(models.games / "games.csv"))  # what a kill cannot take
    found = teacher_facts(out)
    if found is None:
        return []
    return ["## The teacher's games", "",
            f"{found['games']:,} games of `{found['teacher']}` against itself, {found['plies']:.0f} plies on average, "
            f"{found['core_hours']:.1f} hours of its thinking (on one core a game); stored as move lists in "
            f"`{TEACHER_GAMES}`, {found['bytes_per_game']:,.0f} bytes a game.", ""]


def teacher_facts(out: Path) -> dict[str, Any] | None:
    """The teacher's games in ``--out``: how many, by whom, their mean plies, the core-hours
    their engines thought (each game plays on one core) and the bytes each takes; None before any."""
    games = read_games(out / TEACHER_GAMES) if (out / TEACHER_GAMES).exists() else []
    if not games:
        return None
    return {"games": len(games), "teacher": ", ".join(sorted({r.black for r in games})),
            "plies": sum(r.plies for r in games) / len(games), "core_hours": engine_minutes(games) / 60,
            "bytes_per_game": (out / TEACHER_GAMES).stat().st_size / len(games)}


def learned(args: argparse.Namespace, out: Path, models: Models) -> list[str]:
    """Steps 2-4: the move patterns, the rollout policy and the network, each fitted to the
    teacher's games when its part is asked for (again when the games have grown), and measured
    on their held-out games; writes ``learning.csv`` (a model not fitted again keeps its row)."""
    n_games = len(read_games(models.games / "games.csv")) if (models.games / "games.csv").exists() else 0
    rows = _read_learning(out)
    for part, name, fit in (("patterns", "move patterns", fit_patterns), ("rollout", "rollout policy", fit_rollout),
                            ("network", "network", train_network)):
        if part in args.parts and n_games < args.games:
            print(f"{part}: waits for the teacher's {args.games} games ({n_games} so far)", flush=True)
        elif part in args.parts:
            rows[name] = fit(args, models, n_games, rows.get(name))
    if not rows:
        return []
    table = pd.DataFrame([{"model": name, **values} for name, values in rows.items()])
    with atomic_write(out / "learning.csv") as handle:
        table.to_csv(handle, index=False)
    lines = ["## What each model learnt", "",
             "How often each model names the teacher's move first (top 1) and among its first five, on the same "
             "held-out games (the rollout policy: the expected hit rate of its most likely point); its training "
             "positions, the minutes its fit took and the cores of the machine it ran on.", "",
             "| model | games | training positions | top 1 | top 5 | minutes | cores |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in table.itertuples():
        top5 = f"{r.top5:.1%}" if r.top5 == r.top5 else "-"
        lines.append(f"| {r.model} | {r.games:,} | {r.positions:,} | {r.top1:.1%} | {top5} | {r.minutes:.1f} "
                     f"| {r.cores:.0f} |")
    return lines + [""]


def compute_facts(out: Path, teacher: dict[str, Any]) -> dict[str, float]:
    """The core-hours the teacher's games (``teacher``: their facts) and the learned models took
    (a fit counts every core of its machine, an upper bound)."""
    rows = _read_learning(out).values()
    fits = sum(row["minutes"] * row["cores"] / 60 for row in rows if row["minutes"] == row["minutes"])
    return {"teacher_core_hours": teacher["core_hours"], "models_core_hours": fits,
            "core_hours": teacher["core_hours"] + fits}


def compute_lines(out: Path) -> list[str]:
    """The summary's compute paragraph, against the issue's budget of 24 core-hours."""
    teacher = teacher_facts(out)
    if teacher is None:
        return []
    spent = compute_facts(out, teacher)
    return ["## Compute", "",
            f"The teacher's games took {spent['teacher_core_hours']:.1f} core-hours and the learned models at most "
            f"{spent['models_core_hours']:.1f} (each fit's minutes times its machine's cores): "
            f"{spent['core_hours']:.1f} core-hours in all, against a budget of {BUDGET_CORE_HOURS} for the data and "
            "every model.", ""]


def _read_learning(out: Path) -> dict[str, dict[str, Any]]:
    if not (out / "learning.csv").exists():
        return {}
    table = pd.read_csv(out / "learning.csv")
    return {r["model"]: {k: v for k, v in r.items() if k != "model"} for r in table.to_dict("records")}


def _last_fit(before: dict | None) -> tuple[float, int]:
    """The minutes and the machine's cores of a model's last fit (``before``: its row in
    ``learning.csv``; NaN minutes without one, this machine's cores where the row has none)."""
    here = os.cpu_count() or 1
    if before is None:
        return float("nan"), here
    cores = before.get("cores")
    return float(before["minutes"]), here if cores is None or cores != cores else int(cores)


def _timed(fit: Any, *args: Any, **kwargs: Any) -> tuple[float, int]:
    """Run ``fit``; its minutes and this machine's cores."""
    started = time.perf_counter()
    fit(*args, **kwargs)
    return (time.perf_counter() - started) / 60, os.cpu_count() or 1


def fit_patterns(args: argparse.Namespace, models: Models, n_games: int, before: dict | None) -> dict[str, Any]:
    """Step 2: the move patterns, fitted again when the games have grown (``before``: their last row)."""
    from engines.training.move_patterns import train_patterns

    minutes, cores = _last_fit(before)
    if not models.patterns.exists() or read_move_patterns(models.patterns).info.get("games") != n_games:
        print(f"2. patterns: fit to {n_games} games -> {models.patterns}", flush=True)
        minutes, cores = _timed(train_patterns, models.games, models.patterns, passes=args.pattern_passes)
    info = read_move_patterns(models.patterns).info
    return {"games": info["games"], "positions": info["positions"], "top1": info["top1"], "top5": info["top5"],
            "minutes": minutes, "cores": cores}


def fit_rollout(args: argparse.Namespace, models: Models, n_games: int, before: dict | None) -> dict[str, Any]:
    """Step 3: the fast rollout policy, fitted again when the games have grown."""
    minutes, cores = _last_fit(before)
    if not models.rollout.exists() or read_rollout_policy(models.rollout).info.get("games") != n_games:
        print(f"3. rollout policy: fit to {n_games} games -> {models.rollout}", flush=True)
        minutes, cores = _timed(train_rollout, models.games, models.rollout, epochs=args.rollout_epochs, seed=args.seed)
    info = read_rollout_policy(models.rollout).info
    return {"games": info["games"], "positions": info["train_positions"], "top1": info["top1"],
            "top5": float("nan"), "minutes": minutes, "cores": cores}


def train_network(args: argparse.Namespace, models: Models, n_games: int, before: dict | None) -> dict[str, Any]:
    """Step 4: the policy-value network (resumed epoch by epoch; its minutes are its epochs'),
    measured on the held-out games."""
    from engines.training.supervised import train_supervised

    print(f"4. network: {args.model} on the teacher's moves and results -> {models.network}", flush=True)
    history = train_supervised(models.games, models.network, model=args.model, target="both", epochs=args.epochs,
                               batch_size=256, seed=args.seed, progress=not args.quick)
    metrics = evaluate_predictor(models.policy, models.games)
    manifest = encode_dataset(models.games, progress=False)
    return {"games": n_games, "positions": manifest.split_sizes()["train"], "top1": metrics["top1_legal"],
            "top5": metrics["top5"], "minutes": float(history["seconds"].sum()) / 60, "cores": os.cpu_count() or 1}


# ------------------------------------------------------------------ the games
def ablation(args: argparse.Namespace, out: Path, models: Models) -> list[str]:
    """Step 5: the search alone, then with each learned piece added in turn, against ``--ablation-opponent``."""
    engines = models.engines(args.ablation_seconds)
    if "ablation" in args.parts:
        chapters.check_engines(list(engines.values()), args.game)
    tasks = ladders.pairings_in_rounds(list(engines.values()), [args.ablation_opponent], args.ablation_games, args.seed)
    records = games_of(out / "ablation", args.game, tasks, args, args.workers)
    if not records:
        return []
    plot_ablation(records, engines, args.ablation_opponent, f"{args.size}x{args.size}", out / "ablation.png")
    return ["## The search, and what each learned piece adds", "",
            f"{args.size}x{args.size}, {args.ablation_seconds:g} s a move against `{args.ablation_opponent}`, "
            f"{args.ablation_games} games each (the games column counts those played so far), "
            "colours alternating: the network's own move first, with no search (Clark & Storkey's test), then the "
            "search, each row adding a piece to the row above (the network's rows are `alphago`: the same compiled "
            "search, guided by the network's priors).", "", TABLE,
            *(row(records, spec, args.ablation_opponent, label) for label, spec in engines.items()), "",
            "![ablation](ablation.png)", ""]


def plot_ablation(records: list, engines: dict[str, str], opponent: str, board: str, path: Path) -> None:
    """Each engine's score (95% interval) against the ablation's opponent."""
    fig, ax = new_figure((7, 3.6))
    score_bars(ax, records, engines, opponent, f"{board} against {opponent}")
    save_figure(fig, path)


def is_shipped(args: argparse.Namespace) -> bool:
    """Whether the engines play the shipped set (``checkpoints/go19-*``) rather than the run's own files."""
    return args.ship or (args.size == SHIPPED_SIZE and (SHIPPED / f"{args.name}{SET_FILES['policy']}").exists())


def full_engine(args: argparse.Namespace) -> str:
    """The engine the match plays: the shipped set's name once shipped, else the run's own files."""
    if is_shipped(args):
        return f"alphago:checkpoint={args.name},seconds={args.seconds:g}"
    return Models(Path(args.work), args.size).engines(args.seconds)["+ network and patterns"]


def match(args: argparse.Namespace, out: Path) -> list[str]:
    """Step 6: the full engine against each GNU Go level, colours alternating."""
    strong = full_engine(args)
    opponents = [f"gnugo:level={level}" for level in args.levels]
    if "match" in args.parts:
        chapters.check_engines([strong, *opponents], args.game)
    tasks = ladders.pairings_in_rounds([strong], opponents, args.match_games, args.seed)
    records = games_of(out / "match", args.game, tasks, args, args.workers)
    if not records:
        return []
    played = sorted({r.black if r.white == strong else r.white for r in records} - {strong},
                    key=lambda spec: int(spec.split("=")[1]))
    plot_strength(records, strong, played, f"{args.size}x{args.size}", out / "strength.png")
    return ["## Against GNU Go", "",
            f"`{strong}` against GNU Go's levels (colours alternating, two random opening plies; the games "
            "column counts those played so far).", "", TABLE.replace("| engine |", "| opponent |"),
            *(row(records, strong, opponent, f"`{opponent}`") for opponent in played), "",
            "![strength](strength.png)", ""]


def plot_strength(records: list, strong: str, opponents: list[str], board: str, path: Path) -> None:
    """The engine's score (95% interval) against each GNU Go level."""
    fig, ax = new_figure((6, 3.8))
    points = [(int(o.split("=")[1]), *score(records, strong, o)) for o in opponents]
    ax.errorbar([p[0] for p in points], [p[1] for p in points], marker="o", capsize=3,
                yerr=[[max(0.0, p[1] - p[3]) for p in points], [max(0.0, p[4] - p[1]) for p in points]])
    ax.axhline(0.5, color="grey", linestyle=":")
    ax.set(xlabel="GNU Go level", ylabel="score (95% interval)", ylim=(-0.05, 1.05),
           title=f"{board}, komi {KOMI:g}: the full engine against GNU Go")
    ax.grid(alpha=0.3)
    save_figure(fig, path)


def ship(models: Models, name: str) -> None:
    """Copy the learned models to ``checkpoints/`` as the set ``name``: the network (without its
    optimizer's state) as its policy, the rollout policy and the move patterns."""
    from engines.neural.backend import export_model  # loads TensorFlow

    export_model(models.policy, SHIPPED / f"{name}{SET_FILES['policy']}")
    for role, source in (("rollout", models.rollout), ("patterns", models.patterns)):
        atomic_copy(source, SHIPPED / f"{name}{SET_FILES[role]}")
    sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in sorted(SHIPPED.glob(f"{name}-*")))
    print(f"shipped: {sizes}", flush=True)


def row_name(spec: str, board: str) -> str:
    """An ablation engine's row name (those of :meth:`Models.engines`) from its spec alone."""
    name, parameters = split_spec(spec)
    if name == "predictor":
        return "the network alone (no search)"
    if name == "alphago":
        return "+ network and patterns" if "patterns" in parameters else "+ network (no patterns)"
    if "patterns" in parameters:
        return "+ move patterns"
    return f"+ {board} rollout policy" if "rollout" in parameters else "search alone (9x9 rollout policy)"


def facts(out: Path) -> dict[str, Any]:
    """The report's headline facts (:mod:`dlgo.storage.facts`), from its files: the teacher's games,
    each learned model's figures (``learning``; None where not measured), the compute they took,
    and the games of the ablation and of the match (:func:`~dlgo.formats.records.game_facts`:
    every engine's points by opponent; the ablation's with each engine's row name, ``labels``)."""
    found: dict[str, Any] = {}
    if (out / "learning.csv").exists():
        found["learning"] = {name: {k: None if v != v else v for k, v in row.items()}
                             for name, row in _read_learning(out).items()}
    teacher = teacher_facts(out)
    if teacher is not None:
        found["teacher"], found["compute"] = teacher, compute_facts(out, teacher)
    for part in ("ablation", "match"):
        if (out / part / "games.csv").exists():
            found[part] = game_facts(out / part)
    if "ablation" in found:
        labels = {}
        for engine, _, game, *_ in found["ablation"]["results"]:
            if engine.startswith("gnugo"):  # the opponent's rows
                continue
            size = split_spec(game)[1]["size"]
            labels[engine] = row_name(engine, f"{size}x{size}")
        found["ablation"]["labels"] = labels
    return found


# -------------------------------------------------------------------- main
@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if not os.access(GNUGO, os.X_OK):
        print(f"go19: GNU Go is not installed at {GNUGO}; install it with `apt-get install gnugo`", file=sys.stderr)
        return 2
    chapters.check_engines([args.teacher, args.ablation_opponent], args.game)
    if args.teacher_games:
        supervised.check_games_file(Path(args.teacher_games))
    chapters.take_folders(args)
    out, models = Path(args.out), Models(Path(args.work), args.size, shipped=is_shipped(args))
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# {args.size}x{args.size} Go against GNU Go", "", f"Reproduce: `{reproduce(args, argv)}`", ""]
    lines += teacher(args, out, models)
    lines += learned(args, out, models)
    lines += compute_lines(out)
    if args.ship:
        ship(models, args.name)
    lines += ablation(args, out, models)
    lines += match(args, out)
    write_report(out, lines, facts(out))
    return 0


def reproduce(args: argparse.Namespace, argv: list[str] | None) -> str:
    """The command that makes the whole report: this one without ``--parts``, and with ``--ship`` when
    its engines play the shipped set (a summary-only run, without it, still names the run that shipped)."""
    words = without_parts(argv)
    return chapters.command(__file__, words + ["--ship"] if is_shipped(args) and "--ship" not in words else words)


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line (``--quick``: tiny settings)."""
    p = chapters.parser(__file__, __doc__, name="go19", work="the teacher's games and the learned models")
    add_parts_option(p, PARTS)
    p.add_argument("--size", type=int, choices=range(5, 20), default=SHIPPED_SIZE, metavar="N",
                   help=f"the board (default {SHIPPED_SIZE}; --ship is for {SHIPPED_SIZE}x{SHIPPED_SIZE} alone)")
    p.add_argument("--teacher", default="gnugo:level=0", help="the teacher (default gnugo:level=0)")
    p.add_argument("--games", type=count("games"), default=2000, help="the teacher's games (default 2000)")
    p.add_argument("--teacher-games", default=None,
                   help=f"games to start from (default: --out's {TEACHER_GAMES}, if any); SGF collections "
                        "come in through `dlgo import-sgf`")
    p.add_argument("--pattern-passes", type=count("steps"), default=50,
                   help="MM passes of the patterns' fit (default 50)")
    p.add_argument("--rollout-epochs", type=count("steps"), default=20, help="the rollout policy's passes (default 20)")
    p.add_argument("--model", default="resnet6", help="the network (default resnet6)")
    p.add_argument("--epochs", type=count("steps"), default=4, help="the network's epochs (default 4)")
    p.add_argument("--ablation-seconds", type=float, default=2.0, help="seconds a move in the ablation (default 2)")
    p.add_argument("--ablation-opponent", default="gnugo:level=1", help="the ablation's (default gnugo:level=1)")
    p.add_argument("--ablation-games", type=count("games"), default=10,
                   help="games per engine in the ablation (default 10)")
    p.add_argument("--seconds", type=float, default=5.0, help="seconds a move in the match (default 5)")
    p.add_argument("--levels", type=whole(0, GNUGO_MAX_LEVEL), nargs="+", default=[1, 5, 10],
                   help="GNU Go's levels (default 1 5 10)")
    p.add_argument("--games-per-level", dest="match_games", type=count("games"), default=40,
                   help="the match's games against each level (default 40)")
    p.add_argument("--workers", type=count("processes"), default=None, help="games at once (default: all cores)")
    p.add_argument("--ray", default=None, help="play the teacher's games on a Ray cluster (auto, HOST:PORT, local)")
    p.add_argument("--ship", action="store_true", help="copy the models to checkpoints/go19-*")
    args = p.parse_args(argv)
    args.workers = args.workers or os.cpu_count() or 1
    if args.quick:
        args.size, args.teacher, args.games, args.pattern_passes, args.rollout_epochs = 7, "gnugo:level=0", 4, 3, 2
        args.model, args.epochs, args.ablation_seconds, args.ablation_games = "tiny", 1, 0.05, 1
        args.ablation_opponent, args.seconds, args.levels, args.match_games = "gnugo:level=0", 0.05, [0], 1
    if args.ship and args.size != SHIPPED_SIZE:
        p.error(f"--ship copies {SHIPPED_SIZE}x{SHIPPED_SIZE} models; this run plays {args.size}x{args.size}")
    args.game, args.name = f"go:size={args.size},komi={KOMI:g}", f"go{args.size}"
    return args


if __name__ == "__main__":
    sys.exit(main())
