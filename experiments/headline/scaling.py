"""The scaling lab: AlphaZero's strength against training compute and search compute, from random play to perfect play.

    python experiments/headline/scaling.py                 # the full run: about 7 hours on 2 cores, resumable
    python experiments/headline/scaling.py --ray           # the same on a Ray cluster
    python experiments/headline/scaling.py --quick         # every step in a few minutes
    python experiments/headline/scaling.py --out reports/scaling-connectn

Andy Jones' "Scaling Scaling Laws with Board Games" (2021) trained AlphaZero on
Hex boards of growing size at many network sizes and budgets and found, along
the compute frontier (the best Elo any run reached at each training compute),
about 500 Elo per 10x of compute, the compute to reach perfect play growing
about 7x per board-size step, and training compute and search compute trading
against each other along straight iso-Elo lines. This lab repeats the study on
Connect-N boards the suite's solver plays perfectly in seconds:

1. **Training.** For each board (``--boards``) and network size (``--nets``,
   ``BLOCKSxFILTERS``), an AlphaZero run from a random network
   (``engines.training.alphazero``; PUCT with 16 simulations a self-play move,
   the cheapest economy of the Connect Four ablation) with the recipe the
   ablation picked (``experiments/headline/recipe_ablation.py``: temperature
   floor, merged positions, heads of 32 filters, random openings, the learning
   rate / 10 for the last third), ``--iterations`` long, in
   ``--work/BOARD/NET`` (resumable, its every iteration's network kept).
2. **Perfect play's yardstick.** Each board's solved position sets (Pons' six
   sets, ``--positions`` per set, the ablation's, generated once with the
   solver in ``--work/BOARD/positions-N``); every evaluated network's mistakes
   on their critical positions, raw and at each budget of
   ``--mistake-simulations``: ``mistakes.csv``.
3. **Tournaments.** The networks after iterations 0, 1, 2, 4, 8, ... of every
   run, each at every search budget (``--simulations``, 1 to 512), play a fixed
   ladder: ``random``, MCTS at fixed rounds (``--ladder``) and the perfect
   ``solver``, which also play each other; openings of ``--opening-plies``
   random moves. Every board's games resume in ``--work/BOARD/games``.
4. **Elo** on one scale per board (Bradley-Terry, random = 0, 95% bootstrap
   intervals), with compute counted in network evaluations and in FLOPs
   estimated from the network's shape (:func:`engines.neural.resnet.resnet_flops`):
   training compute is self-play's evaluations plus three forward passes per
   trained position; search compute is the evaluations per move of the games.

Writes to ``--out``: ``points.csv`` (every network at every search budget: its
training and search compute, Elo and mistakes), ``frontier.csv``,
``iso_elo.csv``, ``boards.csv`` (per board: the frontier's fit, the solver's
Elo, the training compute that reached each mistake level), ``exchange.csv``
(the exchange rate of search for training compute), ``elo_vs_training.png`` (one panel per board, a line per
search budget, the frontier and its fit, perfect play marked),
``mistakes_vs_training.png``, ``iso_elo.png`` and ``summary.md``. With
``--ship``, each board's largest network also ships as
``checkpoints/connect-CxR.keras`` (``--checkpoints``), playable as
``alphazero:checkpoint=connect-5x4`` and so on.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import math
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from dlgo.arena.ratings import GameResult, fit_ratings
from dlgo.arena.tournament import play_games, schedule
from dlgo.core.arguments import count
from dlgo.core.errors import SpecError
from dlgo.display.words import plural
from dlgo.encoders import get_encoder_by_name
from dlgo.storage.atomic import atomic_write
from dlgo.storage.facts import update_facts
from dlgo.storage.folders import hold_folder
from dlgo.formats.positions import append_row, open_log
from dlgo.formats.records import GameRecord
from dlgo.games.registry import get_game
from engines.alphazero import NetworkEvaluator
from engines.checkpoints import SHIPPED, read_metadata
from engines.neural.loading import load_network
from engines.neural.resnet import resnet_flops
from engines.registry import ENGINES, check_spec
from engines.training.references import measure_reference
from engines.training.run_folder import iteration_checkpoint
from engines.training.selfplay import MatchSettings
from experiments.shared import chapters, ladders
from experiments.shared.connectn import (MEASURE_SEED, RECIPE_LENGTH, Net, board_slug, cells, measured_positions,
                                         ship_network, training_config)
from experiments.shared.frontier import exchange_rate, iso_elo
from experiments.shared.scaling_report import (board_findings, facts, cost_lines, facts_table, levels_of, plot_boards,
                                               plot_iso, plot_mistakes, summary_lines)

NAME = "scaling-connectn"
BOARDS = ["connectn:columns=5,rows=4,n=4", "connectn:columns=6,rows=4,n=4", "connectn:columns=6,rows=5,n=4"]
NETS = ["1x16", "2x32", "4x64"]
SIMULATIONS = [1, 8, 64, 512]
LADDER = ["random", "mcts:rounds=10", "mcts:rounds=100", "mcts:rounds=1000", "solver"]
#: the smallest board's iterations a run: twice the ablation's recipe runs (192), since its 4x64 run on
#: 5x4 erred on 1.08% of the critical positions at 64 simulations after 96 iterations and on 0.86%
#: after 192 (15 minutes); each larger board's runs train twice as long
FIRST_ITERATIONS = round(2 * 64 * RECIPE_LENGTH)

MISTAKE_COLUMNS = ["net", "iteration", "simulations", "positions", "mistakes_raw", "mistakes_search"]


def evaluated_iterations(last: int) -> list[int]:
    """The iterations whose networks play: 0 and the powers of two up to ``last``, and ``last``."""
    chosen = {0, last} | {2 ** k for k in range(int(math.log2(max(last, 1))) + 1)}
    return sorted(i for i in chosen if i <= last)


# --- compute -----------------------------------------------------------------------------------------------


def forward_flops(board: str, net: Net) -> int:
    """FLOPs of one network evaluation of ``net`` on ``board`` (with the lab's heads)."""
    encoder = get_encoder_by_name(None, board)
    config = training_config(board, net, 0, quick=False, iterations=1)  # its heads: the same at any length
    return resnet_flops(encoder.shape, encoder.num_moves, blocks=net.blocks, filters=net.filters,
                        policy_filters=config.policy_filters, value_filters=config.value_filters)


def training_compute(history: pd.DataFrame, batch_size: int, flops: int) -> pd.DataFrame:
    """Per iteration of a run's ``history``: the cumulative self-play evaluations, trained
    positions and FLOPs (an evaluation is one forward pass, a trained position three), and
    the run's wall-clock seconds so far (on the machine that trained it)."""
    rows = history.set_index("iteration").sort_index()
    evaluations = rows["selfplay_evaluations"].fillna(0).cumsum()
    trained = (rows["train_steps"].fillna(0) * batch_size).cumsum()
    table = pd.DataFrame({"train_evaluations": evaluations, "trained_positions": trained})
    table["train_flops"] = (evaluations + 3 * trained) * flops
    table["train_seconds"] = rows["seconds"].fillna(0).cumsum()
    table.loc[0] = [0.0, 0.0, 0.0, 0.0]  # the untrained network cost nothing
    return table.sort_index()


# --- the run ------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = chapters.parser(__file__, __doc__, name=NAME, work="the training runs, position sets and games, resumable")
    p.add_argument("--boards", nargs="+", default=BOARDS, metavar="SPEC",
                   help="Connect-N boards, smallest first (default 5x4, 6x4 and 6x5, four in a row)")
    p.add_argument("--nets", nargs="+", default=NETS, metavar="BLOCKSxFILTERS",
                   help=f"network sizes (default {' '.join(NETS)})")
    p.add_argument("--iterations", type=count("steps"), nargs="+", default=None, metavar="N",
                   help="each run's iterations: one number for every board, or one per board of --boards "
                        f"(default {FIRST_ITERATIONS} on the smallest board, twice as many on each larger one, so "
                        "that every board's frontier can reach its plateau)")
    p.add_argument("--simulations", type=count("simulations"), nargs="+", default=SIMULATIONS, metavar="N",
                   help=f"search budgets the networks play at (default {' '.join(map(str, SIMULATIONS))})")
    p.add_argument("--ladder", nargs="+", default=LADDER, metavar="SPEC",
                   help=f"the fixed opponents, random and the solver included (default {' '.join(LADDER)})")
    p.add_argument("--games", type=count("games", 2), default=10,
                   help="games of each network and budget against each ladder engine (default 10)")
    p.add_argument("--ladder-games", type=count("games", 2), default=20,
                   help="games of each pair of ladder engines (default 20)")
    p.add_argument("--opening-plies", type=count("plies", 0), default=2,
                   help="random moves that open every game (default 2; the solver and the networks are deterministic)")
    p.add_argument("--positions", type=count("positions"), default=1000,
                   help="solved positions per set and board (default 1000, so that 1%% is resolved)")
    p.add_argument("--mistake-simulations", type=count("simulations"), nargs="+", default=None, metavar="N",
                   help="the search budgets (of --simulations) the networks' mistakes are measured at, their raw "
                        "policy's always (default --frontier-simulations: at 512 simulations the positions take "
                        "eight times as long as the games)")
    p.add_argument("--frontier-simulations", type=count("simulations"), default=64,
                   help="the search budget of the frontier and of perfect play (default 64)")
    p.add_argument("--workers", type=count("processes"), default=None,
                   help="processes for the games and the position sets (default one per core) and for self-play "
                        "(default 1, or with --ray one share per CPU of the cluster)")
    p.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                   help="self-play and games on a Ray cluster: auto, HOST:PORT or local")
    p.add_argument("--ship", action="store_true",
                   help="after the report, export each board's published network of its largest --nets run (its "
                        "last iteration's: the lab's runs measure no references) to --checkpoints as "
                        "connect-CxR.keras, playable as alphazero:checkpoint=connect-CxR")
    p.add_argument("--checkpoints", default=str(SHIPPED), metavar="DIR",
                   help="where --ship writes (default: the suite's checkpoints/)")
    return p


def settle(args: argparse.Namespace) -> None:
    """The quick run's settings, and every option checked before anything runs."""
    if args.quick:
        args.boards, args.nets, args.iterations = BOARDS[:1], ["1x8"], [2]
        args.simulations, args.ladder = [1, 4], ["random", "mcts:rounds=10", "solver"]
        args.games, args.ladder_games, args.positions, args.frontier_simulations = 2, 2, 3, 4
        args.mistake_simulations = None
    for option in ("boards", "nets", "simulations", "ladder"):
        values = getattr(args, option)
        if len(set(values)) < len(values):
            raise SpecError(f"--{option} names one of its values twice: {' '.join(map(str, values))}")
    for board in args.boards:
        board_slug(board)
        if get_game(board).solver() is None:
            raise SpecError(f"the solver cannot play {board}: the lab needs boards it solves")
    if args.iterations and len(args.iterations) not in (1, len(args.boards)):
        raise SpecError(f"--iterations takes one number or one per board ({len(args.boards)}), "
                        f"not {len(args.iterations)}")
    values = args.iterations or []
    given = dict(zip(args.boards, values * len(args.boards) if len(values) == 1 else values))  # in --boards' order
    args.boards = sorted(args.boards, key=cells)
    args.board_iterations = {board: given.get(board, FIRST_ITERATIONS * 2 ** k) for k, board in enumerate(args.boards)}
    args.nets = [Net.parse(text) for text in args.nets]
    for spec in args.ladder:
        check_spec(spec)
        for board in args.boards:
            agent = ENGINES.create(spec)
            try:
                agent.check_game(get_game(board).initial_state())
            finally:
                agent.close()
    if any(mark in str(args.work) for mark in ",="):
        raise SpecError(f"--work {args.work} holds ',' or '=', which engine specs cannot carry; choose another folder")
    missing = {"random", "solver"} - set(args.ladder)
    if missing:
        raise SpecError(f"the ladder must hold {' and '.join(sorted(missing))}: the scale's bottom and top")
    if args.frontier_simulations not in args.simulations:
        raise SpecError(f"--frontier-simulations {args.frontier_simulations} is not one of --simulations")
    args.mistake_simulations = args.mistake_simulations or [args.frontier_simulations]
    strangers = [n for n in args.mistake_simulations if n not in args.simulations]
    if strangers:
        raise SpecError(f"--mistake-simulations {' '.join(map(str, strangers))}: not of --simulations")


def train_runs(args: argparse.Namespace, board: str, work: Path) -> dict[str, pd.DataFrame]:
    """Train (or go on training) every network size on ``board``; each run's compute table."""
    from engines.training.alphazero import train_alphazero  # loads TensorFlow

    shares = args.workers or 1  # one process batches a run's self-play best on a small machine
    if args.ray and not args.workers:
        from dlgo.arena.distributed import cluster_cpus, connect  # the distributed extra (Ray)

        connect(args.ray)
        shares = cluster_cpus()
    tables = {}
    for net in args.nets:
        config = training_config(board, net, args.seed, args.quick, args.board_iterations[board])
        history = train_alphazero(work / net.name, config, args.board_iterations[board], workers=shares,
                                  ray=args.ray)
        tables[net.name] = training_compute(history, config.batch_size, forward_flops(board, net))
    return tables


def network_spec(work: Path, net: str, iteration: int, simulations: int) -> str:
    """The engine spec of run ``net``'s network after ``iteration``, searching ``simulations`` a move."""
    return f"alphazero:checkpoint={iteration_checkpoint(work / net, iteration)},simulations={simulations}"


def measure_mistakes(args: argparse.Namespace, board: str, work: Path, iterations: list[int]) -> pd.DataFrame:
    """Every evaluated network's mistakes on the board's critical solved positions, raw and at
    every budget of ``--mistake-simulations``, appended to ``mistakes.csv`` as measured (resumable)."""
    positions = measured_positions(board, work / f"positions-{args.positions}", args.positions, args.workers,
                                   args.quick)
    with hold_folder(work / f"mistakes-{args.positions}", "scaling-mistakes", game=get_game(board).spec,
                     seed=MEASURE_SEED, positions=args.positions) as folder:
        log = folder / "mistakes.csv"
        done = {(row["net"], int(row["iteration"]), int(row["simulations"]))
                for row in open_log(log, MISTAKE_COLUMNS)}
        jobs = [(net, iteration) for net in args.nets for iteration in iterations]
        for net, iteration in tqdm(jobs, desc=f"mistakes {board_slug(board)}", unit="network"):
            todo = [n for n in args.mistake_simulations if (net.name, iteration, n) not in done]
            if not todo:
                continue
            network = load_network(iteration_checkpoint(work / net.name, iteration))
            evaluator = NetworkEvaluator(network)
            for simulations in todo:
                measured = measure_reference(evaluator, positions,
                                             MatchSettings(parallel=64, simulations=simulations), seed=args.seed)
                append_row(log, MISTAKE_COLUMNS, {"net": net.name, "iteration": iteration,
                                                  "simulations": simulations, "positions": measured.positions,
                                                  "mistakes_raw": measured.raw, "mistakes_search": measured.search})
        return pd.read_csv(log)


def play_board(args: argparse.Namespace, board: str, work: Path, iterations: list[int]) -> list[GameRecord]:
    """The board's tournament: the ladder's round robin, and every network at every budget
    against every ladder engine (resumable in ``work/games``)."""
    players = [network_spec(work, net.name, i, n) for net in args.nets for i in iterations for n in args.simulations]
    tasks = schedule(args.ladder, args.ladder_games, args.seed) + ladders.pairings(players, args.ladder, args.games,
                                                                                     args.seed)
    records = play_games(ENGINES, work / "games", board, tasks, opening_plies=args.opening_plies,
                         workers=args.workers, ray=args.ray, facts={"game": get_game(board).spec})
    wanted = {task.game_id for task in tasks}  # not the games of earlier settings (other budgets or networks)
    return [record for record in records if record.game_id in wanted]


def board_points(args: argparse.Namespace, board: str, work: Path, compute: dict[str, pd.DataFrame],
                 mistakes: pd.DataFrame, records: list[GameRecord]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One board's ratings: every network at every budget as a row of ``points.csv`` (its
    compute, Elo and mistakes), and the ladder's own ratings."""
    ratings = {r.name: r for r in fit_ratings([GameResult(r.black, r.white, r.score_for(r.black)) for r in records],
                                              anchor="random", seed=args.seed)}
    spent_moves: dict[str, list[float]] = {}  # per player: total work and moves over its games
    for record in records:
        black_moves, white_moves = record.engine_moves()
        for player, work_per_move, moves in ((record.black, record.black_compute, black_moves),
                                             (record.white, record.white_compute, white_moves)):
            total = spent_moves.setdefault(player, [0.0, 0.0])
            total[0] += work_per_move * moves
            total[1] += moves
    slug = board_slug(board)
    rows = []
    for net in args.nets:
        flops = forward_flops(board, net)
        for iteration in evaluated_iterations(args.board_iterations[board]):
            spent = compute[net.name].loc[iteration]
            for simulations in args.simulations:
                spec = network_spec(work, net.name, iteration, simulations)
                rating = ratings[spec]
                work_done, engine_moves = spent_moves[spec]
                evaluations = work_done / max(engine_moves, 1.0)  # the games' evaluations per move
                network = mistakes[(mistakes["net"] == net.name) & (mistakes["iteration"] == iteration)]
                measured = network[network["simulations"] == simulations]
                rows.append({"board": slug, "net": net.name, "iteration": iteration, "simulations": simulations,
                             "network_flops": flops, "train_evaluations": spent["train_evaluations"],
                             "trained_positions": spent["trained_positions"], "train_flops": spent["train_flops"],
                             "train_seconds": spent["train_seconds"],
                             "search_evaluations": evaluations, "search_flops": evaluations * flops,
                             "elo": rating.elo, "elo_low": rating.lower, "elo_high": rating.upper,
                             "games": rating.games, "score": rating.score,
                             "positions": int(measured["positions"].iloc[0]) if len(measured) else 0,
                             "mistakes": float(measured["mistakes_search"].iloc[0]) if len(measured) else math.nan,
                             # the raw policy's, from any budget's measurement
                             "mistakes_raw": float(network["mistakes_raw"].iloc[0]) if len(network) else math.nan})
    ladder = pd.DataFrame([{"board": slug, "engine": spec, "elo": ratings[spec].elo, "elo_low": ratings[spec].lower,
                            "elo_high": ratings[spec].upper, "games": ratings[spec].games}
                           for spec in args.ladder if spec in ratings])
    return pd.DataFrame(rows), ladder


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settle(args)
    chapters.take_folders(args)
    out, work = Path(args.out), Path(args.work)
    with hold_folder(out, "scaling-report"):
        return run_lab(args, argv, out, work)


def game_hours(records: list[GameRecord]) -> float:
    """The engines' hours of thinking over ``records`` (both sides' seconds a move times their moves)."""
    seconds = 0.0
    for record in records:
        black_moves, white_moves = record.engine_moves()
        seconds += record.black_seconds * black_moves + record.white_seconds * white_moves
    return seconds / 3600


def run_lab(args: argparse.Namespace, argv: list[str] | None, out: Path, work: Path) -> int:
    """Train, measure and play every board, then write the report to ``out``."""
    all_points, all_ladders, curves, costs = [], [], [], []
    for board in args.boards:
        iterations = evaluated_iterations(args.board_iterations[board])
        folder = work / board_slug(board)
        compute = train_runs(args, board, folder)
        mistakes = measure_mistakes(args, board, folder, iterations)
        records = play_board(args, board, folder, iterations)
        points, ladder = board_points(args, board, folder, compute, mistakes, records)
        all_points.append(points)
        all_ladders.append(ladder)
        costs.append({"board": board_slug(board), "train_hours": sum(float(table["train_seconds"].max())
                                                                     for table in compute.values()) / 3600,
                      "game_hours": game_hours(records)})
        curves.append(iso_elo(points, levels_of(points)).assign(board=board_slug(board)))
    points, ladder = pd.concat(all_points, ignore_index=True), pd.concat(all_ladders, ignore_index=True)
    iso = pd.concat(curves, ignore_index=True)
    fronts, findings = board_findings(points, ladder, args.frontier_simulations, args.seed)
    trade = rate, low, high, count = exchange_rate(iso, seed=args.seed)
    exchange = pd.DataFrame([{"slope": rate, "slope_low": low, "slope_high": high, "points": count,
                              "training_per_10x_search": 10 ** -rate}])
    boards = facts_table(findings).merge(pd.DataFrame(costs), on="board")
    for name, table in (("points.csv", points), ("ladder.csv", ladder), ("frontier.csv", fronts),
                        ("iso_elo.csv", iso), ("boards.csv", boards), ("exchange.csv", exchange)):
        with atomic_write(out / name) as handle:
            table.to_csv(handle, index=False)
    plot_boards(points, fronts, findings, out / "elo_vs_training.png")
    plot_mistakes(points, out / "mistakes_vs_training.png", args.frontier_simulations)
    plot_iso(iso, out / "iso_elo.png")
    command_line = chapters.command(__file__, argv, {"--seed": args.seed})
    chapters.write_lines(out / "summary.md", summary_lines(args, command_line, points, ladder, findings, trade)
                         + cost_lines(pd.DataFrame(costs)))
    update_facts(out, facts(out))
    shipped = [ship_board(args, board, work / board_slug(board), points) for board in args.boards] if args.ship else []
    print(f"wrote {out / 'summary.md'}", *shipped, sep="\n")
    return 0


def ship_board(args: argparse.Namespace, board: str, work: Path, points: pd.DataFrame) -> str:
    """``--ship``: the published network of the board's largest run exported to ``--checkpoints``
    (:func:`~experiments.shared.connectn.ship_network`); a line saying what shipped and how it measured."""
    net = max(args.nets, key=lambda n: forward_flops(board, n))
    dest = ship_network(work / net.name / "checkpoint.keras", board, args.checkpoints)
    iteration = int(read_metadata(dest)["iteration"])
    line = f"shipped {dest}: {net.name} after iteration {iteration}"
    measured = points[(points["board"] == board_slug(board)) & (points["net"] == net.name)
                      & (points["iteration"] == iteration) & (points["simulations"] == args.frontier_simulations)
                      & (points["positions"] > 0)]
    if len(measured):
        row = measured.iloc[0]
        line += (f", {100 * row['mistakes']:.2f}% mistakes at {plural(args.frontier_simulations, 'simulation')}, "
                 f"{100 * row['mistakes_raw']:.2f}% raw, of {int(row['positions'])} critical positions")
    return line


if __name__ == "__main__":
    raise SystemExit(main())
