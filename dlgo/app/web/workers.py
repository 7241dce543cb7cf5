"""Engines for the web server, each game session's in a process of its own.

A browser may ask for any engine of the registry, some of them slow (plain
minimax on Connect Four never ends), while the server must answer every other
page at once. So a session's engines run in a child process, started with
``spawn`` (nothing of the server, TensorFlow included, is inherited). The child
keeps its engines between moves (search trees, loaded networks) and is given
the game as its spec and the actions played so far. The server waits for an
answer with a deadline: each engine is told the per-move time limit (searching
engines stop there on their own) and a process that is still busy a few
seconds later is killed. The page says why; the session's next engine move
starts a fresh process.
"""
from __future__ import annotations

import logging
import multiprocessing
import threading
import traceback
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

import numpy as np

import engines
from dlgo.core.agent import Agent, SearchReport
from dlgo.core.errors import DlgoError
from dlgo.core.game import State
from dlgo.games import new_game

log = logging.getLogger(__name__)

#: seconds a killed or finished process is given to exit
JOIN_SECONDS = 2.0
#: seconds added to the time limit before a busy process is killed (start-up, loading a network)
GRACE_SECONDS = 20.0


class EngineJob(NamedTuple):
    """One question to a session's engine process."""

    role: str                  # which of the session's engines: "black", "white" or "hint"
    spec: str                  # the engine, checked by :func:`dlgo.app.web.safety.browser_engine`
    seed: int | None
    game: str                  # the game's spec
    actions: tuple[int, ...]   # the actions played from the start
    time_limit: float          # seconds the engine may think


class EngineAnswer(NamedTuple):
    """An engine's move (``action`` None: it resigned) and its search report, as plain data."""

    action: int | None
    report: dict[str, Any]


class EngineFailure(DlgoError):
    """The engine could not give a move: it failed, or its process stopped."""


class EngineTimeout(EngineFailure):
    """The engine ran past the time limit and the grace, and was stopped."""


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


def replay_actions(game: str, actions: tuple[int, ...], start: State | None = None, done: int = 0) -> State:
    """The state after ``actions`` from the start of ``game`` (or from ``start``,
    which is the state after the first ``done`` of them)."""
    state = start if start is not None else new_game(game)
    for action in actions[done:]:
        state = state.apply_action(action)
    return state


class _Worker:
    """The child's side: engines by role, and the last position, kept between jobs."""

    def __init__(self) -> None:
        self.agents: dict[str, tuple[str, Agent]] = {}  # role -> (its spec, the engine)
        self.position: tuple[str, tuple[int, ...], State] | None = None

    def agent(self, job: EngineJob) -> Agent:
        """The engine of ``job.role``, built (and started) when its spec is new."""
        kept = self.agents.get(job.role)
        if kept is not None and kept[0] == job.spec:
            return kept[1]
        self.close(job.role)
        agent = engines.create_seeded(job.spec, job.seed)
        self.agents[job.role] = (job.spec, agent)
        agent.start()
        return agent

    def state(self, job: EngineJob) -> State:
        """The job's position, made from the last one when the game has only moved on."""
        if self.position is not None:
            game, actions, state = self.position
            if game == job.game and job.actions[:len(actions)] == actions:
                state = replay_actions(job.game, job.actions, state, len(actions))
                self.position = (job.game, job.actions, state)
                return state
        state = replay_actions(job.game, job.actions)
        self.position = (job.game, job.actions, state)
        return state

    def answer(self, job: EngineJob) -> EngineAnswer:
        state = self.state(job)
        agent = self.agent(job)
        agent.check_game(state)
        agent.set_time_limit(job.time_limit)
        move = agent.select_move(state)
        action = None if move.is_resign else state.move_to_index(move)
        return EngineAnswer(action, report_data(agent.last_report, state))

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
    """The child process: answer jobs until the pipe closes. Every failure is
    sent back as one line (a user's mistake as its message; an engine's bug with
    its type, its traceback on the child's stderr)."""
    worker = _Worker()
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):
                break
            try:
                conn.send(("ok", worker.answer(job)))
            except DlgoError as err:
                conn.send(("error", str(err)))
            except Exception as err:
                traceback.print_exc()
                conn.send(("error", f"the engine failed: {type(err).__name__}: {err}"))
    finally:
        worker.close()


class EngineProcess:
    """The server's side of one session's engine process (started on the first job)."""

    def __init__(self, grace: float = GRACE_SECONDS):
        self.grace = grace
        self._process: Any = None
        self._conn: Connection | None = None
        self._lock = threading.Lock()

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def ask(self, job: EngineJob) -> EngineAnswer:
        """The engine's answer to ``job`` (blocks: call it from a thread);
        :class:`EngineFailure` if the engine failed or ran past ``job.time_limit``
        plus the grace, in which case the process is killed."""
        with self._lock:
            if not self.alive:
                self._start()
            assert self._conn is not None
            try:
                self._conn.send(job)
                ready = self._conn.poll(job.time_limit + self.grace)
                if ready:
                    status, payload = self._conn.recv()
            except (EOFError, OSError, BrokenPipeError):
                self._stop()
                raise EngineFailure(f"{job.spec} stopped unexpectedly; its next move starts it again") from None
            if not ready:
                self._stop()
                raise EngineTimeout(f"{job.spec} did not answer within {job.time_limit + self.grace:g} s and was "
                                    "stopped; try a smaller budget")
            if status != "ok":
                raise EngineFailure(str(payload))
            answer: EngineAnswer = payload
            return answer

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        process = context.Process(target=serve, args=(child,), daemon=True, name="dlgo-engine")
        process.start()
        child.close()
        self._process, self._conn = process, parent

    def _stop(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            process.join(0.2)
            if process.is_alive():
                process.kill()
            process.join(JOIN_SECONDS)

    def close(self) -> None:
        """Stop the process, whatever it is doing (a busy :meth:`ask` then fails)."""
        self._stop()
