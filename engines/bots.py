"""Engines of a user's own: a bot in a Python file, or one an installed package registers.

Wherever the suite takes an engine spec it takes these too:

* ``alice.py`` (the one :class:`~dlgo.core.agent.Agent` subclass the file defines),
  ``alice.py:AliceBot`` (a class named), each with parameters as for the suite's own
  engines: ``alice.py:depth=3``, ``alice.py:AliceBot:depth=3``;
* ``name``, ``name:key=value``, where an installed package registers ``name`` under
  the entry-point group ``dlgo.engines`` (``name = "package.module:Class"``, as pytest
  finds its plugins).

Such a bot is code the suite did not write, so it never runs in the suite's process:
each plays in a process of its own (:mod:`dlgo.arena.bot_host`) under a time limit for
each move, a memory limit and a limit on its start-up (:class:`BotLimits`). What goes
wrong there (it raises, hangs, answers an illegal or malformed move, crashes, runs out of
memory, ends the interpreter) is a :class:`BotFault`: the arena records the game as lost by
that fault (games.csv's ``ending``) and plays on. The processes are reused from game to
game while they behave (the start-up is paid once), are killed at the first fault, and
die with the process that started them.
"""
from __future__ import annotations

import atexit
import hashlib
import importlib.util
import json
import logging
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from dlgo.arena import bot_host
from dlgo.arena.bot_host import BotFault
from dlgo.core.agent import Agent, Decision
from dlgo.core.errors import EngineError, IllegalMoveError, SpecError
from dlgo.core.game import Game, State
from dlgo.core.specs import require, require_seconds, split_spec
from dlgo.core.types import Move
from engines.names import BUILT_IN

log = logging.getLogger(__name__)

#: the entry-point group under which a package registers engines
ENTRY_POINTS = "dlgo.engines"


@dataclass(frozen=True)
class BotLimits:
    """What a bot of a user's own may take: seconds a move (past them, and a tenth more
    and a quarter of a second for the pipes, it is stopped and loses the game), megabytes
    of memory (its address space; 0: no limit) and seconds to start (to import its file
    and build the bot)."""

    move_seconds: float = 10.0
    memory_mb: int = 2048
    startup_seconds: float = 30.0

    def __post_init__(self) -> None:
        require_seconds(self.move_seconds, "a bot's seconds a move", positive=True)
        require_seconds(self.startup_seconds, "a bot's start-up seconds", positive=True)
        require(0 <= self.memory_mb <= 2**20, f"a bot's memory must be 0 (no limit) to {2**20:,} MB, "
                                               f"got {self.memory_mb}")

    def wait(self, seconds: float) -> float:
        """How long to wait for an answer the bot was given ``seconds`` for."""
        return seconds * 1.1 + 0.25


#: the limits where none are given
DEFAULT_LIMITS = BotLimits()


@dataclass(frozen=True)
class BotSource:
    """Where a bot's code is: a ``file`` (absolute) or an installed ``module``, the
    ``class_name`` given (None: the one the code defines) and the ``label`` a person
    typed (``class/alice.py``, or the entry point's name)."""

    label: str
    file: str | None = None
    module: str | None = None
    class_name: str | None = None

    def digest(self) -> str:
        """The SHA-256 of the bot's file (for a module, of its source file): a bot is
        known by its code, so a changed file is another bot."""
        path = self.file or _module_file(self.module or "")
        try:
            return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""
        except OSError:
            return ""

    @property
    def shown(self) -> str:
        """The bot as its messages name it: its file's name alone (``alice.py does not load``,
        wherever the file is kept), or the entry point's name."""
        return Path(self.label).name if self.file else self.label

    def request(self) -> dict[str, Any]:
        """The ``load`` request for :mod:`dlgo.arena.bot_host`."""
        source = {"file": self.file} if self.file else {"module": self.module or ""}
        return {"op": "load", "source": source, "class": self.class_name, "label": self.shown}


def code_files(spec: str) -> list[Path]:
    """The file of the bot ``spec`` names (a package's engine: its module's source file), or
    none where it cannot be found: what its games were played with."""
    source, _ = split_bot_spec(spec)
    path = source.file or _module_file(source.module or "")
    return [Path(path)] if path else []


def _module_file(module: str) -> str:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return ""
    return spec.origin if spec is not None and spec.origin and spec.origin.endswith(".py") else ""


@lru_cache(maxsize=1)
def entry_point_engines() -> dict[str, str]:
    """The engines installed packages register (``{"name": "package.module:Class"}``),
    under :data:`ENTRY_POINTS`; a name the suite's own engines have is left out."""
    found: dict[str, str] = {}
    for point in entry_points(group=ENTRY_POINTS):
        if point.name in BUILT_IN or ":" not in point.value:
            log.warning("the engine %r that a package registers is left out: %s", point.name,
                        "the suite has one of that name" if point.name in BUILT_IN else "it names no class")
            continue
        found.setdefault(point.name, point.value)
    return found


def is_bot(spec: str) -> bool:
    """Does ``spec`` (or an engine's name) name a bot of a user's own: a file (its name
    ends in ``.py``), or an engine an installed package registers?"""
    name = spec.strip().partition(":")[0].strip()
    return name.endswith(".py") or name in entry_point_engines()


def split_bot_spec(spec: str) -> tuple[BotSource, dict[str, str]]:
    """``"class/alice.py:AliceBot:depth=3"`` -> (its :class:`BotSource`, ``{"depth": "3"}``);
    a :class:`SpecError` for a file that is not there, or a spec of another form."""
    file, _, rest = spec.strip().partition(":")
    file = file.strip()
    if not file.endswith(".py"):
        name, params = split_spec(spec)
        target = entry_point_engines().get(name)
        if target is None:
            raise SpecError(f"{name!r} is neither a bot file (FILE.py) nor an engine a package registers")
        module, _, cls = target.partition(":")
        return BotSource(name, module=module.strip(), class_name=cls.strip()), params
    class_name = None
    head, colon, tail = rest.partition(":")
    if head.strip() and "=" not in head:
        if not head.strip().isidentifier():
            raise SpecError(f"{spec!r}: after the file comes a class name or key=value parameters, got {head!r}")
        class_name, rest = head.strip(), tail if colon else ""
    _, params = split_spec("bot:" + rest)
    path = Path(file).expanduser()
    if not path.is_file():
        raise SpecError(f"no bot file {file!r}" + (" (it is a folder)" if path.is_dir() else "")
                        + "; a bot is a Python file that defines an Agent subclass")
    return BotSource(file, file=str(path.resolve()), class_name=class_name), params


# ------------------------------------------------------------------ the process
class BotProcess:
    """One bot's process (:mod:`dlgo.arena.bot_host`), loaded: :attr:`description` is
    what it said of the bot's class. Requests wait at most the seconds they are given;
    one not answered in time, or answered with a fault, stops the process."""

    def __init__(self, source: BotSource, limits: BotLimits):
        self.source, self.limits = source, limits
        #: what the process loaded: the bot's source and its content's digest, as it was when it started
        self.key = _key(source, limits)
        requests_read, self._requests = os.pipe()
        self._answers, answers_write = os.pipe()
        on_main = threading.current_thread() is threading.main_thread()
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1", "PYTHONUNBUFFERED": "1",
               "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]),
                                              *filter(None, [os.environ.get("PYTHONPATH")])])}
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "dlgo.arena.bot_host", str(requests_read), str(answers_write),
                 str(os.getpid()), str(limits.memory_mb), str(int(on_main))],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(requests_read, answers_write), start_new_session=True, env=env)
        finally:
            os.close(requests_read)
            os.close(answers_write)
        self._buffer = b""
        _RUNNING.add(self)
        self.description: dict[str, Any] = self.request(source.request(), limits.startup_seconds, bot_host.STARTUP)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def request(self, message: dict[str, Any], seconds: float, late: str = bot_host.TIMEOUT) -> Any:
        """Send ``message`` and return the answer's ``ok`` part (a ``{"error": ...}``
        answer is a :class:`SpecError`); a :class:`BotFault` (the process stopped) for a
        fault, no answer within ``seconds`` (reported as ``late``) or a process that died."""
        try:
            os.write(self._requests, json.dumps(message).encode() + b"\n")
        except OSError:  # the process is gone: its exit says why
            raise self._died() from None
        line = self._read_line(self.limits.wait(seconds))
        if line is None:
            self.stop()
            what = "to start" if late == bot_host.STARTUP else "for a move"
            fault = BotFault(late, f"gave no answer within its {seconds:g} s {what}; stopped")
            fault.timed_out = True
            raise fault
        if not line:
            raise self._died()
        try:
            answer = json.loads(line)
        except ValueError:
            self.stop()
            raise BotFault(bot_host.CRASH, "its process answered nonsense; stopped") from None
        if "fault" in answer:
            self.stop()
            raise BotFault(str(answer["fault"]), str(answer.get("message", "")))
        if "error" in answer:
            raise SpecError(str(answer["error"]))
        return answer["ok"]

    def _read_line(self, seconds: float) -> bytes | None:
        """The next line from the process, b"" if it closed its end, None if none came in ``seconds``."""
        deadline = time.monotonic() + seconds
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._answers], [], [], left)
            if not ready:
                return None
            chunk = os.read(self._answers, 1 << 16)
            if not chunk:
                return b""
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _died(self) -> BotFault:
        """The fault of a process that ended: its exit code or signal."""
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self.stop()
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            hint = " (perhaps the system ran out of memory)" if -code == signal.SIGKILL else ""
            return BotFault(bot_host.CRASH, f"its process was killed by {name}{hint}")
        return BotFault(bot_host.CRASH, f"its process ended (exit code {code})")

    def stop(self) -> None:
        """End the process, and any it started, now."""
        _RUNNING.discard(self)
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.process.kill()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self._requests, self._answers):
            try:
                os.close(fd)
            except OSError:
                pass
        self._requests = self._answers = -1


_RUNNING: set[BotProcess] = set()  # every process started here and not stopped
_IDLE: list[BotProcess] = []  # loaded, waiting for a game, the longest idle first
_POOL = threading.Lock()  # held while _IDLE changes: a web server's threads share it
#: the most idle processes kept (the one idle longest is stopped past it)
MOST_IDLE = 8
#: how many times a bot's start may run out of time before this process stops trying it (a busy
#: machine may make one start slow; a bot that hangs as it loads should cost its limit only so often)
STARTS_TIMED_OUT = 2


def stop_all() -> None:
    """Stop every bot process this process started, the idle ones too (at exit, and for a
    long-lived front end that is done with its bots)."""
    for process in list(_RUNNING):
        process.stop()
    with _POOL:
        _IDLE.clear()


atexit.register(stop_all)

Key = tuple["BotSource", str, BotLimits]


def _key(source: BotSource, limits: BotLimits) -> Key:
    return source, source.digest(), limits


def acquire(source: BotSource, limits: BotLimits) -> BotProcess:
    """A loaded process of the bot ``source``: an idle one that loaded the file's content
    as it is now, or a new one (a :class:`BotFault` if it does not load within the start-up
    limit; for a bot that does not load at all, or runs out of time loading twice, again at
    once for that file's content in this process)."""
    key = _key(source, limits)
    if key in _FAILED_LOADS:
        raise _FAILED_LOADS[key]
    while True:  # the one idle most recently, if it is still alive
        with _POOL:
            idle = next((p for p in reversed(_IDLE) if p.key == key), None)
            if idle is not None:
                _IDLE.remove(idle)
        if idle is None:
            break
        if idle.alive:
            return idle
        idle.stop()
    try:
        return BotProcess(source, limits)
    except BotFault as fault:
        slow = fault.timed_out
        _SLOW_STARTS[key] = _SLOW_STARTS.get(key, 0) + slow
        if not slow or _SLOW_STARTS[key] >= STARTS_TIMED_OUT:
            _FAILED_LOADS[key] = fault
        raise


def release(process: BotProcess) -> None:
    """Give a process back for the next game (a stopped one is dropped; past
    :data:`MOST_IDLE`, the one idle longest is stopped)."""
    if not process.alive or process._requests < 0:
        process.stop()
        return
    with _POOL:
        _IDLE.append(process)
        evicted = _IDLE[:-MOST_IDLE] if len(_IDLE) > MOST_IDLE else []
        del _IDLE[:len(evicted)]
    for old in evicted:
        old.stop()


def forget_idle(source: BotSource) -> None:
    """Stop the idle processes of the bot ``source`` (a long-lived front end that keeps none
    once it has its answer: ``dlgo serve --bots``)."""
    with _POOL:
        mine = [p for p in _IDLE if p.source == source]
        for process in mine:
            _IDLE.remove(process)
    for process in mine:
        process.stop()


_SLOW_STARTS: dict[Key, int] = {}
_FAILED_LOADS: dict[Key, BotFault] = {}
_DESCRIPTIONS: dict[Key, dict[str, Any]] = {}
_BOUND: dict[tuple[Key, tuple[tuple[str, str], ...]], dict[str, str]] = {}


def describe(source: BotSource, limits: BotLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """What the bot's class says of itself (``class``, ``name``, ``unit``, ``doc``,
    ``parameters`` as [name, type, default] text, ``takes_seed``), loaded in a process of
    its own once per file content; a :class:`BotFault` (``start-up``) if it does not load."""
    key = _key(source, limits)
    if key not in _DESCRIPTIONS:
        process = acquire(source, limits)
        _DESCRIPTIONS[key] = process.description
        release(process)
    return _DESCRIPTIONS[key]


def bind_parameters(source: BotSource, params: dict[str, str],
                    limits: BotLimits = DEFAULT_LIMITS) -> dict[str, str]:
    """Check ``params`` (spec text) against the bot's constructor, in its process: the
    parameters as a spec writes them, in order (``given``; ``changed``: those that differ from
    their defaults); a :class:`SpecError` for a name or a value it does not take."""
    key = (_key(source, limits), tuple(sorted(params.items())))
    if key not in _BOUND:
        process = acquire(source, limits)
        try:
            _BOUND[key] = process.request({"op": "bind", "params": params}, limits.startup_seconds,
                                          bot_host.STARTUP)
        finally:
            release(process)
    return _BOUND[key]


def canonical_bot_spec(spec: str, limits: BotLimits = DEFAULT_LIMITS) -> str:
    """One spelling of the bot ``spec`` names: its file (absolute) or entry point, its
    class, and the parameters it sets to other than their defaults, in its constructor's order."""
    source, params = split_bot_spec(spec)
    description = describe(source, limits)
    changed = bind_parameters(source, params, limits)["changed"]
    return f"{source.file or source.label}:{description['class']}" + (f":{changed}" if changed else "")


# ------------------------------------------------------------------ the engine
def history(state: State, known: tuple[State, list[str]] | None = None) -> list[str]:
    """The moves that led to ``state`` from its game's start, as text, a turn handed over
    without a move (GTP's two moves of one colour: ``with_turn``) as
    :data:`~dlgo.arena.bot_host.TURN` (an :class:`EngineError` for a position that no line
    of moves reaches: set-up stones). ``known``: an earlier state of the line and its
    history, where the walk back may stop (a game's next move costs one step, not the game)."""
    texts = []
    while state.previous_state is not None and (known is None or state is not known[0]):
        before = state.previous_state
        texts.append(bot_host.TURN if state.last_move is None else before.format_move(state.last_move))
        state = before
    if known is not None and state is known[0]:
        return known[1] + texts[::-1]
    if state.zobrist_hash() != state.game.initial_state().zobrist_hash():
        raise EngineError("this position has stones set up by hand, and a bot of your own is sent the moves "
                          "that led to a position from its game's start")
    return texts[::-1]


def answered_move(state: State, answer: dict[str, Any]) -> Move:
    """The move a bot's process answered for ``state``, checked here too (the suite trusts
    no answer from the bot's process): a :class:`BotFault` (``illegal-move``) for one that is
    no legal move here."""
    text = str(answer.get("move", ""))
    try:
        move = state.parse_move(text)
    except IllegalMoveError as error:
        raise BotFault(bot_host.ILLEGAL, f"played {text}: {error}") from None
    reason = state.illegal_reason(move)
    if reason is not None:
        raise BotFault(bot_host.ILLEGAL, f"played {text}: {reason}")
    return move


class BotAgent(Agent):
    """A bot of a user's own, played in a process of its own (see :mod:`engines.bots`)."""

    def __init__(self, source: BotSource, params: dict[str, str], description: dict[str, Any],
                 limits: BotLimits = DEFAULT_LIMITS, seed: int | None = None):
        super().__init__()
        self.source, self.params, self.limits, self.seed = source, params, limits, seed
        #: what the bot's class said of itself in its process (:func:`describe`)
        self.described = description
        named = str(description.get("name") or "agent")
        self.name = Path(source.label).stem if named == Agent.name else named
        self.unit = str(description.get("unit") or "moves")
        self.spec = source.label
        self._process: BotProcess | None = None
        self._game = ""  # the spec of the game the process's bot was built for
        #: why the bot did not load, if it did not: raised by :meth:`start` and at each move
        self.load_fault: BotFault | None = None
        self._sent: tuple[State, list[str]] | None = None  # the last position sent and its moves

    def start(self) -> None:
        """Start (or take an idle) process for the bot, within its start-up limit."""
        if self.load_fault is not None:
            raise self.load_fault
        if self._process is None or not self._process.alive:
            self._game = ""
            self._process = acquire(self.source, self.limits)

    def _ready(self, game: Game) -> BotProcess:
        """The process, its bot built for ``game`` (a :class:`BotFault` if it cannot be)."""
        self.start()
        assert self._process is not None
        if self._game != game.spec:
            self._process.request({"op": "new", "params": self.params, "seed": self.seed, "game": game.spec,
                                   "spec": self.spec}, self.limits.startup_seconds, bot_host.STARTUP)
            self._game = game.spec
        return self._process

    def decide(self, state: State) -> Decision:
        if not state.is_over():
            try:
                self._ready(state.game)  # its start-up is paid outside the move's clock
            except BotFault:
                self._drop()
                raise
        return super().decide(state)

    def choose(self, state: State) -> Decision:
        process = self._ready(state.game)
        limit = min(self.limits.move_seconds, self.time_limit or math.inf)
        moves = history(state, self._sent)
        self._sent = (state, moves)
        try:
            answer = process.request({"op": "move", "moves": moves, "limit": limit, "budget": self.time_budget},
                                     limit)
        except BotFault:
            self._drop()
            raise
        try:
            move = answered_move(state, answer)
        except BotFault:
            self._drop()
            raise
        work = answer.get("work", 1)
        return Decision(move, work if isinstance(work, int) and not isinstance(work, bool) and work >= 0 else 1)

    def _drop(self) -> None:
        if self._process is not None:
            self._process.stop()
        self._process, self._game = None, ""

    def warm_up(self, state: State) -> None:
        """Start a process for the bot (kept idle for the game that follows), outside every clock."""
        try:
            self.start()
        except BotFault:
            pass

    def new_game(self) -> None:
        self._game = ""  # built afresh at the next move

    def close(self) -> None:
        if self._process is not None:
            release(self._process)
        self._process, self._game, self._sent = None, "", None

    def __repr__(self) -> str:
        return f"<BotAgent {self.spec}>"


def create_bot(spec: str, limits: BotLimits = DEFAULT_LIMITS, seed: int | None = None,
               **overrides: Any) -> BotAgent:
    """The bot ``spec`` names, its parameters checked in its process (a :class:`SpecError`
    for one it does not take). A bot that does not load is still built: its fault
    (:class:`BotFault`, ``start-up``) comes at :meth:`~BotAgent.start` and at each move,
    so that a game records it as the bot's loss."""
    source, params = split_bot_spec(spec)
    params = {**params, **{k: str(v) for k, v in overrides.items() if k != "seed"}}
    if overrides.get("seed") is not None:
        seed = int(overrides["seed"])
    try:
        description = describe(source, limits)
    except BotFault as fault:
        agent = BotAgent(source, params, {}, limits, seed)
        agent.load_fault = fault
    else:
        bind_parameters(source, params, limits)
        agent = BotAgent(source, params, description, limits, seed)
    agent.spec = spec.strip()
    return agent
