"""Encoded training data: compressed NumPy chunks of (features, move labels, game ids).

A dataset folder holds ``games.csv`` (the games, from self-play or SGF import)
and, per encoder, ``encoded/<encoder>/``::

    manifest.json            encoder, game, shape, and every chunk with its size
    train-00000.npz ...      features int8 (n, rows, cols, planes), labels int32, games int32, legal bool (n, moves),
                             values int8 (the game's result for the player to move: 1 won, -1 lost, 0 drawn)
    val-00000.npz ...
    test-00000.npz ...

Each game goes whole to one split, chosen by a hash of its id (about 80% train,
10% validation, 10% test), never position by position: positions of one game
are too alike to test on. The split of a game never changes when more games are
added. Chunks hold at most ``chunk_size`` positions, so data larger than memory
streams one chunk at a time (see :class:`engines.neural.training.ChunkSequence`).

Labels are the moves the players chose; the random opening plies of self-play
games and the setup stones of imported games are encoded only as context.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator, NamedTuple

import numpy as np

from dlgo.core.errors import RecordError
from dlgo.core.game import State
from dlgo.core.types import Move
from dlgo.encoders import Encoder, get_encoder_by_name
from dlgo.storage.atomic import atomic_write
from dlgo.display.progress import progress_bar
from dlgo.formats.records import GameRecord, read_games, replay

SPLITS = ("train", "val", "test")
MANIFEST = "manifest.json"
#: the chunk format: 2 added ``values``; an encoding of another version is made again
FORMAT_VERSION = 2


#: between a game's id and a ply: the id of a position of that game labelled by a teacher (:mod:`dlgo.data.labels`)
PLY_MARK = " @"
_LABELLED_ID = re.compile(re.escape(PLY_MARK) + r"\d+$")


def source_game(game_id: str) -> str:
    """The id of the game a labelled position (``"<game id> @<ply>"``) comes from; any other id as it is."""
    return _LABELLED_ID.sub("", game_id)


def split_of(game_id: str) -> str:
    """``"test"`` for about 10% of games, ``"val"`` for 10%, else ``"train"``; fixed by the id
    (a labelled position's by its game's, so that one game never lends to two splits)."""
    bucket = hashlib.sha256(source_game(game_id).encode()).digest()[0] % 10
    return "test" if bucket == 0 else "val" if bucket == 1 else "train"


def games_digest(records: list[GameRecord]) -> str:
    """Fingerprint of a game list, to know when an encoding is out of date."""
    h = hashlib.sha256()
    for r in records:
        h.update(f"{r.game_id}|{r.game}|{r.opening_plies}|{r.moves}\n".encode())
    return h.hexdigest()[:16]


@dataclass
class Chunk:
    file: str
    split: str
    positions: int


@dataclass
class Manifest:
    """What an encoded dataset holds; ``folder`` is where its chunks are."""

    encoder: str
    game: str
    shape: tuple[int, int, int]
    num_moves: int
    num_games: int
    digest: str
    chunks: list[Chunk] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)  # index = the chunks' game numbers
    folder: str = ""
    version: int = 1  # FORMAT_VERSION when written (manifests from before versions were 1)

    def split_sizes(self) -> dict[str, int]:
        return {s: sum(c.positions for c in self.chunks if c.split == s) for s in SPLITS}

    def chunk_paths(self, split: str) -> list[Path]:
        return [Path(self.folder) / c.file for c in self.chunks if c.split == split]

    def load(self, split: str) -> "Arrays":
        """All of one split in memory."""
        parts = [load_chunk(p) for p in self.chunk_paths(split)]
        if not parts:
            return Arrays(np.zeros((0,) + tuple(self.shape), np.int8), np.zeros(0, np.int32),
                          np.zeros(0, np.int32), np.zeros((0, self.num_moves), bool), np.zeros(0, np.int8))
        return Arrays(*(np.concatenate(arrays) for arrays in zip(*parts)))

    def make_encoder(self) -> Encoder:
        return get_encoder_by_name(self.encoder, self.game)

    @classmethod
    def read(cls, folder: Path) -> "Manifest":
        """The manifest in ``folder``; a :class:`RecordError` naming it, and how to
        encode again, if it is damaged."""
        path = folder / MANIFEST
        try:
            data = json.loads(path.read_text())
            data["chunks"] = [Chunk(**c) for c in data["chunks"]]
            data["shape"] = tuple(data["shape"])
            data["folder"] = str(folder)
            return cls(**data)
        except (ValueError, TypeError, KeyError) as err:  # not JSON, not UTF-8, or not a manifest's fields
            raise RecordError(f"{path} is damaged ({type(err).__name__}: {err}); delete {folder} (the encoded "
                              "positions; the games stay) and run the command again to encode them anew") from None

    def write(self, folder: Path) -> None:
        data = asdict(self)
        del data["folder"]
        with atomic_write(folder / MANIFEST) as handle:
            json.dump(data, handle)


class Arrays(NamedTuple):
    features: np.ndarray  # int8 (n, rows, cols, planes)
    labels: np.ndarray    # int32 action index of the move played
    games: np.ndarray     # int32 game number (index into Manifest.game_ids)
    legal: np.ndarray     # bool (n, num_moves): the legal moves
    values: np.ndarray    # int8: the game's result for the player to move (1 won, -1 lost, 0 drawn)


def load_chunk(path: Path) -> Arrays:
    """The arrays of one encoded chunk; a :class:`RecordError` if the file is damaged."""
    try:
        with np.load(path) as data:
            return Arrays(data["features"], data["labels"], data["games"], data["legal"], data["values"])
    except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile) as err:
        raise RecordError(f"{path} is damaged ({err or type(err).__name__}); delete the folder "
                          f"{path.parent} and the games are encoded again") from None


class ChosenMove(NamedTuple):
    """A move a player of a recorded game chose: the position, the move, and the game's result
    for the player to move there (1 won, -1 lost, 0 drawn)."""

    state: State
    move: Move
    value: int


def chosen_moves(record: GameRecord, states: list[State] | None = None) -> Iterator[ChosenMove]:
    """Each move chosen by a player in ``record``: not its random opening plies, its setup or a
    resignation. ``states``: the record replayed (:func:`~dlgo.formats.records.replay`), where the
    caller has it already."""
    states = states or replay(record.game, record.moves)
    for ply, state in enumerate(states[:-1]):
        move = states[ply + 1].last_move
        if ply < record.opening_plies or move is None or move.is_resign:
            continue
        value = 0 if record.winner == "draw" else 1 if record.winner == state.next_player.name else -1
        yield ChosenMove(state, move, value)


def positions(record: GameRecord, encoder: Encoder) -> Iterator[tuple[np.ndarray, int, np.ndarray, int]]:
    """(planes, label, legal-move mask, the result for the player to move) for
    each move chosen by a player in ``record``."""
    for state, move, value in chosen_moves(record):
        yield encoder.encode(state), encoder.encode_move(move, state), state.legal_action_mask(), value


def encode_dataset(folder: str | Path, encoder_name: str | None = None, *, chunk_size: int = 8192,
                   progress: bool = True) -> Manifest:
    """Encode the games of ``folder/games.csv`` (or reuse an up-to-date encoding)."""
    folder = Path(folder)
    records = sorted(read_games(folder / "games.csv"), key=lambda r: r.game_id)
    if not records:
        raise RecordError(f"no games in {folder / 'games.csv'}; generate or import some first")
    game = records[0].game
    encoder = get_encoder_by_name(encoder_name, game)
    for other in sorted({r.game for r in records} - {game}):  # e.g. SGF games with other komi
        if get_encoder_by_name(encoder.name, other).shape != encoder.shape:
            raise RecordError(f"{folder} mixes boards ({game} and {other}); one board per dataset")
    out = folder / "encoded" / encoder.name
    digest = games_digest(records)
    if (out / MANIFEST).exists():
        manifest = Manifest.read(out)
        if manifest.digest == digest and manifest.version == FORMAT_VERSION:
            return manifest
    if out.exists():
        shutil.rmtree(out)  # stale: the games changed
    out.mkdir(parents=True)

    manifest = Manifest(encoder.name, game, encoder.shape, encoder.num_moves, len(records), digest,
                        game_ids=[r.game_id for r in records], folder=str(out), version=FORMAT_VERSION)
    buffers: dict[str, tuple[list, list, list, list, list]] = {s: ([], [], [], [], []) for s in SPLITS}

    def flush(split: str) -> None:
        features, labels, game_numbers, legal, values = buffers[split]
        if not labels:
            return
        name = f"{split}-{sum(c.split == split for c in manifest.chunks):05d}.npz"
        with atomic_write(out / name, "wb") as handle:
            np.savez_compressed(handle, features=np.stack(features).astype(np.int8),
                                labels=np.asarray(labels, np.int32), games=np.asarray(game_numbers, np.int32),
                                legal=np.stack(legal), values=np.asarray(values, np.int8))
        manifest.chunks.append(Chunk(name, split, len(labels)))
        buffers[split] = ([], [], [], [], [])

    for number, record in enumerate(progress_bar(records, desc=f"encode ({encoder.name})", unit="game",
                                                 disable=not progress)):
        split = split_of(record.game_id)
        for planes, label, mask, value in positions(record, encoder):
            features, labels, game_numbers, legal, values = buffers[split]
            features.append(planes)
            labels.append(label)
            game_numbers.append(number)
            legal.append(mask)
            values.append(value)
            if len(labels) >= chunk_size:
                flush(split)
    for split in SPLITS:
        flush(split)
    manifest.write(out)  # last: a manifest means every chunk it names is complete
    return manifest
