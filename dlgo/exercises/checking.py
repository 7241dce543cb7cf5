"""The machinery of the exercises: a check, an exercise, running the checks on
a student's file and saying in one line where it failed."""
from __future__ import annotations

import importlib.util
import signal
import sys
import traceback
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

from dlgo.core.errors import DlgoError

#: seconds a check may run before it counts as stuck (an endless loop in the student's code)
CHECK_SECONDS = 60


class CheckFailed(Exception):
    """A check's verdict on the student's code: what it did, and what was expected."""


@dataclass
class Check:
    """One thing the student's code must do: ``run`` raises :class:`CheckFailed`
    (or an ``AssertionError``) when it does not; ``hint`` is shown on failure."""

    name: str
    run: Callable[[Any], None]
    hint: str


@dataclass
class Exercise:
    """One exercise: its skeleton file, its checks, the library's own answer to
    them, and, for an engine, a match against the library's."""

    number: int
    chapter: str  # the book's chapter(s): "3", "6-7"
    title: str
    file: str  # the skeleton's file name, and the student's
    step: str  # when in the course to do it
    checks: list[Check]
    reference: Callable[[], Any]  # the library's implementation, with the skeleton's names
    play: Callable[[Any, int, int], str] | None = None  # (module, games, seed) -> a report
    writes: list[str] = field(default_factory=list)  # what the student writes, for the list

    def skeleton(self) -> str:
        """The skeleton's text."""
        return resources.files("dlgo.exercises.skeletons").joinpath(self.file).read_text()


@dataclass
class Result:
    """One check's outcome: ``passed``, or ``message`` saying what went wrong."""

    check: Check
    passed: bool
    message: str = ""


def load_student_file(path: str | Path) -> ModuleType:
    """The student's file as a module; a :class:`DlgoError` in one line if it is
    missing or cannot even be imported (a syntax error, an import that fails)."""
    path = Path(path)
    if not path.is_file():
        raise DlgoError(f"no file {path}: start the exercise with `dlgo exercise start N`, or name your file")
    spec = importlib.util.spec_from_file_location(f"student_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise DlgoError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and pickling look their module up there
    try:
        spec.loader.exec_module(module)
    except SyntaxError as err:
        del sys.modules[spec.name]
        raise DlgoError(f"{path}, line {err.lineno}: syntax error: {err.msg}") from None
    except Exception as err:  # the student's module-level code: say where it failed
        del sys.modules[spec.name]
        raise DlgoError(f"{path} cannot be imported: {_where(err, path)}") from None
    return module


def _where(err: BaseException, path: Path | None) -> str:
    """``ExcType: message (line N of FILE, in function)``: the student's last
    frame, where the error came from; the library's frames are left out."""
    frames = traceback.extract_tb(err.__traceback__)
    own = [f for f in frames if path is None or Path(f.filename).resolve() == path.resolve()] or frames[-1:]
    where = f" (line {own[-1].lineno} of {Path(own[-1].filename).name}, in {own[-1].name})" if own else ""
    return f"{type(err).__name__}: {err}{where}"


class _Stuck(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Stuck


def run_checks(exercise: Exercise, module: Any, path: Path | None = None) -> Iterator[Result]:
    """Each check's :class:`Result`, in order, as it finishes."""
    timed = hasattr(signal, "SIGALRM") and sys.platform != "win32"
    for check in exercise.checks:
        previous = signal.signal(signal.SIGALRM, _alarm) if timed else None
        if timed:
            signal.alarm(CHECK_SECONDS)
        try:
            check.run(module)
            yield Result(check, True)
        except NotImplementedError:
            yield Result(check, False, "not written yet (a function still raises NotImplementedError)")
        except (CheckFailed, AssertionError) as err:
            yield Result(check, False, str(err) or "the check's condition does not hold")
        except _Stuck:
            yield Result(check, False, f"still running after {CHECK_SECONDS} s: an endless loop?")
        except RecursionError:
            yield Result(check, False, "RecursionError: a recursion without an end (a base case missing?)")
        except Exception as err:  # the student's code crashed: where, in one line
            yield Result(check, False, _where(err, path))
        finally:
            if timed:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, previous)


def expect(condition: bool, message: str) -> None:
    """Fail the check with ``message`` unless ``condition`` holds."""
    if not condition:
        raise CheckFailed(message)


__all__ = ["Check", "CheckFailed", "Exercise", "Result", "expect", "load_student_file", "run_checks"]
