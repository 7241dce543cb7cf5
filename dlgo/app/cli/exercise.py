"""``dlgo exercise``: list the exercises, start one, check it, ask for a hint, play it."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Generator

from dlgo.core.arguments import count, seconds
from dlgo.core.errors import DlgoError
from dlgo.exercises import Exercise, Result, all_exercises, first_failure, get_exercise, load_student_file
from dlgo.exercises.checking import check_student_file
from dlgo.exercises.grading import CHECK_SECONDS, check_in_worker

#: where ``start`` puts the skeletons and ``check`` looks for them
FOLDER = "exercises"


def student_path(exercise: Exercise, file: str | None) -> Path:
    return Path(file) if file else Path(FOLDER) / exercise.file


def cmd_list(args: argparse.Namespace) -> int:
    width = max(len(exercise.title) for exercise in all_exercises())
    print(f"{'':>3}  {'chapter':<8} {'exercise':<{width}}  when")
    for exercise in all_exercises():
        print(f"{exercise.number:>3}  {exercise.chapter:<8} {exercise.title:<{width}}  {exercise.step}")
        print(f"{'':>14}write: {', '.join(exercise.writes)}{'  (play: yes)' if exercise.play else ''}")
    print(f"\nstart one: dlgo exercise start N  (copies its skeleton to {FOLDER}/)")
    return 0


def cmd_start(args: argparse.Namespace) -> int:
    exercise = get_exercise(args.number)
    path = Path(args.folder) / exercise.file
    if path.exists():
        raise DlgoError(f"{path} already exists: check it with `dlgo exercise check {exercise.number}`, or move it "
                        "away to start over")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x") as handle:  # never over a file written in the meantime
        handle.write(exercise.skeleton())
    print(f"exercise {exercise.number} (chapter {exercise.chapter}): {exercise.title}")
    print(f"  your file: {path}  (write {', '.join(exercise.writes)}; the docstrings say what each does)")
    print(f"  check it:  dlgo exercise check {exercise.number}" +
          (f" {path}" if args.folder != FOLDER else ""))
    return 0


def _module(exercise: Exercise, args: argparse.Namespace) -> tuple[object, Path | None, str]:
    if getattr(args, "reference", False):
        return exercise.reference(), None, "the library's own implementation"
    path = student_path(exercise, args.file)
    return load_student_file(path, exercise.number), path, str(path)


def _checked(exercise: Exercise, args: argparse.Namespace) -> tuple[Generator[Result, None, None], str]:
    """The checks' results on the file ``args`` names (or the library's own), run in a
    worker that stops a check after ``--time-limit`` seconds; and what they check, in words."""
    path = None if getattr(args, "reference", False) else student_path(exercise, args.file)
    if path is not None:
        check_student_file(path, exercise.number)  # at once, before a worker starts
    label = "the library's own implementation" if path is None else str(path)
    return check_in_worker(exercise, path, args.time_limit), label


def _command(exercise: Exercise, args: argparse.Namespace, action: str) -> str:
    """The ``dlgo exercise`` command that does ``action`` on what ``args`` name: the
    student's file (the default one, or the one given), or the library's own."""
    target = " --reference" if getattr(args, "reference", False) else f" {args.file}" if args.file else ""
    return f"dlgo exercise {action} {exercise.number}{target}"


def _hint_command(exercise: Exercise, args: argparse.Namespace, level: int) -> str:
    return f"{_command(exercise, args, 'hint')} --level {level}"


def cmd_check(args: argparse.Namespace) -> int:
    exercise = get_exercise(args.number)
    results, label = _checked(exercise, args)
    print(f"exercise {exercise.number}: {exercise.title}, checking {label}", flush=True)
    passed, first_written_failure = 0, None
    for result in results:
        if result.passed:
            passed += 1
            print(f"  pass  {result.check.name}")
        else:
            print(f"  FAIL  {result.check.name}: {result.message}")
            if result.written:
                print(f"        hint: {result.hint(1)}")
                first_written_failure = first_written_failure or result
    total = len(exercise.checks)
    print(f"{passed} of {total} checks pass" + ("" if passed < total else
          (f"; now play it: {_command(exercise, args, 'play')}" if exercise.play else ": done")))
    if first_written_failure is not None and len(first_written_failure.hints) > 1 and not args.reference:
        print(f"more help with the first failing check: {_hint_command(exercise, args, 2)}")
    return 0 if passed == total else 1


def _print_hints(exercise: Exercise, args: argparse.Namespace, failed: Result) -> None:
    """The failing check, what went wrong, and its hints up to ``args.level``."""
    tiers = len(failed.hints)
    level = max(1, min(args.level, tiers))
    print(f"exercise {exercise.number}, first failing check: {failed.check.name}")
    print(f"  {failed.message}")
    for k in range(1, level + 1):
        print(f"  hint {k} of {tiers}: {failed.hint(k)}")
    if level < tiers:
        print(f"more: {_hint_command(exercise, args, level + 1)}")
    elif args.level > tiers:
        print(f"(this check has {tiers} hints; that was the last)")


def cmd_hint(args: argparse.Namespace) -> int:
    exercise = get_exercise(args.number)
    results, label = _checked(exercise, args)
    failed = first_failure(results)
    if failed is None:
        print(f"exercise {exercise.number}: every check passes on {label}; no hint needed")
        return 0
    _print_hints(exercise, args, failed)
    return 1


def cmd_play(args: argparse.Namespace) -> int:
    exercise = get_exercise(args.number)
    if exercise.play is None:
        playable = ", ".join(str(e.number) for e in all_exercises() if e.play)
        raise DlgoError(f"exercise {exercise.number} is not an engine; the ones that play are {playable}")
    games = args.games if args.games is not None else exercise.games
    module, _, label = _module(exercise, args)
    print(f"exercise {exercise.number}: {label}")
    print(exercise.play(module, games, args.seed, "the reference" if args.reference else "your engine"))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """``dlgo exercise ...`` on the command line's subcommands."""
    p = sub.add_parser("exercise", help="the course's exercises: list, start, check, hint, play")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    q = actions.add_parser("list", help="every exercise, its chapter and when to do it")
    q.set_defaults(func=cmd_list)
    q = actions.add_parser("start", help=f"copy an exercise's skeleton to {FOLDER}/ (never over your file)")
    q.add_argument("number", type=int, help="the exercise (dlgo exercise list)")
    q.add_argument("--folder", default=FOLDER, help=f"where to put it (default {FOLDER})")
    q.set_defaults(func=cmd_start)
    for name, func, helptext in (("check", cmd_check, "run an exercise's checks on your file"),
                                 ("hint", cmd_hint, "the hints for your file's first failing check, a tier at a time"),
                                 ("play", cmd_play, "your engine in a small match against the library's")):
        q = actions.add_parser(name, help=helptext)
        q.add_argument("number", type=int, help="the exercise (dlgo exercise list)")
        q.add_argument("file", nargs="?", default=None, help=f"your file (default {FOLDER}/<its skeleton's name>)")
        if name in ("check", "hint"):
            q.add_argument("--time-limit", type=seconds(), default=None, metavar="SECONDS",
                           help=f"seconds each check may run before it counts as stuck (default {CHECK_SECONDS:g})")
        if name == "hint":
            q.add_argument("--level", type=int, default=1,
                           help="how far to go: 1 a nudge (default), then more, the last the formula or the code")
        else:
            q.add_argument("--reference", action="store_true", help="the library's own implementation instead")
        if name == "play":
            q.add_argument("--games", type=count("games"), default=None,
                           help="games (default: 10 for exercise 2; 40 of each game for exercise 3)")
            q.add_argument("--seed", type=int, default=0, help="seed (default 0)")
        q.set_defaults(func=func)
