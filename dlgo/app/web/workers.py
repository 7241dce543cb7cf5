"""Engines for the web server, each game session's in a process of its own.

A browser may ask for any engine of the registry, some of them slow (plain
minimax on Connect Four never ends), while the server must answer every other
page at once. So a session's engines run in a child process, which keeps them
between moves (search trees, loaded networks) and is given the game as its spec
and the actions played so far.

Starting one is cheap: the processes are forked from a fork server
(``forkserver``) that imported the engines and the server's entry module once
(:data:`PRELOAD`, :func:`main_imports`), so a new engine process imports
nothing of the classic engines; a network engine loads TensorFlow and its
network there, itself. Each question has two deadlines: the
engine's start (building it, loading its network, replaying the game: up to
``start_seconds``), which the child reports as ``started``, then its search,
told the per-move time limit (searching engines stop there on their own) and
killed when still busy ``grace`` seconds past it. The page says why; the
session's next engine move starts a fresh process.

An :class:`EnginePool` caps the processes alive at once: a new one beyond the
cap stops the one left idle longest (its session goes on and starts it again
when it next asks), and with every one thinking it waits for one to finish,
up to the move's time limit, then is refused (:class:`EnginesBusy`, HTTP 503).
Closing never waits for a process: an idle one is told to exit, a busy one is
killed, and a thread reaps it.

A bot of a user's own (``dlgo serve --bots``) is built in the session's engine
process like any engine, under the limits its job carries, and plays in a process
of its own that this one starts (:mod:`engines.bots`), which ends with it. What the
bot does wrong is answered as its fault (:class:`~dlgo.arena.bot_host.BotFault`): the game
is its loss.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import types
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from typing import Any, NamedTuple

import numpy as np

import engines
from dlgo.arena.match import collector_paused, warm_up
from dlgo.core.agent import Agent, SearchReport
from dlgo.core.errors import DlgoError, SpecError
from dlgo.core.game import State
from dlgo.core.types import Move, Player, Point
from dlgo.games import new_game
from dlgo.games.go.board import Board
from dlgo.games.go.state import GoState
from engines.bots import DEFAULT_LIMITS, BotFault, BotLimits

log = logging.getLogger(__name__)

#: seconds a closed process is given to exit on its own (closing its engines) before it is killed
EXIT_SECONDS = 0.5
#: seconds a killed process is given to go
JOIN_SECONDS = 2.0
#: seconds an engine may take to start: build it, load its network, replay the game
START_SECONDS = 60.0
#: seconds past the time limit before a searching engine is killed
GRACE_SECONDS = 10.0
#: memory per engine process behind the default cap (an AlphaZero one, TensorFlow included, holds ~0.65 GB)
ENGINE_MEMORY = 1.5 * 2 ** 30
#: what the fork server imports once, before it forks engine processes: the server's main module, this
#: module with the registry and the games, the classic engines, and what re-running a main script needs
PRELOAD = ["__main__", "dlgo.app.web.workers", "engines.randombot", "engines.minimax", "engines.mcts", "pkgutil",
           "engines.go_search", "dlgo.games.kinarow_kernels"]  # the last two: numba and the compiled kernels
#: the answer to a question whose session was closed
CLOSED = "the game was closed while its engine was thinking"


class Setup(NamedTuple):
    """The first position of a Go game that does not start on an empty board (a
    game from SGF): each side's stones, as the actions that play there, and who moves first."""

    black: tuple[int, ...]
    white: tuple[int, ...]
    first: str                 # "black" or "white"

    @classmethod
    def of(cls, state: State) -> Setup | None:
        """The setup of ``state``'s first position (None where it is the game's own start)."""
        first = next(iter(state.history()))
        if not isinstance(first, GoState) or first.zobrist_hash() == new_game(first.game.spec).zobrist_hash():
            return None
        stones = first.stone_array()

        def actions(colour: int) -> tuple[int, ...]:
            rows, cols = np.nonzero(stones == colour)
            return tuple(first.move_to_index(Move.play(Point(int(r) + 1, int(c) + 1))) for r, c in zip(rows, cols))

        return cls(actions(1), actions(2), first.next_player.name)


def start_state(game: str, setup: Setup | None = None) -> State:
    """The first position of ``game`` (a spec), with the stones of ``setup`` when it is given."""
    state = new_game(game)
    if setup is None:
        return state
    if not isinstance(state, GoState):
        raise SpecError(f"{state.game.name} cannot start from set-up stones")
    board = Board(state.board.num_rows, state.board.num_cols)
    for player, actions in ((Player.black, setup.black), (Player.white, setup.white)):
        for action in actions:
            point = state.action_point(action)
            if point is None:
                raise SpecError(f"action {action} places no stone on this board")
            board.place_stone(player, point)
    return GoState(board, Player[setup.first], None, None, state.game)


class EngineJob(NamedTuple):
    """One question to a session's engine process."""

    role: str                  # which of the session's engines: "black", "white" or "hint"
    spec: str                  # the engine as it plays, its networks pinned (see dlgo.app.web.safety.Pins)
    seed: int | None
    game: str                  # the game's spec
    actions: tuple[int, ...]   # the actions played from the start
    time_limit: float          # seconds the engine may think
    name: str = ""             # the engine as the page named it (in messages; default: ``spec``)
    setup: Setup | None = None  # the stones the game started from, if not its own start
    bot_limits: BotLimits | None = None  # what a bot of a user's own may take (None: the defaults)

    @property
    def shown(self) -> str:
        """The engine as its messages name it."""
        return self.name or self.spec


class EngineAnswer(NamedTuple):
    """An engine's move (``action`` None: it resigned) and its search report, as plain data."""

    action: int | None
    report: dict[str, Any]


class EngineFailure(DlgoError):
    """The engine could not give a move: it failed, or its process stopped."""


class EngineTimeout(EngineFailure):
    """The engine ran past its start's deadline, or the time limit and the grace, and was stopped."""


class EngineClosed(EngineFailure):
    """The session was closed while its engine was thinking: HTTP 410."""


class EnginesBusy(DlgoError):
    """Every engine process the server keeps is thinking, so no other can start now: HTTP 503."""


def report_data(report: SearchReport, state: State) -> dict[str, Any]:
    """A search report as JSON-ready data: arrays over the action space as lists
    (rounded), the principal variation as move texts."""
    def values(array: np.ndarray | None, digits: int) -> list[float] | None:
        return None if array is None else [round(float(x), digits) for x in array]

    line, position = [], state
    for action in report.principal_variation:
        if position.is_over() or not 0 <= action < position.num_actions:
            break
        line.append(position.format_move(position.index_to_move(action)))
        try:
            position = position.apply_action(action)
        except DlgoError:
            break
    compute = report.compute
    return {"value": None if report.value is None else round(float(report.value), 4), "proven": report.proven,
            "visits": values(report.visits, 0), "q": values(report.q, 4), "policy": values(report.policy, 5),
            "principal_variation": line, "top": top_actions(report, state),
            "compute": {"seconds": round(compute.seconds, 4), "amount": compute.amount, "unit": compute.unit}}


def top_actions(report: SearchReport, state: State, count: int = 8) -> list[dict[str, Any]]:
    """The ``count`` actions the search liked best (most visited, else most probable), with their figures."""
    ranking = report.visits if report.visits is not None and report.visits.sum() > 0 else report.policy
    if ranking is None:
        return []
    rows = []
    for action in np.argsort(-np.asarray(ranking), kind="stable")[:count]:
        if ranking[action] <= 0:
            break
        a = int(action)
        rows.append({"action": a, "move": state.format_move(state.index_to_move(a)),
                     "visits": None if report.visits is None else int(report.visits[a]),
                     "q": None if report.q is None or report.visits is None or report.visits[a] == 0
                     else round(float(report.q[a]), 4),
                     "policy": None if report.policy is None else round(float(report.policy[a]), 5)})
    return rows


def replay_actions(game: str, actions: tuple[int, ...], start: State | None = None, done: int = 0,
                   setup: Setup | None = None) -> State:
    """The state after ``actions`` from the start of ``game`` (with the stones of
    ``setup``), or from ``start``, which is the state after the first ``done`` of them."""
    state = start if start is not None else start_state(game, setup)
    for action in actions[done:]:
        state = state.apply_action(action)
    return state


class _Worker:
    """The child's side: engines by role, and the last position, kept between jobs."""

    def __init__(self) -> None:
        self.agents: dict[str, tuple[str, Agent]] = {}  # role -> (its spec, the engine)
        self.position: tuple[tuple[str, Setup | None], tuple[int, ...], State] | None = None

    def agent(self, job: EngineJob) -> Agent:
        """The engine of ``job.role``, built (and started) when its spec is new."""
        kept = self.agents.get(job.role)
        if kept is not None and kept[0] == job.spec:
            return kept[1]
        self.close(job.role)
        agent = engines.create_seeded(job.spec, job.seed, job.bot_limits or DEFAULT_LIMITS)
        self.agents[job.role] = (job.spec, agent)
        agent.start()
        return agent

    def state(self, job: EngineJob) -> State:
        """The job's position, made from the last one when the game has only moved on."""
        game = (job.game, job.setup)
        if self.position is not None:
            kept, actions, state = self.position
            if kept == game and job.actions[:len(actions)] == actions:
                state = replay_actions(job.game, job.actions, state, len(actions))
                self.position = (game, job.actions, state)
                return state
        state = replay_actions(job.game, job.actions, setup=job.setup)
        self.position = (game, job.actions, state)
        return state

    def prepare(self, job: EngineJob) -> tuple[Agent, State]:
        """The engine and the position of ``job``, ready to search (the start, before the time limit)."""
        state = self.state(job)
        factory = engines.EngineFactory(job.bot_limits) if job.bot_limits is not None else engines.ENGINES
        warm_up(factory, job.spec, state)  # the process's one-off costs kept out of the move's seconds
        agent = self.agent(job)
        agent.check_game(state)
        agent.set_time_limit(job.time_limit)
        return agent, state

    @staticmethod
    def search(agent: Agent, state: State) -> EngineAnswer:
        """The engine's move in ``state`` (the search, within the time limit)."""
        with collector_paused():  # a collection's pause between moves, not in this one's seconds
            move, _, report = agent.decide(state)
        action = None if move.is_resign else state.move_to_index(move)
        return EngineAnswer(action, report_data(report, state))

    def close(self, role: str | None = None) -> None:
        """Release the engines (or the one of ``role``)."""
        for name in [role] if role else list(self.agents):
            kept = self.agents.pop(name, None)
            if kept is not None:
                try:
                    kept[1].close()
                except Exception:  # one engine failing to close must not keep the others open
                    log.exception("closing %s", kept[1])


def serve(conn: Connection) -> None:
    """The child process: answer jobs until the pipe closes. Each job gets
    ``("started", None)`` once the engine is ready to search, then ``("ok",
    answer)``; a failure, at either step, ``("error", one line)`` (a user's
    mistake as its message; an engine's bug with its type, its traceback on the
    child's stderr), and a bot's fault ``("fault", (how, one line))``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's: it closes this pipe
    worker = _Worker()
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                break
            try:
                agent, state = worker.prepare(job)
                conn.send(("started", None))
                conn.send(("ok", worker.search(agent, state)))
            except BotFault as fault:
                conn.send(("fault", (fault.fault, str(fault))))
            except DlgoError as err:
                conn.send(("error", str(err)))
            except Exception as err:
                traceback.print_exc()
                conn.send(("error", f"the engine failed: {type(err).__name__}: {err}"))
    finally:
        worker.close()


def engine_context() -> ForkServerContext | SpawnContext:
    """How engine processes start: forked from a fork server that imported :data:`PRELOAD`
    (``spawn`` where the platform has no fork server)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD + main_imports())
    return context


def main_imports() -> list[str]:
    """The modules the server's main script bound (a console script's entry point: ``dlgo.app.cli``
    for ``dlgo serve``). Each new process runs that script again, as multiprocessing does (before
    Python 3.13.8 the fork server never preloads ``__main__`` itself: CPython issue 126631); with
    them preloaded, that costs it nothing."""
    main = sys.modules.get("__main__")
    if main is None:
        return []
    names = {value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
             for key, value in vars(main).items() if not key.startswith("__")}
    spec = getattr(main, "__spec__", None)
    if spec is not None:  # run with -m: that module is what runs again
        names.add(spec.name)
    return sorted(name for name in names if isinstance(name, str) and name != "builtins"
                  and not name.endswith("__main__"))


def default_max_engines() -> int:
    """The default cap on engine processes: one per :data:`ENGINE_MEMORY` of the machine's memory, 2 to 64."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows), or no such name
        return 8
    return max(2, min(64, int(memory // ENGINE_MEMORY)))


class _Child(NamedTuple):
    """A live engine process and the server's end of its pipe."""

    process: BaseProcess
    conn: Connection


def reap(child: _Child) -> None:
    """Close ``child``'s pipe (an idle child then exits, closing its engines) and make sure it is
    gone, killing it if need be. Blocks: :meth:`EngineProcess.close` runs it in a thread."""
    child.conn.close()
    child.process.join(EXIT_SECONDS)
    if child.process.is_alive():
        child.process.kill()
        child.process.join(JOIN_SECONDS)


class EngineProcess:
    """The server's side of one session's engine process (started on the first job).

    :meth:`ask` holds a conversation with it, one at a time, from a thread;
    :meth:`close` stops it from anywhere, the event loop included, without
    waiting (a busy :meth:`ask` then fails with :class:`EngineClosed`)."""

    def __init__(self, grace: float = GRACE_SECONDS, *, start_seconds: float = START_SECONDS,
                 pool: EnginePool | None = None):
        self.grace = grace
        self.start_seconds = start_seconds
        self.pool = pool
        self.last_used = time.monotonic()
        self._child: _Child | None = None
        self._closed = False
        self._lock = threading.Lock()   # held by the one conversation (or stop) at a time
        self._guard = threading.Lock()  # guards _child and _closed; never held while waiting

    @property
    def alive(self) -> bool:
        child = self._child
        return child is not None and child.process.is_alive()

    @property
    def pid(self) -> int | None:
        """The process's id while there is one."""
        child = self._child
        return None if child is None else child.process.pid

    @property
    def busy(self) -> bool:
        """A conversation with the process is under way."""
        return self._lock.locked()

    def ask(self, job: EngineJob) -> EngineAnswer:
        """The engine's answer to ``job`` (blocks: call it from a thread). :class:`EngineFailure`
        if the engine failed (a bot's fault: a :class:`~dlgo.arena.bot_host.BotFault`);
        :class:`EngineTimeout`, the process killed, if it took longer than ``start_seconds`` to
        start or than ``job.time_limit`` plus the grace to search; :class:`EngineClosed` if
        :meth:`close` came first; :class:`EnginesBusy` if the pool had no place for a new
        process within ``job.time_limit``."""
        try:
            with self._lock:
                child = self._child
                if child is None or not child.process.is_alive():
                    if child is not None:  # it died between questions
                        self._discard(child)
                    child = self._start(job.time_limit)
                return self._converse(child, job)
        finally:
            self.last_used = time.monotonic()
            if self.pool is not None:
                self.pool.notify()  # idle now: a process waiting for a place may take this one's

    def _converse(self, child: _Child, job: EngineJob) -> EngineAnswer:
        """Send ``job``; wait for ``started`` up to the start's deadline, then for the answer up to the search's."""
        search = job.time_limit + self.grace
        try:
            child.conn.send(job)
            message = self._receive(child, self.start_seconds)
            if message is None:
                raise EngineTimeout(f"{job.shown} did not start within {self.start_seconds:g} s and was stopped; "
                                    "try a smaller network or game")
            if message[0] == "started":
                message = self._receive(child, search)
                if message is None:
                    raise EngineTimeout(f"{job.shown} did not answer within {search:g} s of search and was "
                                        "stopped; try a smaller budget")
        except (EOFError, OSError):
            self._discard(child)
            if self._closed:
                raise EngineClosed(CLOSED) from None
            raise EngineFailure(f"{job.shown} stopped unexpectedly; its next move starts it again") from None
        status, payload = message
        if status == "fault":
            raise BotFault(*payload)
        if status != "ok":
            raise EngineFailure(str(payload))
        answer: EngineAnswer = payload
        return answer

    def _receive(self, child: _Child, seconds: float) -> tuple[str, Any] | None:
        """The child's next message; None past ``seconds``, the child stopped."""
        if child.conn.poll(seconds):
            message: tuple[str, Any] = child.conn.recv()
            return message
        self._discard(child)
        return None

    def _start(self, patience: float) -> _Child:
        """A new process, in a place of the pool's (waiting up to ``patience`` seconds for one)."""
        if self._closed:
            raise EngineClosed(CLOSED)
        if self.pool is not None:
            self.pool.reserve(self, patience)
        try:
            context = engine_context()
            parent, end = context.Pipe()
            process = context.Process(target=serve, args=(end,), daemon=True, name="dlgo-engine")
            process.start()
            end.close()
        except BaseException:
            if self.pool is not None:
                self.pool.release(self)
            raise
        child = _Child(process, parent)
        with self._guard:
            closed = self._closed
            if not closed:
                self._child = child
        if closed:  # close() came while the process started
            self._discard(child)
            raise EngineClosed(CLOSED)
        return child

    def _discard(self, child: _Child) -> None:
        """Forget ``child``, give its place in the pool back, and stop it in a thread."""
        with self._guard:
            if self._child is child:
                self._child = None
        if self.pool is not None:
            self.pool.release(self)
        threading.Thread(target=reap, args=(child,), name="dlgo-reap", daemon=True).start()

    def retire(self) -> bool:
        """Stop the process if it is idle (the pool taking its place back); False if it is busy."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            child = self._child
            if child is not None:
                self._discard(child)
            elif self.pool is not None:
                self.pool.release(self)
            return True
        finally:
            self._lock.release()

    def close(self) -> None:
        """Stop the process, whatever it is doing, without waiting: an idle one is told to exit, a busy
        one is killed (its :meth:`ask` fails with :class:`EngineClosed`). Later questions are refused."""
        with self._guard:
            self._closed = True
            child = self._child
        if child is not None and not self.retire():
            child.process.kill()  # the asking thread sees the pipe close, and reaps it


class EnginePool:
    """The engine processes of a server, at most ``max_engines`` alive at once
    (default :func:`default_max_engines`). A new one beyond the cap stops the
    one left idle longest; when every one is thinking, it waits for one to finish,
    and past its patience it is refused (:class:`EnginesBusy`)."""

    def __init__(self, max_engines: int | None = None, *, start_seconds: float = START_SECONDS,
                 grace: float = GRACE_SECONDS):
        self.max_engines = max_engines or default_max_engines()
        self.start_seconds = start_seconds
        self.grace = grace
        self._alive: dict[int, EngineProcess] = {}  # by id(): the processes holding a place
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a place freed, or a process idle

    def process(self) -> EngineProcess:
        """A session's engine process, started on its first question, in a place of this pool."""
        return EngineProcess(self.grace, start_seconds=self.start_seconds, pool=self)

    def __len__(self) -> int:
        return len(self._alive)

    def check_room(self) -> None:
        """:class:`EnginesBusy` if every place is taken by a process that is thinking."""
        with self._lock:
            if len(self._alive) >= self.max_engines and all(e.busy for e in self._alive.values()):
                raise self._refusal()

    def _refusal(self) -> EnginesBusy:
        return EnginesBusy(f"all {self.max_engines} engine processes this server runs at once are thinking; "
                           "try again in a moment")

    def reserve(self, engine: EngineProcess, patience: float = 0.0) -> None:
        """A place for ``engine``'s new process: a free one, or the place of the process left idle
        longest (which is stopped); waiting up to ``patience`` seconds while every one is thinking,
        then :class:`EnginesBusy`."""
        deadline = time.monotonic() + patience
        while True:
            with self._lock:
                if len(self._alive) < self.max_engines or id(engine) in self._alive:
                    self._alive[id(engine)] = engine
                    return
                idle = sorted((e for e in self._alive.values() if not e.busy), key=lambda e: e.last_used)
                if not idle:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise self._refusal()
                    self._changed.wait(left)
                    continue
            any(victim.retire() for victim in idle)  # the first still idle gives its place back

    def release(self, engine: EngineProcess) -> None:
        """``engine``'s process is gone: its place is free."""
        with self._lock:
            self._alive.pop(id(engine), None)
            self._changed.notify_all()

    def notify(self) -> None:
        """A process has finished thinking: one waiting for a place may take its place."""
        with self._lock:
            self._changed.notify_all()

    @staticmethod
    def warm() -> None:
        """Start the fork server and wait for its imports (blocks: a second or so, once), so that the
        first engine move does not wait for them."""
        context = engine_context()
        if context.get_start_method() == "forkserver":
            process = context.Process(target=time.sleep, args=(0,), name="dlgo-warm", daemon=True)
            process.start()
            process.join(START_SECONDS)
