"""Where handicap stones go: GTP's fixed points, and well-spread free ones.

>>> fixed_handicap_points(9, 2)
[Point(row=3, col=3), Point(row=7, col=7)]
"""
from __future__ import annotations

from dlgo.core.errors import SpecError
from dlgo.core.types import Point


def max_fixed_handicap(size: int) -> int:
    """The most stones ``fixed_handicap`` places: 9 on odd boards from 9x9, 4 on
    even boards and on 7x7 (no handicap on boards under 7x7)."""
    if size < 7:
        return 0
    if size % 2 == 0 or size == 7:
        return 4
    return 9


def fixed_handicap_points(size: int, stones: int) -> list[Point]:
    """The standard handicap points (GTP spec, section 4.1.1): the star points on
    the fourth line (third on boards under 13x13), corners first, then sides
    and centre in the usual order. :class:`SpecError` for a count the board
    cannot take."""
    most = max_fixed_handicap(size)
    if not 2 <= stones <= most:
        raise SpecError(f"invalid number of handicap stones {stones} for {size}x{size} (2..{most})"
                        if most else f"no fixed handicap on {size}x{size}")
    edge = 4 if size >= 13 else 3
    low, mid, high = edge, (size + 1) // 2, size + 1 - edge
    corners = [Point(low, low), Point(high, high), Point(high, low), Point(low, high)]
    if stones <= 4:  # D4 and Q16, then D16, then Q4
        return corners[:stones]
    sides = [Point(mid, low), Point(mid, high)]        # left and right of centre
    verticals = [Point(low, mid), Point(high, mid)]    # below and above centre
    centre = Point(mid, mid)
    layout = {5: corners + [centre], 6: corners + sides, 7: corners + sides + [centre],
              8: corners + sides + verticals, 9: corners + sides + verticals + [centre]}
    return layout[stones]


def free_handicap_points(size: int, stones: int) -> list[Point]:
    """``stones`` well-spread points: the fixed handicap points as far as they
    go, then, one at a time, the point off the edge farthest from those chosen."""
    fixed = min(stones, max_fixed_handicap(size))
    points = fixed_handicap_points(size, fixed) if fixed >= 2 else []
    inner = [Point(r, c) for r in range(1, size + 1) for c in range(1, size + 1)
             if (size < 5 or 1 < r < size and 1 < c < size)]
    candidates = [p for p in inner if p not in points] + [Point(r, c) for r in range(1, size + 1)
                                                           for c in range(1, size + 1) if Point(r, c) not in inner]
    while len(points) < stones:
        best = max(candidates, key=lambda p: min((abs(p.row - q.row) + abs(p.col - q.col) for q in points),
                                                default=0))
        points.append(best)
        candidates.remove(best)
    return points
