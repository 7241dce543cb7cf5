"""What buys AlphaZero strength cheaply on Connect Four: one training run per economy, judged by perfect play.

    python experiments/headline/alphazero_economies.py --variants gumbel16 puct100   # a budget of hours each
    python experiments/headline/alphazero_economies.py --out reports/alphazero-economies-connect4
    python experiments/headline/alphazero_economies.py --quick

Each variant is a training run from a random network (``engines.training.alphazero``)
that differs from the suite's recipe, after ``connect4-full``'s (PUCT with
100 simulations a move, Dirichlet noise, the visit counts as the policy target,
half the result and half the root's search value as the value target, a
5-block 64-filter ResNet; 256 games an iteration, the last 5,000 in the
buffer), in one setting, each with its source:

* ``gumbel16``: Gumbel AlphaZero's search with 16 simulations, its improved
  policy as the target (Danihelka et al., ICLR 2022);
* ``puct16``: PUCT with the same 16 simulations (the control for Gumbel);
* ``puct200``: PUCT with 200 simulations (the issue's reference training);
* ``forced``: KataGo's forced playouts and policy target pruning, k = 2 (Wu 2019);
* ``capped``: KataGo's playout cap randomisation: a quarter of the moves
  searched with 100 simulations and learnt from, the rest with 20 (Wu 2019);
* ``results-only``: the value target is the game's result alone (AlphaZero's),
  not mixed with the search value (Oracle's Connect Four study);
* ``window``: KataGo's replay window: 1,000 games (four iterations') at first,
  growing sublinearly with the games played (Wu 2019, appendix C); the
  recipe's fixed 5,000 games hold every game of a run of a few hours;
* ``puct16-drops``: ``puct16`` with a step schedule, the learning rate times 0.3
  at iterations 30 and 45 (AlphaZero's schedule, scaled to a two-hour run of
  the cheap search; the control is ``puct16``);
* ``moves-left``: an auxiliary head that learns the plies to the end of the
  game (KataGo's auxiliary targets, section 4; Connect Four has no ownership or score).

Every run is measured after every iteration on the same fixed reference: the
293 critical positions of the early-game solved sets (``begin-easy``,
``begin-medium``, ``begin-hard``; positions where some move changes the
game-theoretic result), with the raw policy and after the run's own search
of 50 simulations; the published network is the best by it. Each run stops at
its compute budget (``--hours`` of its own iterations' time, resumable across
sessions) or ``--iterations``.

The ablation spans sessions and machines: the report keeps, from the
``economies.csv`` already in --out, the variants this command did not train
(with the command that made each row), so each variant can be trained where and
when there is time, and the report still shows them all.

Writes ``economies.csv`` (every variant's iterations), ``summary.md`` (the
published networks' mistakes with 95% Wilson intervals, the self-play network
evaluations and minutes they took), ``mistakes_vs_evaluations.png`` (the
searched mistake rate against cumulative self-play evaluations, one line per
variant) and ``mistakes_vs_minutes.png`` to --out; each variant's run folder is
``--work/VARIANT``. A run's seconds are this machine's, as loaded as it was.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import math
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from dlgo.arena.ratings import wilson_interval
from dlgo.core.arguments import count
from dlgo.core.errors import SpecError
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.display.plotting import new_figure, save_figure
from engines.alphazero import NetworkEvaluator
from engines.neural.loading import load_network
from engines.training.alphazero_config import AlphaZeroConfig, pre_recipe_config
from engines.training.references import measure_reference, reference_positions
from experiments.shared import chapters, ladders

NAME = "alphazero-economies-connect4"


def recipe(seed: int = 0) -> AlphaZeroConfig:
    """The suite's Connect Four recipe: ``connect4-full``'s search, noise, targets and
    network (chapter 14b's full run), with 256 games an iteration (twice its 128: one
    batch of 256 games in step is faster) and a buffer of the 5,000 latest games, no
    learning-rate drop within a run of hours; measured on the critical early-game
    positions every iteration and publishing its best."""
    return pre_recipe_config(game="connect4", blocks=5, filters=64, learning_rate=1e-3, l2=1e-4,
                             learning_rate_drops=[100, 120], learning_rate_drop=0.3, games=256, parallel=256,
                             simulations=100, c=1.5, dirichlet_alpha=1.0, dirichlet_epsilon=0.25, temperature_moves=8,
                             buffer_games=5000, batch_size=256, train_steps=150, eval_games=10, eval_simulations=50,
                             previous_games=20, baselines=["random", "mcts:rounds=1000"], baseline_every=10,
                             search_value_weight=0.5, reference_positions=1000, publish="best", seed=seed)


def quick_recipe(seed: int = 0) -> AlphaZeroConfig:
    """Tiny settings that run every variant's pipeline in seconds."""
    return pre_recipe_config(game="connect4", blocks=1, filters=8, games=4, parallel=4, simulations=8, train_steps=2,
                             batch_size=32, eval_games=0, eval_simulations=4, previous_games=2, baselines=[],
                             reference_positions=2, publish="best", seed=seed)


@dataclass(frozen=True)
class Variant:
    """One economy: what it changes in the recipe, and where it comes from."""

    name: str
    change: str
    source: str
    apply: Callable[[AlphaZeroConfig], AlphaZeroConfig]


def _search(simulations: int, gumbel: int = 0) -> Callable[[AlphaZeroConfig], AlphaZeroConfig]:
    """The recipe with another self-play search."""
    return lambda config: replace(config, simulations=simulations, gumbel=gumbel)


VARIANTS = {v.name: v for v in [
    Variant("puct100", "the recipe: PUCT, 100 simulations", "AlphaZero (Silver et al. 2018)", lambda c: c),
    Variant("gumbel16", "Gumbel search, 16 simulations, improved-policy targets",
            "Gumbel AlphaZero (Danihelka et al. 2022)", _search(16, gumbel=16)),
    Variant("puct16", "PUCT, 16 simulations", "the control for gumbel16", _search(16)),
    Variant("puct200", "PUCT, 200 simulations", "the issue's reference training", _search(200)),
    Variant("forced", "forced playouts and policy target pruning, k = 2", "KataGo (Wu 2019, 3.1)",
            lambda c: replace(c, forced_playouts=2.0)),
    Variant("capped", "playout cap randomisation: 25% of moves at 100 simulations, the rest at 20",
            "KataGo (Wu 2019, 3.2)",
            lambda c: replace(c, fast_simulations=max(1, c.simulations // 5), full_fraction=0.25)),
    Variant("results-only", "value target: the game's result only", "AlphaZero; against Oracle's mix",
            lambda c: replace(c, search_value_weight=0.0)),
    Variant("window", "a replay window of 1,000 games growing with the games played (alpha 0.75)",
            "KataGo (Wu 2019, appendix C)", lambda c: replace(c, buffer_games=1000, window_alpha=0.75)),
    Variant("puct16-drops", "PUCT, 16 simulations, the learning rate times 0.3 at iterations 30 and 45",
            "AlphaZero's step schedule; against puct16",
            lambda c: replace(c, simulations=16, learning_rate_drops=[30, 45], learning_rate_drop=0.3)),
    Variant("moves-left", "an auxiliary head learning the moves to the end", "KataGo (Wu 2019, section 4)",
            lambda c: replace(c, auxiliary=["moves_left"])),
]}


def build_parser() -> argparse.ArgumentParser:
    p = chapters.parser(__file__, __doc__, name=NAME, work="the variants' training runs, resumable")
    p.add_argument("--variants", nargs="+", default=list(VARIANTS), metavar="VARIANT",
                   help=f"the runs to train and report (default all: {', '.join(VARIANTS)})")
    p.add_argument("--hours", type=float, default=2.0,
                   help="each run's compute budget: its iterations' hours on this machine (default 2)")
    p.add_argument("--iterations", type=count("steps"), default=200,
                   help="at most this many iterations a run (default 200)")
    p.add_argument("--workers", type=count("processes"), default=1, help="self-play processes (default 1)")
    return p


def train_variants(args: argparse.Namespace) -> pd.DataFrame:
    """Train (or go on training) every asked variant to its budget; their histories, one table."""
    from engines.training.alphazero import train_alphazero  # loads TensorFlow

    base = quick_recipe(args.seed) if args.quick else recipe(args.seed)
    iterations, budget = (1, math.inf) if args.quick else (args.iterations, args.hours * 3600)
    histories = []
    for name in args.variants:
        config = VARIANTS[name].apply(base)
        history = train_alphazero(Path(args.work) / name, config, iterations, workers=args.workers,
                                  budget_seconds=budget)
        histories.append(history.assign(variant=name))
    return pd.concat(histories, ignore_index=True)


def earlier_variants(path: Path, trained: list[str], summary: Path) -> pd.DataFrame:
    """The rows of the variants in an earlier ``economies.csv`` at ``path`` that this command
    did not train (their run folders may be on another machine), in the report's order; a
    row without its command takes the one the earlier ``summary`` names."""
    if not path.exists():
        return pd.DataFrame()
    earlier = pd.read_csv(path)
    earlier = earlier[earlier["variant"].isin([name for name in VARIANTS if name not in trained])]
    if "command" not in earlier:
        earlier = earlier.assign(command=pd.NA)
    reproduce = [line for line in (summary.read_text().splitlines() if summary.exists() else [])
                 if line.startswith("Reproduce: `")]
    if reproduce:
        earlier = earlier.assign(command=earlier["command"].fillna(reproduce[0].split("`")[1]))
    return earlier


def in_report_order(table: pd.DataFrame) -> pd.DataFrame:
    """The variants in the order :data:`VARIANTS` lists them, each run's iterations in order."""
    order = {name: k for k, name in enumerate(VARIANTS)}
    return table.sort_values(["variant", "iteration"], key=lambda column: column.map(order) if
                             column.name == "variant" else column, kind="stable").reset_index(drop=True)


def reproduce_lines(table: pd.DataFrame) -> list[str]:
    """The commands that made the table's runs, each with the variants it made."""
    commands = table.drop_duplicates("variant").groupby("command", sort=False)["variant"].apply(list)
    if len(commands) == 1:
        return [f"Reproduce: `{commands.index[0]}`"]
    return ["Reproduce (the variants were trained by separate commands, each resuming in `--work/VARIANT`):", "",
            *(f"- {', '.join(variants)}: `{line}`" for line, variants in commands.items())]


def with_totals(table: pd.DataFrame) -> pd.DataFrame:
    """Each iteration's cumulative self-play evaluations and minutes, per variant."""
    table = table.copy()
    grouped = table.groupby("variant", sort=False)
    table["cumulative_evaluations"] = grouped["selfplay_evaluations"].transform(lambda s: s.fillna(0).cumsum())
    table["cumulative_minutes"] = grouped["seconds"].transform(lambda s: s.fillna(0).cumsum() / 60)
    return table


def published_row(runs: pd.DataFrame) -> pd.Series:
    """One variant's row for the network it published at its last iteration."""
    return runs[runs["iteration"] == runs.iloc[-1]["published"]].iloc[0]


def summary_rows(table: pd.DataFrame) -> list[str]:
    """Per variant: its published network's mistakes (95% Wilson intervals), the mean
    searched rate of its last three iterations (the published network is the best of
    many noisy measurements on the same positions, so its rate flatters it a little),
    and what it cost."""
    lines = ["| variant | change | iterations | published | mistakes, search | mistakes, raw | last three, search "
             "| self-play evaluations to it | minutes to it | minutes in all |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, runs in table.groupby("variant", sort=False):
        last, published = runs.iloc[-1], published_row(runs)
        recent = runs[runs["iteration"] > 0]["mistakes_search"].tail(3).mean()
        n = int(published["reference_positions"])
        cells = []
        for column in ("mistakes_search", "mistakes_raw"):
            low, high = wilson_interval(published[column], n)
            cells.append(f"{published[column]:.1%} ({low:.1%}-{high:.1%})")
        lines.append(f"| {name} | {VARIANTS[name].change}; {VARIANTS[name].source} | {int(last['iteration'])} | "
                     f"{int(published['iteration'])} | {cells[0]} | {cells[1]} | {recent:.1%} | "
                     f"{published['cumulative_evaluations']:,.0f} | {published['cumulative_minutes']:.0f} | "
                     f"{last['cumulative_minutes']:.0f} |")
    return lines


#: the run the others are priced against: the issue's reference training
REFERENCE_VARIANT = "puct200"


def first_reaching(table: pd.DataFrame, reference: str = REFERENCE_VARIANT
                   ) -> tuple[pd.Series, dict[str, pd.Series | None]] | None:
    """The reference run's published row and, per variant, its first iteration at or
    below that searched mistake rate (None: not reached). None without the reference run."""
    if reference not in set(table["variant"]):
        return None
    best = published_row(table[table["variant"] == reference])
    firsts: dict[str, pd.Series | None] = {}
    for name, runs in table.groupby("variant", sort=False):
        reached = runs[runs["mistakes_search"] <= best["mistakes_search"]]
        firsts[str(name)] = None if reached.empty else reached.iloc[0]
    return best, firsts


def reach_rows(table: pd.DataFrame, reference: str = REFERENCE_VARIANT) -> list[str]:
    """What each variant paid to reach the reference run's published (best) searched
    mistake rate: the self-play evaluations to its first iteration at or below it,
    and their share of the reference run's. Empty without the reference run."""
    reach = first_reaching(table, reference)
    if reach is None:
        return []
    best, firsts = reach
    level, cost = float(best["mistakes_search"]), float(best["cumulative_evaluations"])
    lines = [f"Evaluations to reach {reference}'s published mistake rate ({level:.1%} with search, after "
             f"{cost:,.0f} self-play evaluations): a single iteration's rate is measured on "
             f"{int(best['reference_positions'])} positions, so read it with the intervals above.", "",
             "| variant | first iteration at or below it | self-play evaluations to it | share of "
             f"{reference}'s |", "|---|---:|---:|---:|"]
    for name, runs in table.groupby("variant", sort=False):
        first = firsts[str(name)]
        if first is None:
            lines.append(f"| {name} | not reached by iteration {int(runs['iteration'].max())} | - | - |")
            continue
        share = f"{first['cumulative_evaluations'] / cost:.0%}" if cost else "-"
        lines.append(f"| {name} | {int(first['iteration'])} | {first['cumulative_evaluations']:,.0f} | {share} |")
    return [*lines, ""]


@dataclass(frozen=True)
class AtBudget:
    """One variant after a given number of self-play evaluations."""

    iterations: int  # its iterations by then
    best: pd.Series  # the iteration it would have published by then (its best measured so far)
    recent: float  # the mean searched mistake rate of its last three iterations by then (nan: none yet)


def common_budget(table: pd.DataFrame) -> tuple[float, dict[str, AtBudget]]:
    """Every variant at the self-play evaluations of the run that spent fewest."""
    budget = float(table.groupby("variant", sort=False)["cumulative_evaluations"].max().min())
    variants = {}
    for name, runs in table.groupby("variant", sort=False):
        within = runs[runs["cumulative_evaluations"] <= budget]
        if within.empty:  # no measurement by then (an older table without the start's row 0)
            continue
        recent = within[within["iteration"] > 0]["mistakes_search"].tail(3)
        variants[str(name)] = AtBudget(int(within["iteration"].max()), within.loc[within["mistakes_search"].idxmin()],
                                       float(recent.mean()) if len(recent) else math.nan)
    return budget, variants


def common_budget_rows(table: pd.DataFrame) -> list[str]:
    """Every variant at the same compute: the self-play evaluations of the run that
    spent fewest. Per variant, the network it would have published by then (its best
    measured iteration so far) and, less lucky than a best of many noisy measurements,
    the mean searched mistake rate of its last three iterations by then."""
    budget, variants = common_budget(table)
    lines = [f"Every variant at the same compute, {budget:,.0f} self-play evaluations (what the run that spent "
             "fewest spent in all):", "",
             "| variant | iterations by then | published by then | its mistakes, search | mean of the last three |",
             "|---|---:|---:|---:|---:|"]
    for name, at in variants.items():
        best = at.best
        low, high = wilson_interval(best["mistakes_search"], int(best["reference_positions"]))
        lines.append(f"| {name} | {at.iterations} | {int(best['iteration'])} | "
                     f"{best['mistakes_search']:.1%} ({low:.1%}-{high:.1%}) | "
                     + (f"{at.recent:.1%} |" if not math.isnan(at.recent) else "- |"))
    return [*lines, ""]


#: the network these runs' recipe made (chapter 14b's full run), shipped until the recipe's replaced it
REFERENCE_NETWORK = "connect4-full"


def shipped_reference(base: AlphaZeroConfig) -> tuple[float, float]:
    """The full run's network's mistakes (raw, PUCT at the runs' evaluation budget) on the same
    reference positions: the line a run of its recipe must cross to improve on it."""
    positions = reference_positions(base.game, base.reference_positions)
    measured = measure_reference(NetworkEvaluator(load_network(REFERENCE_NETWORK)), positions, base.match_settings())
    return measured.raw, measured.search


def shipped_cost() -> str:
    """What the full run's network's training cost, from its committed history: its
    iterations, minutes and, at most, self-play evaluations (that run did not count
    them: its first iteration's positions, times the iterations, times 100 simulations)."""
    path = ladders.REPORTS / "alphazero-connect4" / "history.csv"
    if not path.exists():
        return ""
    history = pd.read_csv(path)
    bound = int(history["examples"].iloc[0]) * len(history) * 100
    return (f": {len(history)} iterations of PUCT self-play at 100 simulations a move, "
            f"{history['seconds'].sum() / 60:.0f} minutes on this machine, at most {bound / 1e6:.0f} million "
            "self-play evaluations")


def plot_against(table: pd.DataFrame, x: str, label: str, path: Path, shipped: tuple[float, float],
                 scale: float = 1.0) -> None:
    """The searched and raw mistake rates of every variant against ``x`` (divided by
    ``scale``), the full run's network's as grey lines."""
    fig, axis = new_figure((7, 4.5))
    for k, (name, runs) in enumerate(table.groupby("variant", sort=False)):
        axis.plot(runs[x] / scale, runs["mistakes_search"], "-", marker=".", color=f"C{k}", label=f"{name} (search)")
        axis.plot(runs[x] / scale, runs["mistakes_raw"], ":", color=f"C{k}", alpha=0.7, label=f"{name} (raw)")
    axis.axhline(shipped[1], color="0.4", linestyle="-", linewidth=1, label=f"{REFERENCE_NETWORK} (search)")
    axis.axhline(shipped[0], color="0.4", linestyle=":", linewidth=1, label=f"{REFERENCE_NETWORK} (raw)")
    axis.set(xlabel=label, ylabel="share of critical early-game positions lost", ylim=(0, None),
             title="Connect Four: mistakes against perfect play during training")
    axis.grid(alpha=0.3)
    axis.legend(fontsize="small", ncol=2)
    save_figure(fig, path)


def facts(out: Path) -> dict[str, Any]:
    """The ablation's headline facts (:mod:`dlgo.storage.facts`) from its ``economies.csv``:
    ``economies``, every variant at the thriftiest run's self-play evaluations (its iterations and
    best searched mistake rate by then), what the others paid to reach the reference run's
    published rate, and each variant's published network (mistakes with search and raw, the
    evaluations it took); ``positions`` is the critical positions measured, ``simulations`` the search's."""
    table = pd.read_csv(out / "economies.csv")
    budget, at = common_budget(table)
    reach, firsts = first_reaching(table), []
    if reach is not None:
        firsts = [{"variant": name, "evaluations": float(row["cumulative_evaluations"])}
                  for name, row in reach[1].items() if row is not None and name != str(reach[0]["variant"])]
    return {"economies": {
        "budget": budget, "positions": int(table["reference_positions"].max()),
        "simulations": recipe().eval_simulations,
        "at_budget": [{"variant": name, "iterations": v.iterations, "mistakes_search": float(v.best["mistakes_search"])}
                      for name, v in at.items()],
        "reach": None if reach is None else {
            "variant": str(reach[0]["variant"]), "mistakes_search": float(reach[0]["mistakes_search"]),
            "evaluations": float(reach[0]["cumulative_evaluations"]), "firsts": firsts},
        "published": [{"variant": str(name), **{column: float(published_row(runs)[column]) for column in
                                                ("mistakes_search", "mistakes_raw", "cumulative_evaluations")}}
                      for name, runs in table.groupby("variant")]}}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown:
        raise SpecError(f"unknown variant {', '.join(unknown)}; the variants: {', '.join(VARIANTS)}")
    if not args.hours > 0:
        raise SpecError(f"--hours must be above 0, got {args.hours}")
    chapters.take_folders(args)
    out = Path(args.out)
    trained = with_totals(train_variants(args))
    command_line = chapters.command(__file__, argv, {"--seed": args.seed, "--workers": args.workers})
    earlier = earlier_variants(out / "economies.csv", args.variants, out / "summary.md")
    table = in_report_order(pd.concat([trained.assign(command=command_line), earlier], ignore_index=True))
    with atomic_write(out / "economies.csv") as handle:
        table.to_csv(handle, index=False)
    base = quick_recipe(args.seed) if args.quick else recipe(args.seed)
    shipped = shipped_reference(base)
    plot_against(table, "cumulative_evaluations", "self-play network evaluations (millions)",
                 out / "mistakes_vs_evaluations.png", shipped, scale=1e6)
    plot_against(table, "cumulative_minutes", "minutes of training (self-play, learning, measuring)",
                 out / "mistakes_vs_minutes.png", shipped)
    missing = [name for name in VARIANTS if name not in set(table["variant"])]
    lines = ["# AlphaZero's economies on Connect Four, judged by perfect play", "",
             *reproduce_lines(table), "",
             "Each run starts from a random network and differs from the recipe in one setting; after every "
             "iteration its network plays the critical early-game positions of the solved sets, raw and after "
             "its own search of 50 simulations; the published network is its best by that. Mistakes: the share "
             "of those positions where its move changed the game-theoretic result (95% Wilson interval); as the "
             "best of a run's measurements it flatters the network a little, so the mean of its last three "
             "iterations stands beside it. Self-play "
             "evaluations are counted by the runs; minutes are this machine's, as busy as it was while each ran "
             "(compare evaluations across runs, minutes only on a quiet machine).", "",
             *summary_rows(table), "",
             *reach_rows(table),
             *common_budget_rows(table),
             f"The full run's network (`checkpoints/{REFERENCE_NETWORK}.keras`{shipped_cost()}; it shipped until "
             f"the recipe's replaced it) on the same positions: **{shipped[1]:.1%}** with PUCT at "
             f"{base.eval_simulations} simulations, {shipped[0]:.1%} raw (the grey lines). A run's published network "
             "improves on it if it does better here and in games.", "",
             *([f"Variants not in this report yet: {', '.join(missing)} (`--variants`; each resumes in "
                f"`--work/VARIANT`).", ""] if missing else []),
             "![mistakes against self-play evaluations](mistakes_vs_evaluations.png)", "",
             "![mistakes against minutes](mistakes_vs_minutes.png)", ""]
    chapters.write_lines(out / "summary.md", lines)
    update_facts(out, facts(out))
    print(f"report: {out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
