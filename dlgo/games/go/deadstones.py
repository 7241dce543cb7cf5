"""Dead stones at the end of a Go game, estimated as Go programs estimate them.

Players stop when nothing is left to gain, with stones still on the board that
could never escape: a plain area count gives them to their owner. Go programs
(and servers such as KGS and OGS) estimate the status of each string from
*ownership*: the position is played on many times at random to the very end
(both players, the book's eye-respecting random policy) and each point is
counted for the colour that owns it there. A string whose points end up the
opponent's in most playouts is dead; strings of both colours that survive only about
half the time each and share liberties are in seki, and seki counts as alive. The score removes the dead strings (they
become the capturer's area) and
counts the board by area as usual.

Black walls off columns A-C, White columns F-G; a white stone sits at B4,
inside Black's area, when both pass. The plain count gives the stone to White
and makes the points around it nobody's; the estimate finds it dead:

>>> from dlgo.games import new_game
>>> state = new_game("go:size=7,komi=0.5")
>>> walls = [text for row in range(1, 8) for text in (f"D{row}", f"E{row}")]
>>> for text in walls + ["pass", "B4", "pass", "pass"]:
...     state = state.apply_move(state.parse_move(text))
>>> state.outcome().text                        # the board as it stands
'W+15.5'
>>> sorted(stone_status(state, seed=1).dead)
[Point(row=4, col=2)]
>>> str(score_with_dead_stones(state, seed=1))  # 21 points for Black, 14 for White
'B+6.5'
"""
from __future__ import annotations

import random
from typing import Any, NamedTuple, Protocol, Sequence

from dlgo.core.types import Player, Point
from dlgo.games.go.board import BLACK, EMPTY, Board
from dlgo.games.go.scoring import GameResult, count_area, empty_regions


class Position(Protocol):
    """What the estimate needs of a Go state (:class:`~dlgo.games.go.state.GoState`,
    which itself scores with this module: hence no import of it here)."""

    board: Board
    next_player: Player
    game: Any  # a GoGame: its komi

    def continued_owners(self, first: Player, seed: int) -> list[int]: ...

#: a string whose owner keeps it in between these shares of the playouts is contested:
#: in seki (alive) if it shares liberties with a contested string of the other colour
SEKI_BAND = (0.35, 0.65)


class StoneStatus(NamedTuple):
    """The status of every stone at the end of a game: ``dead`` and ``seki``
    points (everything else on the board is alive), and ``ownership``, each
    point's mean owner over the playouts (+1 black, -1 white), by point index."""

    dead: frozenset[Point]
    seki: frozenset[Point]
    ownership: tuple[float, ...]


def ownership(state: Position, playouts: int = 200, seed: int = 0) -> list[float]:
    """Each point's mean owner (+1 black, -1 white, 0 neither) after ``playouts``
    random continuations of ``state`` to the end, half of them with each colour
    moving first (the game may be over: play goes on regardless)."""
    rng = random.Random(seed)
    total = [0.0] * state.board.geometry.num_points
    for k in range(playouts):
        first = state.next_player if k % 2 == 0 else state.next_player.other
        for p, owner in enumerate(state.continued_owners(first, rng.getrandbits(63))):
            total[p] += 1.0 if owner == BLACK else -1.0 if owner else 0.0
    return [t / playouts for t in total]


def stone_status(state: Position, playouts: int = 200, seed: int = 0) -> StoneStatus:
    """Dead, seki and alive stones of ``state``'s board, from :func:`ownership`."""
    board = state.board
    geometry = board.geometry
    owned = ownership(state, playouts, seed)
    strings = _strings(board.color, geometry.neighbors)
    kept = []  # per string: the share of playouts whose end leaves its points its owner's
    for colour, points in strings:
        sign = 1.0 if colour == BLACK else -1.0
        kept.append((1.0 + sum(sign * owned[p] for p in points) / len(points)) / 2.0)
    low, high = SEKI_BAND
    contested = {p: colour for (colour, points), k in zip(strings, kept) if low <= k <= high for p in points}
    seki: set[int] = set()
    for region, border in empty_regions(board.color, geometry.neighbors):
        if border != 3:
            continue
        touching = {q for p in region for q in geometry.neighbors[p] if q in contested}
        if {contested[q] for q in touching} == {1, 2}:  # contested strings of both colours share these liberties
            for colour, points in strings:
                if touching & set(points):
                    seki.update(points)
    dead = {p for (_, points), k in zip(strings, kept) if k < 0.5 and not seki & set(points) for p in points}
    at = geometry.points
    return StoneStatus(frozenset(at[p] for p in dead), frozenset(at[p] for p in seki), tuple(owned))


def score_with_dead_stones(state: Position, playouts: int = 200, seed: int = 0,
                           status: StoneStatus | None = None) -> GameResult:
    """The area score of ``state`` with its dead stones removed (estimated by
    :func:`stone_status` unless ``status`` is given) and komi to white."""
    status = status or stone_status(state, playouts, seed)
    count = count_area(state.board, state.game.komi, status.dead)
    return GameResult(count.area(Player.black), count.area(Player.white), count.komi)


def status_of(point: Point, status: StoneStatus) -> str:
    """``dead``, ``seki`` or ``alive`` (GTP's words) for a stone's point."""
    return "dead" if point in status.dead else "seki" if point in status.seki else "alive"


def _strings(color: Sequence[int], neighbors: Sequence[Sequence[int]]) -> list[tuple[int, list[int]]]:
    """(colour, points) of every string of stones on a board's colour array."""
    seen = [False] * len(color)
    strings = []
    for start, c in enumerate(color):
        if c == EMPTY or seen[start]:
            continue
        seen[start] = True
        points = [start]
        for p in points:
            for q in neighbors[p]:
                if color[q] == c and not seen[q]:
                    seen[q] = True
                    points.append(q)
        strings.append((c, points))
    return strings

