"""Is one network stronger than another? Balanced openings in colour-swapped pairs, stopped by a sequential test.

Two networks whose searches have no noise play the same game every time from
the same position, so a match from the empty board replays a handful of games
and says little about strength (and one side's colour may decide it). Engine
testers (Stockfish's fishtest, OpenBench) play instead:

* **balanced openings**: positions a few moves in where neither side wins
  before the last stones (:func:`dlgo.data.solved.generate_openings`: solved);
* **in colour-swapped pairs**: each opening once with each network on each
  colour, so that an opening one colour wins decides nothing by itself; the
  pair is the sample, counted by its score in half points (pentanomial:
  0 to 4 halves out of 4);
* **until a sequential test decides** (:class:`dlgo.arena.sprt.SPRT`), or at a
  fixed number of pairs, the score then given with its 95% interval from the
  pairs' spread.

The match plays ``chunk`` pairs at a time, their searches batched together,
looks at the test after each chunk, and rewrites its game records (one row a
game: its pair, opening, colours, moves and score) atomically after each: a
killed match resumes at the first chunk it had not finished and plays the same
games (each chunk seeded by its number).
"""
from __future__ import annotations

import csv
import dataclasses
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from dlgo.arena.ratings import elo_from_score
from dlgo.arena.sprt import SPRT, Verdict
from dlgo.core.errors import RecordError, SpecError
from dlgo.core.game import State
from dlgo.data.solved import balanced_openings
from dlgo.display.progress import progress_bar
from dlgo.games import new_game
from dlgo.storage.atomic import atomic_write
from engines.puct import Evaluator
from engines.training.selfplay import MatchSettings, play_batched_games

#: the game records' columns: ``first`` is 1 where the first network played the first player's colour
COLUMNS = ["game", "pair", "opening", "first", "moves", "score"]


@dataclass(frozen=True)
class PairedMatch:
    """How a paired match is played: its openings (a pair each, in order), the
    searches' settings, the test that stops it, and at most ``max_pairs`` pairs."""

    openings: Sequence[State]
    settings: MatchSettings
    sprt: SPRT | None = SPRT(elo0=0.0, elo1=20.0)
    max_pairs: int = 200
    chunk: int = 32  # pairs played between two looks at the test

    def __post_init__(self) -> None:
        if self.max_pairs > len(self.openings):
            raise ValueError(f"{self.max_pairs} pairs need as many openings; there are {len(self.openings)}")


class PairedResult(NamedTuple):
    """Where a paired match ended: the first network's score a game and its 95%
    interval (from the pairs), the same as logistic Elo, the pentanomial counts
    and the test's verdict (None without a test)."""

    pairs: int
    score: float
    low: float
    high: float
    counts: tuple[int, ...]
    verdict: Verdict | None

    @property
    def elo(self) -> tuple[float, float, float]:
        """The score, its low and its high end as logistic Elo differences."""
        games = 2 * self.pairs
        return elo_from_score(self.score, games), elo_from_score(self.low, games), elo_from_score(self.high, games)


def pentanomial(scores: Sequence[float]) -> tuple[int, ...]:
    """How many pairs (games ``2i`` and ``2i + 1``) scored 0, 1, 2, 3 and 4 half points."""
    counts = [0] * 5
    for pair in range(len(scores) // 2):
        counts[round(2 * (scores[2 * pair] + scores[2 * pair + 1]))] += 1
    return tuple(counts)


def pair_interval(scores: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The mean score a game and its normal interval, each pair one sample (so an
    opening that decides both of its games counts once, not twice)."""
    pairs = np.asarray(scores[: len(scores) // 2 * 2], np.float64).reshape(-1, 2).mean(axis=1)
    if len(pairs) == 0:
        return float("nan"), 0.0, 1.0
    mean = float(pairs.mean())
    spread = z * float(pairs.std(ddof=1)) / math.sqrt(len(pairs)) if len(pairs) > 1 else 1.0
    return mean, max(0.0, mean - spread), min(1.0, mean + spread)


def result_of(scores: Sequence[float], sprt: SPRT | None) -> PairedResult:
    """A :class:`PairedResult` of the games' scores so far."""
    counts = pentanomial(scores)
    score, low, high = pair_interval(scores)
    return PairedResult(len(scores) // 2, score, low, high, counts,
                        None if sprt is None else sprt.verdict(counts))


def read_records(path: Path, openings: Sequence[State]) -> list[dict[str, str]]:
    """A match's game records (none for a new match); :class:`RecordError` for a
    file of another match (other columns, or games from other openings)."""
    if not path.exists():
        return []
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    if rows and list(rows[0]) != COLUMNS:
        raise RecordError(f"{path} holds other records (columns {', '.join(rows[0])}); move it away or start over")
    for row in rows:
        pair = int(row["pair"])
        if pair >= len(openings) or row["opening"] != openings[pair].moves_text():
            raise RecordError(f"{path}: game {row['game']} opened {row['opening']!r}, not from this match's "
                              f"openings; start over (--fresh) or use another folder")
    return rows


def write_records(path: Path, rows: list[dict[str, object]]) -> None:
    with atomic_write(path, newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def match_openings(game: str, count: int, plies: int, seed: int) -> list[State]:
    """``count`` openings for a paired match of ``game``: the balanced openings the suite ships
    for it (Connect-N boards, ``dlgo openings``), then, for the rest or a game without them,
    distinct seeded positions of exactly ``plies`` random sensible moves (a pair from each, so
    that no colour's edge in one decides it); a :class:`SpecError` if the game has too few."""
    openings = balanced_openings(game)[:count]
    rng, seen = np.random.default_rng(seed), {state.moves_text() for state in openings}
    for _ in range(100 * count):
        if len(openings) == count:
            break
        state = new_game(game)
        for _ in range(plies):
            actions = state.sensible_actions()
            state = state.apply_action(actions[int(rng.integers(len(actions)))])
            if state.is_over():
                break
        if not state.is_over() and state.moves_text() not in seen:
            seen.add(state.moves_text())
            openings.append(state)
    if len(openings) < count:
        raise SpecError(f"{game}: {len(openings)} distinct openings of {plies} plies found, and a match of "
                        f"{count} pairs needs {count}: fewer pairs, or more plies")
    return openings


def play_paired_match(game: str, first: Evaluator, second: Evaluator, match: PairedMatch, records: Path, *,
                      seed: int = 0, progress: bool = False, desc: str = "pairs") -> PairedResult:
    """``first`` against ``second`` in colour-swapped pairs from ``match.openings``
    until its test decides or ``max_pairs`` are played, resuming the games that
    ``records`` (a CSV, rewritten after each chunk) holds. Returns where it ended."""
    done_rows = read_records(records, match.openings)
    scores = [float(row["score"]) for row in done_rows]
    rows: list[dict[str, object]] = [dict(row) for row in done_rows]
    done = len(rows) // 2  # the file is written after whole chunks only
    result = result_of(scores, match.sprt)
    settings = dataclasses.replace(match.settings, parallel=min(2 * match.chunk, match.settings.parallel),
                                   temperature_moves=0)  # each move the most visited: the opening gives the variety
    bar = progress_bar(total=2 * match.max_pairs, initial=2 * done, unit="game", desc=desc, disable=not progress)
    while done < match.max_pairs and not (result.verdict and result.verdict.finished):
        openings = match.openings[done: min(done + match.chunk, match.max_pairs)]
        games = play_batched_games(game, first, second, 2 * len(openings), settings, openings=openings,
                                   seed=seed * 100_003 + done // match.chunk)
        for g in games:
            rows.append({"game": 2 * done + g.number, "pair": done + g.number // 2,
                         "opening": g.opening.moves_text(), "first": int(g.number % 2 == 0),
                         "moves": g.final.moves_text(), "score": g.score})
            scores.append(g.score)
        done += len(openings)
        write_records(records, rows)
        result = result_of(scores, match.sprt)
        bar.update(len(games))
        if result.verdict is not None:
            bar.set_postfix(llr=f"{result.verdict.llr:+.2f}", refresh=False)
    bar.close()
    return result


__all__ = ["COLUMNS", "PairedMatch", "PairedResult", "pair_interval", "pentanomial", "play_paired_match",
           "read_records", "result_of"]
