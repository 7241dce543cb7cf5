"""What a browser may ask the server for: games of bounded size, engines of the
registry, and networks only from the folders the server offers.

A spec string from a page is untrusted text. :func:`browser_game` accepts any
game of the registry whose board fits :data:`MAX_BOARD`; :func:`browser_engine`
accepts any engine of the registry whose text parameters name network files
under the allowed folders (``checkpoints/`` and the runs folder), and refuses
every other text parameter (a program to start, a path to read); what it
accepts is then checked in full for the game (ranges, files, fit) before any
move, and its network files are pinned (:class:`Pins`): copied, as checked, into
the server's own folder, and the engine plays the copies, so a file swapped
later (for a link out of the folders) is never loaded. :func:`offered_networks`
lists the files a page may choose. The compute of a move is capped by the
server's time limit (see :mod:`dlgo.app.web.workers`).

A spec that names a file (``alice.py``, a path) or an engine an installed package
registers is, from a page, an unknown engine: nothing is loaded for it. The bots of
users' own that ``dlgo serve --bots FOLDER`` offers are asked for by name
(``alice``), which :class:`~dlgo.app.web.bots.BotFolder` maps to the folder's file.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tempfile
import time
import typing
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from dlgo.app.web.bots import BotFolder
from engines import registry
from dlgo.core.errors import DlgoError, ModelFileError, SpecError
from dlgo.core.game import State
from dlgo.core.specs import format_spec, split_spec
from dlgo.storage.atomic import atomic_write
from dlgo.games import new_game
from engines.checkpoints import NETWORK_PARAMETERS, NPZ_PARAMETERS, SET_FILES, SHIPPED, checkpoint_set, \
    parameter_suffix, resolve_model_path
from engines.names import BUILT_IN
from engines.neural.loading import LoadedModel
from engines.rollouts import read_move_patterns, read_rollout_policy

#: the longest spec text accepted
MAX_SPEC = 300
#: the longest SGF record accepted (a game with its comments)
MAX_SGF = 512 * 1024
#: the most rows or columns of a board (19x19 Go; larger boards are slow to draw and to search)
MAX_BOARD = 19
#: network files the engine lists offer, at most
MAX_FILES = 200
HUMAN = "human"


def _text_parameter(kind: object) -> bool:
    """Whether a parameter's declared type takes text (``str`` or ``str | None``)."""
    return kind is str or str in typing.get_args(kind)


def offered_engines() -> list[str]:
    """The suite's own engines a page may choose: all but those that need a text
    parameter a page may not set (``gtp`` needs the command of a program). Engines that
    installed packages register are not offered (their code would load in the server)."""
    names = []
    for name in BUILT_IN:
        needs = [p for p in registry.engine_parameters(name)
                 if _text_parameter(p.type) and p.name not in NETWORK_PARAMETERS and not p.default]
        if not needs:
            names.append(name)
    return names


def browser_game(spec: str) -> State:
    """The start of the game ``spec``; :class:`SpecError` for an unknown game, a bad
    option or a board larger than :data:`MAX_BOARD`."""
    if len(spec) > MAX_SPEC:
        raise SpecError(f"a game spec is at most {MAX_SPEC} characters")
    state = new_game(spec)
    rows, cols = state.game.num_rows, state.game.num_cols
    if max(rows, cols) > MAX_BOARD:
        raise SpecError(f"{state.game.name}: a {cols}x{rows} board is larger than the browser plays "
                        f"(at most {MAX_BOARD}x{MAX_BOARD})")
    return state


class FileRoots:
    """The folders whose network files a page may name (their real paths)."""

    def __init__(self, roots: Iterable[Path]):
        self.roots = [Path(r).resolve() for r in roots]

    def holds(self, path: Path) -> bool:
        real = Path(path).resolve()
        return any(real == root or root in real.parents for root in self.roots)

    def files(self, suffixes: Sequence[str] = (".keras", ".npz")) -> list[tuple[str, Path]]:
        """The network files under the folders, each as a spec names it (a shipped
        network by its name, ``connect4``; any other by its path) and its path."""
        found: list[tuple[str, Path]] = []
        for root in self.roots:
            if not root.is_dir():
                continue
            for path in sorted(root.rglob("*")):
                if path.suffix in suffixes and path.is_file() and self.holds(path):
                    found.append((path.stem if path.parent == SHIPPED.resolve() else _shown(path), path))
                if len(found) >= MAX_FILES:
                    return found
        return found


def _shown(path: Path) -> str:
    """``path`` relative to the working folder where it is inside it (how a spec names it)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def relative_paths(message: str) -> str:
    """``message`` with paths inside the working folder or the suite shown relative
    to it: an answer never shows where the suite is installed."""
    for base in sorted({str(Path.cwd().resolve()), str(SHIPPED.parent)}, key=len, reverse=True):
        message = message.replace(base + os.sep, "")
    return message


def _network_files(name: str, key: str, value: str) -> tuple[dict[str, Path], str]:
    """The files engine ``name`` loads for its parameter ``key=value``, each by the
    name its pinned copy takes, and what the parameter names among the copies: a
    Go rollout policy, move patterns or a network (a parameter whose heads the
    engine names) by its file's name, else a checkpoint set's files by their prefix (``go9``: its
    ``go9-policy.keras``, ...). :class:`ModelFileError` if there is none."""
    if key in NPZ_PARAMETERS or key in registry.engine_class(name).network_heads:
        path = resolve_model_path(value, parameter_suffix(key))
        return {path.name: path}, path.name
    prefix = Path(value).name or "set"
    return {prefix + SET_FILES[role]: Path(file) for role, file in checkpoint_set(value).items()}, prefix


class Engine(NamedTuple):
    """An engine a page chose: its spec as the page wrote it, and the spec it plays,
    whose network files are the copies :class:`Pins` made when it was chosen."""

    spec: str
    played: str
    pins: tuple[str, ...] = ()   # the folders of its copies

    def explain(self, message: str) -> str:
        """``message`` with the copies' folders left out (their files keep their names)."""
        for folder in self.pins:
            message = message.replace(folder + os.sep, "")
        return message


def browser_engine(spec: str, roots: FileRoots, state: State, pins: Pins, bots: BotFolder | None = None) -> Engine:
    """``spec`` if a page may play it in the game of ``state``; a
    :class:`~dlgo.core.errors.DlgoError` saying why not. It names one of the suite's
    engines, or one of ``bots`` by its name (played as its file: :meth:`BotFolder.played`);
    anything else (a file, a path, a package's engine) is an unknown engine, and
    nothing is loaded for it. The files it names must
    lie under ``roots``; then it is checked as building it would check it
    (ranges, files, the game it plays: :func:`engines.registry.check_engine`).
    Its network files are pinned (:meth:`Pins.pin`): the engine plays the copies,
    checked again, and never reads the named files after this."""
    if len(spec) > MAX_SPEC:
        raise SpecError(f"an engine spec is at most {MAX_SPEC} characters")
    name, params = split_spec(spec)
    if name not in BUILT_IN:
        if bots is not None and bots.offers(name):
            return Engine(spec, bots.played(spec))
        raise unknown_engine(name, bots)
    name, params = registry.resolve(name, params)  # an old spec: the engine it names now
    if name not in offered_engines():
        raise SpecError(f"{name} runs a program named in its spec, which a page may not choose")
    kinds = {p.name: p.type for p in registry.engine_parameters(name)}
    registry.check_spec(spec)  # names and types
    networks: dict[str, tuple[dict[str, Path], str]] = {}
    for key, value in params.items():
        if not _text_parameter(kinds[key]) or not value:
            continue
        if key not in NETWORK_PARAMETERS:
            raise SpecError(f"{name}: the parameter {key} cannot be set from a page")
        try:
            networks[key] = _network_files(name, key, value)
        except ModelFileError:
            networks[key] = ({}, "")
        if not networks[key][0] or not all(roots.holds(f) for f in networks[key][0].values()):
            raise _outside(name, key, value, roots)
    registry.check_engine(spec, state)  # its messages name the files as the page named them
    played, folders = dict(params), []
    for key, (files, named) in networks.items():
        try:
            folder = pins.pin(files, roots)
        except (ModelFileError, OSError):  # swapped since it was checked a moment ago, or unreadable
            raise _outside(name, key, params[key], roots) from None
        played[key] = str(folder / named)
        folders.append(str(folder))
    engine = Engine(spec, format_spec(name, played) if folders else spec, tuple(folders))
    try:
        registry.check_engine(engine.played, state)  # what it will load is what was checked
    except DlgoError as err:
        raise type(err)(engine.explain(str(err))) from None
    return engine


def unknown_engine(name: str, bots: BotFolder | None = None) -> SpecError:
    """The answer to a spec naming no engine a page may choose: the engines, and the bots, there are."""
    known = ", ".join(offered_engines())
    yours = bots.names() if bots is not None else []
    return SpecError(f"unknown engine {name[:64]!r}; the engines are: {known}"
                     + (f"; your bots: {', '.join(yours)}" if yours else ""))


def _outside(name: str, key: str, value: str, roots: FileRoots) -> SpecError:
    return SpecError(f"{name}: {key}={value} names no network under {' or '.join(map(_shown, roots.roots))}")


#: seconds a pinned copy that no saved game names is kept (a session being made names it a moment later)
PIN_GRACE = 600.0


class Pins:
    """Copies of the network files that sessions play, made when a session chooses
    its engine, in a folder of the server's own: each set of files in a folder
    named by their digest (a network many sessions play is copied once). A copy
    is read from the file found under the allowed folders as it was checked, so
    a file swapped afterwards (for a link out of them, or another network)
    changes nothing; copies no saved game names are removed by :meth:`collect`."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def pin(self, files: dict[str, Path], roots: FileRoots) -> Path:
        """The folder holding a copy of each of ``files`` under its name there;
        :class:`ModelFileError` for one that, as it is opened, is not a regular
        file under ``roots``."""
        self.folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=STAGING, dir=self.folder))
        try:
            digests = [f"{name}\0{_copy_inside(path, roots, staging / name)}\n" for name, path in sorted(files.items())]
            pinned = self.folder / hashlib.sha256("".join(digests).encode()).hexdigest()[:32]
            for _ in range(2):
                try:
                    staging.rename(pinned)
                    return pinned
                except OSError:  # copied before (for this game, or another)
                    try:
                        os.utime(pinned)  # fresh again: collect() keeps it
                        return pinned
                    except FileNotFoundError:
                        continue  # collect() removed it just now: this copy takes its place
            raise ModelFileError(f"cannot keep a copy of {', '.join(files)} in {self.folder}")
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    def collect(self, named: Iterable[str], grace: float | None = None) -> list[Path]:
        """Remove the copies (and copies left half made) that ``named`` (folder
        paths) leaves out, those older than ``grace`` seconds (default
        :data:`PIN_GRACE`); returns them."""
        if not self.folder.is_dir():
            return []
        grace = PIN_GRACE if grace is None else grace
        keep = {Path(folder).name for folder in named}
        now = time.time()
        removed = []
        for folder in self.folder.iterdir():
            try:
                old = now - folder.stat().st_mtime > grace
            except OSError:
                continue
            ours = PINNED.fullmatch(folder.name) or folder.name.startswith(STAGING)  # nothing else is deleted
            if ours and folder.name not in keep and old:
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
        return removed


#: the start of the name of a folder of copies being made
STAGING = ".pinning-"
#: the name of a folder of copies: the first 32 hex digits of its files' digest
PINNED = re.compile(r"[0-9a-f]{32}")


def _copy_inside(path: Path, roots: FileRoots, target: Path) -> str:
    """Copy ``path`` to ``target`` (atomically) if, as it is opened, it is a
    regular file under ``roots``: its real path inside them, no link on the way,
    and the file opened the one found there. Its SHA-256; :class:`ModelFileError` otherwise."""
    real = Path(path).resolve()
    refused = ModelFileError(f"{path} is not a network file under the allowed folders")
    try:
        handle = open(os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK), "rb")
    except OSError:
        raise refused from None
    with handle:
        opened, found = os.fstat(handle.fileno()), real.stat()
        if not (stat.S_ISREG(opened.st_mode) and (opened.st_dev, opened.st_ino) == (found.st_dev, found.st_ino)
                and real.resolve() == real and roots.holds(real)):
            raise refused
        digest = hashlib.sha256()
        with atomic_write(target, "wb") as copy:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                copy.write(chunk)
    return digest.hexdigest()


class Networks(NamedTuple):
    """The files a page may choose, as a spec names them, by what they are."""

    keras: list[tuple[str, str]]   # networks, each with the kind its metadata records ("" if none)
    rollouts: list[str]            # Go rollout policies (.npz from `dlgo train-rollout`)
    patterns: list[str]            # Go move patterns (.npz from `dlgo train-patterns`)
    sets: list[str]                # AlphaGo's checkpoint sets (NAME for NAME-policy.keras, ...)


def offered_networks(roots: FileRoots, state: State | None = None) -> Networks:
    """The files under the folders that are what their names say (a network saved
    by dlgo, read without TensorFlow; a rollout policy; move patterns) and, given ``state``, play its game."""
    def network(path: Path) -> LoadedModel:
        return LoadedModel(str(path), network=False)

    keras = [(name, str(loaded.metadata.get("kind", "")))
             for name, loaded in _readable(roots, ".keras", network, state)]
    rollouts = [name for name, _ in _readable(roots, ".npz", read_rollout_policy, state)]
    patterns = [name for name, _ in _readable(roots, ".npz", read_move_patterns, state)]
    return Networks(keras, rollouts, patterns, set_prefixes([name for name, _ in keras]))


def _readable(roots: FileRoots, suffix: str, read: Callable[[Path], Any], state: State | None) -> list[tuple[str, Any]]:
    """The files with ``suffix`` under the folders that ``read`` opens (it raises for
    one that is not what it should be), with what it read; given ``state``, only
    those whose ``check`` accepts its game."""
    found = []
    for name, path in roots.files((suffix,)):
        try:
            opened = read(path)
            if state is not None:
                opened.check(state)
        except (DlgoError, OSError, ValueError, KeyError, TypeError):  # damaged, foreign, or for another game
            continue
        found.append((name, opened))
    return found


def set_prefixes(names: Iterable[str]) -> list[str]:
    """The checkpoint sets (AlphaGo's policy, value and rollout files) among the
    network ``names``, by the name a spec gives them (``go9``, ``runs/ch13/go9``)."""
    endings = (SET_FILES["policy"], Path(SET_FILES["policy"]).stem)  # a file's path, or a shipped name
    prefixes = []
    for name in names:
        ending = next((e for e in endings if name.endswith(e)), None)
        if ending:
            prefixes.append(name[: -len(ending)])
    return prefixes
