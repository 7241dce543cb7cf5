"""Coulom's generalized Bradley-Terry model fitted by MM: known gammas recovered, the compiled
pass held to its plain twin, the posterior never falling."""
import numpy as np
import pytest

from dlgo.core.errors import SpecError
from engines.training import bradley_terry as bt

GROUPS = [4, 3, 6]  # levels per feature group


def synthetic(true_gammas: np.ndarray, competitions: int, seed: int, merge: bool = False) -> bt.Competitions:
    """Competitions of 5 to 20 random teams whose winner is drawn from the model with ``true_gammas``;
    a team lacks each group's level a third of the time. ``merge``: identical losing teams in one row."""
    rng = np.random.default_rng(seed)
    offsets = np.cumsum([0] + GROUPS)
    group_of = np.repeat(np.arange(len(GROUPS)), GROUPS).astype(np.int32)
    rows, start, winner, count = [], [0], [], []
    for _ in range(competitions):
        n = rng.integers(5, 21)
        teams = np.stack([np.where(rng.random(n) < 1 / 3, -1, offsets[g] + rng.integers(0, size, n))
                          for g, size in enumerate(GROUPS)], axis=1).astype(np.int32)
        strength = np.prod(np.append(true_gammas, 1.0)[teams], axis=1)
        chosen = rng.choice(n, p=strength / strength.sum())
        if merge:  # the winner alone, then each distinct losing team once with its count
            losers, counts = np.unique(np.delete(teams, chosen, axis=0), axis=0, return_counts=True)
            teams, weights, chosen = np.vstack([teams[chosen:chosen + 1], losers]), np.r_[1, counts], 0
        else:
            weights = np.ones(n)
        winner.append(start[-1] + chosen)
        rows.append(teams)
        count.append(weights)
        start.append(start[-1] + len(teams))
    return bt.Competitions(np.vstack(rows), np.array(start, np.int64), np.array(winner, np.int64),
                           np.concatenate(count).astype(np.float64), int(offsets[-1]), group_of)


def relative_elo(gammas: np.ndarray) -> np.ndarray:
    """Elo within each group, its mean taken off (what the data can tell apart)."""
    ratings = bt.elo(gammas)
    offsets = np.cumsum([0] + GROUPS)
    return np.concatenate([ratings[a:b] - ratings[a:b].mean() for a, b in zip(offsets[:-1], offsets[1:])])


TRUE = np.array([1.0, 3.0, 0.3, 8.0, 2.0, 0.5, 1.0, 1.0, 0.2, 5.0, 1.5, 0.7, 3.0])


def test_mm_recovers_known_gammas_from_the_choices_they_made():
    data = synthetic(TRUE, 4000, seed=1)
    fitted = bt.fit_gammas(data, passes=200, tolerance=1e-9)
    assert np.max(np.abs(relative_elo(fitted) - relative_elo(TRUE))) < 40  # Elo (18 here); the spread is 588
    assert bt.log_likelihood(data, fitted) > bt.log_likelihood(data, TRUE)  # the fit explains its own data best
    assert bt.log_likelihood(data, fitted) > bt.log_likelihood(data, np.ones(len(TRUE))) + 500


def test_the_compiled_pass_is_its_plain_twin_and_never_lowers_the_posterior():
    data = synthetic(TRUE, 300, seed=2)
    gammas = np.random.default_rng(3).uniform(0.2, 5.0, len(TRUE))
    posterior = bt.log_posterior(data, gammas)
    for group in [0, 1, 2, 0, 2, 1]:
        plain, compiled = bt.mm_pass_reference(data, gammas, group), bt.mm_pass(data, gammas, group)
        assert np.allclose(compiled, plain, rtol=1e-12)
        assert np.array_equal(compiled[data.group_of != group], gammas[data.group_of != group])  # its group only
        gammas = compiled
        assert bt.log_posterior(data, gammas) >= posterior - 1e-9
        posterior = bt.log_posterior(data, gammas)


def test_merged_identical_teams_fit_as_the_teams_they_stand_for():
    whole, merged = synthetic(TRUE, 500, seed=4), synthetic(TRUE, 500, seed=4, merge=True)
    assert len(merged.features) < len(whole.features)
    assert bt.log_likelihood(merged, TRUE) == pytest.approx(bt.log_likelihood(whole, TRUE), rel=1e-12)
    assert np.allclose(bt.fit_gammas(merged, passes=30), bt.fit_gammas(whole, passes=30), rtol=1e-9)


def test_accuracy_and_evidence_of_the_true_model_beat_equal_gammas():
    data = synthetic(TRUE, 1000, seed=5)
    flat = np.ones(len(TRUE))
    assert bt.top_k_accuracy(data, TRUE) > bt.top_k_accuracy(data, flat) + 0.1  # flat: every team ties, none wins
    assert bt.top_k_accuracy(data, TRUE, k=3) > bt.top_k_accuracy(data, TRUE, k=1)
    assert bt.mean_log_evidence(data, TRUE) > bt.mean_log_evidence(data, flat)
    assert bt.top_k_accuracy(data, flat, k=25) == 1.0  # every competition has at most 20 teams


def test_a_feature_never_seen_stays_at_elo_zero():
    data = synthetic(TRUE, 50, seed=6)
    unseen = np.setdiff1d(np.arange(len(TRUE)), np.unique(data.features[data.features >= 0]))
    extra = bt.Competitions(data.features, data.start, data.winner, data.count, data.levels + 1,
                            np.append(data.group_of, 0).astype(np.int32))  # a level no team holds
    fitted = bt.fit_gammas(extra, passes=100)
    assert fitted[-1] == pytest.approx(1.0) and all(fitted[i] == pytest.approx(1.0) for i in unseen)


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(start=np.array([0, 3], np.int64)), "start must rise"),
    (lambda d: d.update(winner=d["start"][1:].copy()), "winner must be one of its own teams"),
    (lambda d: d.update(count=np.zeros_like(d["count"])), "counts at least once"),
    (lambda d: d.update(group_of=np.zeros(d["levels"], np.int32)), "must belong to group"),
    (lambda d: d.update(levels=2), "below levels"),
])
def test_malformed_competitions_are_refused(change, words):
    data = synthetic(TRUE, 5, seed=7)
    fields = dict(features=data.features, start=data.start, winner=data.winner, count=data.count,
                  levels=data.levels, group_of=data.group_of)
    change(fields)
    if "levels" in words:
        fields["group_of"] = fields["group_of"][:fields["levels"]]
    with pytest.raises(SpecError, match=words):
        bt.Competitions(**fields)
