"""The recipe ablation's report (``experiments/headline/recipe_ablation.py``): each run's end,
the variants' table with intervals and verdicts, the summary's sections and the plot of the
mistakes by iteration, from the script's logs (``mistakes.csv``, ``runs.csv``, ``targets.csv``,
``value_targets.csv``)."""
from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dlgo.display.plotting import new_figure, save_figure
from experiments.shared.connectn import MEASURE_SEED, board_slug
from experiments.shared.frontier import PERFECT
from experiments.shared.recipe_variants import (CEILING, CEILING_EPOCHS, LEARN_CANDIDATES, LEARN_SEED, RECIPE,
                                                RECIPE_CEILING, VARIANTS)


def end_of_runs(mistakes: pd.DataFrame) -> pd.DataFrame:
    """Each run's network at its end: the one it published (the last, unless it chose the best)."""
    rows = []
    for (board, variant, seed), run in mistakes.groupby(["board", "variant", "seed"], sort=False):
        published = run[run["published"] == 1]
        chosen = published if not published.empty else run[run["iteration"] == run["iteration"].max()]
        if not chosen.empty:
            rows.append(chosen.iloc[-1])
    order = {name: k for k, name in enumerate(VARIANTS)}  # the variants in the table's order, the ceilings last
    rows.sort(key=lambda row: (str(row["variant"]).startswith(CEILING), order.get(str(row["variant"]), 0)))
    return pd.DataFrame(rows).reset_index(drop=True)


def mean_and_variance(rates: pd.Series, positions: int) -> tuple[float, float]:
    """A variant's mean mistake rate over its seeds and the variance of that mean: the larger
    of the spread between seeds and the binomial spread of the positions (all that one seed has)."""
    mean = float(rates.mean())
    binomial = max(mean * (1 - mean), 1.0 / positions) / positions
    if len(rates) > 1:
        return mean, max(float(rates.var(ddof=1)) / len(rates), binomial)
    return mean, binomial


def variant_table(ends: pd.DataFrame, times: pd.DataFrame) -> pd.DataFrame:
    """Per board and variant: the end's mistakes (raw and at search), mean over seeds with a
    95% interval, the change against the baseline with its interval, and the runs' mean
    iterations and minutes (``times``: rows of the runs' log; blank where none)."""
    rows = []
    for board, on_board in ends.groupby("board", sort=False):
        stats = {}
        for variant, runs in on_board.groupby("variant", sort=False):
            positions = int(runs["positions"].iloc[0])
            stats[variant] = {kind: mean_and_variance(runs[f"mistakes_{kind}"], positions)
                              for kind in ("raw", "search")}
            timed = times[(times["board"] == board) & (times["variant"] == variant)
                          & times["seed"].isin(runs["seed"])]
            row: dict[str, Any] = {"board": board, "variant": variant, "seeds": len(runs), "positions": positions,
                                   "iterations": timed["iterations"].mean(), "minutes": timed["minutes"].mean()}
            for kind, (mean, variance) in stats[variant].items():
                half = 1.96 * math.sqrt(variance)
                row.update({f"{kind}": mean, f"{kind}_low": max(0.0, mean - half), f"{kind}_high": mean + half})
            rows.append(row)
        base = stats.get("baseline")
        for row in rows:
            if row["board"] != board or base is None:
                continue
            for kind in ("raw", "search"):
                mean, variance = stats[row["variant"]][kind]
                change, half = mean - base[kind][0], 1.96 * math.sqrt(variance + base[kind][1])
                row.update({f"{kind}_change": change, f"{kind}_change_low": change - half,
                            f"{kind}_change_high": change + half})
    return pd.DataFrame(rows)


def facts(out: Path) -> dict[str, Any]:
    """The ablation's headline facts (:mod:`dlgo.storage.facts`): ``recipe``, per board the recipe
    variant's mistakes at search (with its interval) and raw, its minutes and its network's
    ceiling, the search's simulations and the boards where it plays perfectly (from
    ``variants.csv`` and ``mistakes.csv``)."""
    table = pd.read_csv(out / "variants.csv").set_index(["board", "variant"])
    boards = []
    for board in dict.fromkeys(table.index.get_level_values("board")):
        if (board, RECIPE) not in table.index:
            continue
        run = table.loc[(board, RECIPE)]
        known = (board, RECIPE_CEILING) in table.index
        ceiling = float(table.loc[(board, RECIPE_CEILING), "search"]) if known else None
        boards.append({"board": board, "ceiling": ceiling, **{column: float(run[column]) for column in (
            "search", "search_low", "search_high", "raw", "minutes")}})
    return {"recipe": {"variant": RECIPE, "perfect_play": PERFECT, "boards": boards,
                       "simulations": int(pd.read_csv(out / "mistakes.csv")["simulations"].max()),
                       "perfect": [b["board"] for b in boards if b["search"] <= PERFECT]}}


def verdict(row: pd.Series) -> str:
    """What the interval of a variant's change at search says."""
    if row["variant"] == "baseline" or str(row["variant"]).startswith(CEILING) or "search_change" not in row \
            or pd.isna(row["search_change"]):
        return ""
    caveat = "" if row["seeds"] > 1 else " (one seed: the spread between seeds not yet known)"
    if row["search_change_high"] < 0:
        return "fewer mistakes" + caveat
    if row["search_change_low"] > 0:
        return "more mistakes" + caveat
    return "within the interval"


def percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def ceilings_missing(table: pd.DataFrame) -> str:
    """The summary's note of the boards without a ceiling row yet (nothing where every board has one)."""
    boards = [board for board, rows in table.groupby("board", sort=False)
              if not rows["variant"].str.startswith(CEILING).any()]
    return f" (none trained yet on {', '.join(boards)})" if boards else ""


def summary_lines(args: argparse.Namespace, command_line: str, table: pd.DataFrame) -> list[str]:
    lines = ["# The recipe's ablation: what keeps AlphaZero from perfect play", "",
             f"Reproduce: `{command_line}`", "",
             f"Each variant changes the scaling lab's recipe as the table of variants below says (most in one "
             f"setting); one run per seed (the seeds column; {', '.join(map(str, args.seeds))} unless the command "
             f"names a variant's own) from a random network, {args.net.name} "
             f"unless the variant names another (or from the scaling lab's network where the variant says so), for "
             + ", ".join(f"{n} iterations on {board_slug(b)}" for b, n in args.board_iterations.items())
             + f" (a variant's own length where the table says); each run's published network measured on its board's "
               f"critical solved positions (Pons' six sets, "
               f"{args.positions} positions a set, seed {MEASURE_SEED}), from its raw policy and after "
               f"{args.simulations} simulations. Intervals: 95%, from the spread between seeds or the "
               "positions' binomial spread, whichever is larger. A change counts where its interval against the "
               "baseline excludes 0. "
               f"The `{CEILING}-` rows are the network's own ceiling: the same architecture (`-heads32`: with heads "
               f"of 32 filters) trained by supervised learning for {CEILING_EPOCHS} epochs on the exact results of "
               f"positions sampled as the sets are (seed {LEARN_SEED}, about {LEARN_CANDIDATES:,} candidates; some "
               "measured positions are among them, as on so small a board they must be), measured the same way"
             + ceilings_missing(table) + ".",
             "", "The minutes are a run's, self-play, training and its own measurements together (2 cores unless the "
                 "runs' log `runs.csv` names another device), the mean over its seeds.",
             "", "| board | variant | seeds | positions | iterations | minutes | raw policy | at search "
                 "| change at search (95%) | verdict |",
             "|---|---|---:|---:|---:|---:|---|---|---|---|"]
    for _, row in table.iterrows():
        change = "" if row["variant"] == "baseline" or pd.isna(row.get("search_change")) else (
            f"{100 * row['search_change']:+.1f} points ({100 * row['search_change_low']:+.1f} to "
            f"{100 * row['search_change_high']:+.1f})")
        length = "" if pd.isna(row["iterations"]) else f"{row['iterations']:.0f}"
        minutes = "" if pd.isna(row["minutes"]) else f"{row['minutes']:.0f}"
        lines.append(f"| {row['board']} | `{row['variant']}` | {row['seeds']} | {row['positions']} | {length} | "
                     f"{minutes} | {percent(row['raw'])} ({percent(row['raw_low'])} to {percent(row['raw_high'])}) | "
                     f"**{percent(row['search'])}** ({percent(row['search_low'])} to {percent(row['search_high'])}) | "
                     f"{change} | {verdict(row)} |")
    lines += ["", "![mistakes by iteration](mistakes_by_iteration.png)", "", "## The variants", "",
              "| variant | what changes | source |", "|---|---|---|"]
    lines += [f"| `{name}` | {VARIANTS[name].about} | {VARIANTS[name].source} |" for name in args.variants]
    return lines


def target_lines(targets: pd.DataFrame) -> list[str]:
    """The summary's section on the targets' study (none without its rows)."""
    if targets.empty:
        return []
    lines = ["", "## How right are self-play's targets?", "",
             "Searching with one run's half-way network, the targets each search would record on the same critical "
             "positions (PUCT with the run's root noise: its visit counts; Gumbel: its improved policy), and the "
             "network's own policy and value: where the policy target's most likely move is a mistake, the "
             "probability it puts on mistakes, and where the root value lies nearest the exact result (above 1/3 a "
             "win, below -1/3 a loss, between a draw). A network trained on targets learns at best what they say.",
             "", "| board | network | search | simulations | positions | policy target's move a mistake | "
             "probability on mistakes | value right |", "|---|---|---|---:|---:|---:|---:|---:|"]
    for row in targets.itertuples():
        search = "none (the network's own)" if row.search == "network" else row.search
        simulations = "" if row.search == "network" else row.simulations
        lines.append(f"| {row.board} | `{row.variant}` after {row.iteration} iterations (seed {row.seed}) | {search} "
                     f"| {simulations} | {row.positions} | {percent(row.policy_mistakes)} | "
                     f"{percent(row.mistake_mass)} | {percent(row.value_right)} |")
    return lines


def unseen_lines(unseen: pd.DataFrame) -> list[str]:
    """The summary's section on the runs judged off the training path (none without its rows)."""
    if unseen.empty:
        return []
    whole = unseen[unseen["stage"] == "all"]
    lines = ["", "## Off the training path", "",
             "Each run's published network on solved positions of every depth that no run trains or publishes by "
             "(`experiments/shared/unseen.py`): from uniform random play and from strong play, each set apart; "
             "mistakes on its critical positions, 95% Wilson intervals.", "",
             "| board | variant | seed | iteration | set | critical | raw policy | at search |",
             "|---|---|---:|---:|---|---:|---|---|"]
    for (board, variant, seed, iteration, play), rows in whole.groupby(
            ["board", "variant", "seed", "iteration", "play"], sort=False):
        raw, searched = (rows[rows["simulations"] == 0].iloc[0], rows[rows["simulations"] > 0].iloc[0])
        lines.append(f"| {board} | `{variant}` | {seed} | {iteration} | {play} | {searched['critical']} | "
                     f"{percent(raw['rate'])} ({percent(raw['low'])} to {percent(raw['high'])}) | "
                     f"**{percent(searched['rate'])}** ({percent(searched['low'])} to {percent(searched['high'])}) |")
    return lines


def value_target_lines(values: pd.DataFrame) -> list[str]:
    """The summary's section on the value targets (none without their rows)."""
    if values.empty:
        return []
    names = {"result": "the game's result", "search value": "the root's search value",
             "mixed": "the two mixed (the lab's: half each)",
             "greedy return": "the result cut at exploratory moves (`greedy_return`)"}
    lines = ["", "## Which value target is right?", "",
             "Self-play with the same network (PUCT with the run's root noise and temperatures), every position of "
             "its games scored by the solver: how often each value target it could learn lies nearest the exact "
             "result (as above), and its mean squared distance from it. The game's result is spoilt by moves "
             "sampled for exploration, which the greedy return leaves out.",
             "", "| board | network | simulations | games | positions | value target | right | squared error |",
             "|---|---|---:|---:|---:|---|---:|---:|"]
    for row in values.itertuples():
        lines.append(f"| {row.board} | `{row.variant}` after {row.iteration} iterations (seed {row.seed}) | "
                     f"{row.simulations} | {row.games} | {row.positions} | {names.get(str(row.target), row.target)} | "
                     f"{percent(row.right)} | {row.mse:.3f} |")
    return lines


def plot_runs(mistakes: pd.DataFrame, path: Path) -> None:
    """Mistakes at search (top) and raw (bottom) against the iteration, a line per variant
    (the mean over seeds), a column per board."""
    boards = list(dict.fromkeys(mistakes["board"]))
    fig, axes = new_figure((5.5 * len(boards) + 1.8, 7.5), 2, len(boards))
    axes = np.asarray(axes).reshape(2, len(boards))
    for col, board in enumerate(boards):
        on_board = mistakes[mistakes["board"] == board]
        for row, (kind, label) in enumerate((("search", "at search"), ("raw", "raw policy"))):
            ax = axes[row][col]
            plotted = 0
            for variant, runs in on_board.groupby("variant", sort=False):
                if str(variant).startswith(CEILING):  # a level to reach, not a run: a dashed line across
                    ax.axhline(100 * runs[f"mistakes_{kind}"].mean(), linestyle="--", linewidth=1, color="grey")
                    ax.annotate(str(variant), (0.01, 100 * runs[f"mistakes_{kind}"].mean()),
                                xycoords=("axes fraction", "data"), fontsize=6, color="grey", va="bottom")
                    continue
                curve = runs.groupby("iteration")[f"mistakes_{kind}"].mean()
                ax.plot(curve.index, 100 * curve.values, marker="o", markersize=3, label=variant,
                        color=f"C{plotted % 10}", linestyle="-" if plotted < 10 else "--")  # ten colours, then dashed
                plotted += 1
            ax.set_yscale("log")
            if row == 1:  # below the lower panels only: clear of their titles
                ax.set_xlabel("iteration")
            ax.set_ylabel(f"mistakes {label} (% of critical positions)")
            ax.set_title(f"{board}: {label}")
            ax.grid(alpha=0.3)
    # beside the panels, clear of the lines
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save_figure(fig, path)
