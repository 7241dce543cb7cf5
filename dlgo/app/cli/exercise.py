"""``dlgo exercise``: list the exercises, start one, check it, play it."""
from __future__ import annotations

import argparse
from pathlib import Path

from dlgo.core.errors import DlgoError
from dlgo.exercises import Exercise, all_exercises, get_exercise, load_student_file, run_checks

#: where ``start`` puts the skeletons and ``check`` looks for them
FOLDER = "exercises"


def student_path(exercise: Exercise, file: str | None) -> Path:
    return Path(file) if file else Path(FOLDER) / exercise.file


def cmd_list(args: argparse.Namespace) -> int:
    print(f"{'':>3}  {'chapter':<8} {'exercise':<55} when")
    for exercise in all_exercises():
        print(f"{exercise.number:>3}  {exercise.chapter:<8} {exercise.title:<55} {exercise.step}")
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
    if args.reference:
        return exercise.reference(), None, "the library's own implementation"
    path = student_path(exercise, args.file)
    return load_student_file(path), path, str(path)


def cmd_check(args: argparse.Namespace) -> int:
    exercise = get_exercise(args.number)
    module, path, label = _module(exercise, args)
    print(f"exercise {exercise.number}: {exercise.title}, checking {label}")
    passed = 0
    for result in run_checks(exercise, module, path):
        if result.passed:
            passed += 1
            print(f"  pass  {result.check.name}")
        else:
            print(f"  FAIL  {result.check.name}: {result.message}")
            if not result.message.startswith("not written yet"):
                print(f"        hint: {result.check.hint}")
    total = len(exercise.checks)
    print(f"{passed} of {total} checks pass" + ("" if passed < total else
          (f"; now play it: dlgo exercise play {exercise.number}" if exercise.play else ": done")))
    return 0 if passed == total else 1


def cmd_play(args: argparse.Namespace) -> int:
    exercise = get_exercise(args.number)
    if exercise.play is None:
        playable = ", ".join(str(e.number) for e in all_exercises() if e.play)
        raise DlgoError(f"exercise {exercise.number} is not an engine; the ones that play are {playable}")
    module, _, label = _module(exercise, args)
    print(f"exercise {exercise.number}: {label}")
    print(exercise.play(module, args.games, args.seed))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """``dlgo exercise ...`` on the command line's subcommands."""
    p = sub.add_parser("exercise", help="the course's exercises: list, start, check, play")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    q = actions.add_parser("list", help="every exercise, its chapter and when to do it")
    q.set_defaults(func=cmd_list)
    q = actions.add_parser("start", help=f"copy an exercise's skeleton to {FOLDER}/ (never over your file)")
    q.add_argument("number", type=int, help="the exercise (dlgo exercise list)")
    q.add_argument("--folder", default=FOLDER, help=f"where to put it (default {FOLDER})")
    q.set_defaults(func=cmd_start)
    for name, func, helptext in (("check", cmd_check, "run an exercise's checks on your file"),
                                 ("play", cmd_play, "your engine in a small match against the library's")):
        q = actions.add_parser(name, help=helptext)
        q.add_argument("number", type=int, help="the exercise (dlgo exercise list)")
        q.add_argument("file", nargs="?", default=None, help=f"your file (default {FOLDER}/<its skeleton's name>)")
        q.add_argument("--reference", action="store_true", help="the library's own implementation instead")
        if name == "play":
            q.add_argument("--games", type=int, default=10, help="games (default 10)")
            q.add_argument("--seed", type=int, default=0, help="seed (default 0)")
        q.set_defaults(func=func)
