"""The scaling lab's findings (reports/scaling-connectn): docs/alphazero.md's table, the course's
step 15 and the README's answer."""
from __future__ import annotations

import math
from typing import Any

from dlgo.arena.ratings import expected_score
from dlgo.storage.facts import read_facts
from scripts.figures import common
from scripts.figures.common import plural

SCALING = "scaling-connectn"
SCALING_COMMAND = "python experiments/headline/scaling.py --workers 2 --out reports/scaling-connectn"
NOT_YET = f"*The full run has not been committed yet: `{SCALING_COMMAND}`.*\n"


def scaling_facts() -> dict[str, Any] | None:
    """The lab's facts (None until a finished run's report is there)."""
    return read_facts(common.REPORTS / SCALING).get("scaling")


def slope_cell(board: dict[str, Any]) -> str:
    """A board's Elo per 10x of training compute with its interval ("too few points" without a fit)."""
    if math.isnan(board["elo_per_decade"]):
        return "too few points"
    return f"{board['elo_per_decade']:.0f} ({board['elo_per_decade_low']:.0f} to {board['elo_per_decade_high']:.0f})"


def exchange_words(rate: dict[str, Any]) -> str:
    """How much training compute 10x (and 2x) the search replaces, or why that was not measured."""
    if math.isnan(rate["slope"]):
        return "too few iso-Elo crossings to measure how much training the search replaces"
    if rate["slope_high"] >= 0:
        return (f"no measurable trade of search for training compute (slope {rate['slope']:.2f}, 95% interval "
                f"{rate['slope_low']:.2f} to {rate['slope_high']:.2f})")
    return (f"10x the search compute per move replaces **{rate['training_per_10x_search']:.1f}x** the training "
            f"compute (95% interval {10 ** -rate['slope_high']:.1f}x to {10 ** -rate['slope_low']:.1f}x, "
            f"{int(rate['points'])} points), so doubling the search stands in for "
            f"{2 ** -rate['slope']:.1f}x the training")


def flops_cell(value: float) -> str:
    return "not reached" if math.isnan(value) else f"{value:.2g}"


def scaling_answer() -> str:
    """The scaling lab in one cell: Elo per 10x of training, and search for training."""
    lab = scaling_facts()
    if lab is None:
        return f"not measured yet: `{SCALING_COMMAND}`"
    slopes = ", ".join(f"{board['board']} {slope_cell(board)}" for board in lab["boards"])
    return (f"Elo per 10x of training compute along the frontier: {slopes} (Jones on Hex: about 500); "
            f"{exchange_words(lab['exchange']).replace('**', '')}")


def scaling() -> str:
    """The scaling lab's findings per board (docs/alphazero.md), from reports/scaling-connectn."""
    lab = scaling_facts()
    if lab is None:
        return NOT_YET
    lines = [f"At {lab['simulations']} simulations a move ([reports/{SCALING}](reports/{SCALING}/summary.md); "
             "FLOPs of training):", "",
             "| board | Elo per 10x (95%) | Elo flat from (95%) | <= 5% mistakes | <= 1% mistakes (perfect) | "
             "fewest mistakes (any budget) | training hours (all networks) |", "|---|---:|---|---:|---:|---:|---:|"]
    for board in lab["boards"]:
        flat = ("no plateau" if math.isnan(board["plateau_flops"]) else
                f"{board['plateau_flops']:.2g} ({board['plateau_flops_low']:.2g} to {board['plateau_flops_high']:.2g}) "
                f"at Elo {board['plateau']:.0f} (solver {board['solver_elo']:.0f}"
                f"{')' if board['plateau_at_solver'] else ': a stall below it)'}")
        fewest = "not measured" if math.isnan(board["fewest_mistakes"]) else f"{board['fewest_mistakes']:.1%}"
        lines.append(f"| {board['board']} | {slope_cell(board)} | {flat} | {flops_cell(board['flops_to_5pct'])} | "
                     f"{flops_cell(board['flops_to_1pct'])} | {fewest} | {board['train_hours']:.1f} |")
    lines += ["", f"Along iso-Elo curves, {exchange_words(lab['exchange']).replace('**', '')}.", "",
              f"![Elo against training compute](reports/{SCALING}/elo_vs_training.png)"]
    return "\n".join(lines) + "\n"


def course_run(lab: dict[str, Any]) -> str | None:
    """Where the course's own run (one network on the smallest board) lands in the full run."""
    small, row, budget = lab["boards"][0], lab["course"], lab["simulations"]
    if "elo" not in row:
        return None
    if math.isnan(small["plateau_flops"]):
        flat = "its frontier had not turned flat by the end of the run"
    elif not small["plateau_at_solver"]:
        flat = f"its frontier stalls below the solver, at Elo {small['plateau']:.0f}"
    elif small["plateau_flops"] > row["train_flops"]:
        flat = (f"its frontier turns flat at Elo {small['plateau']:.0f} from {small['plateau_flops']:.2g} FLOPs, "
                f"{small['plateau_flops'] / row['train_flops']:.1f}x further on")
    else:
        flat = f"its frontier had already turned flat, at Elo {small['plateau']:.0f}"
    return (f"The full run's `{row['net']}` network on {small['board']} after {row['iterations']} iterations, "
            f"what the course's command trains ({plural(max(1, round(row['train_seconds'] / 60)), 'minute')} of "
            f"training there, {row['train_flops']:.2g} FLOPs), rates **{row['elo']:.0f}** ({row['elo_low']:.0f} to "
            f"{row['elo_high']:.0f}) at {budget} simulations, where random play is 0 and the solver "
            f"{small['solver_elo']:.0f}; {flat}. Your own run rates its networks on its own scale (random is 0 "
            "there too) from its own games, so expect it near, not on, that figure.")


def course_scaling() -> str:
    """Step 15's findings: where the course's run lands and what doubling each compute buys."""
    lab = scaling_facts()
    if lab is None:
        return NOT_YET
    slopes = "; ".join(f"{board['board']} ({board['cells']} points): {slope_cell(board)}" for board in lab["boards"])
    lines = [f"In the committed run ([reports/{SCALING}](reports/{SCALING}/summary.md)) each 10x of training compute "
             f"buys, along the frontier at {lab['simulations']} simulations a move, in Elo: {slopes} (Jones measured "
             "about 500 on Hex)."]
    run = course_run(lab)
    if run is not None:
        lines.append(run)
    rising = [board["elo_per_decade"] for board in lab["boards"] if not math.isnan(board["elo_per_decade"])]
    if rising:
        train_gain = sum(rising) / len(rising) * math.log10(2)
        lines.append(f"Doubling the training compute buys about **{train_gain:.0f} Elo** on the rising frontier "
                     f"(averaged over the boards): the doubled run's network wins {expected_score(train_gain, 0):.0%} "
                     "of its games against the network it doubled.")
    if lab["search_doubling"]:
        search = ", ".join(f"**{gain:.0f}** from {small_budget} to {large_budget}"
                           for small_budget, large_budget, gain in lab["search_doubling"])
        lines.append(f"Each doubling of the search buys each run's last network, in Elo averaged over the runs: "
                     f"{search} simulations a move.")
    lines.append(f"Along iso-Elo curves, {exchange_words(lab['exchange'])}.")
    return "\n\n".join(lines) + "\n"
