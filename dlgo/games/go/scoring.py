"""Area scoring for Go: stones on the board plus empty regions that touch only
one colour. Komi goes to white."""
from __future__ import annotations

from typing import Collection, Iterator, NamedTuple, Sequence

import numpy as np

from dlgo.core.game import AreaCount
from dlgo.core.types import Player, Point
from dlgo.games.go.board import EMPTY, Board


class Territory(NamedTuple):
    """Counts of stones, territory (empty regions bordered by one colour only) and
    dame (empty points that touch both colours, or none), plus the dame points."""

    num_black_stones: int
    num_white_stones: int
    num_black_territory: int
    num_white_territory: int
    num_dame: int
    dame_points: tuple[Point, ...]


def empty_regions(color: Sequence[int], neighbors: Sequence[Sequence[int]]) -> Iterator[tuple[list[int], int]]:
    """Every empty region of a board's colour array (0 empty, 1 black, 2 white)
    with the colours that border it as a bitmask: 1 black only, 2 white only,
    3 both, 0 none (an empty board)."""
    seen = [False] * len(color)
    for start, c in enumerate(color):
        if c or seen[start]:
            continue
        seen[start] = True
        region = [start]
        border = 0
        for p in region:  # the list grows as the flood fill finds more of the region
            for q in neighbors[p]:
                cq = color[q]
                if cq:
                    border |= cq
                elif not seen[q]:
                    seen[q] = True
                    region.append(q)
        yield region, border


def point_owners(color: Sequence[int], neighbors: Sequence[Sequence[int]]) -> list[int]:
    """Who owns each point by area: its stone's colour, or the one colour that
    borders its empty region (1 black, 2 white); 0 for dame."""
    owners = list(color)
    for region, border in empty_regions(color, neighbors):
        if border in (1, 2):
            for p in region:
                owners[p] = border
    return owners


def count_area(board: Board, komi: float, dead: Collection[Point] = ()) -> AreaCount:
    """``board`` counted by area once the ``dead`` stones are taken off: who owns
    each point, and each side's living stones and territory (their points included)."""
    geometry = board.geometry
    dead_cells = {geometry.index_of(p) for p in dead}
    color = [EMPTY if p in dead_cells else c for p, c in enumerate(board.color)]
    owners = point_owners(color, geometry.neighbors)
    stones = {player: color.count(player.value) for player in Player}
    territory = {player: owners.count(player.value) - stones[player] for player in Player}
    return AreaCount(np.array(owners, dtype=np.int8).reshape(board.num_rows, board.num_cols), frozenset(dead),
                     stones, territory, komi)


def evaluate_territory(board: Board) -> Territory:
    """Classify every point of ``board`` (see :class:`Territory`)."""
    color = board.color
    territory = [0, 0, 0, 0]  # indexed by the bitmask of bordering colours (1, 2; 0 or 3 = dame)
    dame: list[int] = []
    for region, border in empty_regions(color, board.geometry.neighbors):
        territory[border] += len(region)
        if border not in (1, 2):
            dame.extend(region)
    points = board.geometry.points
    return Territory(color.count(1), color.count(2), territory[1], territory[2], territory[0] + territory[3],
                     tuple(points[p] for p in sorted(dame)))


class GameResult(NamedTuple):
    """Area score of a finished game: ``b`` and ``w`` points on the board, ``komi``
    for white. ``str()`` gives ``B+3.5``, ``W+0.5`` or ``0`` (jigo, a draw)."""

    b: float
    w: float
    komi: float

    @property
    def winner(self) -> Player | None:
        if self.b > self.w + self.komi:
            return Player.black
        if self.b < self.w + self.komi:
            return Player.white
        return None

    @property
    def winning_margin(self) -> float:
        return abs(self.b - (self.w + self.komi))

    def __str__(self) -> str:
        if self.winner is None:
            return "0"
        return f"{self.winner}+{self.winning_margin:.1f}"


def area_score(board: Board, komi: float) -> GameResult:
    """Area score of ``board`` as it stands."""
    t = evaluate_territory(board)
    return GameResult(t.num_black_stones + t.num_black_territory,
                      t.num_white_stones + t.num_white_territory, komi)


def area_winner(board: Board, komi: float) -> Player | None:
    """Shortcut for playouts: the winner of ``board`` by area with ``komi``."""
    return area_score(board, komi).winner
