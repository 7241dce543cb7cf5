"""The scaling lab: AlphaZero's strength against training compute and search compute, from random play to perfect play.

    python experiments/headline/scaling.py                 # the full run: about 3 hours on 2 cores, resumable
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
   the cheapest economy of the Connect Four ablation), ``--iterations`` long,
   in ``--work/BOARD/NET`` (resumable, its every iteration's network kept).
2. **Perfect play's yardstick.** Each board's solved position sets (Pons' six
   sets, ``--positions`` per set, generated once with the solver in
   ``--work/BOARD/positions``); every evaluated network's mistakes on their
   critical positions at each search budget: ``mistakes.csv``.
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
``mistakes_vs_training.png``, ``iso_elo.png`` and ``summary.md``.
"""
from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd
from tqdm import tqdm

from dlgo.arena.ratings import GameResult, fit_ratings
from dlgo.arena.tournament import play_games, schedule
from dlgo.core.arguments import whole
from dlgo.core.errors import SpecError
from dlgo.data.solved import generate_positions
from dlgo.encoders import get_encoder_by_name
from dlgo.formats.atomic import atomic_write
from dlgo.formats.folders import hold_folder
from dlgo.formats.plotting import new_figure, save_figure
from dlgo.formats.positions import append_row, open_log, read_positions
from dlgo.formats.records import GameRecord
from dlgo.games.registry import get_game
from engines.alphazero import NetworkEvaluator
from engines.neural.loading import load_network
from engines.neural.resnet import resnet_flops
from engines.registry import ENGINES, check_spec
from engines.training.references import measure_reference
from engines.training.selfplay import MatchSettings
from experiments.shared import chapters, ladders
from experiments.shared.connectn import Net, board_shape, board_slug, cells, cells_of, training_config

NAME = "scaling-connectn"
BOARDS = ["connectn:columns=5,rows=4,n=4", "connectn:columns=6,rows=4,n=4", "connectn:columns=6,rows=5,n=4"]
NETS = ["1x16", "2x32", "4x64"]
SIMULATIONS = [1, 8, 64, 512]
LADDER = ["random", "mcts:rounds=10", "mcts:rounds=100", "mcts:rounds=1000", "solver"]
#: Jones' figures for Hex (2021), which the summary sets each of ours beside
JONES_ELO_PER_DECADE = 500
JONES_PERFECT_GROWTH = 7
FIRST_ITERATIONS = 64  # the smallest board's iterations a run; each larger board's runs train twice as long
PERFECT = 0.01  # the mistake rate on the solved sets that counts as perfect play
#: the mistake rates whose training compute the report tabulates, perfect play's last
MISTAKE_LEVELS = (0.20, 0.10, 0.05, 0.02, PERFECT)

MISTAKE_COLUMNS = ["net", "iteration", "simulations", "positions", "mistakes_raw", "mistakes_search"]


def evaluated_iterations(last: int) -> list[int]:
    """The iterations whose networks play: 0 and the powers of two up to ``last``, and ``last``."""
    chosen = {0, last} | {2 ** k for k in range(int(math.log2(max(last, 1))) + 1)}
    return sorted(i for i in chosen if i <= last)


# --- compute -----------------------------------------------------------------------------------------------


def forward_flops(board: str, net: Net) -> int:
    """FLOPs of one network evaluation of ``net`` on ``board`` (with the lab's heads)."""
    encoder = get_encoder_by_name(None, board)
    config = training_config(board, net, 0, quick=False)
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


# --- the analysis (pure functions over points.csv) ----------------------------------------------------------


class Fit(NamedTuple):
    """A compute frontier's fit: Elo rising linearly in log10(compute), then (if the
    data ask for one) flat from a change point on, as Jones fitted his frontiers."""

    slope: float            # Elo per 10x compute on the rising part
    low: float              # its 95% bootstrap interval
    high: float
    intercept: float        # Elo at 1 FLOP (log10 = 0)
    plateau: float | None   # the flat part's Elo; None when a straight line fits better
    points: int             # frontier points on the rising part
    knee: float | None = None  # log10 of the compute where the plateau begins
    knees: tuple[float, ...] = ()  # the knee of each resampled frontier that keeps a plateau
    plateau_low: float = math.nan  # the plateau's 95% interval over those resamples
    plateau_high: float = math.nan
    flat_share: float = math.nan   # the share of resamples that keep a plateau

    @property
    def knee_flops(self) -> float:
        """The compute where the frontier turns flat (NaN: no plateau). On Hex, which has no draws, Jones
        read perfect play there; on a drawn board Elo stops rising once the networks stop losing to
        the solver, while their mistakes can go on falling."""
        return math.nan if self.knee is None else 10 ** self.knee

    @property
    def knee_interval(self) -> tuple[float, float]:
        """The 95% bootstrap interval of :attr:`knee_flops` (NaN without a plateau)."""
        if self.knee is None or not self.knees:
            return math.nan, math.nan
        low, high = np.percentile(self.knees, [2.5, 97.5])
        return float(10 ** low), float(10 ** high)

    def predict(self, log_compute: np.ndarray) -> np.ndarray:
        line = self.intercept + self.slope * log_compute
        return line if self.plateau is None else np.minimum(line, self.plateau)


def frontier(points: pd.DataFrame, x: str = "train_flops", y: str = "elo") -> pd.DataFrame:
    """The points no cheaper point beats: each one's ``y`` is above every point with less ``x``
    (points without compute, the untrained networks, left out)."""
    ordered = points[points[x] > 0].sort_values([x, y], ascending=[True, False])
    keep, best = [], -math.inf
    for value in ordered[y]:
        keep.append(value > best)
        best = max(best, value)
    return ordered[keep]


def _hinge(logs: np.ndarray, elos: np.ndarray, knee: float) -> tuple[float, float, float]:
    """Least squares of elo = a + b·min(log, knee): (a, b, squared error)."""
    z = np.minimum(logs, knee)
    if np.ptp(z) == 0:
        return float(elos.mean()), 0.0, float(np.sum((elos - elos.mean()) ** 2))
    b, a = np.polyfit(z, elos, 1)
    return float(a), float(b), float(np.sum((a + b * z - elos) ** 2))


def fit_frontier(front: pd.DataFrame, x: str = "train_flops", y: str = "elo", seed: int = 0,
                 resamples: int = 1000, until: float | None = None) -> Fit | None:
    """Jones' change-point model of a frontier: Elo = a + b·log10(compute) up to a knee, flat
    after it, continuous at the knee (:func:`change_point`). None with fewer than three
    frontier points. A plateau is kept only where at least half of the resampled frontiers
    keep one too.

    ``until`` is the most compute any run spent (None or NaN: not known): the frontier holds its best Elo up to
    there (no network beat it), which the fit sees as one more point, so runs that went
    on long after their best without improving show as a plateau. The intervals resample
    the measured frontier points (that last point, a bound rather than a measurement,
    joins every resample): the slope's with the knee held, the knee's and the plateau's
    found afresh in each resample that keeps a plateau."""
    logs, elos = np.log10(front[x].to_numpy(float)), front[y].to_numpy(float)
    measured = len(logs)
    if measured < 3:
        return None
    tail = None if until is None or math.isnan(until) else math.log10(until)
    if tail is not None and tail <= logs[-1] + 1e-9:  # the runs ended at the frontier's last point (to rounding)
        tail = None

    def held(chosen_logs: np.ndarray, chosen_elos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The chosen points and, at ``until``, their best Elo held."""
        if tail is None:
            return chosen_logs, chosen_elos
        return np.append(chosen_logs, tail), np.append(chosen_elos, chosen_elos.max())

    all_logs, all_elos = held(logs, elos)
    knee, a, b = change_point(all_logs, all_elos)
    rng = np.random.default_rng(seed)
    picks = [np.sort(rng.integers(0, measured, measured)) for _ in range(resamples)]
    knees, plateaus = [], []
    for pick in picks if knee is not None else []:
        resampled, ra, rb = change_point(*held(logs[pick], elos[pick]))
        if resampled is not None:
            knees.append(resampled)
            plateaus.append(ra + rb * resampled)
    if knee is not None and len(knees) < resamples / 2:  # a plateau most resamples lose: the data do not show one
        knee, knees, plateaus = None, [], []
        a, b, _ = _hinge(all_logs, all_elos, all_logs[-1])
    slopes = []
    for pick in picks:
        some_logs, some_elos = held(logs[pick], elos[pick])
        hinge = knee if knee is not None else some_logs[-1]
        if np.ptp(np.minimum(some_logs, hinge)) > 0:
            slopes.append(_hinge(some_logs, some_elos, hinge)[1])
    low, high = np.percentile(slopes, [2.5, 97.5]) if slopes else (math.nan, math.nan)
    if knee is None:
        return Fit(b, float(low), float(high), a, None, measured)
    plateau_low, plateau_high = np.percentile(plateaus, [2.5, 97.5])
    return Fit(b, float(low), float(high), a, a + b * knee, int((logs <= knee).sum()), knee, tuple(knees),
               float(plateau_low), float(plateau_high), len(knees) / resamples)


def change_point(logs: np.ndarray, elos: np.ndarray) -> tuple[float | None, float, float]:
    """The best continuous hinge through sorted ``logs``: (knee, intercept, slope), the knee
    None where the Bayesian information criterion prefers a straight line. The knee is
    searched, all at once, on a grid of 400 between the third and the second-to-last
    distinct compute, so that at least three points rise and two lie on the plateau."""
    n = len(logs)
    floor = 1e-9 * max(float(np.sum((elos - elos.mean()) ** 2)), 1.0)  # an exact fit is not infinitely good

    def bic(error: np.ndarray | float, parameters: int) -> np.ndarray:
        return n * np.log(np.maximum(error, floor) / n) + parameters * math.log(n)

    a, b, error = _hinge(logs, elos, logs[-1])  # a straight line
    distinct = np.unique(logs)
    if len(distinct) < 5:
        return None, a, b
    knees = np.linspace(distinct[2], distinct[-2], 400, endpoint=False)
    z = np.minimum(logs[None, :], knees[:, None])  # a row per candidate knee
    centred = z - z.mean(axis=1, keepdims=True)
    spread = (centred ** 2).sum(axis=1)
    slopes = np.divide(centred @ (elos - elos.mean()), spread, out=np.zeros_like(spread), where=spread > 0)
    intercepts = elos.mean() - slopes * z.mean(axis=1)
    scores = bic(((intercepts[:, None] + slopes[:, None] * z - elos) ** 2).sum(axis=1), 3)
    scores[slopes <= 0] = np.inf  # a plateau follows a rise
    k = int(np.argmin(scores))
    if scores[k] < bic(error, 2):
        return float(knees[k]), float(intercepts[k]), float(slopes[k])
    return None, a, b


class Reach(NamedTuple):
    """The training compute at which a board's networks first play perfectly."""

    flops: float    # the cheapest trained network whose mistakes are at most the threshold (NaN: none)
    after: float    # the most compute a cheaper network spent that still erred more (the interval's low end)
    relapses: int   # networks with more compute than ``flops`` that err more again
    heavier: int    # networks with more compute than ``flops``


def perfect_compute(points: pd.DataFrame, threshold: float = PERFECT) -> Reach:
    """The least training compute whose network errs on at most ``threshold`` of the solved
    positions, the most compute spent by a network that erred more before it, and how many
    of the networks that spent more err more again (a lucky measurement shows there)."""
    rows = points[points["train_flops"] > 0].dropna(subset=["mistakes"]).sort_values("train_flops")
    good = rows[rows["mistakes"] <= threshold]
    if good.empty:
        return Reach(math.nan, float(rows["train_flops"].max()) if len(rows) else math.nan, 0, 0)
    first = float(good["train_flops"].iloc[0])
    bad = rows[(rows["mistakes"] > threshold) & (rows["train_flops"] < first)]
    later = rows[rows["train_flops"] > first]
    return Reach(first, float(bad["train_flops"].max()) if len(bad) else 0.0,
                 int((later["mistakes"] > threshold).sum()), len(later))


def crossing(front: pd.DataFrame, level: float, x: str = "train_flops", y: str = "elo") -> float:
    """The compute at which a frontier first reaches Elo ``level``, interpolated in log10
    compute between the two frontier points around it (NaN if it never does, or if its
    cheapest point is already above: the crossing lies below what the runs measured)."""
    logs, elos = np.log10(front[x].to_numpy(float)), front[y].to_numpy(float)
    above = np.nonzero(elos >= level)[0]
    if not len(above) or above[0] == 0:
        return math.nan
    k = int(above[0])
    share = (level - elos[k - 1]) / (elos[k] - elos[k - 1])
    return float(10 ** (logs[k - 1] + share * (logs[k] - logs[k - 1])))


def iso_elo(points: pd.DataFrame, levels: Sequence[float]) -> pd.DataFrame:
    """The iso-Elo curves of training against search compute: for each Elo level, each
    network size and each search budget, the training compute at which that network's
    runs (its best so far at that budget) reach the level, at that network's own search
    FLOPs per move; then per level only the points no cheaper search beats in training
    compute (the curve's lower envelope across network sizes)."""
    rows = []
    for (net, simulations), group in points.groupby(["net", "simulations"]):
        curve = frontier(group)
        search = float(np.average(group["search_flops"], weights=group["games"].clip(lower=1)))
        for level in levels:
            rows.append({"level": level, "net": net, "simulations": simulations, "search_flops": search,
                         "train_flops": crossing(curve, level)})
    table = pd.DataFrame(rows, columns=["level", "net", "simulations", "search_flops", "train_flops"])
    table = table.dropna(subset=["train_flops"]).sort_values(["level", "search_flops", "train_flops"])
    envelope = []
    for _, group in table.groupby("level", sort=False):
        best = math.inf
        for row in group.itertuples(index=False):
            if row.train_flops < best:
                envelope.append(row)
                best = row.train_flops
    return pd.DataFrame(envelope, columns=table.columns).reset_index(drop=True)


def exchange_rate(curves: pd.DataFrame, seed: int = 0, resamples: int = 1000) -> tuple[float, float, float, int]:
    """How much training compute 10x more search compute replaces, along iso-Elo lines:
    the pooled slope b of log10(train) on log10(search) with one intercept per curve
    (a board's level) — 10x search replaces 10^-b x training — its 95% interval from
    resampling whole curves, and how many points it rests on (NaN without a curve of two
    points)."""
    rows = curves.dropna(subset=["train_flops"]).copy()
    rows["curve"] = rows["board"].astype(str) + "@" + rows["level"].astype(str)
    rows = rows[rows.groupby("curve")["curve"].transform("size") >= 2]
    if rows.empty:
        return math.nan, math.nan, math.nan, 0
    rows["x"], rows["y"] = np.log10(rows["search_flops"].astype(float)), np.log10(rows["train_flops"].astype(float))
    by_curve = {name: group for name, group in rows.groupby("curve")}

    def slope(names: Sequence[str]) -> float:
        xc, yc = [], []
        for name in names:
            group = by_curve[name]
            xc.append(group["x"] - group["x"].mean())
            yc.append(group["y"] - group["y"].mean())
        x, y = np.concatenate(xc), np.concatenate(yc)
        return float(np.sum(x * y) / np.sum(x * x)) if np.sum(x * x) > 0 else math.nan

    names = list(by_curve)
    b = slope(names)
    rng = np.random.default_rng(seed)
    draws = [slope([names[i] for i in rng.integers(0, len(names), len(names))]) for _ in range(resamples)]
    draws = [d for d in draws if not math.isnan(d)]
    low, high = np.percentile(draws, [2.5, 97.5]) if draws else (math.nan, math.nan)
    return b, float(low), float(high), len(rows)


# --- the run ------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = chapters.parser(__file__, __doc__, name=NAME, work="the training runs, position sets and games, resumable")
    p.add_argument("--boards", nargs="+", default=BOARDS, metavar="SPEC",
                   help="Connect-N boards, smallest first (default 5x4, 6x4 and 6x5, four in a row)")
    p.add_argument("--nets", nargs="+", default=NETS, metavar="BLOCKSxFILTERS",
                   help=f"network sizes (default {' '.join(NETS)})")
    p.add_argument("--iterations", type=whole(1), nargs="+", default=None, metavar="N",
                   help="each run's iterations: one number for every board, or one per board of --boards "
                        f"(default {FIRST_ITERATIONS} on the smallest board, twice as many on each larger one, so "
                        "that every board's frontier can reach its plateau)")
    p.add_argument("--simulations", type=whole(1), nargs="+", default=SIMULATIONS, metavar="N",
                   help=f"search budgets the networks play at (default {' '.join(map(str, SIMULATIONS))})")
    p.add_argument("--ladder", nargs="+", default=LADDER, metavar="SPEC",
                   help=f"the fixed opponents, random and the solver included (default {' '.join(LADDER)})")
    p.add_argument("--games", type=whole(2), default=10,
                   help="games of each network and budget against each ladder engine (default 10)")
    p.add_argument("--ladder-games", type=whole(2), default=20,
                   help="games of each pair of ladder engines (default 20)")
    p.add_argument("--opening-plies", type=whole(0), default=2,
                   help="random moves that open every game (default 2; the solver and the networks are deterministic)")
    p.add_argument("--positions", type=whole(1), default=100, help="solved positions per set and board (default 100)")
    p.add_argument("--frontier-simulations", type=whole(1), default=64,
                   help="the search budget of the frontier and of perfect play (default 64)")
    p.add_argument("--workers", type=whole(1), default=None,
                   help="processes for the games and the position sets (default one per core) and for self-play "
                        "(default 1, or with --ray one share per CPU of the cluster)")
    p.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                   help="self-play and games on a Ray cluster: auto, HOST:PORT or local")
    return p


def settle(args: argparse.Namespace) -> None:
    """The quick run's settings, and every option checked before anything runs."""
    if args.quick:
        args.boards, args.nets, args.iterations = BOARDS[:1], ["1x8"], [2]
        args.simulations, args.ladder = [1, 4], ["random", "mcts:rounds=10", "solver"]
        args.games, args.ladder_games, args.positions, args.frontier_simulations = 2, 2, 3, 4
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
        config = training_config(board, net, args.seed, args.quick)
        history = train_alphazero(work / net.name, config, args.board_iterations[board], workers=shares,
                                  ray=args.ray)
        tables[net.name] = training_compute(history, config.batch_size, forward_flops(board, net))
    return tables


def network_spec(work: Path, net: str, iteration: int, simulations: int) -> str:
    """The engine spec of run ``net``'s network after ``iteration``, searching ``simulations`` a move."""
    return f"alphazero:checkpoint={work / net / 'checkpoints' / f'iter-{iteration:03d}.keras'},simulations={simulations}"


def measure_mistakes(args: argparse.Namespace, board: str, work: Path, iterations: list[int]) -> pd.DataFrame:
    """Every evaluated network's mistakes on the board's critical solved positions at every
    search budget, appended to ``mistakes.csv`` as measured (resumable)."""

    sets = generate_positions(board, work / f"positions-{args.positions}", per_set=args.positions, seed=args.seed,
                              workers=args.workers, progress=True)
    positions = [p for p in read_positions(sets) if p.critical]
    if not positions:
        raise SpecError(f"no critical solved positions for {board}; raise --positions")
    with hold_folder(work / f"mistakes-{args.positions}", "scaling-mistakes", game=get_game(board).spec,
                     seed=args.seed, positions=args.positions) as folder:
        log = folder / "mistakes.csv"
        done = {(row["net"], int(row["iteration"]), int(row["simulations"]))
                for row in open_log(log, MISTAKE_COLUMNS)}
        jobs = [(net, iteration) for net in args.nets for iteration in iterations]
        for net, iteration in tqdm(jobs, desc=f"mistakes {board_slug(board)}", unit="network"):
            todo = [n for n in args.simulations if (net.name, iteration, n) not in done]
            if not todo:
                continue
            network = load_network(work / net.name / "checkpoints" / f"iter-{iteration:03d}.keras")
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
                measured = mistakes[(mistakes["net"] == net.name) & (mistakes["iteration"] == iteration)
                                    & (mistakes["simulations"] == simulations)]
                rows.append({"board": slug, "net": net.name, "iteration": iteration, "simulations": simulations,
                             "network_flops": flops, "train_evaluations": spent["train_evaluations"],
                             "trained_positions": spent["trained_positions"], "train_flops": spent["train_flops"],
                             "train_seconds": spent["train_seconds"],
                             "search_evaluations": evaluations, "search_flops": evaluations * flops,
                             "elo": rating.elo, "elo_low": rating.lower, "elo_high": rating.upper,
                             "games": rating.games, "score": rating.score,
                             "positions": int(measured["positions"].iloc[0]) if len(measured) else 0,
                             "mistakes": float(measured["mistakes_search"].iloc[0]) if len(measured) else math.nan,
                             "mistakes_raw": float(measured["mistakes_raw"].iloc[0]) if len(measured) else math.nan})
    ladder = pd.DataFrame([{"board": slug, "engine": spec, "elo": ratings[spec].elo, "elo_low": ratings[spec].lower,
                            "elo_high": ratings[spec].upper, "games": ratings[spec].games}
                           for spec in args.ladder if spec in ratings])
    return pd.DataFrame(rows), ladder


# --- the report -----------------------------------------------------------------------------------------------


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


def knee_ratio(smaller: Fit, larger: Fit) -> tuple[float, float, float]:
    """How many times the training compute ``larger``'s frontier took to turn flat as ``smaller``'s,
    with a 95% interval over every pair of the two fits' resampled knees (NaN where either has
    no plateau; the interval NaN where no resample of one kept its plateau)."""
    if smaller.knee is None or larger.knee is None:
        return math.nan, math.nan, math.nan
    ratio = 10 ** (larger.knee - smaller.knee)
    if not smaller.knees or not larger.knees:
        return ratio, math.nan, math.nan
    low, high = np.percentile(np.subtract.outer(larger.knees, smaller.knees), [2.5, 97.5])
    return ratio, float(10 ** low), float(10 ** high)


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
               "plateau_low": fit.plateau_low if fit else math.nan, "plateau_high": fit.plateau_high if fit else math.nan,
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
            ax.scatter(rows["train_flops"], rows["elo"], s=12, label=f"{simulations} simulations")
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
    ax.set_ylabel(f"mistakes on the solved positions ({simulations} simulations)")
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
    lines = ["# The scaling lab: strength against training and search compute on Connect-N", "",
             f"Reproduce: `{command_line}`", "",
             f"Boards {', '.join(points['board'].unique())} (columns x rows - in a row); networks "
             f"{', '.join(n.name for n in args.nets)} (residual blocks x filters), each from a random network for "
             f"{' and '.join(f'{n} iterations on {board_slug(b)}' for b, n in args.board_iterations.items())}; every "
             "network after iterations 0, 1, 2, 4, 8, ... and the last plays at "
             f"{', '.join(map(str, args.simulations))} simulations a move against {', '.join(args.ladder)} "
             f"({args.games} games each, openings of {args.opening_plies} random moves). Elo: one scale per board, "
             "random = 0, 95% bootstrap intervals. Compute: FLOPs estimated from each network's shape; training "
             "counts self-play's network evaluations and three forward passes per trained position (not the few "
             "games each iteration plays against its predecessor); search counts the evaluations per move of the "
             "games.", "",
             "## The compute frontier", "",
             f"At {args.frontier_simulations} simulations a move, the best Elo any network reached at each training "
             "compute, fitted as Jones did with a line in log compute up to a plateau (kept only where the Bayesian "
             "information criterion prefers it to a straight line; the frontier holds its best Elo up to the most "
             "compute any run spent, so runs that went on long after their best show as a plateau):", "",
             "| board | frontier points | Elo per 10x training compute | plateau | perfect play (solver) | "
             "best network |", "|---|---:|---:|---:|---:|---|"]
    for fact in facts:
        fit, best = fact.fit, fact.best
        slope = f"**{fit.slope:.0f}** ({fit.low:.0f} to {fit.high:.0f}, {fit.points} points)" if fit else "too few points"
        plateau = f"{fit.plateau:.0f}" if fit is not None and fit.plateau is not None else "none"
        lines.append(f"| {fact.board} | {fact.frontier_points} | {slope} | {plateau} | {fact.perfect_elo:.0f} | "
                     f"{best['net']} after {int(best['iteration'])} iterations at {int(best['simulations'])} "
                     f"simulations: {best['elo']:.0f} |")
    slopes = [fact.fit.slope for fact in facts if fact.fit is not None]
    if slopes:
        lines += ["", f"Jones measured about {JONES_ELO_PER_DECADE} Elo per 10x along the frontier on Hex; here "
                      f"{' and '.join(f'{s:.0f}' for s in slopes)}, so doubling training compute wins "
                      f"{' and '.join(f'{1 / (1 + 10 ** (-s * math.log10(2) / 400)):.0%}' for s in slopes)} of the "
                      "games against the network it doubled (Jones: about two in three)."]
    return lines


def perfect_lines(args: argparse.Namespace, facts: list[BoardFacts]) -> list[str]:
    """The summary's perfect play section: the compute to each mistake level, the knees, the growth per step."""
    levels = " | ".join(f"<= {level:.0%}" for level in MISTAKE_LEVELS)
    lines = ["", "![Elo against training compute](elo_vs_training.png)", "", "## Perfect play", "",
              f"Perfect play here is erring on at most {PERFECT:.0%} of the board's critical solved positions at "
              f"{args.frontier_simulations} simulations. The least training compute (FLOPs) whose network errs on at "
              "most each share of them, the fewest mistakes any network made at any budget, and where the "
              "frontier's fit turns flat, its plateau beside the solver's Elo. Jones read perfect play at that "
              "knee on Hex, which has no draws; on a drawn board Elo stops rising once the networks stop losing "
              "to the solver, and their mistakes can go on falling after it. A plateau whose interval reaches the "
              "solver's is taken as perfect play's level (a frontier is the running best of noisy ratings, so it "
              "leans high); one wholly below it is a stall:", "",
              f"| board | {levels} | fewest mistakes | Elo flat from (95% intervals) |",
              "|---|" + "---:|" * len(MISTAKE_LEVELS) + "---|---|"]
    for fact in facts:
        fewest, fit = fact.fewest, fact.fit
        least = (f"{fewest['mistakes']:.1%} ({fewest['net']} after {int(fewest['iteration'])} iterations, "
                 f"{int(fewest['simulations'])} simulations)" if len(fewest) else "not measured")
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
              *(f"| {r.board} | `{r.engine}` | {r.elo:.0f} | {r.elo_low:.0f} to {r.elo_high:.0f} | {r.games} |"
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
    fronts, facts = board_findings(points, ladder, args.frontier_simulations, args.seed)
    trade = rate, low, high, count = exchange_rate(iso, seed=args.seed)
    exchange = pd.DataFrame([{"slope": rate, "slope_low": low, "slope_high": high, "points": count,
                              "training_per_10x_search": 10 ** -rate}])
    for name, table in (("points.csv", points), ("ladder.csv", ladder), ("frontier.csv", fronts),
                        ("iso_elo.csv", iso), ("boards.csv", facts_table(facts).merge(pd.DataFrame(costs), on="board")), ("exchange.csv", exchange)):
        with atomic_write(out / name) as handle:
            table.to_csv(handle, index=False)
    plot_boards(points, fronts, facts, out / "elo_vs_training.png")
    plot_mistakes(points, out / "mistakes_vs_training.png", args.frontier_simulations)
    plot_iso(iso, out / "iso_elo.png")
    command_line = chapters.command(__file__, argv, {"--seed": args.seed})
    chapters.write_lines(out / "summary.md", summary_lines(args, command_line, points, ladder, facts, trade)
                         + cost_lines(pd.DataFrame(costs)))
    print(f"wrote {out / 'summary.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
