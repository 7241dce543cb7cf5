"""The sequential probability ratio test: its likelihoods are the constrained maxima, its
LLR agrees with the Brownian approximation where that holds, and its verdicts and error
rates are what the hypotheses say."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dlgo.arena.sprt import SPRT, elo_to_score, log_likelihood_ratio, most_likely_with_mean, score_distribution


def test_elo_to_score_is_the_logistic_curve():
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert elo_to_score(-100) == pytest.approx(1 - elo_to_score(100))


@pytest.mark.parametrize("counts, mean", [((40, 30, 30), 0.5), ((10, 80, 10), 0.53), ((300, 100, 600), 0.45)])
def test_the_distribution_found_is_the_most_likely_one_with_that_mean(counts, mean):
    """Against a brute-force search over every trinomial with the mean (one free
    parameter, the draws): none makes the observed frequencies more likely."""
    scores, frequencies = score_distribution(counts)
    found = most_likely_with_mean(scores, frequencies, mean)
    assert found.sum() == pytest.approx(1) and float(found @ scores) == pytest.approx(mean)
    draws = np.linspace(1e-6, 1 - 1e-6, 200_001)
    wins = mean - draws / 2
    losses = 1 - draws - wins
    possible = (wins > 0) & (losses > 0)
    grid = np.stack([losses[possible], draws[possible], wins[possible]], axis=1)
    best = float(np.max(np.log(grid) @ frequencies))
    assert float(np.log(found) @ frequencies) >= best - 1e-9
    assert float(np.log(found) @ frequencies) == pytest.approx(best, abs=1e-6)


def test_the_llr_is_the_brownian_approximation_for_small_elo_steps():
    """For hypotheses close together, fishtest's approximation N (s1 - s0)(2s - s0 - s1) / 2 var."""
    for counts in [(400, 500, 600), (600, 500, 400), (250, 0, 260), (30, 60, 90, 60, 30)]:
        scores, frequencies = score_distribution(counts)
        mean = float(frequencies @ scores)
        variance = float(frequencies @ (scores - mean) ** 2)
        s0, s1 = elo_to_score(0), elo_to_score(5)
        approximation = sum(counts) * (s1 - s0) * (2 * mean - s0 - s1) / variance / 2
        assert log_likelihood_ratio(counts, 0, 5) == pytest.approx(approximation, rel=0.03, abs=0.02)


def test_more_wins_raise_the_llr_and_a_score_between_the_hypotheses_leaves_it_near_zero():
    ratios = [log_likelihood_ratio((100 - wins, 0, wins), 0, 20) for wins in range(40, 61)]
    assert ratios == sorted(ratios)
    middle = elo_to_score(10)  # halfway between 0 and 20 Elo (nearly): the LLR about 0
    assert abs(log_likelihood_ratio((1000 * (1 - middle), 0, 1000 * middle), 0, 20)) < 0.05


def test_verdicts():
    test = SPRT(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    assert test.upper == pytest.approx(math.log(19)) and test.lower == pytest.approx(-math.log(19))
    assert test.verdict((300, 300, 400)).accepted == "H1"  # a score of 55%: about 35 Elo
    assert test.verdict((400, 300, 300)).accepted == "H0"
    assert not test.verdict((5, 5, 5)).finished
    assert not test.verdict((0, 0, 0)).finished and test.verdict((0, 0, 0)).llr == 0
    assert SPRT(0, 50).verdict((0, 0, 0, 0, 50)).accepted == "H1"  # 50 pairs won twice
    assert SPRT(0, 50).verdict((50, 0, 0, 0, 0)).accepted == "H0"


def test_the_error_rates_are_about_the_ones_asked_for():
    """Seeded matches between equal sides (H0 true) and sides 60 Elo apart (H1 true, past
    elo1): a test at alpha = beta = 0.1 accepts the wrong hypothesis about that often."""
    rng = np.random.default_rng(0)
    test = SPRT(elo0=0, elo1=60, alpha=0.1, beta=0.1)

    def wrong(true_elo: float, truth: str, runs: int = 60) -> float:
        win = elo_to_score(true_elo) - 0.1  # 20% draws
        errors = 0
        for _ in range(runs):
            counts = np.zeros(3)
            verdict = test.verdict(counts)
            while not verdict.finished:
                outcomes = rng.choice(3, size=10, p=[1 - win - 0.2, 0.2, win])
                counts += np.bincount(outcomes, minlength=3)
                verdict = test.verdict(counts)
            errors += verdict.accepted != truth
        return errors / runs

    assert wrong(0, "H0") <= 0.2
    assert wrong(60, "H1") <= 0.2


@pytest.mark.parametrize("counts", [(1, 2), (1, 2, 3, 4), (1, -1, 3)])
def test_counts_of_another_shape_are_refused(counts):
    with pytest.raises(ValueError):
        log_likelihood_ratio(counts, 0, 10)


def test_hypotheses_out_of_order_are_refused():
    with pytest.raises(ValueError):
        SPRT(elo0=10, elo1=0)
    with pytest.raises(ValueError):
        SPRT(alpha=0)
