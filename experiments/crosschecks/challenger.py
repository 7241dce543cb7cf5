"""A new Connect Four network against the shipped one: does it replace it?

    python experiments/crosschecks/challenger.py --network data/alphazero-economies-connect4/puct16/checkpoint.keras
    python experiments/crosschecks/challenger.py --network PATH --ship checkpoints/connect4.keras
    python experiments/crosschecks/challenger.py --quick

The suite replaces its shipped network only with one that beats it on the
solved position sets and in games. Both networks play the critical positions
of the early-game solved sets (``begin-easy``, ``begin-medium``,
``begin-hard``: the positions where some move changes the game-theoretic
result), from their raw policy and after PUCT with ``--simulations`` (a move
that changes the result is a mistake); then they play ``--games`` games head to
head with that search, colours alternating, the first two moves of each game
sampled by visits so that the games differ, the searches of all the games
advancing together (one network call per side per step). The challenger wins
where it makes fewer mistakes with search and scores above 50%; ``--ship``
then copies it (atomically) to the path given.

Writes ``positions.csv`` (each network's mistake rates), ``games.csv`` (each
game's colours and score) and ``summary.md`` to --out.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import sys
from pathlib import Path

import pandas as pd

from dlgo.arena.ratings import wilson_interval
from dlgo.core.arguments import count
from dlgo.storage.atomic import atomic_write
from engines.alphazero import NetworkEvaluator
from engines.neural.loading import load_network
from engines.training.references import EARLY_SETS, measure_reference, reference_positions
from engines.training.selfplay import MatchSettings, play_batched_match
from experiments.shared import chapters

GAME = "connect4"


def build_parser() -> argparse.ArgumentParser:
    p = chapters.parser(__file__, __doc__, name="challenger-connect4")
    p.add_argument("--network", required=True, help="the challenger: a Connect Four policy-value network (.keras)")
    p.add_argument("--shipped", default="connect4", help="the network to beat (default: the shipped connect4)")
    p.add_argument("--simulations", type=count("simulations"), default=200, help="PUCT simulations a move (default 200)")
    p.add_argument("--games", type=count("games", 2), default=200, help="games head to head (default 200)")
    p.add_argument("--ship", default=None, help="copy the challenger here if it wins on both counts")
    return p


def on_positions(networks: dict[str, str], simulations: int, per_set: int, seed: int) -> pd.DataFrame:
    """Each network's mistakes on the early-game critical positions, raw and searched."""
    positions = reference_positions(GAME, per_set)
    settings = MatchSettings(parallel=len(positions), simulations=simulations)
    rows = []
    for role, path in networks.items():
        measured = measure_reference(NetworkEvaluator(load_network(path)), positions, settings, seed=seed)
        rows.append({"network": role, "path": path, "positions": measured.positions, "simulations": simulations,
                     "mistakes_raw": measured.raw, "mistakes_search": measured.search})
    return pd.DataFrame(rows)


def head_to_head(challenger: str, shipped: str, games: int, simulations: int, seed: int) -> pd.DataFrame:
    """The challenger's score in each game (it opens the even-numbered ones)."""
    settings = MatchSettings(parallel=min(games, 100), simulations=simulations)
    scores = play_batched_match(GAME, NetworkEvaluator(load_network(challenger)),
                                NetworkEvaluator(load_network(shipped)), games, settings, seed=seed, progress=True,
                                desc="head to head")
    return pd.DataFrame({"game": range(games), "challenger_opens": [k % 2 == 0 for k in range(games)],
                         "score": scores})


def verdict_lines(positions: pd.DataFrame, games: pd.DataFrame, args: argparse.Namespace) -> tuple[list[str], bool]:
    """The summary's body and whether the challenger won on both counts."""
    mine, theirs = (positions.set_index("network").loc[role] for role in ("challenger", "shipped"))
    n = int(mine["positions"])
    lines = ["## On the solved positions", "",
             f"The {n} critical positions of {', '.join(f'`{s}`' for s in EARLY_SETS)} (95% Wilson intervals):", "",
             f"| network | mistakes, raw policy | mistakes, PUCT {args.simulations} |", "|---|---:|---:|"]
    for role, row in (("challenger", mine), ("shipped", theirs)):
        lines.append(f"| {role} (`{row['path']}`) | {chapters.rate_cell(row['mistakes_raw'], n)} | "
                     f"{chapters.rate_cell(row['mistakes_search'], n)} |")
    score = float(games["score"].mean())
    opening, second = games[games.challenger_opens]["score"].mean(), games[~games.challenger_opens]["score"].mean()
    low, high = wilson_interval(score, len(games))
    fewer = mine["mistakes_search"] < theirs["mistakes_search"]
    won = fewer and score > 0.5
    lines += ["", "## Head to head", "",
              f"{len(games)} games, PUCT {args.simulations} a move on both sides: the challenger scores "
              f"**{score:.1%}** ({low:.1%}-{high:.1%}; {opening:.1%} when it opens, {second:.1%} when it "
              f"answers).", "", "## Verdict", "",
              ("The challenger wins on both counts: fewer mistakes with search and above 50% in games."
               if won else "The challenger does not replace the shipped network: "
               + ("it makes no fewer mistakes with search" if not fewer else "")
               + (" and " if not fewer and score <= 0.5 else "")
               + (f"it scores {score:.1%}, not above 50%, in games" if score <= 0.5 else "") + "."), ""]
    return lines, won


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    chapters.check_engines([f"alphazero:checkpoint={args.network}", f"alphazero:checkpoint={args.shipped}"], GAME)
    chapters.take_folders(args)
    out = Path(args.out)
    if args.quick:  # a few positions and games with a small search: the pipeline, not the verdict
        args.games, args.simulations = 6, 8
    per_set = 10 if args.quick else 1000
    networks = {"challenger": args.network, "shipped": args.shipped}
    positions = on_positions(networks, args.simulations, per_set, args.seed)
    played = head_to_head(args.network, args.shipped, args.games, args.simulations, args.seed)
    for name, table in (("positions.csv", positions), ("games.csv", played)):
        with atomic_write(out / name) as handle:
            table.to_csv(handle, index=False)
    body, won = verdict_lines(positions, played, args)
    if won and args.ship:
        Path(args.ship).parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(Path(args.ship), "wb") as handle:
            handle.write(Path(args.network).read_bytes())
        body += [f"Shipped: copied to `{args.ship}`.", ""]
    chapters.write_lines(out / "summary.md", ["# A Connect Four challenger against the shipped network", "",
                                              f"Reproduce: `{chapters.command(__file__, argv)}`", "", *body])
    print("\n".join(body))
    print(f"report: {out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
