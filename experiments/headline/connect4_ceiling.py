"""How far Connect Four's self-play is from the truth: the same network learnt from the solver.

    python experiments/headline/connect4_ceiling.py --workers 2    # 40 minutes on 2 cores, its positions solved
    python experiments/headline/connect4_ceiling.py --quick        # a minute: tiny settings

The recipe run's network (``ch14b_alphazero_connect4.py --preset recipe``: 5
residual blocks of 64 filters, heads of 32) learns the solver's truth by
supervised learning (:mod:`engines.training.solver_supervised`): for its value
the exact result of each position, for its policy the moves that keep it. The
positions are sampled as Pons' six sets are, from 12 stones on (each solves in
about a second or less; seed 2, so never the positions it is judged on), every
candidate solved: ``--work``/learn-2000 (``dlgo positions --per-set 2000 --seed 2
--begin-from 12``; hours on 2 cores, resumable, and kept in the repository's
``resume/connect4-ceiling``). One run learns all of them, others a nested
share (an eighth, a quarter, a half), each for the same number of training
steps and published at its best epoch by held-out loss: how the truth's
ceiling grows with the truth there is to learn.

Each of these networks and the self-play networks named by ``--selfplay`` (the
shipped ``connect4`` by default) is measured the same way on the critical
positions of the suite's Connect Four sets (``dlgo/data/positions/connect-7x6-4.csv``,
533 of 1,020): the share of them where its raw policy, and its move after
``--simulations`` simulations of PUCT search, changes the result, with 95%
intervals. The solver's time to label a position, timed on a sample of the
learning set, puts a price on the truth: a straight line through the
ceilings against the log of the positions learnt says how many the network
would need to match self-play, and what labelling them would cost.

Writes ``ceiling.csv`` (a row per network, appended as measured: a rerun
measures nothing twice), ``labelling.csv``, ``ceiling.png``, ``summary.md`` and
``facts.json`` to ``--out``; the runs themselves live in ``--work``.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from dlgo.arena.ratings import wilson_interval
from dlgo.core.arguments import count
from dlgo.display.plotting import new_figure, save_figure
from dlgo.data.solved import bitboard_solver, generate_positions, shipped_sets
from dlgo.formats.positions import SolvedPosition, append_row, open_log, position_state, read_positions
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from engines.checkpoints import resolve_model_path
from engines.training.solver_data import SolverSettings, measure_network
from experiments.shared import chapters

GAME = "connectn:columns=7,rows=6,n=4"
#: the learning set: positions a set, seed (the recipe run's references are its first 250 a set), fewest stones
LEARN_PER_SET, LEARN_SEED, LEARN_FROM = 2000, 2, 12
SHARES = (8, 4, 2, 1)  # each run learns 1/share of the learning set's distinct positions
EPOCHS = 30            # the whole set's epochs; a share's run takes as many steps
LABEL_SAMPLE = 60      # learning positions timed to price a label
COLUMNS = ["network", "kind", "learnt", "held_out", "epochs", "best_epoch", "train_minutes", "positions", "seen",
           "simulations", "mistakes_raw", "mistakes_search"]


def build_parser() -> argparse.ArgumentParser:
    p = chapters.parser(__file__, __doc__, name="connect4-ceiling", work="the learning set and the runs")
    p.add_argument("--selfplay", nargs="*", default=["connect4"],
                   help="self-play networks to measure beside the ceilings (names or .keras files; default connect4)")
    p.add_argument("--simulations", type=count("simulations"), default=200,
                   help="PUCT simulations a move (default 200)")
    p.add_argument("--epochs", type=count("steps"), default=EPOCHS, help=f"epochs of the whole set (default {EPOCHS})")
    p.add_argument("--workers", type=count("processes"), default=None,
                   help="processes solving the learning set (default all)")
    return p


def learning_set(args: argparse.Namespace) -> list[SolvedPosition]:
    """Every solved candidate of the learning set (solved now where it is not yet: resumable)."""
    per_set, most = (2, 30) if args.quick else (LEARN_PER_SET, None)
    folder = generate_positions(GAME, Path(args.work) / f"learn-{per_set}", per_set=per_set, seed=LEARN_SEED,
                                begin_from=13 if args.quick else LEARN_FROM, workers=args.workers,
                                max_candidates=most, progress=not args.quick).parent
    return read_positions(folder / "candidates.csv")


def measured_set(quick: bool) -> list[SolvedPosition]:
    """The suite's solved Connect Four sets (their critical positions are measured); a few with ``--quick``."""
    path = shipped_sets(GAME)
    assert path is not None, "the suite ships its Connect Four sets"
    positions = read_positions(path)
    return [p for p in positions if p.critical][:12] if quick else positions


def settings_for(args: argparse.Namespace, epochs: int) -> SolverSettings:
    """The recipe run's network and training settings, the learning rate / 10 for the last third."""
    if args.quick:
        return SolverSettings(blocks=1, filters=8, seed=args.seed)
    return SolverSettings(blocks=5, filters=64, policy_filters=32, value_filters=32,
                          learning_rate_drops=[2 * epochs // 3 + 1], seed=args.seed)


def nested_share(positions: Sequence[SolvedPosition], share: int, seed: int) -> list[SolvedPosition]:
    """The first 1/``share`` of ``positions`` in a seeded order: each share holds the smaller ones."""
    order = np.random.default_rng([seed, 7]).permutation(len(positions))
    return [positions[k] for k in sorted(order[:math.ceil(len(positions) / share)])]


def train_ceiling(args: argparse.Namespace, learn: list[SolvedPosition], share: int,
                  measure: list[SolvedPosition]) -> dict[str, Any]:
    """One run on 1/``share`` of the learning set for the whole set's steps, measured: its row."""
    from engines.training.solver_supervised import train_on_solver  # TensorFlow

    epochs = (2 if args.quick else args.epochs) * share
    name = f"ceiling-1of{share}"
    run = train_on_solver(nested_share(learn, share, args.seed), Path(args.work) / name, settings_for(args, epochs),
                          epochs=epochs, measure=measure, simulations=args.simulations,
                          names=(f"1/{share} of the learning set", "connect-7x6-4.csv"), progress=True)
    assert run.measured is not None
    seconds = float(run.history["seconds"].sum())  # this run's epochs, across the sessions it took
    return {"network": name, "kind": "ceiling", "learnt": run.positions, "held_out": run.held_out, "epochs": epochs,
            "best_epoch": run.best_epoch, "train_minutes": round(seconds / 60, 2), "positions": run.measured.positions,
            "seen": run.measured.seen, "simulations": args.simulations, "mistakes_raw": run.measured.raw,
            "mistakes_search": run.measured.search}


def measure_selfplay(args: argparse.Namespace, network: str, measure: list[SolvedPosition]) -> dict[str, Any]:
    """A self-play network measured as the ceilings are: its row."""
    found = measure_network(resolve_model_path(network), measure, args.simulations, seed=args.seed,
                            file="connect-7x6-4.csv")
    return {"network": network, "kind": "self-play", "learnt": "", "held_out": "", "epochs": "", "best_epoch": "",
            "train_minutes": "", "positions": found.positions, "seen": "", "simulations": args.simulations,
            "mistakes_raw": found.raw, "mistakes_search": found.search}


def label_cost(args: argparse.Namespace, learn: list[SolvedPosition], out: Path) -> pd.DataFrame:
    """Seconds the solver takes to score every move of a seeded sample of learning positions, on one
    core with a fresh table each (the first solve, compiling, is left out); timed once."""
    path = out / "labelling.csv"
    if not path.exists():
        solver = bitboard_solver(GAME)
        solver.move_scores(position_state(learn[0]))  # the compiled kernels' start-up
        sample = nested_share(learn, max(1, len(learn) // (5 if args.quick else LABEL_SAMPLE)), args.seed)
        rows = []
        for position in sample:
            solver.clear()
            start = time.perf_counter()
            solver.move_scores(position_state(position))
            rows.append({"stones": position.stones, "seconds": time.perf_counter() - start})
        with atomic_write(path) as handle:
            pd.DataFrame(rows).to_csv(handle, index=False)
    return pd.read_csv(path)


def crossing(ceilings: pd.DataFrame, target: float) -> tuple[float, float] | None:
    """Where a straight line through the ceilings' search mistakes against log10(positions learnt)
    reaches ``target``: (positions, slope per 10x); None with fewer than 3 runs or no fall."""
    if len(ceilings) < 3:
        return None
    slope, intercept = np.polyfit(np.log10(ceilings["learnt"].astype(float)), ceilings["mistakes_search"], 1)
    if slope >= 0:
        return None
    return float(10 ** ((target - intercept) / slope)), float(slope)


def plot(table: pd.DataFrame, path: Path) -> None:
    """Mistakes against positions learnt (log), raw and searched, the self-play networks as lines."""
    fig, ax = new_figure((7, 4.5))
    ceilings = table[table.kind == "ceiling"].sort_values("learnt")
    for column, label, colour in (("mistakes_raw", "raw policy", "tab:orange"),
                                  ("mistakes_search", "with search", "tab:blue")):
        rates = ceilings[column].to_numpy()
        bounds = np.array([wilson_interval(r, int(n)) for r, n in zip(rates, ceilings["positions"])]).reshape(-1, 2)
        ax.errorbar(ceilings["learnt"].astype(float), rates, yerr=[rates - bounds[:, 0], bounds[:, 1] - rates],
                    marker="o", capsize=3, color=colour, label=f"learnt from the solver, {label}")
        for k, row in enumerate(table[table.kind == "self-play"].itertuples()):
            ax.axhline(getattr(row, column), color=colour, linestyle=("--", ":", "-.")[k % 3],
                       label=f"self-play {row.network}, {label}")
    ax.set_xscale("log")
    ax.set_xlabel("distinct solved positions learnt")
    ax.set_ylabel("mistakes on critical positions")
    ax.set_title(f"Connect Four: the network's ceiling ({int(table.simulations.iloc[0])} simulations)")
    ax.legend(fontsize=7)
    save_figure(fig, path)


def summary_lines(table: pd.DataFrame, labels: pd.DataFrame) -> list[str]:
    """The summary's body: the table, the price of a label and where the line meets self-play."""
    lines = ["| network | positions learnt | epochs (best) | minutes | raw policy | with search |",
             "|---|---:|---:|---:|---:|---:|"]
    for row in table.itertuples():
        learnt = f"{int(row.learnt):,}" if row.kind == "ceiling" else "self-play"
        epochs = f"{int(row.epochs)} ({int(row.best_epoch)})" if row.kind == "ceiling" else ""
        minutes = f"{float(row.train_minutes):.1f}" if row.kind == "ceiling" else ""
        lines.append(f"| `{row.network}` | {learnt} | {epochs} | {minutes} | "
                     f"{chapters.rate_cell(row.mistakes_raw, int(row.positions))} | "
                     f"{chapters.rate_cell(row.mistakes_search, int(row.positions))} |")
    seconds = float(labels["seconds"].mean())
    lines += ["", f"Mistakes on {int(table.positions.iloc[0])} critical positions, raw and with "
              f"{int(table.simulations.iloc[0])} simulations, 95% Wilson intervals.", "",
              "![the ceiling against the truth learnt](ceiling.png)", "",
              f"**The price of the truth**: the solver scores every move of a learning position in {seconds:.2f} s "
              f"on average ({len(labels)} positions of {labels.stones.min()} to {labels.stones.max()} stones, "
              "one core, a fresh table each)."]
    ceilings = table[table.kind == "ceiling"].sort_values("learnt")
    for row in table[table.kind == "self-play"].itertuples():
        found = crossing(ceilings, float(row.mistakes_search))
        if found is None:
            lines.append(f"The ceilings do not fall along a line that reaches `{row.network}`'s "
                         f"{row.mistakes_search:.1%}: no estimate.")
            continue
        positions, slope = found
        lines.append(f"A line through the ceilings falls {-slope:.1%} a tenfold more positions learnt and meets "
                     f"`{row.network}`'s {row.mistakes_search:.1%} with search at about {positions:,.0f} positions: "
                     f"{positions * seconds / 3600:,.0f} core-hours of solving (an extrapolation, the further the "
                     "rougher).")
    return lines


def facts(out: Path) -> dict[str, Any]:
    """The report's headline facts (:mod:`dlgo.storage.facts`): each network's row and the label's price."""
    table = pd.read_csv(out / "ceiling.csv")
    labels = pd.read_csv(out / "labelling.csv") if (out / "labelling.csv").exists() else pd.DataFrame()
    rows = [{"network": r.network, "kind": r.kind, "learnt": None if r.kind != "ceiling" else int(r.learnt),
             "positions": int(r.positions), "simulations": int(r.simulations), "raw": float(r.mistakes_raw),
             "search": float(r.mistakes_search)} for r in table.itertuples()]
    return {"ceiling": {"networks": rows, "label_seconds": float(labels["seconds"].mean()) if len(labels) else None}}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.quick:  # the pipeline, not the ceiling
        args.simulations = min(args.simulations, 8)
    networks = [str(resolve_model_path(n)) for n in args.selfplay]  # a missing network stops the run here
    chapters.check_engines([f"alphazero:checkpoint={n}" for n in networks], GAME)
    chapters.take_folders(args)
    out = Path(args.out)
    table_path = out / "ceiling.csv"
    done = {row["network"] for row in open_log(table_path, COLUMNS)}
    learn, measure = learning_set(args), measured_set(args.quick)
    for share in SHARES:
        if f"ceiling-1of{share}" not in done:
            append_row(table_path, COLUMNS, train_ceiling(args, learn, share, measure))
    for network in args.selfplay:
        if network not in done:
            append_row(table_path, COLUMNS, measure_selfplay(args, network, measure))
    labels = label_cost(args, learn, out)
    table = pd.read_csv(table_path)
    plot(table, out / "ceiling.png")
    chapters.write_summary(out, "Connect Four: the network's ceiling, learnt from the solver",
                           chapters.command(__file__, argv), summary_lines(table, labels), LOOK_FOR)
    update_facts(out, facts(out))
    print(f"report: {out}/summary.md")
    return 0


LOOK_FOR = """
Self-play learns from its own games: millions of positions whose targets are
the search's visits and the games' results, noisy and drifting. The ceiling
learns the truth itself, but only as many positions as the solver can label.
Where the ceilings stay above the self-play network, the truth the solver can
afford is too little to learn Connect Four from, and self-play is the cheaper
teacher; the line's slope says how fast more truth would close the gap.
"""


if __name__ == "__main__":
    sys.exit(main())
