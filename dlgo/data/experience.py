"""Experience for reinforcement learning (the book's chapter 9): who was to move,
what they played, and how the game ended for them.

``collect_experience`` lets two engine specs play ``num_games`` games (colours
alternating, in worker processes, a fixed seed per game) into ``out/games.csv``
like any tournament, so a killed collection resumes with no game lost or played
twice. It then turns every game not yet in the buffer into experience: for each
move a *learner* chose (after the random opening), the encoded position, the
action and the **reward**, +1 if the mover went on to win, -1 if they lost, 0 for
a draw. Training later computes each move's advantage (reward minus a baseline or
a value estimate) from these.

The buffer is ``out/experience/``: compressed ``chunk-NNNNN.npz`` files, each
written once and never rewritten, and ``manifest.json`` (written atomically, after
its chunk), which lists the chunks and the games they hold. Appending more games
adds chunks; the games already in the buffer are never encoded twice.

>>> from engines import ENGINES
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as out:
...     manifest = collect_experience(ENGINES, out, "tictactoe", "random", "random", 4, progress=False, workers=1)
...     experience = load_experience(out)
>>> len(manifest.game_ids), len(experience.actions) == sum(manifest.positions)
(4, True)
>>> set(experience.rewards.tolist()) <= {-1.0, 0.0, 1.0}
True
>>> moves_to_end(np.array([0, 0, 0, 1, 1])).tolist(), move_numbers(np.array([0, 0, 0, 1, 1])).tolist()
([2, 1, 0, 1, 0], [0, 1, 2, 0, 1])
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from dlgo.arena.match import AgentFactory, Task
from dlgo.arena.tournament import play_games, task_seed
from dlgo.core.errors import RecordError, SpecError
from dlgo.core.game import value_for
from dlgo.core.types import Player
from dlgo.encoders import get_encoder_by_name
from dlgo.encoders.base import Encoder
from dlgo.storage.atomic import atomic_write
from dlgo.storage.folders import hold_folder
from dlgo.formats.records import GameRecord, replay

FOLDER = "experience"
MANIFEST = "manifest.json"


@dataclass
class ExperienceManifest:
    """What a buffer holds: its encoding, its chunk files (oldest first) with
    their positions, and the ids of the games it holds, in order (a chunk's
    ``games`` column indexes this list)."""

    encoder: str
    game: str
    shape: tuple[int, ...]
    num_moves: int
    chunks: list[str] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, folder: Path) -> "ExperienceManifest | None":
        path = folder / FOLDER / MANIFEST
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
            data["shape"] = tuple(data["shape"])
            return cls(**data)
        except (ValueError, TypeError, KeyError) as err:
            raise RecordError(f"{path} cannot be read ({err}); it is kept as it is") from None

    def write(self, folder: Path) -> None:
        with atomic_write(folder / FOLDER / MANIFEST) as handle:
            json.dump(asdict(self), handle)


class Experience(NamedTuple):
    """Every recorded move, in the order the games were added."""

    states: np.ndarray   # int8 (n, *encoder shape): the position before the move, as the mover saw it
    actions: np.ndarray  # int32: the action index of the move
    rewards: np.ndarray  # float32: +1 the mover won, -1 lost, 0 draw
    legal: np.ndarray    # bool (n, num_moves): the legal actions there
    games: np.ndarray    # int32: the game, as an index into ExperienceManifest.game_ids


def _game_rows(games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each recorded move, the rows of its game's first and last moves (a
    game's moves lie together, in order)."""
    starts = np.flatnonzero(np.append(True, games[1:] != games[:-1]))
    sizes = np.diff(np.append(starts, len(games)))
    return np.repeat(starts, sizes), np.repeat(starts + sizes - 1, sizes)


def move_numbers(games: np.ndarray) -> np.ndarray:
    """For each recorded move, its number among its game's recorded moves (0, 1, 2, ...)."""
    first, _ = _game_rows(games)
    return np.arange(len(games)) - first


def moves_to_end(games: np.ndarray) -> np.ndarray:
    """For each recorded move, how many more moves of its game the buffer holds
    after it (0 for a game's last recorded move)."""
    _, last = _game_rows(games)
    return last - np.arange(len(games))


def discounted_rewards(experience: Experience, discount: float) -> np.ndarray:
    """Each move's reward discounted by ``discount`` per later move of its game:
    a move just before the end gets the whole result, an opening move little of
    it (``discount`` 1: every move the game's result, as the book's chapter 10)."""
    return (experience.rewards * discount ** moves_to_end(experience.games)).astype(np.float32)


def experience_tasks(black: str, white: str, num_games: int, seed: int) -> list[Task]:
    """Game ``k`` of ``black`` against ``white``; colours alternate when the specs differ."""
    tasks = []
    for k in range(num_games):
        first, second = (black, white) if k % 2 == 0 else (white, black)
        game_id = f"experience #{k:06d}"
        tasks.append(Task(game_id, first, second, task_seed(seed, game_id)))
    return tasks


def game_experience(record: GameRecord, encoder: Encoder, learners: set[str]
                    ) -> tuple[list[np.ndarray], list[int], list[float], list[np.ndarray]]:
    """(states, actions, rewards, legal masks) of the moves ``learners`` chose in ``record``."""
    winner = None if record.winner == "draw" else Player[record.winner]
    states = replay(record.game, record.moves)
    planes, actions, rewards, legal = [], [], [], []
    for ply, state in enumerate(states[:-1]):
        mover = state.next_player
        move = states[ply + 1].last_move
        spec = record.black if mover is Player.black else record.white
        if ply < record.opening_plies or spec not in learners or move is None or move.is_resign:
            continue
        planes.append(encoder.encode(state))
        actions.append(encoder.encode_move(move, state))
        rewards.append(value_for(winner, mover))
        legal.append(state.legal_action_mask())
    return planes, actions, rewards, legal


def collect_experience(factory: AgentFactory, out_dir: str | Path, game: str, black: str, white: str,
                       num_games: int, *, learners: list[str] | None = None, encoder: str | None = None,
                       seed: int = 0, opening_plies: int = 0, workers: int | None = None,
                       progress: bool = True, batch: int = 0, ray: str | None = None) -> ExperienceManifest:
    """Play (or finish) ``num_games`` games and add the new ones to the buffer in
    ``out_dir``; ``learners`` are the specs whose moves are recorded (default:
    both). ``workers`` processes play a game each at a time, or (``batch`` > 0)
    this process plays ``batch`` games together, one network call for all of
    their positions at each step (:func:`~dlgo.arena.tournament.play_games`),
    or they are shared among the CPUs of the Ray cluster at ``ray``.
    Returns the buffer's manifest."""
    if num_games < 1:
        raise SpecError(f"experience needs at least 1 game, got {num_games}")
    enc = get_encoder_by_name(encoder, game)
    learning = set(learners or [black, white])
    unknown = learning - {black, white}
    if unknown:
        raise SpecError(f"learners must be among the players {black!r} and {white!r}, got {sorted(unknown)}")
    out = Path(out_dir)
    facts: dict[str, Any] = {"game": game, "black": black, "white": white, "seed": seed,
                             "opening_plies": opening_plies, "encoder": enc.name, "learners": sorted(learning)}
    with hold_folder(out, "experience", **facts):  # the games and their experience, one writer
        records = play_games(factory, out, game, experience_tasks(black, white, num_games, seed),
                             opening_plies=opening_plies, workers=workers, progress=progress, kind="experience",
                             facts=facts, batch=batch, ray=ray)
        return append_experience(out, records, enc, learning)


def append_experience(out: Path, records: list[GameRecord], encoder: Encoder, learners: set[str]
                      ) -> ExperienceManifest:
    """Add the games of ``records`` the buffer does not hold yet, as one new chunk."""
    manifest = ExperienceManifest.read(out) or ExperienceManifest(encoder.name, encoder.game_spec,
                                                                  tuple(encoder.shape), encoder.num_moves)
    held = set(manifest.game_ids)
    new = sorted((r for r in records if r.game_id not in held), key=lambda r: r.game_id)
    if not new:
        return manifest
    states: list[np.ndarray] = []
    actions: list[int] = []
    rewards: list[float] = []
    legal: list[np.ndarray] = []
    games: list[int] = []
    for number, record in enumerate(new, start=len(manifest.game_ids)):
        planes, moves, results, masks = game_experience(record, encoder, learners)
        states += planes
        actions += moves
        rewards += results
        legal += masks
        games += [number] * len(moves)
    name = f"chunk-{len(manifest.chunks):05d}.npz"
    (out / FOLDER).mkdir(exist_ok=True)
    with atomic_write(out / FOLDER / name, "wb") as handle:  # the chunk first, then the manifest that lists it
        np.savez_compressed(handle, states=np.asarray(states, np.int8).reshape((-1, *manifest.shape)),
                            actions=np.asarray(actions, np.int32), rewards=np.asarray(rewards, np.float32),
                            legal=np.asarray(legal, bool).reshape(-1, manifest.num_moves),
                            games=np.asarray(games, np.int32))
    manifest.chunks.append(name)
    manifest.positions.append(len(actions))
    manifest.game_ids.extend(r.game_id for r in new)
    manifest.write(out)
    return manifest


def load_experience(out_dir: str | Path) -> Experience:
    """Every move in the buffer in ``out_dir``."""
    out = Path(out_dir)
    manifest = ExperienceManifest.read(out)
    if manifest is None:
        raise RecordError(f"{out} holds no experience (no {FOLDER}/{MANIFEST})")
    parts = []
    for name in manifest.chunks:
        try:
            with np.load(out / FOLDER / name) as data:
                parts.append(Experience(data["states"], data["actions"], data["rewards"], data["legal"],
                                        data["games"]))
        except (OSError, KeyError, ValueError) as err:
            raise RecordError(f"{out / FOLDER / name} is damaged ({err}); it is kept as it is") from None
    return Experience(*(np.concatenate(column) for column in zip(*parts)))
