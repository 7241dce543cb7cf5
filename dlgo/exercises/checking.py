"""The machinery of the exercises: a check, an exercise, running the checks on
a student's file and saying in one line where it failed.

Hints come in tiers: the first is a nudge (where to look), the last is the
formula or the line of code; ``dlgo exercise check`` shows the first, and
``dlgo exercise hint N --level K`` the others. A check that recognises the
mistake it caught (a search that scores a draw as 0, say) raises
:class:`CheckFailed` with hints about that mistake, which replace the check's own.

``dlgo exercise`` runs the checks in a worker process
(:func:`dlgo.exercises.grading.check_in_worker`), so a student's code that never
returns (an endless loop, one that swallows every exception) is stopped after a
time limit per check, and the next checks go on."""
from __future__ import annotations

import importlib.util
import sys
import traceback
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Generator, Sequence

from dlgo.core.errors import DlgoError


class CheckFailed(Exception):
    """A check's verdict on the student's code: what it did, and what was
    expected; ``hints`` (a nudge first), when the check knows the mistake."""

    def __init__(self, message: str, hints: Sequence[str] = ()):
        super().__init__(message)
        self.hints = list(hints)


@dataclass
class Check:
    """One thing the student's code must do: ``run`` raises :class:`CheckFailed`
    (or an ``AssertionError``) when it does not; ``hints`` are shown on failure,
    one tier at a time: a nudge first, the formula or the code last."""

    name: str
    run: Callable[[Any], None]
    hints: list[str]


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
    play: Callable[[Any, int, int, str], str] | None = None  # (module, games, seed, whose engine) -> a report
    writes: list[str] = field(default_factory=list)  # what the student writes, for the list
    games: int = 10  # the games ``dlgo exercise play`` plays unless told

    def skeleton(self) -> str:
        """The skeleton's text."""
        return resources.files("dlgo.exercises.skeletons").joinpath(self.file).read_text()


#: the message of a check whose code is still the skeleton's
NOT_WRITTEN = "not written yet"


@dataclass
class Result:
    """One check's outcome: ``passed``, or ``message`` saying what went wrong
    and ``hints`` about it (the failure's own, else the check's), a nudge first."""

    check: Check
    passed: bool
    message: str = ""
    hints: list[str] = field(default_factory=list)

    @property
    def written(self) -> bool:
        """False while the code the check runs still raises NotImplementedError."""
        return not self.message.startswith(NOT_WRITTEN)

    def hint(self, level: int) -> str:
        """The hint of tier ``level`` (1 = the nudge); the last one past the end."""
        return self.hints[max(1, min(level, len(self.hints))) - 1]


def check_student_file(path: str | Path, number: int | None = None) -> Path:
    """``path`` as a Path; a :class:`DlgoError` saying how to start exercise
    ``number`` if there is no such file."""
    path = Path(path)
    if not path.is_file():
        start = f"dlgo exercise start {number if number is not None else 'N'}"
        raise DlgoError(f"no file {path}: start the exercise with `{start}`, or name your file")
    return path


def load_student_file(path: str | Path, number: int | None = None) -> ModuleType:
    """The student's file (for exercise ``number``) as a module; a
    :class:`DlgoError` in one line if it is missing or cannot even be imported
    (a syntax error, an import that fails)."""
    path = check_student_file(path, number)
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


def run_checks(exercise: Exercise, module: Any, path: Path | None = None) -> Generator[Result, None, None]:
    """Each check's :class:`Result`, in order, as it finishes, run here (no time
    limit: :func:`dlgo.exercises.grading.check_in_worker` has one)."""
    for check in exercise.checks:
        yield run_check(check, module, path)


def run_check(check: Check, module: Any, path: Path | None) -> Result:
    """One check's :class:`Result`: what went wrong, in one line, and the hints about it."""
    try:
        check.run(module)
        return Result(check, True)
    except NotImplementedError:
        message = f"{NOT_WRITTEN} (a function still raises NotImplementedError)"
    except CheckFailed as err:
        return Result(check, False, str(err) or "the check's condition does not hold", err.hints or check.hints)
    except AssertionError as err:
        message = str(err) or "the check's condition does not hold"
    except RecursionError:
        message = "RecursionError: a recursion without an end (a base case missing?)"
    except Exception as err:  # the student's code crashed: where, in one line
        message = _where(err, path)
    return Result(check, False, message, check.hints)


def first_failure(results: Generator[Result, None, None]) -> Result | None:
    """The first of the checks' ``results`` that fails (running no further: the
    generator is closed), or None when all pass."""
    try:
        return next((result for result in results if not result.passed), None)
    finally:
        results.close()


def expect(condition: bool, message: str, hints: Sequence[str] = ()) -> None:
    """Fail the check with ``message`` (and ``hints`` about this mistake, if
    given) unless ``condition`` holds."""
    if not condition:
        raise CheckFailed(message, hints)


__all__ = ["Check", "CheckFailed", "Exercise", "NOT_WRITTEN", "Result", "check_student_file", "expect",
           "first_failure", "load_student_file", "run_check", "run_checks"]
