"""Judging a small board's network off the training path: solved positions of every depth.

A network that plays its own games perfectly can still lose positions its
self-play never reaches. Each board gets two sets of its own, with seeds no run
trains or publishes by, both of every depth (each position's stone count drawn
uniformly from :data:`MARGIN` to :data:`MARGIN` short of a full board):

* ``uniform``: games in which every legal move is as likely as any other,
  blunders too, as an outside check samples them;
* ``strong``: games of best-scoring moves, one in ten random.

A network plays every position with its raw policy and with a search; a move is
a mistake where it changes the game-theoretic result, and the rates are over the
critical positions (where some move would), each set's apart, with 95% Wilson
intervals, over the whole set (stage ``all``) and by stage. Used by
``experiments/crosschecks/unseen_positions.py`` (the shipped networks) and by the
recipe's ablation (``--unseen``: every run it trains).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from dlgo.arena.mistakes import Verdict, measure_mistakes
from dlgo.arena.ratings import wilson_interval
from dlgo.data.solved import generate_positions
from dlgo.formats.positions import STAGES, read_positions
from engines.registry import ENGINES
from engines.training.run_folder import iteration_checkpoint
from experiments.shared.connectn import board_slug, cells

#: each play's seed: none that a run of the lab, the ablation or an earlier check used (0-3, 11)
SEEDS = {"uniform": 21, "strong": 22}
#: plies kept clear at each end: a position has from this many stones to this many short of a full board
MARGIN = 4
#: a judged row: the network's rate on one set (and stage) at one search
COLUMNS = ["board", "play", "network", "simulations", "stage", "positions", "critical", "mistakes", "rate", "low",
           "high"]
#: a judged run's row (:func:`judge_runs`): which run, and the sets' size, before the judged row
RUN_COLUMNS = ["variant", "seed", "iteration", "per_set", *COLUMNS]


def judged_positions(board: str, play: str, work: Path, per_set: int, workers: int | None, quick: bool) -> Path:
    """The board's set of ``play`` (:data:`SEEDS`), every depth, solved once into ``work``."""
    high = cells(board) - MARGIN
    return generate_positions(board, work / f"{board_slug(board)}-{play}", per_set=per_set, seed=SEEDS[play],
                              workers=workers, play=play, stones=(MARGIN, high), progress=not quick,
                              max_candidates=50 * per_set)


def rate_row(verdicts: list[Verdict], **keys: Any) -> dict[str, Any]:
    """The critical mistakes of ``verdicts``, with their 95% Wilson interval, under ``keys``."""
    critical = [v for v in verdicts if v.critical]
    mistakes = sum(v.mistake for v in critical)
    rate = mistakes / len(critical) if critical else float("nan")
    low, high = wilson_interval(rate, len(critical))
    low = max(0.0, low)  # none of 250: 0, not a rounding error below it
    return {**keys, "positions": len(verdicts), "critical": len(critical), "mistakes": mistakes, "rate": rate,
            "low": low, "high": high}


def judge_network(board: str, network: str, play: str, work: Path, *, per_set: int, simulations: int, seed: int,
                  workers: int | None, quick: bool, verdicts: Path | None = None) -> list[dict[str, Any]]:
    """``network`` on the board's set of ``play``: its raw policy's and its search's rates, over
    the whole set and by stage (a third of the board's cells each). The sets are solved in
    ``work``; the verdicts are kept in ``verdicts`` (default ``work/mistakes-<board>-<play>``), so
    that a rerun measures only what is missing."""
    positions = read_positions(judged_positions(board, play, work, per_set, workers, quick))
    specs = [f"alphazero:checkpoint={network},simulations={n}" for n in (0, simulations)]
    folder = verdicts or work / f"mistakes-{board_slug(board)}-{play}"
    measured = measure_mistakes(ENGINES, specs, positions, folder, seed=seed, workers=workers, progress=not quick)
    rows = []
    for spec, budget in zip(specs, (0, simulations)):
        mine = [v for v in measured if v.engine == spec]
        keys = {"board": board_slug(board), "play": play, "network": network, "simulations": budget}
        rows.append(rate_row(mine, **keys, stage="all"))
        rows += [rate_row([v for v in mine if v.set.startswith(stage)], **keys, stage=stage) for stage in STAGES]
    return rows


def judge_runs(board: str, runs: Sequence[tuple[str, int, Path]], work: Path, *, per_set: int, simulations: int,
               workers: int | None, quick: bool) -> pd.DataFrame:
    """Each of ``runs`` (variant, seed, its training folder) that is here: its published network
    on both of the board's sets (:func:`judge_network`, seeded by the run's seed), rows under its
    variant, seed, published iteration and the sets' size (``per_set``)."""
    rows = []
    for variant, seed, folder in runs:
        if not (folder / "history.csv").exists():
            continue
        published = int(pd.read_csv(folder / "history.csv")["published"].iloc[-1])
        network = str(iteration_checkpoint(folder, published))  # fixed once written: its verdicts stay true
        for play in SEEDS:
            rows += [{"variant": variant, "seed": seed, "iteration": published, "per_set": per_set, **row}
                     for row in judge_network(board, network, play, work, per_set=per_set, simulations=simulations,
                                              seed=seed, workers=workers, quick=quick)]
    return pd.DataFrame(rows, columns=RUN_COLUMNS)
