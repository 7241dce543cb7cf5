"""Capstone: every engine of the course in one round-robin. Which is strongest per unit of compute?

    python experiments/chapters/ch15_strength_per_compute.py           # Connect Four, about two minutes on 2 cores
    python experiments/chapters/ch15_strength_per_compute.py --game tictactoe --depth-max 9
    python experiments/chapters/ch15_strength_per_compute.py --quick

The engines of chapters 3 to 14 on the course's Elo scale (random = 0; the MCTS
and alpha-beta ladder held at its ratings in ``reports/calibration-connect4``,
``experiments/crosschecks/calibration.py``, the networks measured against it):
MCTS at 10 to 1,000 rounds (chapter 4), alpha-beta at depth 1 to 4 (chapter 4), the move
predictor of chapters 6-8 (if ``ch06_07_train_predictor.py`` has trained it, or
--predictor PATH), the networks that learnt by playing in chapters 10-12 (``pg``,
``q`` and ``ac``, where their runs exist) and the shipped AlphaZero network
(chapter 14) with its raw policy and with 50 simulations. Every pair plays --games-per-pair games,
colours alternating after two seeded random opening plies; rerunning resumes.
Writes ``games.csv``, ``ratings.csv``, ``crosstable.csv``,
``strength_vs_compute.png``, ``crosstable.png`` and ``summary.md`` to --out.

``--preset full`` is the suite's own ladder, on any game (``make demo`` runs it;
a few minutes on Connect Four): MCTS at 10, 32, 100, 316, ... rounds (x sqrt(10)
steps up to --mcts-max, default 3200), alpha-beta at depth 1 to --depth-max
(default 5, no node cap), the shipped AlphaZero network of the game (for
tic-tac-toe and Connect Four) at --alphazero-simulations (0 = its raw policy),
a supervised move predictor if --predictor names one, and the random engine as
the Elo anchor (0), every engine measured (nothing held on the course's scale),
in ``runs/strength-per-compute/``:

    python experiments/chapters/ch15_strength_per_compute.py --preset full --game tictactoe --depth-max 9
    python experiments/chapters/ch15_strength_per_compute.py --preset full --mcts-max 10000 --games-per-pair 20 \
        --out runs/c4-big
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import shlex
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

from dlgo.arena.report import EngineRow, elo_text, interval_text, is_pinned
from experiments.shared import chapters, ladders, supervised

#: the chapters whose networks learnt by playing (chapters 10-12), by method
LEARNERS = [("pg", "ch10_policy_gradient"), ("q", "ch11_q_learning"), ("ac", "ch12_actor_critic")]


def what_to_look_for(rows: list[EngineRow], mistakes: dict[str, float] | None = None) -> str:
    """The closing section, its comparisons made from this run's ratings (and
    ``mistakes``: each engine's rate in critical solved positions, where measured)."""
    text = ("The plot puts every engine at its cost (seconds per move, log scale) and its strength, one line per "
            "family: each line is one kind of engine spending more or less, and the lines sit at different heights. "
            + on_top(rows))
    top = strongest_measured(rows) or rows[0]
    mcts = sorted((r for r in rows if r.family == "mcts"), key=lambda r: r.compute_per_move)
    raw = next((r for r in rows if r.family == "alphazero" and r.engine.endswith("simulations=0")), None)
    if raw and mcts:
        below = [m for m in mcts if m.elo <= raw.elo]
        where = (f"above every MCTS here, up to `{mcts[-1].engine}` ({elo_text(mcts[-1])})" if len(below) == len(mcts)
                 else f"between `{below[-1].engine}` and `{mcts[len(below)].engine}`" if below
                 else f"below `{mcts[0].engine}`")
        text += (f"The AlphaZero network's raw policy, one network call a move ({raw.seconds_per_move * 1000:.1f} "
                 f"ms), rates {raw.elo:.0f}: {where}. ")
    depths = {int(r.engine.split("depth=")[1].split(",")[0]): r.elo for r in rows if r.family == "alphabeta"}
    dips = [d for d in sorted(depths) if d - 1 in depths and depths[d] < depths[d - 1]]
    if dips:
        text += (f"Alpha-beta at depth {', '.join(map(str, dips))} rates below the depth before: odd and even depths "
                 "end the search after different sides' moves, and the horizon matters. ")
    predictor = next((r for r in rows if r.family == "predictor"), None)
    if predictor:
        text += (f"The move predictor rates {predictor.elo:.0f}, with no search: the first blunder it cannot see "
                 "loses the game. ")
    learners = [r for r in rows if r.family in ("pg", "q", "ac")]
    if learners:
        text += ("The networks of chapters 10-12 cost the same single call per move: "
                 + ", ".join(f"`{r.family}` {r.elo:.0f}" for r in learners)
                 + "; where they land against the predictor says what self-play taught them that imitation did "
                 "not. ")
    ranked = [r for r in rows if mistakes and r.engine in mistakes]
    if mistakes and ranked:
        fewest = min(ranked, key=lambda r: mistakes[r.engine])
        text += f"On the solved positions the fewest mistakes, {mistakes[fewest.engine]:.0%} of the critical ones, are "
        if fewest.engine == top.engine:
            text += "the top engine's too. "
        else:
            text += (f"`{fewest.engine}`'s (Elo {elo_text(fewest)})"
                     + (f", where `{top.engine}` errs in {mistakes[top.engine]:.0%}" if top.engine in mistakes else "")
                     + ": winning games and never throwing a solved result away are not quite the same skill. ")
    text += ("Predict, then measure: where would `--mcts-max 3162` land, and which engine would you pick at 0.01 s "
             "per move?")
    return "## What to look for\n\n" + "\n".join(textwrap.wrap(text, 78, break_on_hyphens=False))


def strongest_measured(rows: list[EngineRow]) -> EngineRow | None:
    """The best rated of the engines a run measures (None: every one is pinned on the course's scale)."""
    return max((r for r in rows if not is_pinned(r)), key=lambda r: r.elo, default=None)


def on_top(rows: list[EngineRow]) -> str:
    """Which engine this run finds strongest: the best rated of those it measures, never one whose
    rating is pinned on the course's scale (a pinned engine above it is named as such, with its score)."""
    top = strongest_measured(rows)
    if top is None:
        return "Every engine here is pinned on the course's scale: nothing was measured. "
    above = [r for r in rows if is_pinned(r) and r.elo > top.elo]
    if not above:
        return f"`{top.engine}` is on top ({top.elo:.0f}). "
    return (f"`{top.engine}` rates highest of the engines this run measures ({top.elo:.0f}, "
            f"{interval_text(top)}; {top.score:.0%} of its games); "
            + ", ".join(f"`{r.engine}` ({r.elo:.0f}, {r.score:.0%} of its games)" for r in above)
            + f" {'rates' if len(above) == 1 else 'rate'} higher, but "
            + ("its rating is" if len(above) == 1 else "their ratings are")
            + " pinned at the course's calibration, not measured here. ")


class Ladder(NamedTuple):
    """One of the script's runs (``--preset``): its report folder, what it is, its ladder's default size."""

    folder: str
    about: str
    mcts_max: int
    depth_max: int


PRESETS = {"chapter": Ladder(Path(__file__).stem, "every engine of the course on the course's scale", 1000, 4),
           "full": Ladder("strength-per-compute", "the suite's own ladder, every engine measured, random = 0",
                          3200, 5)}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    preset = chapters.chosen_preset(list(PRESETS), argv)
    args = build_parser(PRESETS[preset]).parse_args(argv)
    if preset == "full":
        full_ladder(args, argv)
    else:
        course_ladder(args, argv)
    return 0


def build_parser(ladder: Ladder) -> argparse.ArgumentParser:
    """The command line, its defaults the preset's."""
    p = chapters.parser(__file__, __doc__, name=ladder.folder)
    chapters.add_preset_option(p, {name: preset.about for name, preset in PRESETS.items()})
    ladders.add_ladder_options(p, mcts_max=ladder.mcts_max, depth_max=ladder.depth_max)
    return p


def full_ladder(args: argparse.Namespace, argv: list[str] | None) -> None:
    """``--preset full``: the ladder and the game's shipped network, every engine measured (random = 0)."""
    if args.quick:
        args.mcts_max, args.depth_max, args.alphazero_simulations, args.games_per_pair = 32, 2, [0], 2
        args.mistake_positions = min(args.mistake_positions, 2)
    ladders.run_ladder(args, intro=f"Reproduce: `{chapters.command(__file__, argv, preset='full')}`")


def course_ladder(args: argparse.Namespace, argv: list[str] | None) -> None:
    """The chapter: every engine of the course, the networks measured against the ladder held on the course's scale."""
    if args.quick:
        args.mcts_max, args.depth_max, args.games_per_pair, args.workers = 10, 1, 2, 1
        args.alphazero_simulations = [0]
        args.mistake_positions = min(args.mistake_positions, 2)
    steps = add_the_course_networks(args)
    command = f"`{chapters.command(__file__, argv)}`"
    intro = (f"Reproduce (first the course's networks it rates, each made by its chapter, then the ladder): "
             f"{', '.join(f'`{step}`' for step in steps)}, then {command}" if steps else f"Reproduce: {command}")
    ladders.run_ladder(args, intro=intro,
                       outro=lambda rows: what_to_look_for(rows, ladders.critical_mistakes(args.out)),
                       on_scale=True)


def add_the_course_networks(args: argparse.Namespace) -> list[str]:
    """The networks that chapters 6-7 and 10-12 trained on this game, where their runs exist; returns
    the commands that make them (their chapters on this game, ``--quick`` with a quick run)."""
    steps = []
    trained = supervised.predictor_model_path(args.quick, game=args.game)  # step 5's network on this game
    if args.predictor is None and trained.exists():
        args.predictor = str(trained)
        steps.append(chapter_command(supervised.CHAPTER_PREDICTOR.name, supervised.CHAPTER_PREDICTOR.game, args))
    for method, script in LEARNERS:  # the networks of chapters 10-12 on this game
        name = chapters.variant_name(script, args.game, "connect4")  # their default game
        network = Path(chapters.run_folders(name, args.quick)[1]) / "run" / "current.keras"
        if network.exists():
            args.engines.append(f"{method}:model={network}")
            steps.append(chapter_command(script, "connect4", args))
    return steps


def chapter_command(script: str, default_game: str, args: argparse.Namespace) -> str:
    """The command that makes a chapter's network where this run finds it: the chapter (``script``,
    whose game is ``default_game`` unless told) on this run's game, quick if this run is."""
    words = ["python", f"experiments/chapters/{script}.py"]
    words += ["--game", shlex.quote(args.game)] if args.game != default_game else []
    return " ".join(words + (["--quick"] if args.quick else []))


if __name__ == "__main__":
    sys.exit(main())
