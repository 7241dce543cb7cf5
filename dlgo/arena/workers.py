"""Worker processes that never outlive their run.

Tournaments, data generation and AlphaZero self-play run in a pool of "spawn"
worker processes (fresh interpreters: safe even when the parent already runs
TensorFlow). Two habits keep them tidy:

* **they die with their parent.** On Linux the kernel sends each worker SIGKILL
  when the process that started it dies (``PR_SET_PDEATHSIG``), however it dies,
  ``kill -9`` included; elsewhere, and as a second guard, a watchdog thread
  ends the worker when its parent is gone.
* **Ctrl-C is the parent's.** A terminal's Ctrl-C reaches the whole process
  group; workers ignore it from their first instruction (they are started with
  it ignored, which a new interpreter keeps), so only the parent reacts: it stops
  the pool (:func:`stop_pool`), keeps the games already finished and says so in
  one line, and no worker still starting prints a traceback.

A worker is one job on one core: TensorFlow, if a worker starts it, runs one
thread for its operations (``TF_NUM_INTRAOP_THREADS``, unless the environment
already says otherwise), so a network engine's calls do not take the core of
the game beside it.

Work that may never return (a student's code under check, an exact solve of
unknown length) runs in a :class:`StoppableWorker`: one such process that sends
its results one at a time and is killed the moment its caller stops waiting.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from multiprocessing.context import SpawnContext, SpawnProcess
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>

T = TypeVar("T")
R = TypeVar("R")


def die_with_parent(parent: int, death: signal.Signals = signal.SIGKILL,
                    end: Callable[[], None] = lambda: os._exit(1)) -> None:
    """Make this process end when its parent, process ``parent``, does (called in
    each worker, with the pid its parent passed it: a parent that died before
    this runs has already been replaced as the worker's parent): the kernel sends it
    ``death`` (a process that handles it, a bot's host, ends what it started too), and a
    watchdog calls ``end``."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, death, 0, 0, 0)
    watch_parent(parent, end)


def watch_parent(parent: int, end: Callable[[], None] = lambda: os._exit(1)) -> None:
    """Call ``end`` (default: end this process) within a second once its parent, process
    ``parent``, is gone: a watchdog thread. :func:`die_with_parent` adds the kernel's signal
    to it; a process started from a thread other than its parent's main one has only this
    (the kernel's signal comes when the thread that started it ends)."""
    if os.getppid() != parent:  # the parent died before the request took hold
        end()
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        end()
        os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


@contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ignore Ctrl-C in this process meanwhile (in the main thread only: no other
    may change a signal's handler), so that processes started now inherit it ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _WorkerProcess(SpawnProcess):
    """A fresh interpreter that ignores Ctrl-C from its start: Python installs its
    KeyboardInterrupt handler only where SIGINT has its default action, so one
    started with SIGINT ignored never raises it, not even while it imports."""

    def start(self) -> None:
        with sigint_ignored():
            super().start()


class _WorkerContext(SpawnContext):
    """The "spawn" start method, its processes started deaf to Ctrl-C."""

    Process = _WorkerProcess


def _start_worker(parent: int, initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]) -> None:
    die_with_parent(parent)
    os.environ.setdefault("TF_NUM_INTRAOP_THREADS", "1")  # read when TensorFlow starts, if it does
    os.environ.setdefault("TF_NUM_INTEROP_THREADS", "1")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's (already, unless started off the main thread)
    if initializer is not None:
        initializer(*initargs)


def worker_pool(workers: int, initializer: Callable[..., Any] | None = None,
                initargs: tuple[Any, ...] = ()) -> ProcessPoolExecutor:
    """A pool of ``workers`` fresh ("spawn") processes that die with this one and
    leave Ctrl-C to it; ``initializer(*initargs)`` runs in each as it starts."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=_WorkerContext(),
                               initializer=_start_worker, initargs=(os.getpid(), initializer, initargs))


def stop_pool(pool: ProcessPoolExecutor, futures: Iterable[Future] = ()) -> None:
    """Stop at once: cancel what has not started, end the workers mid-task (the
    results they would have sent are lost; finished ones were already kept)."""
    for future in futures:
        future.cancel()
    processes = list(getattr(pool, "_processes", {}).values())  # the executor has no public handle on them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)


def run_jobs(function: Callable[[T], R], jobs: Sequence[T], finished: Callable[[R], None],
             pool: ProcessPoolExecutor | None = None) -> None:
    """``finished(function(job))`` for every job, in the order the jobs end: in
    ``pool``'s workers, or one after another in this process without one. Any
    exception, Ctrl-C too, stops the pool at once (:func:`stop_pool`), so a pool
    left behind never waits for every job it was sent; what ``finished`` kept stays kept."""
    if pool is None:
        for job in jobs:
            finished(function(job))
        return
    futures: list[Future] = []
    try:  # submitting too
        futures.extend(pool.submit(function, job) for job in jobs)
        for future in as_completed(futures):
            finished(future.result())
    except BaseException:
        stop_pool(pool, futures)
        raise


class WorkerDied(RuntimeError):
    """A :class:`StoppableWorker` ended without sending what was waited for (it
    crashed, or its code ended the process)."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, as its cause here."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class StoppableWorker:
    """``target(send, *args)`` run in a fresh ("spawn") process that dies with
    this one and leaves Ctrl-C to it, each ``send(item)`` one item for
    :meth:`receive`; stopped (killed) as soon as a :meth:`receive` gives up
    waiting, or the ``with`` block ends. An exception ``target`` raises is raised
    again by :meth:`receive`, with the worker's traceback as its cause."""

    def __init__(self, target: Callable[..., None], *args: Any):
        context = multiprocessing.get_context("spawn")
        self._results, sender = context.Pipe(duplex=False)
        self.process = context.Process(target=_serve, args=(os.getpid(), sender, target, args), daemon=True)
        self.process.start()
        sender.close()  # the worker's end: once it is gone, waiting here ends at once

    def receive(self, seconds: float | None = None) -> Any:
        """The next item sent: a :class:`TimeoutError`, the worker stopped, if none
        comes within ``seconds`` (None: no limit); :class:`WorkerDied` if the worker
        ended first."""
        if not self._results.poll(seconds):
            self.stop()
            raise TimeoutError(f"no answer within {seconds:g} s")
        try:
            kind, value, trace = self._results.recv()
        except EOFError:
            self.process.join(timeout=5)
            raise WorkerDied(f"the worker process ended (exit code {self.process.exitcode})") from None
        if kind == "raised":
            raise value from RemoteTraceback(trace)
        return value

    def stop(self) -> None:
        """End the worker now, whatever it is doing."""
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=5)
            if self.process.is_alive():
                self.process.kill()
                self.process.join()
        self._results.close()

    def __enter__(self) -> "StoppableWorker":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()


def _serve(parent: int, results: Connection, target: Callable[..., None], args: tuple[Any, ...]) -> None:
    """A :class:`StoppableWorker`'s process: ``target(send, *args)``, and what it raised, sent back."""
    _start_worker(parent, None, ())
    try:
        target(lambda item: results.send(("item", item, "")), *args)
    except BaseException as error:  # sent back to be raised there; a copy if it does not pickle
        trace = traceback.format_exc()
        try:
            results.send(("raised", error, trace))
        except Exception:
            results.send(("raised", RuntimeError(f"{type(error).__name__}: {error}"), trace))
    finally:
        results.close()
