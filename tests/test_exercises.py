"""The exercises: their checks pass on the library's own implementation and on a
student's answer written the book's way (tests/exercise_solutions/), fail on
the untouched skeletons, and catch the usual mistakes with the right check."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import dlgo.exercises.checking
from dlgo.app.cli import main
from dlgo.exercises import all_exercises, get_exercise, load_student_file, run_checks

SOLUTIONS = Path(__file__).parent / "exercise_solutions"


def outcomes(exercise, module, path=None):
    return {r.check.name: (r.passed, r.message) for r in run_checks(exercise, module, path)}


@pytest.mark.parametrize("exercise", all_exercises(), ids=lambda e: e.file)
def test_the_checks_pass_on_the_library_and_a_students_answer_and_fail_on_the_skeleton(exercise, tmp_path):
    for module in (exercise.reference(), load_student_file(SOLUTIONS / exercise.file)):
        failed = {name: message for name, (passed, message) in outcomes(exercise, module).items() if not passed}
        assert not failed, failed
    skeleton = tmp_path / exercise.file
    skeleton.write_text(exercise.skeleton())
    results = outcomes(exercise, load_student_file(skeleton))
    assert len(results) == len(exercise.checks) >= 3
    assert all(not passed and message.startswith("not written yet") for passed, message in results.values())


#: (exercise, a line of the answer, the mistake in its place, the check that must catch it, the checks still passing)
MISTAKES = [
    (1, "grown = GoString(around.color, around.stones, around.liberties | {stone})",
     "grown = GoString(around.color, around.stones, around.liberties)", "captures", ["stones join into strings"]),
    (1, "            self._hash ^= zobrist_key(string.color, stone)\n", "", "Zobrist: the hash of the stones",
     ["captures", "whole random games"]),
    (2, "return 0 if winner is None else (1 if winner == state.next_player else -1)",
     "return 0 if winner is None else (-1 if winner == state.next_player else 1)",
     "minimax: known positions and 30 random ones", []),
    (2, "        if alpha >= beta:\n            break\n", "", "alpha-beta prunes",
     ["alpha-beta: the same values", "best_move keeps the value"]),
    (3, "float(winner == walker.mover)", "float(winner == walker.state.next_player)", "takes a win, stops a loss",
     ["the UCT formula", "legal moves from random positions"]),
    (4, "self.bias_grad[...] = grad.sum(axis=0)", "self.bias_grad[...] = grad.mean(axis=0)", "Dense.backward",
     ["Dense.forward", "Sigmoid", "SoftmaxCrossEntropy"]),
    (5, "order = rng.permutation(len(x))", "order = np.arange(len(x))", "training: mini-batches in shuffled order",
     ["training: whole batches", "the encoder: positions"]),
    (6, "    q = q / q.sum(axis=1, keepdims=True)\n", "", "the policy-gradient loss",
     ["discounted returns", "the replay buffer"]),
    (7, "weights = N ** (1 / temperature)", "weights = N * temperature", "the move after the search",
     ["PUCT scores", "the policy target"]),
]


@pytest.mark.parametrize("number, right, wrong, caught, unharmed", MISTAKES)
def test_a_usual_mistake_fails_the_check_that_is_about_it(tmp_path, number, right, wrong, caught, unharmed):
    exercise = get_exercise(number)
    text = (SOLUTIONS / exercise.file).read_text()
    assert right in text
    path = tmp_path / exercise.file
    path.write_text(text.replace(right, wrong))
    results = outcomes(exercise, load_student_file(path), path)
    assert not results[caught][0] and results[caught][1]
    assert all(results[name][0] for name in unharmed), {name: results[name] for name in unharmed}


def test_start_check_and_play_from_the_command_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["exercise", "list"]) == 0
    listing = capsys.readouterr().out
    assert all(f"{e.number:>3}  {e.chapter:<8} {e.title}" in listing for e in all_exercises())
    assert main(["exercise", "start", "2"]) == 0
    skeleton = tmp_path / "exercises" / "ex2_minimax.py"
    assert skeleton.read_text() == get_exercise(2).skeleton()
    assert main(["exercise", "start", "2"]) == 2  # never over the student's file
    assert "already exists" in capsys.readouterr().err
    assert main(["exercise", "check", "2"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  alpha-beta prunes: not written yet" in out and "0 of 4 checks pass" in out
    shutil.copy(SOLUTIONS / "ex2_minimax.py", skeleton)
    assert main(["exercise", "check", "2"]) == 0
    assert "4 of 4 checks pass; now play it: dlgo exercise play 2" in capsys.readouterr().out
    assert main(["exercise", "play", "2", "--games", "2"]) == 0
    assert "tictactoe, 2 games" in (out := capsys.readouterr().out) and "0 won, 2 drawn, 0 lost" in out
    assert main(["exercise", "play", "1"]) == 2
    assert "not an engine; the ones that play are 2, 3" in capsys.readouterr().err
    assert main(["exercise", "check", "9"]) == 2
    assert "no exercise 9; the exercises are 1-7" in capsys.readouterr().err


def test_a_broken_file_gets_one_line_that_says_where(tmp_path, monkeypatch, capsys):
    broken = tmp_path / "ex3_mcts.py"
    broken.write_text("def uct_score(:\n")
    assert main(["exercise", "check", "3", str(broken)]) == 2
    assert capsys.readouterr().err.strip() == f"dlgo: error: {broken}, line 1: syntax error: invalid syntax"
    text = (SOLUTIONS / "ex3_mcts.py").read_text()
    broken.write_text(text.replace("return child_win_rate + c", "return child_win_rate / 0 + c"))
    assert main(["exercise", "check", "3", str(broken)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  the UCT formula: ZeroDivisionError: float division by zero (line 12 of ex3_mcts.py, in " \
           "uct_score)" in out and "hint: child_win_rate + c * math.sqrt" in out
    broken.write_text(text.replace("    root = Node(state)\n", "    root = Node(state)\n    while True:\n        pass\n"))
    monkeypatch.setattr(dlgo.exercises.checking, "CHECK_SECONDS", 1)
    assert main(["exercise", "check", "3", str(broken)]) == 1
    assert "still running after 1 s: an endless loop?" in capsys.readouterr().out
    assert main(["exercise", "check", "3", str(tmp_path / "missing.py")]) == 2
    assert "no file" in capsys.readouterr().err
