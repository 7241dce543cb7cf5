"""The compute frontier's statistics: pure functions over tables of trained networks
(one row a network at a search budget, with its training compute ``train_flops``,
its search compute per move ``search_flops``, its ``elo`` and its ``mistakes`` on
solved positions), used by the scaling lab (``experiments/headline/scaling.py``).

**The compute frontier.** Train many networks of several sizes for many budgets and
rate them all on one Elo scale: most spend compute badly (a small network trained too
long, a large one stopped too soon). The frontier is the running best: at each training
compute, the best Elo any network reached for that much compute or less. Its slope in
Elo per 10x of compute says what compute buys when it is spent well.

**Jones' change-point model.** Andy Jones ("Scaling Scaling Laws with Board Games",
2021) trained AlphaZero on Hex at many sizes and found each board's frontier rising in a
straight line in log compute (about 500 Elo per 10x) up to a knee, then flat: perfect
play, which no more compute improves. We fit the same hinge, Elo = a + b·min(log10
compute, knee), continuous at the knee, and keep the knee only where the Bayesian
information criterion prefers it to a straight line and most bootstrap resamples of the
frontier keep one too. Training and search compute trade against each other along his
iso-Elo lines: straight in log-log, the same Elo for less training and more search.

What each function answers:

- :func:`frontier`: which networks no cheaper network beats (the frontier's points)?
- :func:`fit_frontier` (:class:`Fit`): how many Elo does 10x compute buy on the rising
  part, where does the frontier turn flat, at what Elo, and how sure is each?
  :func:`change_point` finds the knee, :func:`_hinge` fits the line below a given one;
- :func:`knee_ratio`: how many times the compute did one board's frontier take to turn
  flat as another's?
- :func:`perfect_compute` (:class:`Reach`): the least training compute whose network errs on
  at most a share of the solved positions (:data:`PERFECT`: perfect play), bracketed;
- :func:`crossing`: at what compute does a frontier first reach an Elo level?
- :func:`iso_elo`: the iso-Elo curves, the training compute that reaches each level at
  each search compute;
- :func:`exchange_rate`: along those curves, how much training compute 10x more search
  compute replaces.
"""
from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd

PERFECT = 0.01  # the mistake rate on the solved sets that counts as perfect play


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
