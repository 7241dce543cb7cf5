"""Chapter 4, part 1: minimax and alpha-beta. What does pruning save?

    python experiments/chapters/ch04a_minimax_alphabeta.py              # tic-tac-toe to the end, seconds
    python experiments/chapters/ch04a_minimax_alphabeta.py --depth 3    # a depth limit: heuristic values
    python experiments/chapters/ch04a_minimax_alphabeta.py --game go:size=5 --depth 3   # Go, three plies deep
    python experiments/chapters/ch04a_minimax_alphabeta.py --quick

Three searches choose a move in the same positions, from the empty board to a
few moves in: plain minimax (``minimax``), minimax with textbook alpha-beta
cut-offs and nothing else (``minimax:pruning=true``), and the suite's
alpha-beta engine, which adds move ordering, iterative deepening and a
transposition table (``alphabeta:nodes=0``). Each reports the positions it
visited. Searched to the end (tic-tac-toe), all must find the exact value
(checked against the exact solver); at a depth limit (any game: Go's tree has
no end in sight), they score the leaves with the game's heuristic and must
agree on the value. Tic-tac-toe's positions are chosen by hand; another game's
are the empty board and the moves nearest the centre, one after another.
Writes ``nodes.csv``, ``nodes.png`` (nodes per position, log scale),
``positions.png`` and ``summary.md`` to --out.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dlgo.core.agent import SearchReport
from dlgo.core.arguments import count
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.display.pictures import draw_position
from dlgo.display.plotting import new_figure, save_figure
from dlgo.formats.records import replay
from dlgo.games import new_game
from dlgo.games.solvers.brute_force import exact_value
from engines.minimax import centre_first
from engines.registry import create
from experiments.shared import chapters

# Tic-tac-toe's positions as moves from the empty board; the quick run skips the first two (the big trees).
POSITIONS = ["", "b2", "a1", "b2 a1", "a1 b2 c3", "b2 a1 c3 a3", "a1 b2 c3 a2 b1"]
SMALL_GAME = "tictactoe"  # the game searched to the end, with POSITIONS


def centre_positions(game: str, count: int) -> list[str]:
    """The empty board, then each position after one more move nearest the centre."""
    state, moves, positions = new_game(game), list[str](), [""]
    while len(positions) < count:
        _, action = centre_first(state, state.legal_actions())[0]
        move = state.index_to_move(action)
        moves.append(state.format_move(move))
        state = state.apply_move(move)
        positions.append(" ".join(moves))
    return positions
SEARCHES = ["minimax", "minimax:pruning=true", "alphabeta:nodes=0"]
VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}


def nodes_by_search(table: pd.DataFrame) -> pd.DataFrame:
    """``nodes.csv`` as one row per position (in the run's order) and one column per search."""
    return table.pivot(index="position", columns="search", values="nodes").loc[list(dict.fromkeys(table.position))]


def what_to_look_for(table: pd.DataFrame, limited: bool = False) -> str:
    """The closing paragraph, its figures taken from a run's ``nodes.csv``
    (``limited``: the searches stopped at a depth limit)."""
    plain, pruned, engine = SEARCHES
    wide = nodes_by_search(table)
    agree = bool((table.value == table.exact_value).all())
    first = wide.index[0]
    where = "the empty board" if first == "(empty)" else f"the position after {first}"
    value = table[table.position == first].exact_value.iloc[0]
    costlier = [p for p in wide.index if wide.loc[p, engine] > wide.loc[p, pruned]]
    saving = 1 - wide[pruned] / wide[plain]
    text = [f"From {where} plain minimax visits {wide.loc[first, plain]:,} positions"
            + (f" and finds that the game is a {value} for the player to move." if not limited else "."),
            f"Textbook alpha-beta visits {wide.loc[first, pruned]:,} "
            f"({wide.loc[first, pruned] / wide.loc[first, plain]:.1%}"
            f" of them){' and finds the same value' if agree else ''}: a branch is dropped as soon as one reply shows "
            "it cannot beat a move already found. How much it drops depends on the order moves are tried (best "
            f"first is best); over these positions it saves from {saving.min():.0%} to {saving.max():.0%}"
            + (", most on the biggest tree." if saving.idxmax() == wide[plain].idxmax() else ".")
            + " The engine adds move ordering (transposition move, killer moves, history, "
            "centre first) and a transposition table, which recognises positions reached by different move "
            f"orders: from {where} it visits {wide.loc[first, engine]:,}."]
    if costlier:
        named = ["the empty board" if p == "(empty)" else f"after {p}" for p in costlier]
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        text.append(f"In the position{'s' if len(named) > 1 else ''} {listed} it visits more than textbook "
                    "alpha-beta: on a small tree its "
                    "iterative deepening (depth 1, then 2, then 3...) costs more than its ordering saves.")
    if limited:
        text.append("The searches stopped at the depth limit and scored the leaves with the game's heuristic: their "
                    "values are estimates.")
    else:
        text.append("Try `--depth 2`: the searches now stop early and rely on a heuristic, and the values become "
                    "estimates.")
    return "\n".join(textwrap.wrap(" ".join(text), 78, break_on_hyphens=False))


def proven_value(report: SearchReport) -> str:
    """``win``, ``draw`` or ``loss`` when the search proved the value, else ``estimate``."""
    return VALUE_NAMES[int(report.value)] if report.proven and report.value is not None else "estimate"


def search_table(game: str, positions: list[str], depth: int) -> pd.DataFrame:
    """One row per (position, search): the move chosen, its value for the mover
    (proven, or the heuristic score at the depth limit), nodes and seconds; the
    exact value where the game is searched to the end."""
    rows = []
    for moves in positions:
        state = replay(game, moves)[-1]
        exact = VALUE_NAMES[exact_value(state)] if not depth else "-"
        for spec in SEARCHES:
            agent = create(spec, **({"depth": depth} if depth else {}))
            move, _, report = agent.decide(state)
            rows.append({"position": moves or "(empty)", "to_move": state.game.side_name(state.next_player),
                         "search": spec, "move": state.format_move(move),
                         "value": proven_value(report) if not depth or report.proven else f"{report.score:+g}",
                         "exact_value": exact, "nodes": report.compute.amount,
                         "seconds": report.compute.seconds})
    return pd.DataFrame(rows)


def plot_nodes(table: pd.DataFrame, path: Path, title: str) -> None:
    """Grouped bars: nodes visited by each search in each position (log scale)."""
    positions = list(dict.fromkeys(table["position"]))
    fig, ax = new_figure((max(6.0, 1.3 * len(positions)), 4))
    width = 0.8 / len(SEARCHES)
    for k, spec in enumerate(SEARCHES):
        nodes = [int(table[(table.position == p) & (table.search == spec)].nodes.iloc[0]) for p in positions]
        ax.bar(np.arange(len(positions)) + (k - (len(SEARCHES) - 1) / 2) * width, nodes, width, label=spec)
    ax.set_yscale("log")
    ax.set_xticks(range(len(positions)), positions, rotation=20)
    ax.set(xlabel="position (moves from the empty board)", ylabel="nodes visited (log scale)", title=title)
    ax.legend()
    save_figure(fig, path)


def plot_positions(game: str, positions: list[str], values: dict[str, str], path: Path) -> None:
    """The positions side by side, each titled with its value."""
    fig, axes = new_figure((2.9 * len(positions), 3.0), 1, len(positions))
    for ax, moves in zip(axes if len(positions) > 1 else [axes], positions):
        state = replay(game, moves)[-1]
        draw_position(ax, state, title=f"{moves or '(empty)'}: {values[moves or '(empty)']}\n")
    save_figure(fig, path)


def facts(out: Path) -> dict[str, Any]:
    """The run's headline facts (:mod:`dlgo.storage.facts`): ``findings``, the closing paragraph
    from its ``nodes.csv`` (searches with a depth limit know no exact value: ``-``)."""
    table = pd.read_csv(out / "nodes.csv")
    return {"findings": what_to_look_for(table, bool((table.exact_value.astype(str) == "-").any()))}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    p = chapters.parser(__file__, __doc__)
    p.add_argument("--game", default=SMALL_GAME,
                   help=f"the game (default {SMALL_GAME}; another needs --depth, e.g. --game go:size=5 --depth 3)")
    p.add_argument("--depth", type=count("plies", 0), default=0,
                   help="plies each search looks ahead (default 0: to the end)")
    args = p.parse_args(argv)
    if args.game != SMALL_GAME and not args.depth:
        p.error(f"only {SMALL_GAME} can be searched to the end here: give --depth (e.g. --depth 3)")
    chapters.take_folders(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    positions = POSITIONS if args.game == SMALL_GAME else centre_positions(args.game, 5)
    positions = positions[2:] if args.quick else positions

    table = search_table(args.game, positions, args.depth)
    with atomic_write(out / "nodes.csv") as handle:
        table.to_csv(handle, index=False)
    depth = f"depth {args.depth}" if args.depth else "searched to the end"
    name = args.game
    plot_nodes(table, out / "nodes.png", f"{name}: nodes visited to choose a move ({depth})")
    plain = table[table.search == SEARCHES[0]]
    values = dict(zip(plain.position, plain.exact_value if not args.depth else plain.value))
    plot_positions(args.game, positions, values, out / "positions.png")
    wide = nodes_by_search(table)
    agree = (table.value == table.exact_value).all() if not args.depth else \
        (table.groupby("position")["value"].nunique() == 1).all()
    body = [f"Each search chooses a move for the player to move ({depth}); nodes are the positions it visited.", "",
            "| position | to move | exact value | " + " | ".join(f"`{s}` nodes" for s in SEARCHES)
            + " | pruning saves | the engine saves |",
            "|---|---|---|" + "---:|" * (len(SEARCHES) + 2)]
    for position, row in wide.iterrows():
        first = table[table.position == position].iloc[0]
        plain, pruned, engine = (int(row[s]) for s in SEARCHES)
        body.append(f"| {position} | {first.to_move} | {first.exact_value} | {plain:,} | {pruned:,} | {engine:,} | "
                    f"{1 - pruned / plain:.1%} | {1 - engine / plain:.1%} |")
    body += ["", ("Every search found the exact value in every position." if not args.depth else
                  "The three searches found the same value in every position (a heuristic score at the depth "
                  "limit, proven only where a game ends within it).") if agree else
             "Values found (a depth limit gives heuristic estimates, not exact values):", ""]
    if not agree or args.depth:
        body += ["| position | search | move | value |", "|---|---|---|---|"]
        body += [f"| {r.position} | {r.search} | {r.move} | {r.value} |" for r in table.itertuples()]
        body.append("")
    body += ["![nodes visited](nodes.png)", "", "![the positions](positions.png)"]
    look_for = what_to_look_for(table, bool(args.depth))
    summary = chapters.write_summary(out, f"Chapter 4, part 1: minimax and alpha-beta on {name}",
                                     chapters.command(__file__, argv), body, look_for)
    update_facts(out, facts(out))
    print(wide.to_string())
    print(f"report: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
