"""The bots of users' own that a page may play: ``dlgo serve --bots FOLDER``.

Every ``*.py`` file of the folder whose name does not start with ``_`` is a bot
(:func:`dlgo.arena.roster.bot_files`: a link out of the folder is none), named by
its file's stem (``alice`` for ``alice.py``). A page is offered bots, and asks for
them, by that name alone (``alice``, ``alice:depth=3``), never by a file:
:class:`BotFolder` maps a name to its file, so a spec that names a file (``alice.py``,
a path) is, from a page, an unknown engine, as is an engine an installed package
registers. Without a folder no bot is offered and no file is ever loaded.

A bot is code the suite did not write, so the server never imports it: its
description is read, and its parameters checked, in a process of its own
(:func:`engines.bots.describe`, :func:`~engines.bots.bind_parameters`: once per file
content), stopped as soon as it has answered (the server keeps no bot process), and
never on the event loop. The bot plays in the session's engine process, which starts
the bot's own process under the folder's limits (:class:`~engines.bots.BotLimits`); a
fault there loses the game by forfeit (see
:meth:`dlgo.app.web.sessions.GameSession.lose_by_forfeit`).
"""
from __future__ import annotations

import ast
import concurrent.futures
import contextlib
import os
import re
import threading
from pathlib import Path
from typing import Any, Iterator, NamedTuple

from dlgo.arena.roster import bot_files
from dlgo.core.errors import SpecError
from dlgo.core.specs import split_spec
from engines import bots
from engines.bots import DEFAULT_LIMITS, BotFault, BotLimits
from engines.names import BUILT_IN

#: what a bot's name may be (its file's stem): a name an engine spec can carry
BOT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
#: the most bot files a folder offers (the first, by name)
MAX_BOTS = 64


class Bot(NamedTuple):
    """A bot of the folder: its ``name``, its ``file``, what it says of itself
    (``description``, from :func:`engines.bots.describe`; None when it cannot be
    played) and, when it cannot, why (``reason``, one line)."""

    name: str
    file: Path
    description: dict[str, Any] | None
    reason: str = ""

    @property
    def available(self) -> bool:
        return self.description is not None


class BotFolder:
    """The bots in ``folder`` (None: no bots, the server's default), played under ``limits``."""

    def __init__(self, folder: Path | str | None = None, limits: BotLimits = DEFAULT_LIMITS):
        self.folder = None if folder is None else Path(folder).expanduser().resolve()
        if self.folder is not None and not self.folder.is_dir():
            raise SpecError(f"--bots {folder}: no such folder; give the folder that holds your bots' files")
        self.limits = limits
        self._asked: dict[Path, threading.Lock] = {}  # by bot file: one question at a time
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """Whether the server offers bots at all (``--bots`` was given)."""
        return self.folder is not None

    def files(self) -> dict[str, Path]:
        """The bots' files by name, as the folder holds them now (a file added, or
        changed, is seen at the next request): :func:`dlgo.arena.roster.bot_files`, so a
        link that leads out of the folder is none of them."""
        return {} if self.folder is None else {file.stem: file for file in bot_files(self.folder)[:MAX_BOTS]}

    @staticmethod
    def name_problem(name: str) -> str:
        """Why a file named ``name.py`` cannot be offered by its name ("" if it can)."""
        if name.lower() == "human":
            return "a page names a person 'human': rename the file"
        if name in BUILT_IN:
            return f"the suite has an engine named {name!r}: rename the file"
        if not BOT_NAME.fullmatch(name):
            return "a bot's name (its file's, without .py) is letters, digits, _ and -, from a letter: rename the file"
        return ""

    def offers(self, name: str) -> bool:
        """Whether a page may ask for the bot ``name`` (it may still fail to load: :meth:`bot`)."""
        return not self.name_problem(name) and name in self.files()

    def names(self) -> list[str]:
        """The names a page may ask for."""
        return [name for name in self.files() if not self.name_problem(name)]

    def bot(self, name: str, file: Path) -> Bot:
        """The bot ``name`` in ``file``, described in a process of its own (once per file content)."""
        reason = self.name_problem(name)
        if reason:
            return Bot(name, file, None, reason)
        described = self._describe(file)
        if isinstance(described, BotFault):
            return Bot(name, file, None, self.explain(str(described)))
        return Bot(name, file, described)

    def all(self) -> list[Bot]:
        """Every bot of the folder, available or not, by name (described side by side: a bot
        that hangs as it loads costs its start-up limit once, not once per bot)."""
        files = self.files()
        if not files:
            return []
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(8, len(files)),
                                                   thread_name_prefix="dlgo-bots") as pool:
            return list(pool.map(lambda item: self.bot(*item), files.items()))

    def played(self, spec: str) -> str:
        """The spec the session's engine process plays for a page's ``spec`` (``alice``,
        ``alice:depth=3``): the bot's file and its parameters, checked in its process; a
        :class:`SpecError` for a name the folder has not, a bot that does not load, or a
        parameter it does not take."""
        name, params = split_spec(spec)
        file = self.files().get(name) if self.offers(name) else None
        if file is None:
            raise SpecError(f"no bot named {name[:64]!r} in the bots' folder")
        bot = self.bot(name, file)
        if not bot.available:
            raise SpecError(f"the bot {name} cannot play: {bot.reason}")
        given = self._bind(file, params)["given"]
        return f"{file}:{given}" if given else str(file)

    def explain(self, message: str) -> str:
        """``message`` with the folder left out of the paths in it (``alice.py``, not where it lies)."""
        return message if self.folder is None else message.replace(str(self.folder) + os.sep, "")

    # ------------------------------------------------------------ the bot's process
    @contextlib.contextmanager
    def _asking(self, file: Path) -> Iterator[bots.BotSource]:
        """The bot's source, for :mod:`engines.bots` to describe or bind (once per file content,
        which it keeps), one question at a time for each file; its process is stopped once it
        has answered (the server keeps none)."""
        source = bots.split_bot_spec(str(file))[0]
        with self._lock:
            lock = self._asked.setdefault(file, threading.Lock())
        with lock:
            try:
                yield source
            finally:
                bots.forget_idle(source)

    def _describe(self, file: Path) -> dict[str, Any] | BotFault:
        with self._asking(file) as source:
            try:
                return bots.describe(source, self.limits)
            except BotFault as fault:
                return fault

    def _bind(self, file: Path, params: dict[str, str]) -> dict[str, str]:
        with self._asking(file) as source:
            try:
                return bots.bind_parameters(source, params, self.limits)
            except BotFault as fault:
                raise SpecError(f"the bot {file.stem} cannot play: {self.explain(str(fault))}") from None
            except SpecError as error:
                raise SpecError(self.explain(str(error))) from None


def catalog_entry(bot: Bot) -> dict[str, Any]:
    """A bot as the catalog lists it beside the engines: its name, ``label``
    (``alice (your bot)``), description and parameters (type and default as its
    constructor has them)."""
    assert bot.description is not None
    parameters = [{"name": name, "type": kind, "default": _default(default)}
                  for name, kind, default in bot.description.get("parameters", [])]
    return {"name": bot.name, "label": f"{bot.name} (your bot)", "bot": True,
            "description": str(bot.description.get("doc") or ""), "parameters": parameters}


def _default(text: str) -> Any:
    """A parameter's default as the bot's process wrote it (its ``repr``), as JSON: a
    number, a truth value, text or None (None too for a parameter with none)."""
    try:
        value = ast.literal_eval(text) if text else None
    except (ValueError, SyntaxError):
        return text
    return value if value is None or isinstance(value, (bool, int, float, str)) else text
