"""Elo ratings of move features: Coulom's generalized Bradley-Terry model, fitted by MM.

Coulom ("Computing Elo Ratings of Move Patterns in the Game of Go", 2007) sees
each position as a competition among its legal moves. A move is a *team* of
features (its local shape, whether it captures, its distance to the last
move, ...), one level of each feature group at most, and a team's strength is
the product of its members' strengths ``gamma``. The move the player chose won:

    P(move k chosen) = prod(gamma_i, i in k) / sum over moves m of prod(gamma_i, i in m)

``400 * log10(gamma)`` is a feature's Elo rating. Minorization-maximization (MM)
fits the gammas: one feature group at a time, each level ``i`` of the group
becomes

    gamma_i = (W_i + 1) / (sum over competitions j of C_ij / E_j + 2 / (gamma_i + 1))

where ``W_i`` counts the winning teams holding ``i``, ``E_j`` is competition
``j``'s total strength and ``C_ij`` the strength of ``j``'s teams holding ``i``
without ``i`` itself. The ``1`` and ``2 / (gamma_i + 1)`` are Coulom's prior,
one virtual win and one virtual loss against a team of strength 1 (his
``mm.cpp``): a feature seen rarely stays near Elo 0. Each update raises the
posterior likelihood, so a fit can only improve from pass to pass.

The data (:class:`Competitions`) is flat arrays, as a compiled loop wants
them: every team's feature indices in one ``(teams, groups)`` array (``-1``
where a team has no level of a group), the teams of competition ``j`` in rows
``start[j]:start[j + 1]``, the winning row of each, and a count per team for
identical teams merged into one row. :func:`fit_gammas` runs the compiled
passes; :func:`mm_pass_reference` is the same update written plainly, which
the tests hold the compiled one to.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from dlgo.arena.ratings import elo_from_odds
from dlgo.core.errors import SpecError

#: Coulom's prior: each level has one virtual win and one virtual loss against a team of strength 1
PRIOR_WINS, PRIOR_GAMES = 1.0, 2.0


@dataclass
class Competitions:
    """Positions as competitions among teams of features (see the module's docstring).

    ``features``: int32 ``(teams, groups)``, a feature index per group or -1;
    ``start``: int64 ``(competitions + 1,)``, each competition's first row;
    ``winner``: int64 ``(competitions,)``, the winning row; ``count``: float64
    ``(teams,)``, how many identical teams each row stands for; ``levels``: the
    number of feature indices; ``group_of``: int32 ``(levels,)``, each index's group."""

    features: np.ndarray
    start: np.ndarray
    winner: np.ndarray
    count: np.ndarray
    levels: int
    group_of: np.ndarray

    def __post_init__(self) -> None:
        teams, groups = self.features.shape
        if len(self.start) < 1 or self.start[0] != 0 or self.start[-1] != teams or np.any(np.diff(self.start) < 1):
            raise SpecError("start must rise from 0 to the number of teams, each competition holding a team")
        if len(self.winner) != len(self.start) - 1 or np.any(self.winner < self.start[:-1]) or \
                np.any(self.winner >= self.start[1:]):
            raise SpecError("each competition's winner must be one of its own teams")
        if len(self.count) != teams or np.any(self.count < 1):
            raise SpecError("each team counts at least once")
        if len(self.group_of) != self.levels or self.features.max(initial=-1) >= self.levels:
            raise SpecError("every feature index must be below levels and have a group")
        present = self.features >= 0
        rows, columns = np.nonzero(present)
        if np.any(self.group_of[self.features[rows, columns]] != columns):
            raise SpecError("a team's feature in column g must belong to group g")
        if np.any(self.count[self.winner] != 1):
            raise SpecError("a winning team stands for itself alone (count 1)")

    @property
    def groups(self) -> int:
        return int(self.features.shape[1])


def strengths(data: Competitions, gammas: np.ndarray) -> np.ndarray:
    """Each team's strength: the product of its features' gammas."""
    padded = np.append(gammas, 1.0)  # index -1 reads the 1 appended
    return np.prod(padded[data.features], axis=1)


def log_likelihood(data: Competitions, gammas: np.ndarray) -> float:
    """The log-likelihood of the winners under ``gammas`` (without the prior)."""
    team = strengths(data, gammas)
    totals = np.add.reduceat(team * data.count, data.start[:-1])
    return float(np.sum(np.log(team[data.winner]) - np.log(totals)))


def wins(data: Competitions) -> np.ndarray:
    """``W_i``: how many winning teams hold each feature index."""
    held = data.features[data.winner]
    return np.bincount(held[held >= 0], minlength=data.levels).astype(np.float64)


def mm_pass_reference(data: Competitions, gammas: np.ndarray, group: int) -> np.ndarray:
    """One MM update of ``group``'s levels, written plainly: the compiled pass's reference."""
    team = strengths(data, gammas)
    denominator = np.zeros(data.levels)
    for j in range(len(data.winner)):
        rows = range(data.start[j], data.start[j + 1])
        total = sum(team[k] * data.count[k] for k in rows)
        for k in rows:
            i = data.features[k, group]
            if i >= 0:
                denominator[i] += data.count[k] * team[k] / gammas[i] / total
    return _updated(data, gammas, group, wins(data), denominator)


def _updated(data: Competitions, gammas: np.ndarray, group: int, won: np.ndarray,
             denominator: np.ndarray) -> np.ndarray:
    """``gammas`` with ``group``'s levels replaced by the MM update, given its sums."""
    updated = gammas.copy()
    levels = data.group_of == group
    updated[levels] = (won[levels] + PRIOR_WINS) / (denominator[levels] + PRIOR_GAMES / (gammas[levels] + 1.0))
    return updated


@njit(cache=True)
def _denominators(features: np.ndarray, start: np.ndarray, count: np.ndarray, gammas: np.ndarray,
                  group: int) -> np.ndarray:  # pragma: no cover - compiled; mm_pass_reference is its twin
    teams, groups = features.shape
    team = np.ones(teams)
    for k in range(teams):
        for g in range(groups):
            i = features[k, g]
            if i >= 0:
                team[k] *= gammas[i]
    denominator = np.zeros(len(gammas))
    for j in range(len(start) - 1):
        total = 0.0
        for k in range(start[j], start[j + 1]):
            total += team[k] * count[k]
        for k in range(start[j], start[j + 1]):
            i = features[k, group]
            if i >= 0:
                denominator[i] += count[k] * team[k] / gammas[i] / total
    return denominator


def mm_pass(data: Competitions, gammas: np.ndarray, group: int, won: np.ndarray | None = None) -> np.ndarray:
    """One MM update of ``group``'s levels (compiled); ``won``: :func:`wins` of ``data``, if known."""
    won = wins(data) if won is None else won
    return _updated(data, gammas, group, won, _denominators(data.features, data.start, data.count, gammas, group))


def log_posterior(data: Competitions, gammas: np.ndarray) -> float:
    """What MM raises: the log-likelihood plus the prior's virtual win and loss per level."""
    prior = PRIOR_WINS * np.log(gammas) - PRIOR_GAMES * np.log(gammas + 1.0)
    return log_likelihood(data, gammas) + float(np.sum(prior))


def fit_gammas(data: Competitions, passes: int = 50, tolerance: float = 1e-6,
               report: Callable[[int, float], None] | None = None) -> np.ndarray:
    """The gammas that maximise the posterior: MM passes over every group in turn, until a
    whole round raises the log posterior per competition by less than ``tolerance``
    (or ``passes`` rounds); ``report(round, log posterior)`` after each round."""
    if passes < 1:
        raise SpecError(f"passes must be at least 1, got {passes}")
    gammas, won = np.ones(data.levels), wins(data)
    before = log_posterior(data, gammas)
    for round_ in range(1, passes + 1):
        for group in range(data.groups):
            gammas = mm_pass(data, gammas, group, won)
        after = log_posterior(data, gammas)
        if report is not None:
            report(round_, after)
        if (after - before) / max(1, len(data.winner)) < tolerance:
            break
        before = after
    return gammas


def elo(gammas: np.ndarray) -> np.ndarray:
    """Coulom's Elo rating of each feature: 400 log10(gamma)."""
    return np.asarray(elo_from_odds(gammas))


def top_k_accuracy(data: Competitions, gammas: np.ndarray, k: int = 1) -> float:
    """The share of competitions whose winner is among the ``k`` strongest teams (ties counted
    against it; merged teams count as many times as they stand for)."""
    team = strengths(data, gammas)
    hits = 0
    for j in range(len(data.winner)):
        rows = slice(data.start[j], data.start[j + 1])
        stronger = np.sum(data.count[rows] * (team[rows] >= team[data.winner[j]])) - 1  # others at least as strong
        hits += stronger < k
    return hits / max(1, len(data.winner))


def mean_log_evidence(data: Competitions, gammas: np.ndarray) -> float:
    """The mean log-probability of the chosen move (Coulom's "mean log-evidence")."""
    return log_likelihood(data, gammas) / max(1, len(data.winner)) if len(data.winner) else math.nan
