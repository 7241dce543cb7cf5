"""Coulom's move features: every move of a Go position as a team of feature levels.

Coulom ("Computing Elo Ratings of Move Patterns in the Game of Go", 2007)
rates moves by the features they hold; :mod:`engines.training.bradley_terry`
fits one strength per feature level to a teacher's choices. Each candidate
move of a position holds at most one level of each group:

==============  =====================================================================
group           levels
==============  =====================================================================
``shape``       the 3x3 pattern around the point, by class up to the board's
                symmetries (:data:`~dlgo.games.go.features.PATTERN_CLASS`)
``capture``     captures 1, 2, or 3 and more stones
``escape``      gives one of the mover's strings in atari two liberties or more
``atari``       leaves an opponent string with one liberty
``self-atari``  leaves its own string with one liberty, capturing nothing
``last``        gridcular distance to the last move, 2 to 17 (none after a pass, or farther)
``before``      the same for the move before the last (none at that point itself)
``edge``        the line it stands on, 1 to 4 (none further in)
``pass``        the pass itself (its only feature)
==============  =====================================================================

The gridcular distance of points ``dx`` columns and ``dy`` rows apart is
``dx + dy + max(dx, dy)``: 2 for a neighbour, 3 diagonally, 4 two points away.
The shape and tactical levels are those of the rollout policy
(:func:`dlgo.games.go.patterns.features`), which decides the same way which
plays are no candidates at all: filling one's own eye, capturing oneself.
"""
from __future__ import annotations

import numpy as np

from dlgo.games.go.board import Board
from dlgo.games.go.features import (ATARI, CAPTURE_1, CAPTURE_2, CAPTURE_MORE, ESCAPE, FEATURE_NAMES, NUM_PATTERNS,
                                    SELF_ATARI)
from dlgo.games.go.patterns import features
from dlgo.games.go.state import GoState

__all__ = ["GROUPS", "OFFSETS", "NUM_LEVELS", "GROUP_OF", "LEVEL_NAMES", "NEAREST", "FARTHEST", "EDGE_LINES",
           "gridcular", "move_team", "pass_team", "played_point", "position_teams"]

NEAREST, FARTHEST = 2, 17  # the distances rated: a neighbour's to 17
EDGE_LINES = 4
#: each group's name and number of levels, in the order of a team's columns
GROUPS = (("shape", NUM_PATTERNS), ("capture", 3), ("escape", 1), ("atari", 1), ("self-atari", 1),
          ("last", FARTHEST - NEAREST + 1), ("before", FARTHEST - NEAREST + 1), ("edge", EDGE_LINES), ("pass", 1))
SHAPE, CAPTURE, ESCAPE_GROUP, ATARI_GROUP, SELF_ATARI_GROUP, LAST, BEFORE, EDGE, PASS = range(len(GROUPS))
#: the first level of each group; a level's index is its group's offset plus its place in the group
OFFSETS = np.cumsum([0] + [size for _, size in GROUPS])[:-1].astype(np.int32)
NUM_LEVELS = int(sum(size for _, size in GROUPS))
GROUP_OF = np.repeat(np.arange(len(GROUPS)), [size for _, size in GROUPS]).astype(np.int32)
#: the rollout policy's tactical flags: the group and level each is here (in that order)
_TACTICAL = {CAPTURE_1: (CAPTURE, 0), CAPTURE_2: (CAPTURE, 1), CAPTURE_MORE: (CAPTURE, 2), ESCAPE: (ESCAPE_GROUP, 0),
             ATARI: (ATARI_GROUP, 0), SELF_ATARI: (SELF_ATARI_GROUP, 0)}
LEVEL_NAMES = tuple([f"shape {k}" for k in range(NUM_PATTERNS)] + [FEATURE_NAMES[f] for f in _TACTICAL]
                    + [f"last {d}" for d in range(NEAREST, FARTHEST + 1)]
                    + [f"before {d}" for d in range(NEAREST, FARTHEST + 1)]
                    + [f"edge {line}" for line in range(1, EDGE_LINES + 1)] + ["pass"])


def gridcular(cols: int, p: int, q: int) -> int:
    """The gridcular distance between flat points ``p`` and ``q`` of a board ``cols`` wide."""
    (pr, pc), (qr, qc) = divmod(p, cols), divmod(q, cols)
    dx, dy = abs(pc - qc), abs(pr - qr)
    return dx + dy + max(dx, dy)


def move_team(board: Board, p: int, c: int, last: int, before: int) -> np.ndarray | None:
    """The levels (one column per group, -1 where none) of colour ``c`` playing at empty ``p``,
    the last two moves at ``last`` and ``before`` (-1: a pass, or none); None where the play is
    no candidate (it fills the mover's own eye or captures itself)."""
    found = features(board, p, c)
    if found is None:
        return None
    team = np.full(len(GROUPS), -1, np.int32)
    team[SHAPE] = OFFSETS[SHAPE] + found[0] - 1  # features() counts pattern classes from 1
    for feature in found[1:]:
        group, level = _TACTICAL[feature]
        team[group] = OFFSETS[group] + level
    cols = board.geometry.num_cols
    for group, q in ((LAST, last), (BEFORE, before)):
        if q >= 0:
            distance = gridcular(cols, p, q)
            if NEAREST <= distance <= FARTHEST:  # 0: the point itself, emptied since by a capture
                team[group] = OFFSETS[group] + distance - NEAREST
    r, col = divmod(p, cols)
    line = 1 + min(r, col, board.geometry.num_rows - 1 - r, cols - 1 - col)
    if line <= EDGE_LINES:
        team[EDGE] = OFFSETS[EDGE] + line - 1
    return team


def pass_team() -> np.ndarray:
    """The pass's team: the pass level alone."""
    team = np.full(len(GROUPS), -1, np.int32)
    team[PASS] = OFFSETS[PASS]
    return team


def played_point(state: GoState | None) -> int:
    """The flat point of the move that led to ``state`` (-1: a pass, a resignation or none)."""
    if state is None or state.last_move is None or state.last_move.point is None:
        return -1
    return state.board.geometry.index_of(state.last_move.point)


def position_teams(state: GoState) -> tuple[list[int], np.ndarray]:
    """The candidate moves of ``state`` (its legal plays that are candidates, in board order, then
    the pass, as actions) and their teams, ``(moves, groups)``: the competition a teacher's move won."""
    board, c = state.board, int(state.next_player)
    last, before = played_point(state), played_point(state.previous_state)
    actions, teams = [], []
    for p in state.legal_actions()[:-1]:
        team = move_team(board, p, c, last, before)
        if team is not None:
            actions.append(p)
            teams.append(team)
    actions.append(board.geometry.num_points)
    teams.append(pass_team())
    return actions, np.stack(teams)
