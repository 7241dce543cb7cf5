"""The exercises: their checks pass on the library's own implementation and on a
student's answer written the book's way (tests/exercise_solutions/), fail on
the untouched skeletons, catch the usual mistakes with the right check, and
catch the buggy answers of tests/exercise_solutions/buggy/ with hints, given a
tier at a time, about the bug itself."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import dlgo.exercises.grading
from dlgo.app.cli import main
from dlgo.exercises import all_exercises, ex3_mcts, get_exercise, load_student_file, run_checks

SOLUTIONS = Path(__file__).parent / "exercise_solutions"
BUGGY = SOLUTIONS / "buggy"


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
    (8, "return np.where(visited, q, mixed)", "return np.where(visited, q, 0.0)", "completed Q-values",
     ["sequential halving's schedule"]),
    (8, "        remaining = max(2, remaining // 2)", "        remaining = max(1, remaining // 2)",
     "sequential halving's schedule", ["completed Q-values", "the improved policy"]),
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


def test_a_minimax_that_scores_a_finished_game_from_who_moved_last_fails_on_go(tmp_path):
    """In tic-tac-toe the winner always moved last; in Go the player to move may have won (after two
    passes, or the opponent's resignation): the checks hold such games, and the hints say what holds in
    every game."""
    exercise = get_exercise(2)
    right = "return 0 if winner is None else (1 if winner == state.next_player else -1)"
    text = (SOLUTIONS / exercise.file).read_text()
    assert right in text
    path = tmp_path / exercise.file
    path.write_text(text.replace(right, "return 0 if winner is None else -1"))
    results = {r.check.name: r for r in run_checks(exercise, load_student_file(path), path)}
    values = results["minimax: known positions and 30 random ones"]
    assert not values.passed
    assert "minimax_value(after E5 C5 G5 pass pass) is -1; expected 1 (9x9 Go, over after two passes" \
           in values.message
    assert results["best_move keeps the value"].passed  # on tic-tac-toe the shortcut holds
    assert "compare state.winner() with state.next_player" in values.hint(2)
    assert "+1 if state.winner() == state.next_player" in values.hint(3) and "moved last" not in values.hint(3)


def test_start_check_and_play_from_the_command_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["exercise", "list"]) == 0
    listing = capsys.readouterr().out
    assert all(f"{e.number:>3}  {e.chapter:<8} {e.title}" in listing for e in all_exercises())
    header, *lines = listing.splitlines()
    rows = [line for line in lines if line[:3].strip().isdigit()]  # every step in the column "when" heads
    assert [row[header.index("when"):] for row in rows] == [e.step for e in all_exercises()]
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
    assert "your engine against" in out and "95% interval" in out and "a correct best_move draws every game" in out
    assert main(["exercise", "check", "2", "--reference"]) == 0
    assert "4 of 4 checks pass; now play it: dlgo exercise play 2 --reference" in capsys.readouterr().out
    assert main(["exercise", "check", "2", str(skeleton)]) == 0
    assert f"now play it: dlgo exercise play 2 {skeleton}" in capsys.readouterr().out
    assert main(["exercise", "play", "2", "--reference", "--games", "2"]) == 0
    assert "the reference against" in (out := capsys.readouterr().out) and "your engine" not in out
    assert main(["exercise", "play", "1"]) == 2
    assert "not an engine; the ones that play are 2, 3" in capsys.readouterr().err
    assert main(["exercise", "check", "99"]) == 2
    assert "no exercise 99; the exercises are 1-8" in capsys.readouterr().err


def test_the_course_and_the_skeletons_never_point_a_student_at_the_answers():
    course = (Path(__file__).parents[1] / "docs" / "course.md").read_text()
    assert SOLUTIONS.name not in course
    assert not [e.file for e in all_exercises() if SOLUTIONS.name in e.skeleton()]


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
           "uct_score)" in out and "hint: two terms: how well the child has done" in out
    assert "math.sqrt" not in out  # the formula only when asked
    assert f"more help with the first failing check: dlgo exercise hint 3 {broken} --level 2" in out
    broken.write_text(text.replace("    root = Node(state)\n",
                                   "    root = Node(state)\n    while True:\n        pass\n"))
    monkeypatch.setattr(dlgo.exercises.grading, "CHECK_SECONDS", 1)
    assert main(["exercise", "check", "3", str(broken)]) == 1
    assert "timed out after 1 s: an endless loop?" in capsys.readouterr().out
    assert main(["exercise", "check", "3", str(tmp_path / "missing.py")]) == 2
    assert "no file" in (err := capsys.readouterr().err) and "`dlgo exercise start 3`" in err


def test_a_file_that_never_returns_is_stopped_check_by_check(tmp_path, capsys):
    text = (SOLUTIONS / "ex3_mcts.py").read_text()
    stuck = tmp_path / "ex3_mcts.py"  # a loop no exception ends: the student's code swallows every one
    stuck.write_text(text.replace("    root = Node(state)\n", "    root = Node(state)\n    while True:\n"
                                  "        try:\n            pass\n        except BaseException:\n            pass\n"))
    assert main(["exercise", "check", "3", str(stuck), "--time-limit", "1"]) == 1
    out = capsys.readouterr().out
    assert "  pass  the UCT formula" in out  # the checks before and after the stuck ones still run
    stopped = re.findall(r"FAIL  .*: check (\d) timed out after 1 s: an endless loop\?", out)
    assert stopped and all(int(n) > 1 for n in stopped) and f"{5 - len(stopped)} of 5 checks pass" in out
    assert main(["exercise", "hint", "3", str(stuck), "--time-limit", "1"]) == 1
    assert f"check {stopped[0]} timed out after 1 s" in capsys.readouterr().out
    stuck.write_text(text + "\nwhile True:\n    pass\n")  # stuck before any check: while it is imported
    assert main(["exercise", "check", "3", str(stuck), "--time-limit", "1"]) == 2
    assert f"dlgo: error: {stuck} was still being imported after 1 s" in capsys.readouterr().err


#: (exercise, buggy answer, the check that must catch it, words its message must hold, words in its hints)
BUGS = [
    (2, "ex2_alphabeta_zero.py", "alpha-beta prunes", "a search that prunes must still find the value",
     "the right value"),
    (3, "ex3_draws_zero.py", "a draw is better than a loss", "a draw counts as 0 of a win, not 0.5",
     "a drawn game is not worth nothing"),
    (3, "ex3_final_by_winrate.py", "plays the most visited move", "not the most visited",
     "pick the move to play once the rounds are over"),
]


@pytest.mark.parametrize("number, file, caught, message, nudge", BUGS, ids=[bug[1] for bug in BUGS])
def test_a_buggy_answer_fails_the_check_about_its_bug_with_hints_about_it(number, file, caught, message, nudge):
    exercise = get_exercise(number)
    path = BUGGY / file
    results = {r.check.name: r for r in run_checks(exercise, load_student_file(path), path)}
    failed = results[caught]
    assert not failed.passed and message in failed.message, failed.message
    assert nudge in failed.hint(1)  # the nudge is about this bug
    assert len(failed.hints) == 3 and failed.hint(9) == failed.hints[-1]
    if number == 2:  # a search that returns 0 is told so by the values check too
        values = results["alpha-beta: the same values"]
        assert not values.passed and "is 0 after every one of 38 positions" in values.message
        assert "alphabeta_value(state.apply_move(move), -beta, -alpha)" in values.hint(3)
    else:  # and nothing else fails: the check names the bug
        assert [name for name, r in results.items() if not r.passed] == [caught]


def test_every_check_gives_a_nudge_first_and_at_most_three_tiers():
    for exercise in all_exercises():
        for check in exercise.checks:
            assert 1 <= len(check.hints) <= 3 and all(check.hints), check.name
            assert len(set(check.hints)) == len(check.hints), check.name
    formula = get_exercise(3).checks[0]
    assert "math.sqrt" not in formula.hints[0] and "math.sqrt" in formula.hints[-1]


def test_hint_gives_the_first_failing_checks_hints_a_tier_at_a_time(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    file = str(BUGGY / "ex3_draws_zero.py")
    assert main(["exercise", "check", "3", file]) == 1
    out = capsys.readouterr().out
    assert "FAIL  a draw is better than a loss" in out and "hint: a drawn game is not worth nothing" in out
    assert "0.5 if winner is None" not in out and f"dlgo exercise hint 3 {file} --level 2" in out
    assert main(["exercise", "hint", "3", file]) == 1
    out = capsys.readouterr().out
    assert "first failing check: a draw is better than a loss" in out and "hint 1 of 3" in out
    assert "hint 2 of 3" not in out and f"more: dlgo exercise hint 3 {file} --level 2" in out
    assert main(["exercise", "hint", "3", file, "--level", "3"]) == 1
    out = capsys.readouterr().out
    assert "hint 2 of 3: a draw is half a win" in out and "hint 3 of 3: walker.wins += 0.5 if winner is None" in out
    assert "more:" not in out
    assert main(["exercise", "hint", "3", file, "--level", "5"]) == 1
    assert "this check has 3 hints; that was the last" in capsys.readouterr().out
    assert main(["exercise", "hint", "2", str(SOLUTIONS / "ex2_minimax.py")]) == 0
    assert "every check passes" in capsys.readouterr().out
    assert main(["exercise", "start", "2"]) == 0 and main(["exercise", "hint", "2"]) == 1
    out = capsys.readouterr().out  # a skeleton: its first check's nudge
    assert "first failing check: minimax: known positions" in out and "not written yet" in out
    assert "dlgo exercise hint 2 --level 2" in out


def test_play_3_sets_the_score_against_what_a_correct_answer_scores(capsys):
    assert main(["exercise", "play", "3", "--reference", "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "the reference against mcts:rounds=300 on tictactoe, 2 games" in out and "on connect4, 2 games" in out
    assert "your engine" not in out and "a correct plain UCT scores 49% here, 95% of its 2-game matches" in out
    assert "one that counts a draw as a loss about 33," in out
    with pytest.raises(SystemExit) as stopped:  # argparse's one-line usage error
        main(["exercise", "play", "3", "--games", "0"])
    assert stopped.value.code == 2 and "--games: must be at least 1" in capsys.readouterr().err


def test_forty_games_of_tictactoe_tell_a_draw_counted_as_a_loss_and_ten_do_not():
    tictactoe = ex3_mcts.MEASURED["tictactoe"]
    correct, draws, rate = (tictactoe[name] for name in (ex3_mcts.CORRECT, ex3_mcts.DRAW_BUG,
                                                          ex3_mcts.RATE_BUG))
    assert correct.games_to_tell(draws) <= get_exercise(3).games == 40
    assert draws.likely_range(10)[1] > correct.likely_range(10)[0]  # ten games: the ranges overlap
    assert correct.games_to_tell(rate) > correct.games  # a match cannot see it; its check can
