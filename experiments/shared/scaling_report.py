"""The scaling lab's report (``experiments/headline/scaling.py``): from its table of
rated networks (``points.csv``) and its ladder, the findings per board (:class:`BoardFacts`,
:func:`board_findings`, ``boards.csv``), the figures (Elo and mistakes against training
compute, the iso-Elo curves) and ``summary.md``'s sections, each set beside Jones'
figures for Hex. The statistics they rest on are :mod:`experiments.shared.frontier`'s."""
from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from dlgo.arena.ratings import expected_score
from dlgo.arena.report import interval_text
from dlgo.display.plotting import new_figure, save_figure
from dlgo.display.words import plural
from experiments.shared.connectn import board_slug, cells_of
from experiments.shared.frontier import PERFECT, Fit, Reach, fit_frontier, frontier, knee_ratio, perfect_compute

#: Jones' figures for Hex (2021), which the summary sets each of ours beside
JONES_ELO_PER_DECADE = 500
JONES_PERFECT_GROWTH = 7
#: the mistake rates whose training compute the report tabulates, perfect play's last
MISTAKE_LEVELS = (0.20, 0.10, 0.05, 0.02, PERFECT)


class BoardFacts(NamedTuple):
    """What the summary states about one board."""

    board: str
    fit: Fit | None             # the frontier's fit (None: too few points)
    frontier_points: int
    perfect_elo: float          # the solver's Elo
    reaches: dict[float, Reach]  # per mistake level (MISTAKE_LEVELS), the training compute that reached it
    best: pd.Series             # the strongest network at any budget
    fewest: pd.Series           # the network and budget with the fewest mistakes
    perfect_low: float = math.nan  # the low end of the solver's 95% Elo interval
    until: float = math.nan     # the most training compute any run spent (the frontier holds its Elo up to it)

    @property
    def at_solver(self) -> bool:
        """Whether Elo's plateau is consistent with the solver's level (the plateau's interval
        reaches the solver's): the networks stopped losing to perfect play there. Only a plateau
        whose whole interval lies below the solver's counts as a stall."""
        if self.fit is None or self.fit.plateau is None:
            return False
        top = self.fit.plateau if math.isnan(self.fit.plateau_high) else max(self.fit.plateau, self.fit.plateau_high)
        return top >= self.perfect_low

    @property
    def reach(self) -> Reach:
        """The training compute that reached perfect play (mistakes <= PERFECT)."""
        return self.reaches[PERFECT]


def board_findings(points: pd.DataFrame, ladder: pd.DataFrame, frontier_simulations: int, seed: int
                   ) -> tuple[pd.DataFrame, list[BoardFacts]]:
    """Per board: the frontier's points (at the frontier's search budget) and the facts the
    summary states: the fit, perfect play's Elo and the compute that reached each mistake level."""
    fronts, facts = [], []
    for board, group in points.groupby("board", sort=False):
        at = group[group["simulations"] == frontier_simulations]
        front = frontier(at)
        fronts.append(front.assign(board=board))
        solver = ladder[(ladder["board"] == board) & (ladder["engine"] == "solver")]
        measured = group.dropna(subset=["mistakes"])
        fewest = measured.loc[measured["mistakes"].idxmin()] if len(measured) else pd.Series(dtype=float)
        until = float(at["train_flops"].max()) if len(at) else math.nan  # the frontier holds its Elo up to there
        facts.append(BoardFacts(str(board), fit_frontier(front, seed=seed, until=until), len(front),
                                float(solver["elo"].iloc[0]) if len(solver) else math.nan,
                                {level: perfect_compute(at, level) for level in MISTAKE_LEVELS},
                                group.loc[group["elo"].idxmax()], fewest,
                                float(solver["elo_low"].iloc[0]) if len(solver) else math.nan, until))
    return pd.concat(fronts, ignore_index=True) if fronts else pd.DataFrame(), facts


#: the course's own run of the lab (docs/course.md, step 15): one network size on the smallest board
COURSE_NET, COURSE_ITERATIONS = "2x32", 16


def facts(out: Path) -> dict[str, Any]:
    """The lab's headline facts (:mod:`dlgo.storage.facts`): ``scaling``, each board's findings
    (``boards.csv``), the search-for-training exchange rate (``exchange.csv``), the frontier's
    search budget, the Elo each doubling of the search buys (each run's last network, averaged over
    boards and network sizes) and the course's run's network on the smallest board (``points.csv``)."""
    points, boards, frontier = (pd.read_csv(out / name) for name in ("points.csv", "boards.csv", "frontier.csv"))
    if frontier.empty:
        return {"scaling": None}  # no finished run yet
    budget = int(frontier["simulations"].iloc[0])
    budgets = sorted(int(n) for n in points["simulations"].unique())
    last = points[points["iteration"] == points.groupby(["board", "net"])["iteration"].transform("max")]
    elo = last.pivot_table(index=["board", "net"], columns="simulations", values="elo")
    doubling = [[small, large, float(((elo[large] - elo[small]) / math.log2(large / small)).mean())]
                for small, large in zip(budgets, budgets[1:])]
    course = points[(points["board"] == boards["board"].iloc[0]) & (points["net"] == COURSE_NET)
                    & (points["iteration"] == COURSE_ITERATIONS) & (points["simulations"] == budget)]
    return {"scaling": {
        "boards": boards.to_dict("records"), "exchange": pd.read_csv(out / "exchange.csv").iloc[0].to_dict(),
        "simulations": budget, "search_doubling": doubling,
        "course": {"net": COURSE_NET, "iterations": COURSE_ITERATIONS, **({} if course.empty else {
            key: float(course.iloc[0][key])
            for key in ("elo", "elo_low", "elo_high", "train_seconds", "train_flops")})}}}


def step_words(smaller: str, larger: str) -> str:
    """What a board-size step adds: ``a column``, ``a row``, ``a row and a column`` or ``N points``."""
    (c1, r1), (c2, r2) = (tuple(int(v) for v in slug.split("-")[0].split("x")) for slug in (smaller, larger))
    named = {(1, 0): "a column", (0, 1): "a row", (1, 1): "a row and a column"}
    return named.get((c2 - c1, r2 - r1), f"{c2 * r2 - c1 * r1} points")


def growth_per_step(facts: list[BoardFacts]) -> list[str]:
    """Sentences: how much more training compute each board took than the one before (and, with
    three boards or more, the last than the first) to err on at most the finest mistake level
    both reached (perfect play's 1% where they did), and to bring Elo to its plateau."""
    pairs = list(zip(facts, facts[1:])) + ([(facts[0], facts[-1])] if len(facts) > 2 else [])
    lines = []
    for smaller, larger in pairs:
        step = (f"{smaller.board} to {larger.board} ({cells_of(smaller.board)} to {cells_of(larger.board)} points, "
                f"{step_words(smaller.board, larger.board)} more)")
        both = [level for level in MISTAKE_LEVELS
                if not math.isnan(smaller.reaches[level].flops) and not math.isnan(larger.reaches[level].flops)]
        parts = []
        if both:
            level = both[-1]
            a, b = smaller.reaches[level], larger.reaches[level]
            # each crossing lies between the last network that erred more and the first that did not
            low = f"{b.after / a.flops:.1f}x" if b.after > 0 else "0x"
            high = f"{b.flops / a.after:.1f}x" if a.after > 0 else "any multiple"
            what = "perfect play" if level == PERFECT else (f"at most {level:.0%} mistakes (the finest level both "
                                                            f"boards reached; perfect play is {PERFECT:.0%})")
            parts.append(f"{what} took **{b.flops / a.flops:.1f}x** the training compute (between {low} and "
                         f"{high}, from the networks on either side of each crossing)")
        else:
            parts.append("no mistake level reached on both boards")
        if smaller.at_solver and larger.at_solver and smaller.fit is not None and larger.fit is not None:
            ratio, low_ratio, high_ratio = knee_ratio(smaller.fit, larger.fit)
            spread = ("" if math.isnan(low_ratio) else
                      f" (95% interval {times(low_ratio)} to {times(high_ratio)}, from the resampled frontiers' knees)")
            parts.append(f"the frontier turned flat, at the solver's level on both, at **{times(ratio)}** the "
                         f"compute{spread}")
        else:
            parts.append("the frontier did not turn flat at the solver's level on both")
        lines.append(f"- {step}: {'; '.join(parts)}.")
    if lines:
        lines.append(f"\nJones measured about {JONES_PERFECT_GROWTH}x per step of Hex board size, each adding a row "
                     "and a column.")
    return lines


def times(ratio: float) -> str:
    """A multiple to the precision it deserves: ``3.9x``, ``36x``."""
    return f"{ratio:.1f}x" if ratio < 10 else f"{ratio:.0f}x"


def level_column(level: float) -> str:
    """``boards.csv``'s column of the training compute that reached a mistake level (``flops_to_5pct``)."""
    return f"flops_to_{level * 100:g}pct"


def facts_table(facts: list[BoardFacts]) -> pd.DataFrame:
    """``boards.csv``: one row of findings per board (the frontier's fit, the solver's Elo, the
    compute that reached each mistake level: NaN where none did)."""
    rows = []
    for fact in facts:
        fit = fact.fit
        row = {"board": fact.board, "cells": cells_of(fact.board), "frontier_points": fact.frontier_points,
               "elo_per_decade": fit.slope if fit else math.nan, "elo_per_decade_low": fit.low if fit else math.nan,
               "elo_per_decade_high": fit.high if fit else math.nan,
               "plateau": fit.plateau if fit is not None and fit.plateau is not None else math.nan,
               "plateau_low": fit.plateau_low if fit else math.nan,
               "plateau_high": fit.plateau_high if fit else math.nan,
               "plateau_share": fit.flat_share if fit else math.nan,
               "plateau_flops": fit.knee_flops if fit else math.nan,
               "plateau_flops_low": fit.knee_interval[0] if fit else math.nan,
               "plateau_flops_high": fit.knee_interval[1] if fit else math.nan, "solver_elo": fact.perfect_elo,
               "solver_elo_low": fact.perfect_low, "plateau_at_solver": fact.at_solver,
               "fewest_mistakes": fact.fewest.get("mistakes", math.nan)}
        row.update({level_column(level): fact.reaches[level].flops for level in MISTAKE_LEVELS})
        rows.append(row)
    return pd.DataFrame(rows)


def reach_cell(reach: Reach) -> str:
    """A table cell: the compute that reached a mistake level, or how far the runs went without."""
    return f"{reach.flops:.2g}" if not math.isnan(reach.flops) else f"not by {reach.after:.2g}"


def plot_boards(points: pd.DataFrame, fronts: pd.DataFrame, facts: list[BoardFacts], path: Path) -> None:
    """One panel per board: Elo against training compute, a colour per search budget, the
    frontier, its fit and the solver's Elo."""
    boards = list(points["board"].unique())
    fig, axes = new_figure((5 * len(boards), 4), cols=len(boards))
    axes = np.atleast_1d(axes)
    for ax, board, fact in zip(axes, boards, facts):
        group = points[(points["board"] == board) & (points["train_flops"] > 0)]
        for simulations, rows in group.groupby("simulations"):
            rows = rows.sort_values("train_flops")
            ax.scatter(rows["train_flops"], rows["elo"], s=12, label=plural(int(simulations), "simulation"))
        front = fronts[fronts["board"] == board]
        if len(front):  # the frontier holds its last Elo up to the most compute spent: no network beat it
            until = float(front["train_flops"].max()) if math.isnan(fact.until) else fact.until
            ax.plot([*front["train_flops"], until], [*front["elo"], front["elo"].iloc[-1]], color="black", lw=1,
                    label="frontier")
            if fact.fit is not None:
                xs = np.logspace(np.log10(front["train_flops"].min()), np.log10(until), 50)
                ax.plot(xs, fact.fit.predict(np.log10(xs)), ls=":", color="black",
                        label=f"fit: {fact.fit.slope:.0f} Elo per 10x")
        if not math.isnan(fact.perfect_elo):
            ax.axhline(fact.perfect_elo, color="grey", ls="--", label="perfect play (solver)")
        ax.set_xscale("log")
        ax.set_xlabel("training compute (FLOPs)")
        ax.set_ylabel("Elo (random = 0)")
        ax.set_title(board)
        ax.legend(fontsize=7)
    save_figure(fig, path)


def plot_mistakes(points: pd.DataFrame, path: Path, simulations: int) -> None:
    """Mistakes on the solved positions against training compute, a colour per board."""
    fig, ax = new_figure()
    for board, rows in points[(points["simulations"] == simulations) & (points["train_flops"] > 0)].groupby(
            "board", sort=False):
        rows = rows.sort_values("train_flops")
        ax.scatter(rows["train_flops"], rows["mistakes"], s=12, label=board)
    ax.axhline(PERFECT, color="grey", ls="--", label=f"perfect play ({PERFECT:.0%})")
    ax.set_xscale("log")
    ax.set_xlabel("training compute (FLOPs)")
    ax.set_ylabel(f"mistakes on the solved positions ({plural(simulations, 'simulation')})")
    ax.legend(fontsize=7)
    save_figure(fig, path)


def plot_iso(curves: pd.DataFrame, path: Path) -> None:
    """The iso-Elo curves: training compute against search compute per move, one line per board and level."""
    fig, ax = new_figure()
    for (board, level), rows in curves.dropna(subset=["train_flops"]).groupby(["board", "level"], sort=False):
        ax.plot(rows["search_flops"], rows["train_flops"], marker="o", label=f"{board}: Elo {level:.0f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("search compute per move (FLOPs)")
    ax.set_ylabel("training compute (FLOPs)")
    ax.set_title("iso-Elo: training against search compute")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6)
    else:
        ax.text(0.5, 0.5, "no level crossed at two budgets yet", ha="center", transform=ax.transAxes)
    save_figure(fig, path)


def levels_of(group: pd.DataFrame, count: int = 3) -> list[float]:
    """Elo levels for the iso-Elo curves: evenly between the weakest and strongest trained network."""
    trained = group[group["train_flops"] > 0]["elo"]
    if trained.empty:
        return []
    return [float(v) for v in np.linspace(trained.min(), trained.max(), count + 2)[1:-1]]


def summary_lines(args: argparse.Namespace, command_line: str, points: pd.DataFrame, ladder: pd.DataFrame,
                  facts: list[BoardFacts], trade: tuple[float, float, float, int]) -> list[str]:
    """The report's ``summary.md``: the frontier, perfect play, the iso-Elo trade and the ladder."""
    return (frontier_lines(args, command_line, points, facts) + perfect_lines(args, facts)
            + trade_lines(trade, ladder))


def frontier_lines(args: argparse.Namespace, command_line: str, points: pd.DataFrame,
                   facts: list[BoardFacts]) -> list[str]:
    """The summary's head and its compute frontier section."""
    runs = " and ".join(f"{plural(n, 'iteration')} on {board_slug(b)}" for b, n in args.board_iterations.items())
    lines = ["# The scaling lab: strength against training and search compute on Connect-N", "",
             f"Reproduce: `{command_line}`", "",
             f"Boards {', '.join(points['board'].unique())} (columns x rows - in a row); networks "
             f"{', '.join(n.name for n in args.nets)} (residual blocks x filters), each from a random network with the "
             f"recipe (docs/alphazero.md) for {runs}; every network after iterations 0, 1, 2, 4, 8, ... and the "
             "last plays at "
             f"{plural(args.simulations, 'simulation')} a move against {', '.join(args.ladder)} "
             f"({args.games} games each, openings of {args.opening_plies} random moves). Elo: one scale per board, "
             "random = 0, 95% bootstrap intervals. Compute: FLOPs estimated from each network's shape; training "
             "counts self-play's network evaluations and three forward passes per trained position; search counts the "
             "evaluations per move of the games. Mistakes: on the critical positions of Pons' six solved sets "
             f"({args.positions} positions a set), from the raw policy and at "
             f"{plural(args.mistake_simulations, 'simulation')}.", "",
             "## The compute frontier", "",
             f"At {plural(args.frontier_simulations, 'simulation')} a move, the best Elo any network reached at each "
             "training compute, fitted as Jones did with a line in log compute up to a plateau (kept only where the "
             "Bayesian information criterion prefers it to a straight line; the frontier holds its best Elo up to the "
             "most compute any run spent, so runs that went on long after their best show as a plateau):", "",
             "| board | frontier points | Elo per 10x training compute | plateau | perfect play (solver) | "
             "best network |", "|---|---:|---:|---:|---:|---|"]
    for fact in facts:
        fit, best = fact.fit, fact.best
        slope = (f"**{fit.slope:.0f}** ({fit.low:.0f} to {fit.high:.0f}, {fit.points} points)" if fit
                 else "too few points")
        plateau = f"{fit.plateau:.0f}" if fit is not None and fit.plateau is not None else "none"
        lines.append(f"| {fact.board} | {fact.frontier_points} | {slope} | {plateau} | {fact.perfect_elo:.0f} | "
                     f"{best['net']} after {plural(int(best['iteration']), 'iteration')} at "
                     f"{plural(int(best['simulations']), 'simulation')}: {best['elo']:.0f} |")
    slopes = [fact.fit.slope for fact in facts if fact.fit is not None]
    if slopes:
        lines += ["", f"Jones measured about {JONES_ELO_PER_DECADE} Elo per 10x along the frontier on Hex; here "
                      f"{' and '.join(f'{s:.0f}' for s in slopes)}, so doubling training compute wins "
                      f"{' and '.join(f'{expected_score(s * math.log10(2), 0):.0%}' for s in slopes)} of the "
                      "games against the network it doubled (Jones: about two in three)."]
    return lines


def perfect_lines(args: argparse.Namespace, facts: list[BoardFacts]) -> list[str]:
    """The summary's perfect play section: the compute to each mistake level, the knees, the growth per step."""
    levels = " | ".join(f"<= {level:.0%}" for level in MISTAKE_LEVELS)
    lines = ["", "![Elo against training compute](elo_vs_training.png)", "", "## Perfect play", "",
              f"Perfect play here is erring on at most {PERFECT:.0%} of the board's critical solved positions at "
              f"{plural(args.frontier_simulations, 'simulation')}. The least training compute (FLOPs) whose network "
              "errs on at most each share of them, the fewest mistakes any network made at any budget, and where the "
              "frontier's fit turns flat, its plateau beside the solver's Elo. Jones read perfect play at that "
              "knee on Hex, which has no draws; on a drawn board Elo stops rising once the networks stop losing "
              "to the solver, and their mistakes can go on falling after it. A plateau whose interval reaches the "
              "solver's is taken as perfect play's level (a frontier is the running best of noisy ratings, so it "
              "leans high); one wholly below it is a stall:", "",
              f"| board | {levels} | fewest mistakes | Elo flat from (95% intervals) |",
              "|---|" + "---:|" * len(MISTAKE_LEVELS) + "---|---|"]
    for fact in facts:
        fewest, fit = fact.fewest, fact.fit
        least = (f"{fewest['mistakes']:.1%} ({fewest['net']} after {plural(int(fewest['iteration']), 'iteration')}, "
                 f"{plural(int(fewest['simulations']), 'simulation')})" if len(fewest) else "not measured")
        flat = (f"{fit.knee_flops:.2g} ({fit.knee_interval[0]:.2g} to {fit.knee_interval[1]:.2g}; Elo "
                f"{fit.plateau:.0f}, {fit.plateau_low:.0f} to {fit.plateau_high:.0f}; solver {fact.perfect_elo:.0f}"
                f"{'' if fact.at_solver else ': a stall below it'}; {fit.flat_share:.0%} of resamples flat)"
                if fit is not None and fit.plateau is not None else "no plateau")
        lines.append(f"| {fact.board} | {' | '.join(reach_cell(fact.reaches[level]) for level in MISTAKE_LEVELS)} "
                     f"| {least} | {flat} |")
    return lines + ["", *growth_per_step(facts), "", "![mistakes against training compute](mistakes_vs_training.png)",
                    ""]


def trade_lines(trade: tuple[float, float, float, int], ladder: pd.DataFrame) -> list[str]:
    """The summary's iso-Elo exchange rate and the ladder's ratings."""
    rate, low, high, count = trade
    return ["## Training against search", "",
              "Along each iso-Elo curve, the training compute at which each network size at each search budget "
              "first reaches the level, at that network's search FLOPs per move (the cheapest in training at each "
              "search compute). " + (
                  f"Pooled over boards and levels ({count} points, one intercept per curve), 10x more search compute "
                  f"per move replaces **{10 ** -rate:.1f}x** the training compute (slope {rate:.2f}, 95% interval "
                  f"{low:.2f} to {high:.2f}, resampling whole curves); Jones found the two trading along straight "
                  "iso-Elo lines on Hex." if count and not math.isnan(rate)
                  else "Too few crossings to measure the exchange rate."), "",
              "![iso-Elo curves](iso_elo.png)", "", "## The ladder", "",
              "| board | engine | Elo | 95% interval | games |", "|---|---|---:|---|---:|",
              *(f"| {r.board} | `{r.engine}` | {r.elo:.0f} | {interval_text(r)} | {r.games} |"
                for r in ladder.itertuples()), ""]


def cost_lines(costs: pd.DataFrame) -> list[str]:
    """The summary's last section: the hours each board's training and games took."""
    lines = ["## What the run cost", "",
             "Training: the runs' wall-clock hours (self-play and learning, every iteration); games: the engines' "
             "hours of thinking, to be divided by the workers that shared them. Measuring the solved positions "
             "comes on top.", "", "| board | training (hours) | games (engine hours) |", "|---|---:|---:|"]
    lines += [f"| {row.board} | {row.train_hours:.1f} | {row.game_hours:.1f} |" for row in costs.itertuples()]
    lines += [f"| all | {costs['train_hours'].sum():.1f} | {costs['game_hours'].sum():.1f} |", ""]
    return lines
