"""Finished games as rows of ``games.csv``: the record, reading, writing, replaying.

A record holds everything a report needs: who played which colour, the result,
the moves as typed (so the game can be replayed), and per side the mean wall
seconds and compute units per move. Tournaments, generated training data and
imported SGF games all use it.
"""
from __future__ import annotations

import csv
import io
import logging
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Iterable

from dlgo.core.errors import RecordError
from dlgo.core.game import State
from dlgo.formats.atomic import atomic_write
from dlgo.games import new_game

log = logging.getLogger(__name__)


@dataclass
class GameRecord:
    """One finished game, as one row of ``games.csv``."""

    experiment: str
    game_id: str
    game: str
    black: str
    white: str
    result: str          # "B+3.5", "W+R" (resignation), "B+F" (forfeit), "1-0", "0-1", "1/2-1/2"
    winner: str          # "black", "white" or "draw"
    plies: int
    black_seconds: float  # mean wall seconds per move
    white_seconds: float
    black_compute: float  # mean compute units per move (nodes, rounds, ...)
    white_compute: float
    black_unit: str
    white_unit: str
    seed: int
    opening_plies: int
    moves: str           # the moves as typed by humans, space separated
    note: str = ""       # why a game ended early: "white forfeits: gnugo exited (exit code 1)"

    @classmethod
    def columns(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def as_row(self) -> dict[str, Any]:
        return asdict(self)

    def engine_moves(self) -> tuple[int, int]:
        """(black's, white's) moves chosen by the engines, after the random opening."""
        n = self.plies - self.opening_plies
        first, second = (n + 1) // 2, n // 2
        return (first, second) if self.opening_plies % 2 == 0 else (second, first)

    def score_for(self, spec: str) -> float:
        """Points ``spec`` scored in this game (1, 0.5 or 0)."""
        if self.winner == "draw":
            return 0.5
        return 1.0 if (self.black if self.winner == "black" else self.white) == spec else 0.0


def replay(record_game: str, moves: str) -> list[State]:
    """The states of a recorded game, from the start to the end
    (:class:`RecordError` at a move that cannot be played)."""
    state = new_game(record_game)
    states = [state]
    for ply, text in enumerate(moves.split()):
        try:
            state = state.apply_move(state.parse_move(text))
        except ValueError as err:
            raise RecordError(f"move {ply + 1} ({text}) of the recorded {record_game} game: {err}") from None
        states.append(state)
    return states


def read_games(path: Path) -> list[GameRecord]:
    """The finished games in ``games.csv``. A row counts only if it ends with a
    newline: a kill in mid-write leaves a torn last row (even one that would
    parse), which is dropped and the file repaired atomically."""
    if not path.exists():
        return []
    text = path.read_text()
    complete = text[: text.rfind("\n") + 1]
    torn = complete != text
    columns = GameRecord.columns()
    kinds = {f.name: f.type for f in fields(GameRecord)}
    records = []
    for row in csv.DictReader(io.StringIO(complete)):
        if None in row or None in row.values():  # too many or too few fields
            torn = True
            continue
        try:
            # a column added since the file was written (``note``) takes its default;
            # a missing column without one is a TypeError: the row is dropped
            records.append(GameRecord(**{c: _parse(row[c], str(kinds[c])) for c in columns if c in row}))
        except (KeyError, TypeError, ValueError):
            torn = True
    if torn:
        log.warning("dropping a torn line from %s", path)
        write_games(path, records)
    return records


def _parse(text: str, kind: str) -> Any:
    return int(text) if kind == "int" else float(text) if kind == "float" else text


def write_games(path: Path, records: Iterable[GameRecord]) -> None:
    """Write all records at once, atomically (temp file, then ``os.replace``)."""
    with atomic_write(path, newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=GameRecord.columns())
        writer.writeheader()
        for record in records:
            writer.writerow(record.as_row())


def append_game(path: Path, record: GameRecord) -> None:
    """Append one finished game and make it durable before returning."""
    new_file = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=GameRecord.columns())
        if new_file:
            writer.writeheader()
        writer.writerow(record.as_row())
        handle.flush()
        os.fsync(handle.fileno())
