"""A student's answer to exercise 1, the book's way: strings as sets, merged and captured."""
from __future__ import annotations

from dataclasses import dataclass

from dlgo.core import zobrist
from dlgo.gotypes import Player, Point


@dataclass(frozen=True)
class GoString:
    color: Player
    stones: frozenset[Point]
    liberties: frozenset[Point]

    @property
    def num_liberties(self) -> int:
        return len(self.liberties)


def zobrist_key(player: Player, point: Point) -> int:
    return zobrist.POINT_KEYS[player][(point.row - 1) * zobrist.MAX_BOARD_SIZE + (point.col - 1)]


class Board:
    def __init__(self, num_rows: int, num_cols: int) -> None:
        self.num_rows = num_rows
        self.num_cols = num_cols
        self._grid: dict[Point, GoString] = {}
        self._hash = 0

    def is_on_grid(self, point: Point) -> bool:
        return 1 <= point.row <= self.num_rows and 1 <= point.col <= self.num_cols

    def get(self, point: Point) -> Player | None:
        string = self._grid.get(point)
        return None if string is None else string.color

    def get_go_string(self, point: Point) -> GoString | None:
        return self._grid.get(point)

    def place_stone(self, player: Player, point: Point) -> None:
        same, other, liberties = [], [], set()
        for neighbor in point.neighbors():
            if not self.is_on_grid(neighbor):
                continue
            string = self._grid.get(neighbor)
            if string is None:
                liberties.add(neighbor)
            elif string.color == player:
                if string not in same:
                    same.append(string)
            elif string not in other:
                other.append(string)
        stones, libs = {point}, set(liberties)
        for string in same:
            stones |= string.stones
            libs |= string.liberties
        libs.discard(point)
        new = GoString(player, frozenset(stones), frozenset(libs))
        for stone in stones:
            self._grid[stone] = new
        self._hash ^= zobrist_key(player, point)
        for string in other:
            reduced = GoString(string.color, string.stones, string.liberties - {point})
            if reduced.num_liberties:
                for stone in reduced.stones:
                    self._grid[stone] = reduced
            else:
                self._remove(reduced)

    def _remove(self, string: GoString) -> None:
        for stone in string.stones:
            for neighbor in stone.neighbors():
                around = self._grid.get(neighbor)
                if around is not None and around is not string and around.color != string.color:
                    grown = GoString(around.color, around.stones, around.liberties | {stone})
                    for s in grown.stones:
                        self._grid[s] = grown
            del self._grid[stone]
            self._hash ^= zobrist_key(string.color, stone)

    def zobrist_hash(self) -> int:
        return self._hash
