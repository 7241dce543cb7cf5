"""The small boards' networks judged off the training path: solved positions of every depth.

    python experiments/crosschecks/unseen_positions.py --workers 2      # the committed report
    python experiments/crosschecks/unseen_positions.py --boards connectn:columns=6,rows=4,n=4 \\
        --networks data/scaling/6x4-4/run/checkpoint.keras --plays uniform --out runs/judged
    python experiments/crosschecks/unseen_positions.py --quick

A network that plays its own games perfectly can still lose positions its
self-play never reaches. The lab's sets are Pons' six, from games in which each
move avoids an immediate loss; here each board gets two sets of its own, with
seeds no run trains or publishes by, both of every depth (each position's
stone count drawn uniformly from 4 to 4 short of a full board: ``dlgo
positions --stones``):

* ``uniform``: games in which every legal move is as likely as any other,
  blunders too, as an outside check samples them;
* ``strong``: games of best-scoring moves, one in ten random.

Every network (``--networks``, default each board's shipped one) plays every
position with its raw policy and with ``--simulations`` of PUCT (64, the lab's
budget); a move is a mistake where it changes the game-theoretic result, and
the rates are over the critical positions (where some move would), each set's
apart, with 95% Wilson intervals. Writes ``judged.csv``, ``judged.png``,
``summary.md`` and ``facts.json`` to --out; the positions and every verdict stay
in --work, and a rerun measures only what is missing.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from dlgo.core.arguments import count
from dlgo.core.errors import SpecError
from dlgo.display.plotting import new_figure, save_figure
from dlgo.formats.positions import STAGES
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from experiments.shared import chapters
from experiments.shared.connectn import shipped_name
from experiments.shared.unseen import COLUMNS, MARGIN, SEEDS, judge_network

BOARDS = ["connectn:columns=6,rows=4,n=4", "connectn:columns=6,rows=5,n=4"]


def build_parser() -> argparse.ArgumentParser:
    p = chapters.parser(__file__, __doc__, name="connectn-judged", work="the solved positions and every verdict")
    p.add_argument("--boards", nargs="+", default=BOARDS, help="Connect-N game specs (default 6x4 and 6x5)")
    p.add_argument("--networks", nargs="+", default=None,
                   help="a network for each board, in order (default each board's shipped one, connect-6x4 ...)")
    p.add_argument("--plays", nargs="+", choices=list(SEEDS), default=list(SEEDS), help="the sets' play")
    p.add_argument("--per-set", type=count("positions"), default=100,
                   help="a sixth of each set's positions (default 100: 600 a set, about half critical)")
    p.add_argument("--simulations", type=count("simulations"), default=64, help="PUCT simulations a move (default 64)")
    p.add_argument("--workers", type=count("processes"), default=None, help="worker processes (default: all cores)")
    return p


def judge(board: str, network: str, play: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    """``network`` on the board's set of ``play`` (:func:`~experiments.shared.unseen.judge_network`)."""
    return judge_network(board, network, play, Path(args.work), per_set=args.per_set, simulations=args.simulations,
                         seed=args.seed, workers=args.workers, quick=args.quick)


def plot(table: pd.DataFrame, path: Path) -> None:
    """Each board's critical mistakes by set, raw and searched, with their intervals."""
    table = table[table["stage"] == "all"]
    boards = list(dict.fromkeys(table["board"]))
    fig, axes = new_figure((4.2 * len(boards), 3.8), cols=len(boards))
    for axis, board in zip(axes if len(boards) > 1 else [axes], boards):
        rows = table[table["board"] == board].reset_index(drop=True)
        labels = [f"{r.play}\n{'raw' if r.simulations == 0 else f'{r.simulations} sims'}" for r in rows.itertuples()]
        errors = [rows["rate"] - rows["low"], rows["high"] - rows["rate"]]
        axis.bar(range(len(rows)), rows["rate"] * 100, yerr=[e * 100 for e in errors], capsize=3,
                 color=[f"C{list(dict.fromkeys(rows['play'])).index(p)}" for p in rows["play"]])
        axis.set_xticks(range(len(rows)), labels, fontsize=8)
        axis.set(title=f"{board}: {rows['network'].iloc[0]}", ylabel="mistakes, % of critical positions")
        axis.grid(axis="y", alpha=0.3)
    save_figure(fig, path)


def summary_lines(table: pd.DataFrame, args: argparse.Namespace) -> list[str]:
    """The whole sets' rates, then each stage's: where on the way through a game the mistakes are."""
    overall, staged = table[table["stage"] == "all"], table[table["stage"] != "all"]
    lines = [f"Each board's sets: {6 * args.per_set} positions of every depth ({MARGIN} stones to {MARGIN} short of "
             f"a full board), seeds {', '.join(f'{p} {s}' for p, s in SEEDS.items())}; mistakes on the critical "
             "positions, 95% Wilson intervals.", "",
             "| board | set | network | search | critical positions | mistakes | 95% interval |",
             "|---|---|---|---|---:|---:|---|"]
    for r in overall.itertuples():
        lines.append(f"| {r.board} | {r.play} | `{r.network}` | {search_name(r.simulations)} | {r.critical} | "
                     f"{r.rate:.1%} | {r.low:.1%} to {r.high:.1%} |")
    lines += ["", "![mistakes by set](judged.png)", "", "## By stage", "",
              "Stages by stones, a third of the board's cells each; mistakes (critical positions):", "",
              "| board | set | search | " + " | ".join(STAGES) + " |", "|---|---|---|" + "---:|" * len(STAGES)]
    for (board, play, simulations), rows in staged.groupby(["board", "play", "simulations"], sort=False):
        cells = [f"{r.rate:.1%} ({r.critical})" if r.critical else "-" for r in rows.itertuples()]
        lines.append(f"| {board} | {play} | {search_name(simulations)} | " + " | ".join(cells) + " |")
    return lines


def search_name(simulations: int) -> str:
    return "raw policy" if simulations == 0 else f"PUCT {simulations}"


LOOK_FOR = """
Uniform play reaches positions no sensible game does: a side one stone from
four in a row, a threat left open for several plies. A network that learnt only
from its own games has seen few of them, and its raw policy shows it first;
the search then has to find what the policy never learnt. Where the uniform
set's rate stays above the strong set's beyond their intervals, stage by stage,
the gap is the training path's, not the board's. Compare by stage: uniform games
end early, so a uniform set leans to the beginning, where the mistakes are (the
earlier the position, the more of the game the search cannot see to its end).
"""


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    networks = args.networks or [shipped_name(board) for board in args.boards]
    if len(networks) != len(args.boards):
        raise SpecError(f"--networks names {len(networks)} networks for {len(args.boards)} boards: one a board")
    for board, network in zip(args.boards, networks):
        chapters.check_engines([f"alphazero:checkpoint={network}"], board)
    if args.quick:  # a few positions and a small search: the pipeline, not the figures
        args.per_set, args.simulations = 2, 4
    chapters.take_folders(args)
    out = Path(args.out)
    rows = [row for board, network in zip(args.boards, networks) for play in args.plays
            for row in judge(board, network, play, args)]
    table = pd.DataFrame(rows, columns=COLUMNS)
    with atomic_write(out / "judged.csv") as handle:
        table.to_csv(handle, index=False)
    plot(table, out / "judged.png")
    chapters.write_summary(out, "The small boards' networks on positions of every depth",
                           chapters.command(__file__, argv), summary_lines(table, args), LOOK_FOR)
    update_facts(out, {"judged": {"per_set": args.per_set, "simulations": args.simulations,
                                  "rows": table.to_dict(orient="records")}})
    for r in table[table["stage"] == "all"].itertuples():
        print(f"{r.board} {r.play:<8} {r.network:<24} {r.simulations:>4} sims  {r.rate:6.1%} of {r.critical} critical")
    print(f"report: {out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
