"""Elo ratings from game results: a Bradley–Terry maximum-likelihood fit.

Every game between players i and j is a Bernoulli trial with
P(i beats j) = 1 / (1 + 10 ** ((elo_j - elo_i) / 400)); a draw counts as half a
win for each side (as in BayesElo and Ordo). All results are fitted at once with
Hunter's MM algorithm (2004), so the ratings are consistent across the whole
tournament, not an order-dependent running update. A weak prior, ``prior``
virtual draws per pair that met, keeps a perfect score finite. 95% confidence
intervals come from a seeded bootstrap over games taken in a fixed order (the
same games give the same intervals, whatever order their file has them in);
where every resample is alike (a few games that all ended the same way) the
games give no interval, and the bounds are NaN rather than a point passed off
as one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Collection, Mapping, NamedTuple, Sequence

import numpy as np

from dlgo.core.errors import RecordError

ELO_PER_NAT = 400 / math.log(10)


class GameResult(NamedTuple):
    """One game: ``score`` is what ``a`` scored against ``b`` (1, 0.5 or 0)."""

    a: str
    b: str
    score: float


class Rating(NamedTuple):
    name: str
    elo: float
    lower: float  # 95% interval (NaN where the games give none; a held player's is its rating)
    upper: float
    games: int
    score: float  # points per game


def _matrices(results: Sequence[GameResult], players: list[str]) -> tuple[np.ndarray, np.ndarray]:
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    wins = np.zeros((n, n))
    games = np.zeros((n, n))
    for a, b, score in results:
        i, j = index[a], index[b]
        wins[i, j] += score
        wins[j, i] += 1.0 - score
        games[i, j] += 1
        games[j, i] += 1
    return wins, games


def _check_connected(games: np.ndarray, players: list[str]) -> None:
    seen, todo = {0}, [0]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(games[i]):
            if j not in seen:
                seen.add(int(j))
                todo.append(int(j))
    if len(seen) != len(players):
        apart = sorted(players[i] for i in range(len(players)) if i not in seen)
        raise RecordError(f"ratings need every player linked by games; not linked to {players[0]}: {', '.join(apart)}")


def _fit(wins: np.ndarray, games: np.ndarray, prior: float, tolerance: float = 1e-9,
         fixed: dict[int, float] | None = None) -> np.ndarray:
    """Maximum-likelihood strengths (natural-log scale) by MM iteration: mean 0,
    or with the players in ``fixed`` (index -> strength) held where they are."""
    met = games > 0
    wins = wins + met * (prior / 2)  # virtual draws: half a point each way
    games = games + met * prior
    total = wins.sum(axis=1)
    gamma = np.ones(len(total))
    held = np.array(sorted(fixed or {}), dtype=int)
    held_gamma = np.exp([fixed[i] for i in held]) if fixed else None
    if fixed:
        gamma[held] = held_gamma
    for _ in range(100_000):
        denominator = (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = total / denominator
        if fixed:
            new[held] = held_gamma
        else:
            new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - gamma) / gamma) < tolerance:
            gamma = new
            break
        gamma = new
    return np.log(gamma)


def fit_ratings(results: Sequence[GameResult], anchor: str | None = "random", anchor_elo: float = 0.0,
                prior: float = 1.0, bootstrap: int = 200, seed: int = 0,
                fixed: Mapping[str, float] | None = None) -> list[Rating]:
    """Elo ratings of every player, strongest first, with 95% bootstrap intervals.

    ``anchor`` (if it played) is pinned at ``anchor_elo``; otherwise the mean rating is
    ``anchor_elo``. ``fixed`` instead holds several players at given ratings (a
    yardstick such as GNU Go's levels) and fits only the others against them;
    its intervals are 0 wide, as is the anchor's. ``bootstrap`` resamples of the
    games give the other players' intervals: NaN where they cannot (every
    resample alike, or ``bootstrap=0``). The results are sorted first, so the
    intervals depend on the games alone, never on the order they were recorded in."""
    results = sorted(GameResult(*r) for r in results)
    if not results:
        return []
    players = sorted({r.a for r in results} | {r.b for r in results})
    wins, games = _matrices(results, players)
    _check_connected(games, players)
    held = {players.index(p): elo / ELO_PER_NAT for p, elo in (fixed or {}).items() if p in players}

    def to_elo(strength: np.ndarray) -> np.ndarray:
        elo = strength * ELO_PER_NAT
        if held:
            return elo
        shift = elo[players.index(anchor)] if anchor in players else elo.mean()
        return elo - shift + anchor_elo

    def fit(w: np.ndarray, g: np.ndarray) -> np.ndarray:
        return _fit(w, g, prior, fixed=held)

    elo = to_elo(fit(wins, games))
    lower, upper = elo.copy(), elo.copy()
    if bootstrap:
        rng = np.random.default_rng(seed)
        samples = []
        for _ in range(bootstrap):
            resample = [results[i] for i in rng.integers(0, len(results), len(results))]
            w, g = _matrices(resample, players)
            try:
                _check_connected(g, players)
            except RecordError:
                continue  # a resample that lost a link says nothing about it
            samples.append(to_elo(fit(w, g)))
        if samples:
            lower, upper = np.percentile(np.array(samples), [2.5, 97.5], axis=0)
    lower, upper = np.minimum(lower, elo), np.maximum(upper, elo)
    pinned = set(held) or ({players.index(anchor)} if anchor in players else set())  # rated by definition
    no_interval = (upper - lower < 1e-6) & np.array([i not in pinned for i in range(len(players))])
    lower[no_interval] = upper[no_interval] = math.nan
    played = games.sum(axis=1)
    points = wins.sum(axis=1)
    ratings = [Rating(p, float(elo[i]), float(lower[i]), float(upper[i]), int(played[i]),
                      float(points[i] / played[i])) for i, p in enumerate(players)]
    return sorted(ratings, key=lambda r: -r.elo)


def describe_scale(players: Collection[str], anchor: str | None = "random", anchor_elo: float = 0.0,
                   fixed: Mapping[str, float] | None = None) -> str:
    """What fixes the scale of :func:`fit_ratings`' ratings of ``players`` (same
    arguments), in words for a report: the players held, the anchor, or the mean."""
    held = {p: elo for p, elo in (fixed or {}).items() if p in players}
    if held:
        return "with " + ", ".join(f"`{name}` held at {elo:.0f}" for name, elo in held.items())
    if anchor in players:
        return f"anchored at {anchor} = {anchor_elo:g}"
    absent = f" ({anchor} is not in the pool)" if anchor else ""
    return f"anchored at the mean rating = {anchor_elo:g}{absent}"


def expected_score(elo_a: float, elo_b: float) -> float:
    """The Elo model's expected score of a against b."""
    return 1.0 / (1.0 + 10 ** ((elo_b - elo_a) / 400))


def elo_from_odds(odds: Any) -> Any:
    """The Elo difference of odds ``odds`` to 1 (a number or an array): ``400 log10(odds)``,
    :func:`expected_score` inverted (a Bradley-Terry strength ratio is such odds)."""
    return 400.0 * np.log10(odds)


def elo_from_score(score: float, games: int) -> float:
    """The Elo difference the model gives a player scoring ``score`` (0..1) over
    ``games`` games: :func:`expected_score` inverted, ``400 log10(s / (1 - s))``. A
    sweep or a wipe-out counts as half a game short of it, so the estimate stays
    finite; nan for a nan score."""
    if math.isnan(score):
        return float("nan")
    margin = 0.5 / max(1, games)
    score = min(max(score, margin), 1 - margin)
    return float(elo_from_odds(score / (1 - score)))


@dataclass(frozen=True)
class Tally:
    """Games won, drawn and lost: a match's result, or a measured expectation."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points per game: a win 1, a draw a half."""
        return (self.wins + 0.5 * self.draws) / self.games

    @property
    def spread(self) -> float:
        """The standard deviation of one game's points."""
        return math.sqrt(max(0.0, (self.wins + 0.25 * self.draws) / self.games - self.score ** 2))

    def likely_range(self, games: int) -> tuple[float, float]:
        """Where 95% of the scores over ``games`` games fall, for an engine that
        wins, draws and loses in these proportions (the normal approximation)."""
        half = 1.96 * self.spread / math.sqrt(games)
        return max(0.0, self.score - half), min(1.0, self.score + half)

    def games_to_tell(self, other: "Tally") -> int | None:
        """The fewest games over which this engine's and ``other``'s likely
        ranges no longer overlap; None if they never do (the same score)."""
        gap = abs(self.score - other.score)
        return math.floor((1.96 * (self.spread + other.spread) / gap) ** 2) + 1 if gap > 0 else None


class CrossTableRow(NamedTuple):
    """One engine's games against one opponent."""

    player: str
    opponent: str
    wins: int
    draws: int
    losses: int

    @property
    def tally(self) -> Tally:
        return Tally(self.wins, self.draws, self.losses)


def cross_table(results: Sequence[GameResult]) -> list[CrossTableRow]:
    """Wins, draws and losses of every player against every opponent it met."""
    tally: dict[tuple[str, str], list[int]] = {}
    for a, b, score in results:
        for me, them, s in ((a, b, score), (b, a, 1.0 - score)):
            row = tally.setdefault((me, them), [0, 0, 0])
            row[0 if s == 1 else 1 if s == 0.5 else 2] += 1
    return [CrossTableRow(me, them, *counts) for (me, them), counts in sorted(tally.items())]


def binomial_p_value(wins: int, games: int) -> float:
    """The chance of at least ``wins`` wins in ``games`` fair coin flips: how
    surprising the score would be if the two networks were equally strong."""
    if games <= 0:
        return float("nan")
    return sum(math.comb(games, k) for k in range(wins, games + 1)) / 2 ** games


def wilson_interval(score: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a win rate measured over ``games`` games."""
    if games <= 0 or math.isnan(score):
        return float("nan"), float("nan")
    centre = (score + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half
