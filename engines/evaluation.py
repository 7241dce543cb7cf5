"""Scores for depth-limited search, from the side to move's view.

A finished game has an exact score, ``WIN`` less the plies it took (shorter wins
are better). An unfinished one at the search's horizon is scored by the game's
own estimate, ``state.heuristic_value()``, in heuristic "points" far below
:data:`WIN`, so a proven result always outranks any estimate.
"""
from __future__ import annotations

from dlgo.core.game import State, value_for

#: Score of a game won right now; a win found ``p`` plies ahead scores ``WIN - p``.
WIN = 1_000_000
#: Scores beyond this are proven wins (or, negated, losses).
PROVEN = WIN - 10_000


def terminal_score(state: State, ply: int) -> int:
    """Exact score of a finished game for the side to move (shorter wins are better)."""
    return int(value_for(state.winner(), state.next_player)) * (WIN - ply)


def game_value(score: float) -> int | None:
    """+1 / -1 for a proven win / loss score, None for an estimate."""
    if score >= PROVEN:
        return 1
    if score <= -PROVEN:
        return -1
    return None
