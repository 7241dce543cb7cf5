"""A sequential probability ratio test for matches: play until the games say which of two Elo gains holds.

Engine testers (Stockfish's fishtest, OpenBench) decide whether a change is an
improvement this way rather than by a fixed number of games: the test names two
hypotheses, H0 "the candidate gains ``elo0``" and H1 "it gains ``elo1``" (logistic
Elo, the scale of :mod:`dlgo.arena.ratings`), and after each game (or pair of
games) compares how likely the results so far are under each. The log of that
ratio (the LLR) drifts up when H1 is nearer the truth and down when H0 is; the
test stops when it crosses ``log((1 - beta) / alpha)`` (accept H1) or
``log(beta / (1 - alpha))`` (accept H0), so that it accepts H1 when H0 holds with
probability at most ``alpha``, and H0 when H1 holds at most ``beta``.

The results are counted as fishtest counts them:

* **trinomial**: ``(losses, draws, wins)`` of single games;
* **pentanomial**: game pairs, each opening played once with each colour, by the
  pair's score in half points: ``(0, 1, 2, 3, 4)`` halves out of 4 (LL, LD+DL,
  LW+DD+WL, DW+WD, WW). A pair's two games share an opening, so a pair is one
  sample: the test is then not fooled by openings that decide the game.

The likelihood is the *generalised* one (GSPRT, as fishtest computes it): under
each hypothesis the distribution of a sample's score is the one most likely to
give the observed frequencies among those whose mean is the hypothesis's score.
That maximum has a closed form up to one number found by bisection (Van den
Bergh, "A note on the maximum likelihood estimate of a multinomial with a given
expectation value"): ``q_i = p_i / (1 + x (a_i - s))``, ``x`` the root of
``sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0``.
"""
from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from dlgo.arena.ratings import expected_score

#: a count of zero is taken as this much, so that every outcome keeps a likelihood (fishtest's regularisation)
EMPTY_COUNT = 1e-3


class Verdict(NamedTuple):
    """Where a test stands: its LLR between the two bounds, and what it accepts (None: play on)."""

    llr: float
    lower: float
    upper: float
    accepted: str | None  # "H0", "H1" or None

    @property
    def finished(self) -> bool:
        return self.accepted is not None


def elo_to_score(elo: float) -> float:
    """The expected score of a side ``elo`` logistic Elo above its opponent."""
    return expected_score(elo, 0.0)


def score_distribution(counts: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The scores a sample can have (0 to 1, evenly: 3 outcomes for single games, 5 for
    pairs) and their observed frequencies, no count zero (:data:`EMPTY_COUNT`)."""
    if len(counts) not in (3, 5):
        raise ValueError(f"counts are of single games (losses, draws, wins) or of game pairs (5 scores), "
                         f"not {len(counts)} numbers")
    if any(count < 0 for count in counts):
        raise ValueError(f"counts cannot be negative: {list(counts)}")
    regular = np.array([count if count > 0 else EMPTY_COUNT for count in counts], np.float64)
    return np.linspace(0.0, 1.0, len(counts)), regular / regular.sum()


def most_likely_with_mean(scores: np.ndarray, frequencies: np.ndarray, mean: float) -> np.ndarray:
    """The distribution over ``scores`` with expected score ``mean`` under which the
    observed ``frequencies`` are most likely: ``frequencies / (1 + x (scores - mean))``."""
    if not scores.min() < mean < scores.max():
        raise ValueError(f"a mean score of {mean} is not within the outcomes' {scores.min()} to {scores.max()}")
    offsets = scores - mean

    def slope(x: float) -> float:  # decreases in x: +inf at the lower end, -inf at the upper
        return float(np.sum(frequencies * offsets / (1.0 + x * offsets)))

    low, high = -1.0 / offsets.max(), -1.0 / offsets.min()
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    x = (low + high) / 2
    likely = frequencies / (1.0 + x * offsets)
    return likely / likely.sum()


def log_likelihood_ratio(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of H1 (a gain of ``elo1``) over H0
    (``elo0``) for the results ``counts`` (trinomial or pentanomial)."""
    scores, frequencies = score_distribution(counts)
    samples = float(sum(counts))
    if samples == 0:
        return 0.0
    under0, under1 = (most_likely_with_mean(scores, frequencies, elo_to_score(elo)) for elo in (elo0, elo1))
    return samples * float(np.sum(frequencies * (np.log(under1) - np.log(under0))))


class SPRT:
    """A test of H0 "a gain of ``elo0``" against H1 "a gain of ``elo1``" (logistic
    Elo), with error rates ``alpha`` (accepting H1 when H0 holds) and ``beta``."""

    def __init__(self, elo0: float = 0.0, elo1: float = 10.0, alpha: float = 0.05, beta: float = 0.05):
        if not elo0 < elo1:
            raise ValueError(f"the test needs elo0 below elo1, got {elo0} and {elo1}")
        if not (0 < alpha < 1 and 0 < beta < 1):
            raise ValueError(f"alpha and beta are probabilities between 0 and 1, got {alpha} and {beta}")
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.lower = math.log(beta / (1 - alpha))
        self.upper = math.log((1 - beta) / alpha)

    def verdict(self, counts: Sequence[float]) -> Verdict:
        """Where the test stands after the results ``counts``."""
        llr = log_likelihood_ratio(counts, self.elo0, self.elo1)
        accepted = "H1" if llr >= self.upper else "H0" if llr <= self.lower else None
        return Verdict(llr, self.lower, self.upper, accepted)


__all__ = ["SPRT", "Verdict", "elo_to_score", "log_likelihood_ratio", "most_likely_with_mean",
           "score_distribution", "EMPTY_COUNT"]
