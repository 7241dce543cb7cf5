"""Go playouts from a :class:`~dlgo.games.go.state.GoState` on the compiled board.

A state does not carry a compiled board (that would cost every move of every
game a second board). A playout instead starts from its game's first state,
whose compiled twin is made once and kept (:func:`root_board`), replays the
game's actions to reach the position (microseconds, compiled, adding each
position's hash to the superko set on the way) and plays on. The random numbers
come from one 64-bit seed drawn from the caller's ``random.Random``, so the
compiled playout and the readable reference (``compiled=False``) play the same
game from the same generator state.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Protocol, cast

import numpy as np

from dlgo.core.types import PASS, Move, Player
from dlgo.games.go import kernels, pattern_kernels
from dlgo.games.go.board import Board
from dlgo.games.go.features import NUM_FEATURES
from dlgo.games.go.kernels import GoBoard
from dlgo.games.kernels import HashSet, entry_point


__all__ = ["game_path", "root_board", "random_playout", "continued_owners", "compiled_position", "legal_plays",
           "area_points"]

NO_MOVES = np.empty(0, np.int32)


class Position(Protocol):
    """What these functions read of a :class:`dlgo.games.go.state.GoState` (which
    calls them: hence a description here, not an import)."""

    @property
    def board(self) -> Board: ...

    @property
    def next_player(self) -> Player: ...

    @property
    def previous_state(self) -> "Position | None": ...

    @property
    def last_move(self) -> Move | None: ...

    @property
    def game(self) -> Any: ...  # its GoGame: the komi

    @property
    def _action(self) -> int: ...  # the action that led to it

    _compiled: object  # at a game's first state: its compiled board, once made


class PlayoutPolicy(Protocol):
    @property
    def weights(self) -> np.ndarray: ...


def root_board(root: Position) -> GoBoard:
    """The compiled twin of the board of a game's first state, made once."""
    if root._compiled is None:
        root._compiled = kernels.board_arrays(root.board)
    return cast(GoBoard, root._compiled)


def game_path(state: Position) -> tuple[Position, np.ndarray]:
    """The first state of ``state``'s game and the actions (points; the pass
    index for a pass) that lead from it to ``state``."""
    actions: list[int] = []
    s = state
    while s.previous_state is not None:
        actions.append(s._action)
        s = s.previous_state
    actions.reverse()
    return s, np.array(actions, dtype=np.int32)


def random_playout(state: Position, rng: random.Random, moves: list[Move] | None, max_moves: int | None,
                   policy: PlayoutPolicy | None = None, careful: bool = False) -> Player | None:
    """:meth:`GoState.random_playout` on the compiled board (with ``policy``: its compiled twin)."""
    root, path = game_path(state)
    geometry = kernels.geometry_arrays(root.board.num_rows, root.board.num_cols)
    budget = 10 * len(root.board.color) if max_moves is None else max_moves
    passes = 1 if state.last_move is not None and state.last_move.is_pass else 0
    record = np.empty(budget, np.int32) if moves is not None else NO_MOVES
    seed = rng.getrandbits(63)
    first = int(root.next_player)
    komi = float(state.game.komi)
    if policy is None:
        winner, played = _entry("random")(root_board(root), geometry, first, path, passes, komi, budget, seed,
                                          careful, record)
    else:
        last = int(path[-1]) if len(path) and path[-1] < len(root.board.color) else -1
        winner, played = _entry("policy")(root_board(root), geometry, pattern_kernels.tables_for(policy), first,
                                          path, passes, last, komi, budget, seed, record)
    if moves is not None:
        plays = root.board.geometry.plays
        moves.extend(PASS if p < 0 else plays[p] for p in record[:played].tolist())
    return Player(winner) if winner else None


def continued_owners(state: Position, first: Player, seed: int) -> list[int]:
    """:meth:`GoState.continued_owners` on the compiled board."""
    root, path = game_path(state)
    geometry = kernels.geometry_arrays(root.board.num_rows, root.board.num_cols)
    budget = 10 * len(root.board.color)
    owners = _entry("continued")(root_board(root), geometry, int(root.next_player), path, int(first), budget, seed)
    return cast(list[int], owners.tolist())


def compiled_position(state: Position, room: int = 0) -> tuple[GoBoard, HashSet, int]:
    """``state`` on the compiled board: the board, the set of its game's positions
    (with room for ``room`` more) and the colour to move."""
    root, path = game_path(state)
    geometry = kernels.geometry_arrays(root.board.num_rows, root.board.num_cols)
    board, seen, c = kernels.position(root_board(root), geometry, int(root.next_player), path, room)
    return board, seen, c


def legal_plays(state: Position) -> list[int]:
    """The points ``state``'s player may play, by the compiled rules (its legal actions but the pass)."""
    board, seen, c = compiled_position(state)
    legal = np.zeros(len(board.color), np.bool_)
    kernels.legal_plays(board, kernels.geometry_arrays(state.board.num_rows, state.board.num_cols), c, seen, legal)
    return [int(p) for p in np.flatnonzero(legal)]


def area_points(state: Position) -> tuple[int, int]:
    """Black's and white's points by area on the compiled board (:func:`kernels.area_points`)."""
    board, _, _ = compiled_position(state)
    black, white = kernels.area_points(board, kernels.geometry_arrays(state.board.num_rows, state.board.num_cols))
    return int(black), int(white)


_ENTRIES: dict[str, Callable[..., Any]] = {}


def _entry(kind: str) -> Callable[..., Any]:
    """The playout kernel's machine code (:func:`dlgo.games.kernels.entry_point`), made on first use."""
    if kind not in _ENTRIES:
        board = kernels.board_arrays(Board(3, 3))
        geometry = kernels.geometry_arrays(3, 3)
        path = np.zeros(0, np.int32)
        if kind == "continued":
            _ENTRIES[kind] = entry_point(kernels.continued_owners, board, geometry, 1, path, 1, 1, 0)
        elif kind == "random":
            _ENTRIES[kind] = entry_point(kernels.playout, board, geometry, 1, path, 0, 7.5, 1, 0, False, NO_MOVES)
        else:
            tables = pattern_kernels.policy_tables(np.zeros(NUM_FEATURES))
            _ENTRIES[kind] = entry_point(pattern_kernels.playout, board, geometry, tables, 1, path, 0, -1, 7.5, 1, 0,
                                         NO_MOVES)
    return _ENTRIES[kind]
