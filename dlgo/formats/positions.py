"""Solved position sets: positions with every legal move's exact score.

The yardstick of :mod:`dlgo.arena.mistakes`: where an engine's move changes a
position's game-theoretic result (a win into a draw or a loss, a draw into a
loss), it made a **mistake**; a position is **critical** when some legal move
would. Scores follow the solver's convention
(:class:`dlgo.core.game.ExactSolver`): 0 a draw; n > 0 a win with the mover's
n-th last stone, n < 0 a loss likewise.

The sets follow Pascal Pons' Connect Four benchmark: a position's **stage** is
how full the board is (begin: under a third of the cells, middle: under two
thirds, end: the rest) and its **difficulty** how far away its result lies
under perfect play (easy: under a third of the cells' worth of plies, medium:
under two thirds, hard: more), giving six sets: ``end-easy``,
``middle-easy``, ``middle-medium``, ``begin-easy``, ``begin-medium``,
``begin-hard``. ``dlgo positions`` (:mod:`dlgo.data.solved`) generates them;
the suite ships Connect Four's in ``dlgo/data/positions/``.

A set file is CSV with one row per position: ``set``, ``id``, ``game`` (its
spec), ``moves`` (from the start, in the game's notation, space-separated),
``stones``, ``score`` (the position's), ``remaining`` (plies to the end under
perfect play), ``critical`` (0/1) and ``scores`` (``action:score`` for every
legal action, by the game's action index: Connect Four's columns from 0,
where ``moves`` counts them from 1 as players do).

>>> p = SolvedPosition("begin-easy", 0, "connect4", "4 4", 2, 1, 39, {0: -1, 3: 1})
>>> p.critical, p.is_mistake(0), p.is_mistake(3)
(True, True, False)
"""
from __future__ import annotations

import csv
import os
import io
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple

from dlgo.core.errors import RecordError
from dlgo.core.game import State, result_of
from dlgo.storage.atomic import atomic_write
from dlgo.formats.records import replay

#: where the suite's own sets are (``<board>.csv``; the data layer makes them)
SHIPPED = Path(__file__).resolve().parents[1] / "data" / "positions"

STAGES = ("begin", "middle", "end")
DIFFICULTIES = ("easy", "medium", "hard")
#: Pons' six sets: the stage-difficulty pairs a game can have (a late position cannot be far from its end)
SETS = ("end-easy", "middle-easy", "middle-medium", "begin-easy", "begin-medium", "begin-hard")
COLUMNS = ["set", "id", "game", "moves", "stones", "score", "remaining", "critical", "scores"]


def remaining_plies(score: int, stones: int, cells: int) -> int:
    """Plies from a position of ``stones`` stones to the game's end under perfect
    play, from its exact score: a win with the mover's j-th stone from now ends
    after 2j - 1 plies, a loss to the opponent's j-th after 2j, a draw fills the board."""
    if score > 0:
        return 2 * ((cells + 1 - stones) // 2 - score + 1) - 1
    if score < 0:
        return 2 * ((cells - stones) // 2 + score + 1)
    return cells - stones


def set_of(stones: int, remaining: int, cells: int) -> str:
    """The set a position belongs to by its stage and difficulty (possibly none of :data:`SETS`)."""
    stage = STAGES[min(2, 3 * stones // cells)]
    difficulty = DIFFICULTIES[min(2, 3 * remaining // cells)]
    return f"{stage}-{difficulty}"


class SolvedPosition(NamedTuple):
    """One position of a set, with every legal action's exact score for the player to move."""

    set: str
    id: int
    game: str
    moves: str
    stones: int
    score: int
    remaining: int
    scores: dict[int, int]

    @property
    def result(self) -> int:
        return result_of(self.score)

    @property
    def critical(self) -> bool:
        """Some legal move changes the result."""
        return any(result_of(s) != self.result for s in self.scores.values())

    def is_mistake(self, action: int) -> bool:
        """Playing ``action`` changes the position's result (an illegal action is a mistake too)."""
        return action not in self.scores or result_of(self.scores[action]) != self.result

    def perfect_actions(self) -> list[int]:
        """The actions that keep the result."""
        return sorted(a for a, s in self.scores.items() if result_of(s) == self.result)

    def as_row(self) -> dict[str, object]:
        return {"set": self.set, "id": self.id, "game": self.game, "moves": self.moves, "stones": self.stones,
                "score": self.score, "remaining": self.remaining, "critical": int(self.critical),
                "scores": " ".join(f"{a}:{s}" for a, s in sorted(self.scores.items()))}


def positions_text(positions: Iterable[SolvedPosition]) -> str:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for p in positions:
        writer.writerow(p.as_row())
    return text.getvalue()


def write_positions(path: str | Path, positions: Iterable[SolvedPosition]) -> None:
    """All positions at once, atomically."""
    with atomic_write(path, newline="") as handle:
        handle.write(positions_text(positions))


def read_positions(path: str | Path, sets: Iterable[str] | None = None) -> list[SolvedPosition]:
    """A set file's positions (of ``sets`` only, if given); :class:`RecordError`
    for a file that is not one, naming the row."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise RecordError(f"{path} is not a position set (not UTF-8 text: {err.reason})") from None
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames != COLUMNS:
        raise RecordError(f"{path} is not a position set: its header is {reader.fieldnames}, not {COLUMNS}")
    wanted = None if sets is None else set(sets)
    positions = []
    for number, row in enumerate(reader, start=2):
        try:
            if None in row or None in row.values():
                raise ValueError("too many or too few fields")
            scores = {int(a): int(s) for a, s in (item.split(":") for item in row["scores"].split())}
            position = SolvedPosition(row["set"], int(row["id"]), row["game"], row["moves"], int(row["stones"]),
                                      int(row["score"]), int(row["remaining"]), scores)
            if not scores or max(scores.values()) != position.score or int(row["critical"]) != position.critical:
                raise ValueError("its scores disagree with its score or its critical flag")
        except (TypeError, ValueError) as err:
            raise RecordError(f"{path}, row {number}: not a solved position ({err})") from None
        if wanted is None or position.set in wanted:
            positions.append(position)
    if wanted is not None and (missing := wanted - {p.set for p in positions}):
        raise RecordError(f"{path} holds no position of {', '.join(sorted(missing))} (its sets: "
                          f"{', '.join(sorted({p.set for p in read_positions(path)}))})")
    return positions


def shipped_positions(board: str) -> Path:
    """The shipped set file of a board (``connect-7x6-4``)."""
    return SHIPPED / f"{board}.csv"


def open_log(path: Path, columns: list[str]) -> list[dict[str, str]]:
    """For the one writer of a run: the rows of the CSV log ``path`` (with
    header ``columns``), a torn last line (a killed run's) cut off, a new or
    empty file given its header; :class:`RecordError` for another file, kept as it is."""
    raw = path.read_bytes() if path.exists() else b""
    header = ",".join(columns).encode()
    if not raw.strip() or raw.rstrip(b"\r\n") == header or (b"\n" not in raw and header.startswith(raw)):
        with atomic_write(path, newline="") as handle:  # new, empty, or a header alone (perhaps torn)
            csv.writer(handle, lineterminator="\n").writerow(columns)
        return []
    if raw.split(b"\n", 1)[0].rstrip(b"\r") != header:
        raise RecordError(f"{path} does not start with the header {header.decode()}; it is kept as it is: move "
                          "it away or use another folder")
    keep = raw.rfind(b"\n") + 1
    if keep < len(raw):
        with path.open("r+b") as handle:
            handle.truncate(keep)
            os.fsync(handle.fileno())
    rows = list(csv.DictReader(io.StringIO(raw[:keep].decode("utf-8"))))
    for number, row in enumerate(rows, start=2):
        if None in row or None in row.values():
            raise RecordError(f"{path}, row {number}: too many or too few fields; it is kept as it is: mend or "
                              "delete that row")
    return rows


def append_row(path: Path, columns: list[str], row: Mapping[str, object]) -> None:
    """Append one row to a log that :func:`open_log` opened, durable on return."""
    with path.open("a", newline="") as handle:
        csv.DictWriter(handle, fieldnames=columns, lineterminator="\n").writerow(row)
        handle.flush()
        os.fsync(handle.fileno())


def open_positions_log(path: Path) -> list[SolvedPosition]:
    """:func:`open_log` for a log of solved positions (a generation run's)."""
    open_log(path, COLUMNS)
    return read_positions(path)


def append_position(path: Path, position: SolvedPosition) -> None:
    append_row(path, COLUMNS, position.as_row())


def first_of_each_set(positions: Iterable[SolvedPosition], per_set: int | None) -> list[SolvedPosition]:
    """The first ``per_set`` positions of each set (all with None): a smaller,
    fixed sample (the sets are in seeded random order already)."""
    taken: dict[str, int] = {}
    kept = []
    for p in positions:
        if per_set is None or taken.get(p.set, 0) < per_set:
            taken[p.set] = taken.get(p.set, 0) + 1
            kept.append(p)
    return kept


def load_sets(path: str | Path | None, game_board: str, sets: Iterable[str] | None = None,
              per_set: int | None = None) -> list[SolvedPosition]:
    """The positions of ``path`` (default: the shipped sets of the board
    ``game_board``), of ``sets`` only if given, the first ``per_set`` of each."""
    file = Path(path) if path else shipped_positions(game_board)
    if not file.exists():
        raise RecordError(f"no position sets at {file}" + ("" if path else ": the suite ships none for this game; "
                                                                          "make them with dlgo positions"))
    return first_of_each_set(read_positions(file, sets), per_set)


def position_state(position: SolvedPosition) -> State:
    """The game state a solved position stands for (its moves replayed)."""
    return replay(position.game, position.moves)[-1]
