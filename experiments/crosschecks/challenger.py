"""A new network against the shipped one: does it replace it?

    python experiments/crosschecks/challenger.py --network data/alphazero-connect4-recipe/checkpoint.keras
    python experiments/crosschecks/challenger.py --network PATH --ship checkpoints/connect4.keras
    python experiments/crosschecks/challenger.py --game connectn:columns=6,rows=5,n=4 --network PATH \
        --shipped connect-6x5    # reports/challenger-connect-6x5
    python experiments/crosschecks/challenger.py --quick

The suite replaces a shipped network only as engine testers replace theirs.
Both networks play the critical positions of solved sets (the positions where
some move changes the game-theoretic result): on Connect Four the early-game
sets the suite ships (``begin-easy``, ``begin-medium``, ``begin-hard``), on
another board the scaling lab's (Pons' six sets, 1,000 a set, seed 1, solved
into ``--work`` once), from their raw policy and after PUCT with
``--simulations`` (a move that changes the result is a mistake). Then they play
the board's balanced openings (``dlgo openings``:
solved positions 8 plies in that neither side wins before its last two stones;
the suite's, or ``--openings``) in colour-swapped pairs,
each opening once with each network on each colour, PUCT ``--simulations`` a
move and no noise, until a sequential test (fishtest's pentanomial GSPRT, H0
"the challenger gains ``--elo0``" against H1 "it gains ``--elo1``") decides or
``--max-pairs`` are played (:mod:`engines.training.paired_match`).

The challenger ships where the test accepts H1 and it makes no more mistakes
with search; where the test ends undecided, where it makes fewer. ``--ship``
then copies it (atomically) to the path given. A killed run resumes at the pairs
it had not finished.

Writes ``positions.csv`` (each network's mistake rates), ``games.csv`` (every
game: its pair, opening, colours, moves and the challenger's score),
``test.png`` (the test's log-likelihood ratio after each chunk of pairs, between
its bounds) and ``summary.md`` to --out.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import sys
from pathlib import Path

import pandas as pd

from dlgo.arena.sprt import SPRT
from dlgo.core.arguments import count
from dlgo.core.errors import SpecError
from dlgo.data.solved import balanced_openings, shipped_sets
from dlgo.display.plotting import new_figure, save_figure
from dlgo.games.registry import get_game
from dlgo.storage.atomic import atomic_copy, atomic_write
from dlgo.storage.folders import hold_folder
from engines.alphazero import NetworkEvaluator
from engines.neural.loading import load_network
from engines.training.paired_match import PairedMatch, PairedResult, pentanomial, play_paired_match
from dlgo.formats.positions import SolvedPosition
from engines.training.references import EARLY_SETS, measure_reference, reference_positions
from engines.training.selfplay import MatchSettings
from experiments.shared import chapters
from experiments.shared.connectn import measured_positions, shipped_name

GAME = "connect4"

def named_game(argv: list[str] | None) -> str:
    """The game ``--game`` names in ``argv`` (default Connect Four)."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--game", default=GAME)
    return str(early.parse_known_args(argv)[0].game)


def shipped_network(game: str) -> str:
    """The name the game's shipped network goes by: ``connect4``, ``connect-6x5`` on a Connect-N board
    (a :class:`SpecError` for another game)."""
    if game == GAME:
        return "connect4"  # Connect Four's network, by the game's own name
    try:
        return shipped_name(game)
    except SpecError:
        raise SpecError(f"--game {game}: the challenger plays Connect Four or a Connect-N board "
                        "(connectn:columns=C,rows=R,n=K)") from None


def report_name(argv: list[str] | None) -> str:
    """The run's folders' name, by the game ``--game`` names: ``challenger-connect4``, or
    ``challenger-connect-6x5`` for a Connect-N board (its shipped network's name)."""
    return f"challenger-{shipped_network(named_game(argv))}"


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    game = named_game(argv)
    p = chapters.parser(__file__, __doc__, name=report_name(argv),
                        work="the solved positions of a board the suite ships none for")
    # the folders are named by the board already: --game's default is the one named (no second suffix)
    p.add_argument("--game", default=game, help="the game: Connect Four or a Connect-N board (default connect4)")
    p.add_argument("--network", required=True, help="the challenger: a policy-value network of the game (.keras)")
    p.add_argument("--shipped", default=shipped_network(game),
                   help="the network to beat (default: the game's shipped one, connect4 or connect-CxR)")
    p.add_argument("--workers", type=count("processes"), default=None,
                   help="processes solving a board's positions (default: all cores)")
    p.add_argument("--simulations", type=count("simulations"), default=200,
                   help="PUCT simulations a move (default 200)")
    p.add_argument("--max-pairs", type=count("games"), default=400,
                   help="colour-swapped pairs played at most, if the test has not decided (default 400)")
    p.add_argument("--elo0", type=float, default=0.0, help="the test's H0: the challenger gains this much (default 0)")
    p.add_argument("--elo1", type=float, default=20.0, help="the test's H1: it gains this much (default 20)")
    p.add_argument("--openings", default=None, help="an openings file (default: the suite's, from `dlgo openings`)")
    p.add_argument("--ship", default=None, help="copy the challenger here if it wins")
    return p


def solved_positions(args: argparse.Namespace, per_set: int) -> list[SolvedPosition]:
    """The critical positions both networks play: the game's shipped early-game sets, else the
    scaling lab's measured sets of the board, solved into ``--work`` (once)."""
    if shipped_sets(args.game) is not None:
        return reference_positions(args.game, per_set)
    return measured_positions(args.game, Path(args.work) / f"positions-{per_set}", per_set, args.workers, args.quick)


def on_positions(args: argparse.Namespace, networks: dict[str, str], per_set: int) -> pd.DataFrame:
    """Each network's mistakes on the critical solved positions (:func:`solved_positions`), raw and searched."""
    simulations, seed = args.simulations, args.seed
    positions = solved_positions(args, per_set)
    settings = MatchSettings(parallel=len(positions), simulations=simulations)
    rows = []
    for role, path in networks.items():
        measured = measure_reference(NetworkEvaluator(load_network(path)), positions, settings, seed=seed)
        rows.append({"network": role, "path": path, "positions": measured.positions, "simulations": simulations,
                     "mistakes_raw": measured.raw, "mistakes_search": measured.search})
    return pd.DataFrame(rows)


def decide(result: PairedResult, fewer: bool, no_more: bool) -> tuple[bool, str]:
    """Whether the challenger ships, and why, from the test and the solved positions."""
    accepted = result.verdict.accepted if result.verdict else None
    if accepted == "H1":
        return no_more, ("the test accepts H1 and it makes no more mistakes with search" if no_more else
                         "the test accepts H1, but it makes more mistakes with search")
    if accepted == "H0":
        return False, "the test accepts H0"
    return fewer, ("the test is undecided and it makes fewer mistakes with search" if fewer else
                   "the test is undecided and it makes no fewer mistakes with search")


def verdict_lines(positions: pd.DataFrame, result: PairedResult, sprt: SPRT, args: argparse.Namespace,
                  games: pd.DataFrame) -> tuple[list[str], bool]:
    """The summary's body and whether the challenger ships."""
    mine, theirs = (positions.set_index("network").loc[role] for role in ("challenger", "shipped"))
    n = int(mine["positions"])
    sets = (", ".join(f"`{s}`" for s in EARLY_SETS) if shipped_sets(args.game) is not None else
            "Pons' six sets (the scaling lab's, seed 1)")
    lines = ["## On the solved positions", "",
             f"The {n} critical positions of {sets} (95% Wilson intervals):", "",
             f"| network | mistakes, raw policy | mistakes, PUCT {args.simulations} |", "|---|---:|---:|"]
    for role, row in (("challenger", mine), ("shipped", theirs)):
        lines.append(f"| {role} (`{row['path']}`) | {chapters.rate_cell(row['mistakes_raw'], n)} | "
                     f"{chapters.rate_cell(row['mistakes_search'], n)} |")
    elo, elo_low, elo_high = result.elo
    verdict = result.verdict
    opening, answering = (games[games["first"] == side]["score"].mean() for side in (1, 0))
    state = {"H1": "accepts H1", "H0": "accepts H0", None: "is undecided"}[verdict.accepted if verdict else None]
    lines += ["", "## Head to head", "",
              f"{result.pairs} colour-swapped pairs ({2 * result.pairs} games) from the balanced openings, PUCT "
              f"{args.simulations} a move on both sides: the challenger scores **{result.score:.1%}** "
              f"({result.low:.1%}-{result.high:.1%}, 95% from the pairs; {elo:+.0f} Elo, {elo_low:+.0f} to "
              f"{elo_high:+.0f}); {opening:.1%} on the first player's colour, {answering:.1%} on the second's.", "",
              "Pairs by the challenger's half points out of 4 (0: lost both ... 4: won both): "
              + ", ".join(f"{k}: {c}" for k, c in enumerate(result.counts)) + ".", ""]
    if verdict is not None:
        lines += [f"The test (H0 {sprt.elo0:+g} Elo, H1 {sprt.elo1:+g}, alpha {sprt.alpha:g}, beta {sprt.beta:g}) "
                  f"{state}: log-likelihood ratio {verdict.llr:+.2f} between {verdict.lower:+.2f} and "
                  f"{verdict.upper:+.2f} (`test.png`).", ""]
    fewer = mine["mistakes_search"] < theirs["mistakes_search"]
    no_more = mine["mistakes_search"] <= theirs["mistakes_search"]
    ships, why = decide(result, fewer, no_more)
    outcome = ("replaces" if args.ship else "beats") if ships else "does not replace"
    lines += ["## Verdict", "", f"The challenger {outcome} the shipped network: {why}"
              + (" (`--ship PATH` copies it there)." if ships and not args.ship else "."), ""]
    return lines, ships


def plot_test(games: pd.DataFrame, sprt: SPRT, chunk: int, path: Path) -> None:
    """The test's log-likelihood ratio after each chunk of pairs, between its bounds."""
    scores = list(games["score"])
    pairs = list(range(chunk, len(scores) // 2 + chunk, chunk))
    llrs = [sprt.verdict(pentanomial(scores[: 2 * min(p, len(scores) // 2)])).llr for p in pairs]
    fig, ax = new_figure((6.4, 3.6))
    ax.plot([0, *[min(p, len(scores) // 2) for p in pairs]], [0.0, *llrs], marker="o", label="LLR")
    for bound, name in ((sprt.upper, "accept H1"), (sprt.lower, "accept H0")):
        ax.axhline(bound, color="0.5", linestyle="--", linewidth=1)
        ax.annotate(name, (0, bound), xytext=(2, 2), textcoords="offset points", fontsize=8)
    ax.set_xlabel("colour-swapped pairs")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_title(f"SPRT H0 {sprt.elo0:+g} Elo against H1 {sprt.elo1:+g}")
    save_figure(fig, path)


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser(argv).parse_args(argv)
    chapters.check_engines([f"alphazero:checkpoint={args.network}", f"alphazero:checkpoint={args.shipped}"],
                           args.game)
    sprt = SPRT(args.elo0, args.elo1)
    openings = balanced_openings(args.game, args.openings)
    if not openings:
        raise SpecError(f"the suite ships no balanced openings for {args.game}: make some with `dlgo openings "
                        f"--game {args.game}` and name them with --openings")
    if args.quick:  # a few positions and pairs with a small search: the pipeline, not the verdict
        args.max_pairs, args.simulations = 4, 8
    if args.max_pairs > len(openings):
        raise SpecError(f"--max-pairs {args.max_pairs}: there are {len(openings)} openings, one a pair")
    if shipped_sets(args.game) is not None:
        args.work = None  # the game's sets ship: nothing to solve, no work folder
    chapters.take_folders(args)
    out = Path(args.out)
    per_set = 10 if args.quick else 1000
    chunk = 2 if args.quick else 32
    networks = {"challenger": args.network, "shipped": args.shipped}
    with hold_folder(out, "challenger", challenger=args.network, shipped=args.shipped, simulations=args.simulations,
                     elo0=args.elo0, elo1=args.elo1, openings=args.openings, seed=args.seed, quick=args.quick,
                     **({"game": args.game} if args.game != GAME else {})):
        if (out / "positions.csv").exists():  # a resumed run: measured already, with these settings
            positions = pd.read_csv(out / "positions.csv")
        else:
            positions = on_positions(args, networks, per_set)
            with atomic_write(out / "positions.csv") as handle:
                positions.to_csv(handle, index=False)
        match = PairedMatch(openings, MatchSettings(parallel=2 * chunk, simulations=args.simulations), sprt,
                            max_pairs=args.max_pairs, chunk=chunk)
        played = play_paired_match(args.game, NetworkEvaluator(load_network(args.network)),
                                   NetworkEvaluator(load_network(args.shipped)), match, out / "games.csv",
                                   seed=args.seed, progress=True, desc="head to head")
        games = pd.read_csv(out / "games.csv")
        plot_test(games, sprt, chunk, out / "test.png")
        body, ships = verdict_lines(positions, played, sprt, args, games)
        if ships and args.ship:
            atomic_copy(args.network, args.ship)
            body += [f"Shipped: copied to `{args.ship}`.", ""]
        board = "Connect Four" if args.game == GAME else f"`{get_game(args.game).spec}`"
        title = f"# A {board} challenger against the shipped network"
        chapters.write_lines(out / "summary.md", [title, "",
                                                  f"Reproduce: `{chapters.command(__file__, argv)}`", "", *body])
    print("\n".join(body))
    print(f"report: {out}/summary.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
