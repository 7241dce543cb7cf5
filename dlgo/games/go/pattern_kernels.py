"""The fast rollout policy compiled: :mod:`dlgo.games.go.patterns` on the compiled board.

:class:`~dlgo.games.go.patterns.PatternPolicy` is the readable policy and the
reference (its features are :mod:`dlgo.games.go.features`); these kernels are
its twin over :mod:`dlgo.games.go.kernels`, step for step (the same responses
in the same order, the same features, the same sums and draws), so a compiled
policy playout and the reference play the same game from the same SplitMix64 seed.
"""
from __future__ import annotations

import math
import weakref
from typing import Any, NamedTuple

import numpy as np

from dlgo.games.go.kernels import (EMPTY, GoBoard, GoGeometry, ONE, ZERO, area_winner, copy_board, first_liberty,
                                   hash_after_play, is_eye, liberty_count, play, replay, select_random_play,
                                   side_key)
from dlgo.games.go.features import (ATARI, CAPTURE_1, CAPTURE_2, CAPTURE_MORE, ESCAPE, OFF_BOARD, PATTERN_CLASS,
                                    REST, RETRIES, SELF_ATARI)
from dlgo.games.kernels import HashSet, inline, kernel, new_hash_set, njit, popcount, set_add, set_contains, uniform

__all__ = ["PolicyTables", "policy_tables", "tables_for", "policy_features", "policy_playout", "playout"]

#: responses to one move: its 8 neighbours, its string's last liberty, four strings' last liberties
MAX_CANDIDATES = 16
MAX_FEATURES = 5  # a pattern and at most four tactical flags
_PATTERN_CLASS = np.array(PATTERN_CLASS, np.int16)


class PolicyTables(NamedTuple):
    """A policy's weights for the kernels, with the pattern classes and a workspace."""

    weights: np.ndarray  # float64[NUM_FEATURES]
    exp_rest: float  # exp(weights[REST]): the unnormalised probability of one other point
    pattern_class: np.ndarray  # int16[4**8]: the class of each 3x3 pattern code
    candidates: np.ndarray  # int32[MAX_CANDIDATES]: scratch, the points to consider
    points: np.ndarray  # int32[MAX_CANDIDATES]: scratch, the responses
    found: np.ndarray  # int32[MAX_FEATURES]: scratch, one point's features
    adds: np.ndarray  # int32[4]: scratch, what one point's neighbours add to its liberties
    odds: np.ndarray  # float64[MAX_CANDIDATES]: scratch, the responses' exp(logit)


def policy_tables(weights: np.ndarray) -> PolicyTables:
    """The kernels' view of a policy's feature weights."""
    weights = np.asarray(weights, np.float64)
    return PolicyTables(weights, math.exp(float(weights[REST])), _PATTERN_CLASS,
                        np.zeros(MAX_CANDIDATES, np.int32), np.zeros(MAX_CANDIDATES, np.int32),
                        np.zeros(MAX_FEATURES, np.int32), np.zeros(4, np.int32), np.zeros(MAX_CANDIDATES, np.float64))


_TABLES: "weakref.WeakKeyDictionary[Any, PolicyTables]" = weakref.WeakKeyDictionary()


def tables_for(policy: Any) -> PolicyTables:
    """:func:`policy_tables` of ``policy.weights``, made once per policy."""
    tables = _TABLES.get(policy)
    if tables is None:
        tables = _TABLES[policy] = policy_tables(policy.weights)
    return tables


@inline
def pattern_code(b: GoBoard, g: GoGeometry, p: int, c: int) -> int:
    """The base-4 code of the 3x3 pattern around ``p`` for mover ``c`` (:func:`patterns.pattern_code`)."""
    code = 0
    weight = 1
    for k in range(8):
        q = g.ring[p, k]
        if q < 0:
            code += OFF_BOARD * weight
        else:
            cq = b.color[q]
            if cq != EMPTY:
                code += (1 if cq == c else 2) * weight
        weight *= 4
    return code


@inline
def neighbour_facts(b: GoBoard, g: GoGeometry, t: PolicyTables, p: int, c: int) -> tuple[int, bool, bool, int]:
    """``(stones captured, ataris, own string in atari, n)`` of ``c`` playing at
    empty ``p``, each neighbouring string counted once; ``t.adds[:n]`` says what
    adds to the new string's liberties: a point, or ``-2 - root`` for a friend's
    liberties (a captured string adds only its first stone next to ``p``, as the
    reference counts)."""
    captured = 0
    atari = own_in_atari = False
    n = 0
    counted0 = counted1 = counted2 = -1  # the enemy strings met so far
    for k in range(4):
        q = g.neighbors[p, k]
        if q < 0:
            break
        cq = b.color[q]
        r = b.string[q]
        if cq == EMPTY:
            t.adds[n] = q
            n += 1
        elif cq == c:
            t.adds[n] = -2 - r
            n += 1
            own_in_atari = own_in_atari or liberty_count(b, r) == 1
        elif r != counted0 and r != counted1 and r != counted2:
            if counted0 < 0:
                counted0 = r
            elif counted1 < 0:
                counted1 = r
            else:
                counted2 = r
            libs = liberty_count(b, r)
            if libs == 1:
                captured += b.size[r]
                t.adds[n] = q
                n += 1
            elif libs == 2:
                atari = True
    return captured, atari, own_in_atari, n


@inline
def counted_liberties(b: GoBoard, t: PolicyTables, p: int, n: int) -> int:
    """The liberties of the union of ``t.adds[:n]`` (:func:`neighbour_facts`), ``p`` excluded."""
    count = 0
    for w in range(b.liberties.shape[1]):
        word = ZERO
        for i in range(n):
            a = t.adds[i]
            if a <= -2:
                word |= b.liberties[-2 - a, w]
            elif a >> 6 == w:
                word |= ONE << np.uint64(a & 63)
        if p >> 6 == w:
            word &= ~(ONE << np.uint64(p & 63))
        count += popcount(word)
    return count


@inline
def policy_features(b: GoBoard, g: GoGeometry, t: PolicyTables, p: int, c: int) -> int:
    """The features of ``c`` playing at empty ``p``, written to ``t.found``; their
    number, or 0 where the play is self-capture or fills ``c``'s own eye
    (:func:`patterns.features`)."""
    if is_eye(b, g, p, c):
        return 0
    captured, atari, own_in_atari, num_adds = neighbour_facts(b, g, t, p, c)
    count = counted_liberties(b, t, p, num_adds)
    if count == 0:
        return 0
    found = t.found
    found[0] = 1 + t.pattern_class[pattern_code(b, g, p, c)]
    n = 1
    if captured:
        found[n] = CAPTURE_1 if captured == 1 else CAPTURE_2 if captured == 2 else CAPTURE_MORE
        n += 1
    if own_in_atari and count >= 2:
        found[n] = ESCAPE
        n += 1
    if atari:
        found[n] = ATARI
        n += 1
    if count == 1 and not captured:
        found[n] = SELF_ATARI
        n += 1
    return n


@inline
def responses(b: GoBoard, g: GoGeometry, t: PolicyTables, c: int, last: int) -> int:
    """The responses to a stone just played at ``last`` (-1: none) for mover ``c``,
    in ``t.points`` with their odds in ``t.odds``; returns how many
    (:func:`patterns.responses`: the same candidates, considered in the same order)."""
    if last < 0 or b.color[last] == EMPTY:
        return 0
    candidates = t.candidates
    num_candidates = 0
    for k in range(8):
        q = g.ring[last, k]
        if q >= 0 and b.color[q] == EMPTY:
            candidates[num_candidates] = q
            num_candidates += 1
    r = b.string[last]
    if liberty_count(b, r) == 1:
        candidates[num_candidates] = first_liberty(b, r)
        num_candidates += 1
    for k in range(4):
        q = g.neighbors[last, k]
        if q < 0:
            break
        if b.color[q] != EMPTY and liberty_count(b, b.string[q]) == 1:
            candidates[num_candidates] = first_liberty(b, b.string[q])
            num_candidates += 1
    num_points = 0
    for j in range(num_candidates):
        q = candidates[j]
        known = False
        for i in range(num_points):
            known = known or t.points[i] == q
        if known:
            continue
        n = policy_features(b, g, t, q, c)
        if n:
            logit = 0.0
            for i in range(n):
                logit += t.weights[t.found[i]]
            t.points[num_points] = q
            t.odds[num_points] = math.exp(logit)
            num_points += 1
    return num_points


@kernel
def policy_select(b: GoBoard, g: GoGeometry, t: PolicyTables, c: int, last: int, seen: HashSet,
                  side: np.uint64, rng: np.ndarray) -> int:
    """A play for ``c`` drawn from the policy after a play at ``last`` (-1: none),
    or -1 to pass (:meth:`PatternPolicy.select`)."""
    num_points = responses(b, g, t, c, last)
    while True:
        rest = (b.counts[0] - num_points) * t.exp_rest
        total = 0.0
        for i in range(num_points):
            total += t.odds[i]
        total += rest
        u = uniform(rng) * total
        if u >= total - rest or num_points == 0:
            for _ in range(RETRIES):  # another point, uniformly: draw again while the draw hits a response
                p = select_random_play(b, g, c, seen, side, rng, False)
                hit = False
                for i in range(num_points):
                    hit = hit or t.points[i] == p
                if p < 0 or not hit:
                    return p
            u = uniform(rng) * (total - rest)
        chosen = num_points - 1
        for i in range(num_points):
            u -= t.odds[i]
            if u < 0:
                chosen = i
                break
        p = t.points[chosen]
        legal, h = hash_after_play(b, g, p, c)
        if legal and not set_contains(seen, h ^ side):
            return p
        for i in range(chosen, num_points - 1):  # superko forbids it: draw again without it
            t.points[i] = t.points[i + 1]
            t.odds[i] = t.odds[i + 1]
        num_points -= 1


@kernel
def policy_playout(b: GoBoard, g: GoGeometry, t: PolicyTables, c: int, passes: int, last: int, seen: HashSet,
                   budget: int, rng: np.ndarray, moves: np.ndarray) -> int:
    """:func:`kernels.random_playout` with the policy's moves; ``last`` is the
    point of the move just played (-1: a pass or none). Returns the moves played."""
    played = 0
    p = last
    while passes < 2 and budget > 0:
        budget -= 1
        side = side_key(3 - c)
        p = policy_select(b, g, t, c, p, seen, side, rng)
        if p < 0:
            passes += 1
        else:
            passes = 0
            play(b, g, p, c)
        set_add(seen, b.hash[0] ^ side)
        if played < len(moves):
            moves[played] = p
        played += 1
        c = 3 - c
    return played


@njit
def playout(root: GoBoard, g: GoGeometry, t: PolicyTables, first: int, path: np.ndarray, passes: int, last: int,
            komi: float, budget: int, seed: int, moves: np.ndarray) -> tuple[int, int]:
    """:func:`kernels.playout` with the policy's moves."""
    b = copy_board(root)
    rng = np.full(1, np.uint64(seed), np.uint64)
    seen = new_hash_set(len(path) + 1 + budget)
    c = replay(b, g, first, path, seen)
    played = policy_playout(b, g, t, c, passes, last, seen, budget, rng, moves)
    return area_winner(b, g, komi), played
