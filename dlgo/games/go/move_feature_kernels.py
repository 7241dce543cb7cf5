"""Coulom's move features compiled: :mod:`dlgo.games.go.move_features` on the compiled board.

:func:`dlgo.games.go.move_features.move_team` is the readable reference; these
kernels are its twin over :mod:`dlgo.games.go.pattern_kernels` (whose
:func:`~dlgo.games.go.pattern_kernels.policy_features` decides the shape and
tactical levels as the rollout policy does), level for level, so that a
search can rate every candidate move of a 19x19 position in microseconds and
a teacher's games turn into competitions fast enough to fit on thousands.

A team is ``int32[len(GROUPS)]``: one level per group, -1 where none, as the
reference's. A move's rating is the sum of its levels' ``log(gamma)``
(Coulom's product of strengths, as a logit).
"""
from __future__ import annotations

import numpy as np

from dlgo.games.go.features import NUM_FEATURES
from dlgo.games.go.kernels import EMPTY, GoBoard, GoGeometry, hash_after_play, play, side_key
from dlgo.games.go.move_features import (_TACTICAL, BEFORE, EDGE, EDGE_LINES, FARTHEST, GROUPS, LAST, NEAREST,
                                         OFFSETS, PASS, SHAPE)
from dlgo.games.go.pattern_kernels import PolicyTables, policy_features
from dlgo.games.kernels import HashSet, inline, kernel, njit, set_add, set_contains

__all__ = ["TACTICAL_GROUP", "TACTICAL_LEVEL", "gridcular", "move_team", "team_of_features", "pass_team", "team_logit",
           "position_teams", "game_competitions"]

NUM_GROUPS = len(GROUPS)
#: the group and level of each of the rollout policy's tactical flags (-1: a flag that is no tactical one)
TACTICAL_GROUP = np.full(NUM_FEATURES, -1, np.int32)
TACTICAL_LEVEL = np.full(NUM_FEATURES, -1, np.int32)
for _flag, (_group, _level) in _TACTICAL.items():
    TACTICAL_GROUP[_flag], TACTICAL_LEVEL[_flag] = _group, OFFSETS[_group] + _level
_OFFSETS = OFFSETS.copy()


@inline
def gridcular(g: GoGeometry, p: int, q: int) -> int:
    """The gridcular distance between points ``p`` and ``q`` (:func:`move_features.gridcular`)."""
    dx = abs(p % g.cols - q % g.cols)
    dy = abs(p // g.cols - q // g.cols)
    return dx + dy + max(dx, dy)


@inline
def move_team(b: GoBoard, g: GoGeometry, t: PolicyTables, p: int, c: int, last: int, before: int,
              team: np.ndarray) -> bool:
    """Write to ``team`` the levels of ``c`` playing at empty ``p``, the last two moves at
    ``last`` and ``before`` (-1: a pass, or none); False (``team`` untouched) where the play is
    no candidate (:func:`move_features.move_team`)."""
    found = policy_features(b, g, t, p, c)
    if found == 0:
        return False
    team_of_features(g, t, found, p, last, before, team)
    return True


@inline
def team_of_features(g: GoGeometry, t: PolicyTables, found: int, p: int, last: int, before: int,
                     team: np.ndarray) -> None:
    """The team of the candidate ``p`` whose ``found`` shape and tactical features
    :func:`~dlgo.games.go.pattern_kernels.policy_features` has just written to ``t.found``."""
    team[:] = -1
    team[SHAPE] = _OFFSETS[SHAPE] + t.found[0] - 1  # policy_features counts pattern classes from 1
    for j in range(1, found):
        f = t.found[j]
        team[TACTICAL_GROUP[f]] = TACTICAL_LEVEL[f]
    if last >= 0:
        distance = gridcular(g, p, last)
        if distance <= FARTHEST:
            team[LAST] = _OFFSETS[LAST] + distance - NEAREST
    if before >= 0:
        distance = gridcular(g, p, before)
        if NEAREST <= distance <= FARTHEST:  # 0: the point itself, emptied since by a capture
            team[BEFORE] = _OFFSETS[BEFORE] + distance - NEAREST
    r, col = p // g.cols, p % g.cols
    line = 1 + min(r, col, g.rows - 1 - r, g.cols - 1 - col)
    if line <= EDGE_LINES:
        team[EDGE] = _OFFSETS[EDGE] + line - 1


@inline
def pass_team(team: np.ndarray) -> None:
    """The pass's team: the pass level alone."""
    team[:] = -1
    team[PASS] = _OFFSETS[PASS]


@inline
def team_logit(log_gamma: np.ndarray, team: np.ndarray) -> float:
    """The sum of ``log_gamma`` over the team's levels: the log of Coulom's team strength."""
    total = 0.0
    for i in range(len(team)):
        if team[i] >= 0:
            total += log_gamma[team[i]]
    return total


@kernel
def position_teams(b: GoBoard, g: GoGeometry, t: PolicyTables, c: int, seen: HashSet, last: int, before: int,
                   actions: np.ndarray, teams: np.ndarray) -> int:
    """The candidate moves of ``c`` on ``b`` (legal plays that are candidates, in board order,
    then the pass as ``N``) into ``actions``, their teams into ``teams``; returns their number
    (:func:`move_features.position_teams`)."""
    side = side_key(3 - c)
    k = 0
    for p in range(len(b.color)):
        if b.color[p] != EMPTY:
            continue
        legal, h = hash_after_play(b, g, p, c)
        if legal and not set_contains(seen, h ^ side) and move_team(b, g, t, p, c, last, before, teams[k]):
            actions[k] = p
            k += 1
    actions[k] = len(b.color)
    pass_team(teams[k])
    return k + 1


@njit
def game_competitions(b: GoBoard, g: GoGeometry, t: PolicyTables, first: int, path: np.ndarray, skip: int,
                      seen: HashSet, teams: np.ndarray, start: np.ndarray, chosen: np.ndarray) -> int:
    """Every position of a game from ``b`` (``first`` to move, ``path`` the actions played,
    ``N`` = pass, -1 a resignation) after its first ``skip`` plies, as the competition its move won: the
    candidates' teams go into ``teams`` one position after another, each position's first row
    into ``start`` and the played move's row into ``chosen``. A move that is no candidate (an
    eye filled) makes no competition. Returns the number of competitions; ``b`` ends the game."""
    n = len(b.color)
    actions = np.empty(n + 1, np.int32)
    c = first
    set_add(seen, b.hash[0] ^ side_key(c))
    rows = competitions = 0
    last = before = -1
    for ply in range(len(path)):
        move = path[ply]
        if move < 0:  # a resignation ends the game
            break
        if ply >= skip:
            k = position_teams(b, g, t, c, seen, last, before, actions, teams[rows:])
            for i in range(k):
                if actions[i] == move:
                    start[competitions] = rows
                    chosen[competitions] = rows + i
                    competitions += 1
                    rows += k
                    break
        if move < n:
            play(b, g, move, c)
        before, last = last, (move if move < n else -1)
        c = 3 - c
        set_add(seen, b.hash[0] ^ side_key(c))
    start[competitions] = rows
    return competitions
