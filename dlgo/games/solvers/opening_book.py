"""The Connect-N solver's opening books: exact scores of the first plies, shipped as text.

The positions nearest the empty board are the costliest to solve: the empty
Connect Four board takes the solver hours, a position of 12 stones a second.
An opening book (Pons, "Solving Connect 4", part 12) keeps the exact scores of
every position up to a few plies, worked out once by ``dlgo solve-book``
(:mod:`dlgo.data.solved`) and shipped beside this module in ``books/``, one file
per board. Each line is a position in Pons' notation (a digit per stone, its
column counted from 1) and its score for the player to move; a position and
its mirror image share one line. Lines starting with ``#`` are comments.

>>> from dlgo.games import get_game
>>> book = shipped_book(get_game("connect4"))
>>> book is None or book.plies >= 1
True
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from dlgo.core.errors import RecordError
from dlgo.games.solvers.bitboard import Book, Position, Shape, shape_of

if TYPE_CHECKING:
    from dlgo.games.kinarow import KInARowGame

#: where the shipped books are: ``books/<board>.txt``
BOOKS = Path(__file__).resolve().parent / "books"


def book_path(shape: Shape) -> Path:
    """The shipped book's file for a board: ``books/connect-7x6-4.txt``."""
    return BOOKS / f"connect-{shape.columns}x{shape.rows}-{shape.k}.txt"


def shipped_book(game: "KInARowGame") -> Book | None:
    """The book the suite ships for ``game``'s board, or None (read once per process)."""
    shape = shape_of(game)
    path = book_path(shape)
    return _read_once(path, path.stat().st_mtime, shape) if path.exists() else None


@functools.lru_cache(maxsize=4)
def _read_once(path: Path, mtime: float, shape: Shape) -> Book:
    return read_book(path, shape)


def read_book(path: Path, shape: Shape) -> Book:
    """A book file (see the module) as a :class:`Book`."""
    return book_of(shape, *read_entries(path, shape))


def book_of(shape: Shape, plies: int, entries: dict[str, int]) -> Book:
    """The book of ``entries`` (moves -> score) up to ``plies``, keyed as the solver looks positions up."""
    return Book(plies, {Position.after(shape, moves).book_key(): score for moves, score in entries.items()})


def read_entries(path: Path, shape: Shape) -> tuple[int, dict[str, int]]:
    """A book file's plies and entries (moves -> score; ``""`` the empty board);
    :class:`RecordError` for a line it cannot read, or an entry past the book's ``# plies:``."""
    plies, entries = -1, {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if match := re.fullmatch(r"#\s*plies:\s*(\d+)\s*", line):
            plies = int(match.group(1))
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            moves, score = line.split()
            moves = "" if moves == "-" else moves
            if Position.after(shape, moves).moves > plies:
                raise ValueError(f"deeper than the book's plies ({plies}), or before its '# plies:' line")
            entries[moves] = int(score)
        except ValueError as err:
            raise RecordError(f"{path}, line {number}: not a book entry ({err}): {line!r}") from None
    if plies < 0:
        raise RecordError(f"{path} is not an opening book: it has no '# plies:' line")
    return plies, entries


def book_text(shape: Shape, plies: int, entries: dict[str, int], about: str = "") -> str:
    """The book file holding ``entries`` (moves -> score), shortest first; ``-`` is the empty board."""
    head = [f"# the Connect-N solver's opening book: {shape.columns} x {shape.rows}, {shape.k} in a row",
            "# each line: the moves from the empty board (a digit per stone: its column, from 1; - for none)",
            "# and the exact score for the player to move (Pons' scores: 0 a draw, n > 0 a win with the player's",
            "# n-th last stone, n < 0 a loss likewise); a position's mirror image shares its line",
            *(f"# {line}" for line in about.splitlines()),
            f"# plies: {plies}"]
    body = [f"{moves or '-'} {score}" for moves, score in sorted(entries.items(), key=lambda e: (len(e[0]), e[0]))]
    return "\n".join(head + body) + "\n"


def positions_at(shape: Shape, plies: int) -> Iterator[tuple[str, Position]]:
    """Every unfinished position after exactly ``plies`` stones, one per mirror
    pair, with the moves that reach it (the first found, columns tried in order)."""
    seen: set[int] = set()
    frontier = [("", Position(shape, 0, 0, 0))]
    for depth in range(plies):
        following = []
        for moves, position in frontier:
            for column in range(shape.columns):
                if not position.can_play(column):
                    continue
                if position.is_winning_move(column) or position.moves + 1 == shape.cells:
                    continue  # the game would be over
                child = position.played(position.move_in(column))
                key = child.book_key()
                if key in seen:
                    continue
                seen.add(key)
                following.append((moves + str(column + 1), child))
        frontier = following
    yield from frontier
