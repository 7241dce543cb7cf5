"""Checks that cannot hang: ``dlgo exercise check`` and ``hint`` run a student's
file in a worker process (:class:`~dlgo.arena.workers.StoppableWorker`), so code
that never returns (an endless loop, even one that swallows every exception,
or one at the top of the file) is stopped after a time limit per check; that
check fails, "timed out", and the next ones run in a fresh worker."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Generator

from dlgo.arena.workers import StoppableWorker, WorkerDied
from dlgo.core.errors import DlgoError
from dlgo.exercises import get_exercise
from dlgo.exercises.checking import Exercise, Result, load_student_file, run_check

#: seconds a check (or the student's file, as it is imported) may run before it counts as stuck
CHECK_SECONDS = 60.0


def check_in_worker(exercise: Exercise, path: Path | None,
                    seconds: float | None = None) -> Generator[Result, None, None]:
    """:func:`~dlgo.exercises.checking.run_checks` on the student's file at
    ``path`` (None: the library's own implementation), in a worker process
    stopped when a check runs past ``seconds`` (default :data:`CHECK_SECONDS`):
    that check fails, ``check N timed out after S s``, and the next ones run in a
    fresh worker. A :class:`DlgoError` if the file cannot be imported, or its
    import runs past ``seconds``."""
    limit = CHECK_SECONDS if seconds is None else seconds
    checks, index = exercise.checks, 0
    while index < len(checks):
        with StoppableWorker(_check_from, exercise.number, None if path is None else str(path), index) as worker:
            worker.receive()  # started: its own imports done (they have no limit)
            try:
                worker.receive(limit)  # the file imported
            except TimeoutError:
                raise DlgoError(f"{path} was still being imported after {limit:g} s: an endless loop outside "
                                "the functions?") from None
            while index < len(checks):
                check = checks[index]
                try:
                    passed, message, hints = worker.receive(limit)
                except (TimeoutError, WorkerDied) as stopped:
                    why = (f"timed out after {limit:g} s: an endless loop?" if isinstance(stopped, TimeoutError)
                           else f"ended the process that ran it ({stopped})")
                    yield Result(check, False, f"check {index + 1} {why}", check.hints)
                    index += 1
                    break  # the rest in a fresh worker
                yield Result(check, passed, message, hints)
                index += 1


def _check_from(send: Callable[[Any], None], number: int, path: str | None, start: int) -> None:
    """In :func:`check_in_worker`'s worker: the checks of exercise ``number`` from
    ``start`` on, each result sent as ``(passed, message, hints)``."""
    exercise = get_exercise(number)
    send("started")
    module = exercise.reference() if path is None else load_student_file(path, number)
    send("imported")
    for check in exercise.checks[start:]:
        result = run_check(check, module, None if path is None else Path(path))
        send((result.passed, result.message, result.hints))
