"""Exercises: the course's build-it-yourself half.

Each exercise is a chapter's idea to write by hand: a Go board with strings and
Zobrist hashing (chapter 3), minimax and alpha-beta, MCTS (chapter 4),
backpropagation (chapter 5), an encoder and a training loop (chapters 6-7),
returns, a policy-gradient loss and a replay buffer (chapters 9-12), PUCT and
self-play targets (chapters 13-14). A student copies the skeleton
(``dlgo exercise start N``), fills in the functions that raise
``NotImplementedError``, and runs the checks (``dlgo exercise check N``): each
says whether it passes and, if not, what went wrong and a first hint, a nudge;
``dlgo exercise hint N --level K`` gives the next tiers, the last one the
formula or the code. Where the
exercise is an engine, ``dlgo exercise play N`` puts it in a small match against
the library's own.

The checks pass on the library's own implementation (``--reference``) and fail
on the untouched skeleton; ``make test`` holds both. The machinery is in
:mod:`dlgo.exercises.checking` (run in a worker with a time limit per check by
:mod:`dlgo.exercises.grading`), each exercise's checks in a module named as its skeleton
(``dlgo/exercises/ex3_mcts.py`` checks ``skeletons/ex3_mcts.py``).
"""
from __future__ import annotations

from dlgo.core.errors import DlgoError
from dlgo.exercises import (ex1_go_board, ex2_minimax, ex3_mcts, ex4_backprop, ex5_encoder_training, ex6_experience,
                            ex7_puct, ex8_gumbel)
from dlgo.exercises.checking import (Check, CheckFailed, Exercise, Result, expect, first_failure,
                                     load_student_file, run_checks)

#: every exercise, in course order
EXERCISES: list[Exercise] = [module.EXERCISE for module in (ex1_go_board, ex2_minimax, ex3_mcts, ex4_backprop,
                                                            ex5_encoder_training, ex6_experience, ex7_puct,
                                                            ex8_gumbel)]


def all_exercises() -> list[Exercise]:
    """Every exercise, in course order."""
    return list(EXERCISES)


def get_exercise(number: int) -> Exercise:
    """Exercise ``number``; a :class:`DlgoError` listing the numbers if there is none."""
    for exercise in EXERCISES:
        if exercise.number == number:
            return exercise
    raise DlgoError(f"no exercise {number}; the exercises are 1-{len(EXERCISES)} (dlgo exercise list)")


__all__ = ["Check", "CheckFailed", "EXERCISES", "Exercise", "Result", "all_exercises", "expect", "first_failure",
           "get_exercise", "load_student_file", "run_checks"]
