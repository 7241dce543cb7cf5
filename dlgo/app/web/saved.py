"""Browser games on disk, so that they survive a restart of the server.

Each session's game is a JSON file of its own, ``games/ID.json`` in the
server's state folder (``dlgo serve --state``), written atomically whenever the
game changes: the game's spec, the stones it started from (a game from SGF),
each side's engine (as the page named it, and as it plays, its networks
pinned), the hint engine, the seed and the moves. A request for a session the
server does not hold reads it back (:meth:`SavedGames.load`). The folder holds
nothing else the server needs: a file can be deleted by hand, and that game is gone.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any, Iterable

from dlgo.core.errors import RecordError
from dlgo.storage.atomic import atomic_write

#: the version of the files' layout
VERSION = 1
#: what a session id may be (the store makes them with ``secrets.token_urlsafe``)
SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: the ids the store makes (``secrets.token_urlsafe(12)``): the only files :meth:`SavedGames.stale` lists
MADE_ID = re.compile(r"[A-Za-z0-9_-]{16}")


class SavedGames:
    """The games of a server's sessions, one JSON file each in ``folder``."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def path(self, session_id: str) -> Path:
        """The file of ``session_id`` (a :class:`RecordError` for an id no session can have)."""
        if not SESSION_ID.fullmatch(session_id):
            raise RecordError(f"{session_id[:64]!r} is not a game's id")
        return self.folder / f"{session_id}.json"

    def save(self, session_id: str, game: dict[str, Any]) -> None:
        """Write ``game`` (JSON-ready data) as the file of ``session_id``, atomically."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with atomic_write(self.path(session_id)) as handle:
            json.dump({"version": VERSION, **game}, handle, indent=1)

    def load(self, session_id: str) -> dict[str, Any] | None:
        """The game saved for ``session_id``; None if there is none, a
        :class:`RecordError` if its file cannot be read."""
        path = self.path(session_id)
        try:
            game = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as err:
            raise RecordError(f"the saved game {session_id!r} cannot be read ({type(err).__name__})") from None
        if not isinstance(game, dict) or game.get("version") != VERSION:
            raise RecordError(f"the saved game {session_id!r} is not one this server reads")
        return game

    def touch(self, session_id: str) -> None:
        """Mark the game as just seen (its file's time: :meth:`stale` goes by it)."""
        try:
            os.utime(self.path(session_id))
        except OSError:
            pass  # not saved (yet), or gone: nothing to mark

    def delete(self, session_id: str) -> None:
        self.path(session_id).unlink(missing_ok=True)

    def stale(self, seconds: float, besides: Iterable[str] = ()) -> list[str]:
        """The ids of the games not seen for ``seconds``, but those of ``besides``."""
        if not self.folder.is_dir():
            return []
        keep, now, found = set(besides), time.time(), []
        for path in self.folder.glob("*.json"):
            try:
                if MADE_ID.fullmatch(path.stem) and path.stem not in keep and now - path.stat().st_mtime > seconds:
                    found.append(path.stem)
            except OSError:
                continue  # deleted meanwhile
        return found

    def all(self) -> list[dict[str, Any]]:
        """Every saved game that can be read."""
        games = []
        for path in self.folder.glob("*.json") if self.folder.is_dir() else []:
            try:
                game = self.load(path.stem)  # a name no game has: a RecordError too
            except RecordError:
                continue
            if game is not None:
                games.append(game)
        return games
