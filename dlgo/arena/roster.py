"""A league's players: the bots of a class's folder, each known by its file's content,
the copies it plays from, the references, and who plays whom (see :mod:`dlgo.arena.league`)."""
from __future__ import annotations

import hashlib
import logging
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from dlgo.arena.match import AgentFactory, Task
from dlgo.arena.tournament import task_seed
from dlgo.core.agent import Agent
from dlgo.core.arguments import MOST
from dlgo.core.errors import DlgoError, SpecError
from dlgo.storage.atomic import atomic_write

log = logging.getLogger(__name__)

#: the league folder's copies of the bots' files, one per content
BOTS = "bots"
#: the roster of the last run: each bot's name, id, file and digest
ROSTER = "roster.json"
#: how many hex digits of a file's SHA-256 its bot's id keeps
DIGITS = 8


@dataclass(frozen=True)
class LeagueBot:
    """A bot of the league: its ``name`` (the file's stem), the ``file`` it came from and
    the SHA-256 ``digest`` of its content."""

    name: str
    file: str
    digest: str

    @property
    def id(self) -> str:
        """How the league's games name it: ``alice@1a2b3c4d``."""
        return f"{self.name}@{self.digest[:DIGITS]}"

    @property
    def copy_name(self) -> str:
        """Its copy's path in the league's ``bots/`` folder: ``1a2b3c4d/alice.py`` (the file's
        own name, which its messages quote)."""
        return f"{self.digest[:DIGITS]}/{self.name}.py"


def bot_files(folder: Path) -> list[Path]:
    """The bot files of ``folder``, by name: each ``*.py`` whose name does not start with
    ``_`` (a helper module beside them), a file of the folder's own (a link that leads out of
    the folder is left out: what a folder offers is what it holds)."""
    inside = folder.resolve()
    return [file for file in sorted(folder.glob("*.py"))
            if not file.name.startswith("_") and file.is_file() and file.resolve().parent == inside]


def find_bots(folder: str | Path) -> list[LeagueBot]:
    """The bots of ``folder`` (:func:`bot_files`; a file whose name is not a module's is left
    out, with a warning); a :class:`DlgoError` for a folder with none."""
    path = Path(folder)
    if not path.is_dir():
        raise DlgoError(f"no folder of bots at {path}" + (" (it is a file)" if path.exists() else ""))
    files = bot_files(path)
    bad = [file.name for file in files if not file.stem.replace("-", "_").isidentifier()]
    if bad:  # the others play: one student's file name does not stop the class's league
        log.warning("left out %s: a bot's file is named with a letter first, then letters, digits, _ and -; "
                    "rename it to enter it", ", ".join(bad))
    bots = [LeagueBot(file.stem, str(file), hashlib.sha256(file.read_bytes()).hexdigest())
            for file in files if file.name not in bad]
    if not bots:
        raise DlgoError(f"{path} holds no bot files (*.py)" + (f" with a name it can enter ({', '.join(bad)} "
                        "start with a letter, then letters, digits, _ and -)" if bad else "")
                        + ": a bot is a Python file that defines an Agent subclass")
    return bots


def copy_bots(out: Path, bots: Sequence[LeagueBot]) -> dict[str, str]:
    """Each bot's content kept in ``out/bots/``, with the helper modules beside it in its
    folder (``_*.py``, which it may import) as they were when this content was first seen
    (once: a copy is never rewritten); the spec of each bot's copy, by id."""
    folder = out / BOTS
    folder.mkdir(exist_ok=True)
    specs = {}
    for bot in bots:
        copy = folder / bot.copy_name
        copy.parent.mkdir(exist_ok=True)
        if not copy.exists():  # the bot's own file last: once it is there, the copy is whole
            source = Path(bot.file)
            for file in [*sorted(source.parent.glob("_*.py")), source]:
                content = file.read_bytes()
                if file == source and hashlib.sha256(content).hexdigest() != bot.digest:
                    raise DlgoError(f"{source} changed as the league started: run it again")
                if not (copy.parent / file.name).exists():
                    with atomic_write(copy.parent / file.name, "wb") as handle:
                        handle.write(content)
        specs[bot.id] = str(copy)
    return specs


@dataclass(frozen=True)
class LeagueFactory:
    """The league's engines: a bot's id (``alice@1a2b3c4d``) is its kept copy, played by
    ``base``; any other spec (a reference) is ``base``'s. Picklable, for worker processes."""

    base: AgentFactory
    bots: dict[str, str] = field(default_factory=dict)  # id -> the spec of its copy

    def create(self, spec: str, seed: int | None = None) -> Agent:
        agent = self.base.create(self.bots.get(spec, spec), seed)
        agent.spec = spec
        return agent

    def network_files(self, spec: str) -> list[Path]:
        return [] if spec in self.bots else self.base.network_files(spec)


def league_schedule(bots: Sequence[str], references: Sequence[str], games_per_pair: int,
                    seed: int) -> list[Task]:
    """Every pair of bots, and every bot with every reference, ``games_per_pair`` games,
    colours alternating; references do not play each other."""
    if len(set(bots) | set(references)) != len(bots) + len(references):
        raise SpecError("each bot and reference may appear only once in a league")
    if not bots:
        raise SpecError("a league needs at least one bot")
    if len(bots) + len(references) < 2:
        raise SpecError("a league needs at least two players: add a bot or a reference")
    pairs = [*itertools.combinations(bots, 2), *itertools.product(bots, references)]
    games = len(pairs) * games_per_pair
    if games > MOST["games"]:
        raise SpecError(f"a league plays at most {MOST['games']:,} games; this one would play {games:,}")
    return [Task(f"{a} vs {b} #{k}", *((a, b) if k % 2 == 0 else (b, a)), task_seed(seed, f"{a} vs {b} #{k}"))
            for a, b in pairs for k in range(games_per_pair)]


def write_roster(out: Path, bots: Sequence[LeagueBot]) -> None:
    """``roster.json``: the bots this run plays, each with its id, file and digest."""
    roster = [{"name": b.name, "id": b.id, "file": b.file, "digest": b.digest} for b in bots]
    with atomic_write(out / ROSTER) as handle:
        json.dump(roster, handle, indent=1)
