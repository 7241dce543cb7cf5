"""Static evaluation for depth-limited search, from the side to move's view.

Scores are heuristic "points" far below :data:`WIN`, the score of a won game, so
a proven result always outranks any estimate.
"""
from __future__ import annotations

import functools

from dlgo.game import GameStateBase
from dlgo.gotypes import Player

#: Score of a game won right now; a win found ``p`` plies ahead scores ``WIN - p``.
WIN = 1_000_000
#: Scores beyond this are proven wins (or, negated, losses).
PROVEN = WIN - 10_000


def terminal_score(state: GameStateBase, ply: int) -> int:
    """Exact score of a finished game for the side to move (shorter wins are better)."""
    winner = state.winner()
    if winner is None:
        return 0
    return WIN - ply if winner == state.next_player else -(WIN - ply)


def evaluate(state: GameStateBase) -> float:
    """Heuristic value of an unfinished position for ``state.next_player``."""
    if state.game_name == "go":
        return evaluate_go(state)
    return evaluate_lines(state)


def evaluate_go(state) -> float:
    """Capture difference plus an area estimate (stones and empty regions that
    touch one colour only), komi included."""
    from dlgo.scoring import evaluate_territory

    board = state.board
    t = evaluate_territory(board)
    black = t.num_black_stones + t.num_black_territory + board.captures[Player.black]
    white = t.num_white_stones + t.num_white_territory + board.captures[Player.white] + state.komi
    return black - white if state.next_player is Player.black else white - black


@functools.lru_cache(maxsize=None)
def _line_weights(k: int) -> tuple[int, ...]:
    """Weight of an open window holding n stones: 10^(n-1), and a threat (k-1 of k)
    counts double on top."""
    weights = [0] + [10 ** (n - 1) for n in range(1, k + 1)]
    if k >= 2:
        weights[k - 1] *= 2
    return tuple(weights)


def evaluate_lines(state) -> float:
    """k-in-a-row games: open lines and threats. Every k-window that holds stones
    of one player only is worth 10^(n-1) for its n stones (a k-1 threat double),
    plus for the mover, minus for the opponent. Central cells lie on more windows,
    so the count also rewards the centre."""
    geo = state.geometry
    me = state.bits[state.next_player]
    opp = state.bits[state.next_player.other]
    weights = _line_weights(geo.k)
    score = 0
    for w in geo.all_windows:
        mine = me & w
        theirs = opp & w
        if mine:
            if not theirs:
                score += weights[mine.bit_count()]
        elif theirs:
            score -= weights[theirs.bit_count()]
    return score
