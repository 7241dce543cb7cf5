"""Auxiliary training targets: more to learn from each self-play game than its result.

KataGo (Wu 2019, section 4) trains its network to predict, besides the move
and the result, each point's final owner and the final score: a game's result
is one bit for all its positions, its final ownership a number per point, so
the network learns what makes a result many times faster. Which targets a
game offers is asked of the game:

* ``moves_left`` (every game): the plies from the position to the end of its
  game, over the game's number of actions (KataGo's moves-left head; in
  Connect Four, how soon the game is decided);
* ``ownership`` and ``score`` (games scored by area, Go): who owns each point
  when the game is counted (1 the player to move, -1 the opponent, 0 nobody)
  and the final margin for the player to move, over the board's points; a game
  that ended without a count (a resignation) gives 0s.

The targets are board-shaped (ownership: ``(rows, cols, 1)``, in the layout of
:meth:`~dlgo.core.game.State.stone_array`, which the actions and the board
symmetries share) or one number per position.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from dlgo.core.game import Game, State


def auxiliary_targets(game: Game) -> tuple[str, ...]:
    """The auxiliary targets ``game`` offers (see the module's docstring)."""
    return ("moves_left", "ownership", "score") if game.scored_by_area else ("moves_left",)


def target_shape(name: str, game: Game) -> tuple[int, ...]:
    """One position's target: ``(rows, cols, 1)`` for ownership, ``(1,)`` for a number."""
    return (game.num_rows, game.num_cols, 1) if name == "ownership" else (1,)


def targets_of(positions: Sequence[State], final: State, names: Sequence[str]) -> dict[str, np.ndarray]:
    """Each of ``names``' target for every position of one finished game (``final``
    its last state), from the view of the player to move at the position."""
    game = final.game
    ply = {id(state): k for k, state in enumerate(final.history())}  # each state's moves played, in one pass
    end = len(ply) - 1
    count = final.area_count() if {"ownership", "score"} & set(names) else None
    targets: dict[str, np.ndarray] = {}
    for name in names:
        rows = np.zeros((len(positions), *target_shape(name, game)), np.float32)
        for k, state in enumerate(positions):
            me, other = state.next_player, state.next_player.other
            if name == "moves_left":
                rows[k] = (end - ply[id(state)]) / game.num_actions
            elif count is not None and name == "ownership":
                # a player's value is its stone code in the owners array
                rows[k, ..., 0] = (count.owners == int(me)).astype(np.float32) - (count.owners == int(other))
            elif count is not None and name == "score":
                rows[k] = (count.total(me) - count.total(other)) / count.owners.size
        targets[name] = rows
    return targets


def joined_targets(parts: dict[str, list[np.ndarray]], game: Game) -> dict[str, np.ndarray]:
    """Each target's rows of several games (:func:`targets_of`'s, game after game) in one array,
    by name; an empty array of the target's shape where there are none."""
    return {name: np.concatenate(rows) if rows else np.zeros((0, *target_shape(name, game)), np.float32)
            for name, rows in parts.items()}
