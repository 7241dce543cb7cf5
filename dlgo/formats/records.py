"""Finished games as rows of ``games.csv``: the record, reading, writing, replaying.

A record holds everything a report needs: who played which colour, the result,
the moves as typed (so the game can be replayed), and per side the mean wall
seconds and compute units per move. Tournaments, generated training data and
imported SGF games all use it.
"""
from __future__ import annotations

import csv
import gzip
import io
import logging
import os
from collections import Counter
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Iterable

from dlgo.core.errors import RecordError
from dlgo.core.game import State
from dlgo.storage.atomic import atomic_write
from dlgo.games import get_game, new_game

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
    ending: str = ""     # how it ended: win, draw, score, resignation; or the loser's fault: forfeit (an
    #                      engine failed), timeout, exception, illegal-move, crash, ... (see ENDINGS)

    def __post_init__(self) -> None:
        if not self.ending:  # a row from before the column: read off the result
            self.ending = ending_of(self.result, self.winner, self.note)

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


#: the endings of games the rules decided, in games.csv's ``ending`` column; any other is a fault
#: of the losing side (``forfeit``, or a bot's: ``timeout``, ``exception``, ``illegal-move``, ...)
RULE_ENDINGS = ("win", "draw", "score", "resignation")


def ending_of(result: str, winner: str, note: str = "") -> str:
    """How a game recorded without an ``ending`` ended, read off its result text:
    ``B+F`` (or a note) a forfeit, ``W+R`` a resignation, ``B+3.5`` a count."""
    if result.endswith("+F") or " forfeits: " in note:
        return "forfeit"
    if result.endswith("+R"):
        return "resignation"
    if winner == "draw" and result != "0":
        return "draw"
    return "score" if result[:2] in ("B+", "W+") or result == "0" else "win"


def is_fault(ending: str) -> bool:
    """Did a game with this ``ending`` end by a fault of the side that lost?"""
    return ending not in RULE_ENDINGS


def faults_by_engine(records: Iterable[GameRecord]) -> dict[str, Counter[str]]:
    """Each engine's games lost by a fault of its own, counted by how (the ``ending``
    of each: ``timeout``, ``exception``, ...), engines in the order they first lost one."""
    faults: dict[str, Counter[str]] = {}
    for r in records:
        if is_fault(r.ending):
            loser = r.white if r.winner == "black" else r.black
            faults.setdefault(loser, Counter())[r.ending] += 1
    return faults


def faults_text(counts: Counter[str]) -> str:
    """``3 timeout, 1 exception``: an engine's losses by fault, the commonest first."""
    return ", ".join(f"{n} {kind}" for kind, n in counts.most_common())


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


def one_game(records: Iterable[GameRecord], where: str, fix: str = "") -> str:
    """The full spec of the one game ``records`` (read from ``where``) hold
    (``connect4`` and ``connectn:columns=7,rows=6,n=4`` are one); a
    :class:`RecordError` (ending in ``fix``, if given) if they hold several, for
    ratings never mix games."""
    games: Counter[str] = Counter()
    named: dict[str, str] = {}  # each game as the records first name it
    for name, n in Counter(r.game for r in records).items():
        spec = get_game(name).spec
        games[spec] += n
        named.setdefault(spec, name)
    if len(games) > 1:
        held = " and ".join(f"{n} of {named[spec]}" for spec, n in sorted(games.items()))
        raise RecordError(f"ratings compare engines on one game, not {len(games)} ({held}, in {where})"
                          + (f": {fix}" if fix else ""))
    return next(iter(games), "")


#: games.csv's columns that are measurements of wall time: two runs of the same seed write the same
#: games but for these (and the compute of an engine whose budget is seconds)
MEASURED = ("black_seconds", "white_seconds")

#: the header of games.csv, and the ones older files may have (before the ``note`` and ``ending`` columns)
HEADER = ",".join(GameRecord.columns())
OLD_HEADERS = (",".join(GameRecord.columns()[:-2]), ",".join(GameRecord.columns()[:-1]))
BOM = "\ufeff"


def read_games(path: Path) -> list[GameRecord]:
    """The finished games in ``games.csv``, each game id once. A reader never
    writes: a torn last line (a run killed in mid-write) is left out, for the next
    writer to repair; a file that is not a ``games.csv`` or holds a damaged row is
    a :class:`RecordError` that says where. Duplicated game ids (two writers at
    once, before folders were locked) count once, with a warning."""
    records, torn = _load(path)
    if torn:
        _warn_once(path, f"{path}: leaving out an unfinished last line (a run was killed while writing it)")
    seen: dict[str, GameRecord] = {}
    for record in records:
        seen.setdefault(record.game_id, record)
    if len(seen) < len(records):
        _warn_once(path, f"{path} holds {len(records) - len(seen)} rows with a game id seen before; each game "
                         "counts once")
    return list(seen.values())


_warned: set[tuple[str, int, int, str]] = set()  # (file, size, modified, warning) said by this process


def _warn_once(path: Path, warning: str) -> None:
    """Log ``warning`` about the file at ``path`` once while the file stays as it is: a
    command reads its games.csv several times (to check, to play, to report)."""
    info = path.stat()
    key = (str(path.resolve()), info.st_size, info.st_mtime_ns, warning)
    if key not in _warned:
        _warned.add(key)
        log.warning("%s", warning)


def games_file_of(path: Path) -> Path:
    """``path``, or the ``games.csv`` in it if it is a folder (a report's, a tournament's)."""
    return path / "games.csv" if path.is_dir() else path


def recorded_games(path: Path) -> list[GameRecord]:
    """The games of the ``games.csv`` at ``path``, or of the one in the folder ``path``
    (:func:`read_games`); a :class:`RecordError` if it holds none."""
    games_file = games_file_of(path)
    records = read_games(games_file)
    if not records:
        raise RecordError(f"no games in {games_file}")
    return records


def game_facts(folder: Path) -> dict[str, Any]:
    """The ``games`` section of a report's facts (:mod:`dlgo.storage.facts`) from its
    ``games.csv``: how many games, the last game's players, each engine's mean seconds a
    move (each game's mean, averaged) and its points by opponent, game and colour
    (``results``: rows of engine, opponent, game, colour, points, games)."""
    records = read_games(Path(folder) / "games.csv")
    points: dict[tuple[str, str, str, str], float] = {}
    played: Counter[tuple[str, str, str, str]] = Counter()
    seconds: dict[str, list[float]] = {}
    for r in records:
        for colour, engine, opponent, spent in (("black", r.black, r.white, r.black_seconds),
                                                ("white", r.white, r.black, r.white_seconds)):
            key = (engine, opponent, r.game, colour)
            points[key] = points.get(key, 0.0) + (0.5 if r.winner == "draw" else float(r.winner == colour))
            played[key] += 1
            seconds.setdefault(engine, []).append(spent)
    return {"games": len(records), "last": [records[-1].black, records[-1].white] if records else [],
            "seconds_per_move": {e: sum(s) / len(s) for e, s in seconds.items()},
            "results": [[*key, points[key], played[key]] for key in played]}


def score_in(games: dict[str, Any], spec: str, opponent: str | None = None, game: str | None = None,
             colour: str | None = None) -> tuple[float, int]:
    """(``spec``'s score, games) in a ``games`` section (:func:`game_facts`), against ``opponent``,
    in ``game`` and as ``colour`` where given (NaN and 0 where it played none)."""
    rows = [row for row in games["results"] if row[0] == spec and opponent in (None, row[1])
            and game in (None, row[2]) and colour in (None, row[3])]
    played = sum(row[5] for row in rows)
    return (sum(row[4] for row in rows) / played if played else float("nan")), played


def _load(path: Path) -> tuple[list[GameRecord], bool]:
    """(every complete row of ``path``, whether a torn last line follows them)."""
    if not path.exists() or path.stat().st_size == 0:
        return [], False
    if path.is_dir():
        raise RecordError(f"{path} is a folder, not a games.csv file")
    try:
        raw = path.read_bytes()
        text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8")
    except (OSError, EOFError) as err:  # gzip's own errors (BadGzipFile is an OSError)
        raise RecordError(f"{path} is not a games.csv.gz file ({err})") from None
    except UnicodeDecodeError as err:
        raise RecordError(f"{path} is not a games.csv file (not UTF-8 text: {err.reason})") from None
    text = text.removeprefix(BOM)
    complete = text[: text.rfind("\n") + 1]
    lines = complete.splitlines()
    header = lines[0].strip() if lines else text.strip()
    if header != HEADER and header not in OLD_HEADERS:
        raise RecordError(f"{path} does not start with the games.csv header (found {header[:80]!r}); "
                          "it is kept as it is: move it away or use another folder")
    columns = GameRecord.columns()
    kinds = {f.name: str(f.type) for f in fields(GameRecord)}
    records = []
    for number, row in enumerate(csv.DictReader(io.StringIO(complete)), start=2):
        try:
            if None in row or None in row.values():
                raise ValueError("too many or too few fields")
            # a column added since the file was written (``note``, ``ending``) takes its default
            records.append(GameRecord(**{c: _parse(row[c], kinds[c]) for c in columns if c in row}))
        except (TypeError, ValueError) as err:
            raise RecordError(f"{path}, row {number}: cannot be read ({err}); it is kept as it is: "
                              "mend or delete that row") from None
    return records, complete != text


def open_games_file(path: Path) -> list[GameRecord]:
    """For the one writer of a folder (see :mod:`dlgo.storage.folders`): check
    ``path`` before appending to it, cut a torn last line, give a new or empty
    file its header, and return the games it holds (each id once). A file the
    writer cannot trust stops the run with a :class:`RecordError` and is kept."""
    raw = path.read_bytes() if path.exists() and path.is_file() else b""
    if raw.startswith(BOM.encode()):
        raise RecordError(f"{path} starts with a byte-order mark (as spreadsheet programs save CSV); it is kept "
                          "as it is: save it as plain UTF-8 or use another folder")
    if not raw.strip():  # new, empty or blank: a fresh file with its header
        write_games(path, [])
        return []
    records, torn = _load(path)
    if torn:
        keep = raw.rfind(b"\n") + 1
        log.warning("%s: cutting an unfinished last line (%d bytes) left by a killed run", path, len(raw) - keep)
        with path.open("r+b") as handle:
            handle.truncate(keep)
            os.fsync(handle.fileno())
    if not raw.startswith(HEADER.encode() + b"\n") and not raw.startswith(HEADER.encode() + b"\r\n"):
        write_games(path, read_games(path))  # a file from before a column: its rows under today's header
        return read_games(path)
    return read_games(path) if len({r.game_id for r in records}) < len(records) else records


def _parse(text: str, kind: str) -> Any:
    return int(text) if kind == "int" else float(text) if kind == "float" else text


def write_games(path: Path, records: Iterable[GameRecord]) -> None:
    """Write all records at once, atomically (temp file, then ``os.replace``);
    a path ending in ``.gz`` is compressed, the same games giving the same bytes."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=GameRecord.columns())
    writer.writeheader()
    for record in records:
        writer.writerow(record.as_row())
    data = text.getvalue().encode("utf-8")
    with atomic_write(path, "wb") as handle:
        handle.write(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)


def append_game(path: Path, record: GameRecord) -> None:
    """Append one finished game and make it durable before returning (a new or
    empty file gets its header first)."""
    new_file = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=GameRecord.columns())
        if new_file:
            writer.writeheader()
        writer.writerow(record.as_row())
        handle.flush()
        os.fsync(handle.fileno())
