"""Import a folder of SGF game records (a KGS download, say) as a dataset.

Each readable Go game of the board size asked for becomes one row of
``out/games.csv``, the format self-play data uses, so the same encoding and
training follow. Setup stones (handicap) are replayed as plays with passes
between them and count as ``opening_plies``: context, never labels. A game
with an illegal move under our rules (situational superko, say) keeps its
moves up to that point. Files already imported are skipped, so a rerun adds
only new files.
"""
from __future__ import annotations

import logging
from pathlib import Path

from dlgo.core.errors import IllegalMoveError, RecordError
from dlgo.storage.folders import hold_folder
from dlgo.display.progress import progress_bar
from dlgo.formats.records import GameRecord, append_game, open_games_file
from dlgo.formats.sgf import SgfRecord, read_sgf_file
from dlgo.games.go.state import GoState

log = logging.getLogger(__name__)


def sgf_game_record(record: SgfRecord, game_id: str, experiment: str = "") -> GameRecord | None:
    """The moves of ``record`` that replay legally, as a games.csv row (None if
    even the setup does not replay)."""
    moves, setup_plies = record.plies()
    state = GoState.new_game(record.size, komi=record.komi)
    texts: list[str] = []
    for ply, move in enumerate(moves):
        try:
            next_state = state.apply_move(move)
        except IllegalMoveError as err:
            if ply < setup_plies:
                return None
            log.warning("%s: stopping at move %d: %s", game_id, ply - setup_plies + 1, err)
            break
        texts.append(state.format_move(move))
        state = next_state
    result = record.result.strip()
    head = result[:2].upper()
    winner = "black" if head == "B+" else "white" if head == "W+" else "draw" if result in ("0", "Draw", "Jigo") \
        else "unknown"
    return GameRecord(experiment=experiment, game_id=game_id, game=record.game, black=record.black,
                      white=record.white, result=result, winner=winner, plies=len(texts),
                      black_seconds=0.0, white_seconds=0.0, black_compute=0.0, white_compute=0.0,
                      black_unit="", white_unit="", seed=0, opening_plies=setup_plies, moves=" ".join(texts))


def import_sgf_folder(source: str | Path, out_dir: str | Path, *, size: int | None = None,
                      progress: bool = True) -> tuple[int, int]:
    """Import every ``*.sgf`` under ``source`` (recursively) of board ``size``
    (default: the size of the first game read); returns (imported, skipped)."""
    source, out = Path(source), Path(out_dir)
    files = sorted(source.rglob("*.sgf")) if source.is_dir() else [source]
    if not files:
        raise RecordError(f"no .sgf files in {source}")
    with hold_folder(out, "import-sgf", source=str(source.resolve())):
        return _import_files(files, source, out, size, progress)


def _import_files(files: list[Path], source: Path, out: Path, size: int | None, progress: bool) -> tuple[int, int]:
    path = out / "games.csv"
    known = {r.game_id for r in open_games_file(path)}
    imported = skipped = 0
    for file in progress_bar(files, desc="import", unit="file", disable=not progress):
        game_id = str(file.relative_to(source)) if source.is_dir() else file.name
        if game_id in known:
            continue
        try:
            record = read_sgf_file(file)
        except (RecordError, OSError) as err:
            log.warning("%s: skipped: %s", file, err)
            skipped += 1
            continue
        size = size or record.size
        row = sgf_game_record(record, game_id, out.name) if record.size == size else None
        if row is None or row.plies <= row.opening_plies:
            skipped += 1
            continue
        append_game(path, row)
        imported += 1
    return imported, skipped
