"""Every chapter script runs with --quick, writes its report files and valid
pictures, and leaves the committed samples alone: the chapters run in a fresh
clone of the repository with their default folders, one after another as a
student would (chapters 8, 10 and 15 find chapter 6-7's --quick network), and
the clone's ``git status`` stays clean."""
import importlib
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from dlgo.gtp.client import GNUGO
from dlgo.storage.facts import read_facts
from engines.checkpoints import checkpoint_set
from helpers import written_facts_differ

PNG = b"\x89PNG\r\n\x1a\n"
CHAPTERS = ["ch03_random_go", "ch04a_minimax_alphabeta", "ch04b_mcts", "ch05_numpy_network", "ch06_07_train_predictor",
            "ch08_play_predictor", "ch09_experience", "ch10_policy_gradient", "ch11_q_learning", "ch12_actor_critic",
            "ch13_alphago", "ch14a_alphazero_tictactoe", "ch14b_alphazero_connect4", "ch15_strength_per_compute"]


ROOT = Path(__file__).resolve().parent.parent
#: the chapters whose reports state no headline facts (none of the docs' figures come from them)
WITHOUT_FACTS = {"ch05_numpy_network", "ch09_experience"}


def chapter(name):
    return importlib.import_module(f"experiments.chapters.{name}")


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A fresh clone of this checkout as it stands (the files a commit of it would
    hold, so uncommitted work is tested too), with no runs in it."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    target = tmp_path_factory.mktemp("clone") / "dlgo"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():  # not a file deleted since the last commit
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.org"]
    for command in (["init", "--quiet"], ["add", "--all"], ["commit", "--quiet", "--message", "the checkout"]):
        subprocess.run(git + command, cwd=target, check=True)
    return target


@pytest.fixture
def quick(clone, monkeypatch):
    """Run a chapter with --quick (and more options) in the clone, as from its
    root; returns its default report and work folders."""
    monkeypatch.chdir(clone)

    def run(name, *options):
        assert chapter(name).main(["--quick", *options]) == 0
        return clone / "runs" / f"{name}-quick", clone / "data" / f"{name}-quick"

    return run


def assert_pictures(folder, *names):
    for name in names:
        data = (folder / name).read_bytes()
        assert data.startswith(PNG if name.endswith(".png") else b"GIF89a"), name


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_chapter_has_help_with_seed_quick_and_its_report_folder(name, capsys):
    with pytest.raises(SystemExit) as exit_:
        chapter(name).main(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert f"python experiments/chapters/{name}.py" in text
    assert "--seed" in text and "--quick" in text and f"reports/{name}" in text


def test_ch03_random_go(quick):
    out, _ = quick("ch03_random_go")
    games = pd.read_csv(out / "games.csv")
    assert len(games) == 20 and set(games["winner"]) <= {"black", "white"}
    assert_pictures(out, "results.png", "game.png", "game.gif")
    summary = (out / "summary.md").read_text()
    assert "Reproduce: `python experiments/chapters/ch03_random_go.py --quick" in summary
    assert "## What to look for" in summary
    assert len(list((out / "sgf").glob("*.sgf"))) == 20


def test_ch03_margins_come_from_counted_results():
    from dlgo.formats.records import GameRecord

    ch03 = chapter("ch03_random_go")
    record = GameRecord("", "", "go", "random", "random", "W+7.5", "white", 100, 0, 0, 0, 0, "", "", 0, 0, "")
    assert ch03.margin(record) == -7.5
    assert ch03.margin(GameRecord(**{**record.as_row(), "result": "B+R"})) is None


def test_ch05_the_numpy_network_learns_and_keras_follows_it(quick):
    assert len(chapter("ch05_numpy_network").positions()) == 4520  # tic-tac-toe positions play can reach, not over
    out, _ = quick("ch05_numpy_network", "--activation", "relu")
    history = pd.read_csv(out / "history.csv")
    assert list(history["epoch"]) == [1, 2, 3] and history["loss"].iloc[-1] < history["loss"].iloc[0]
    assert (history["loss"] - history["keras_loss"]).abs().max() < 1e-4
    assert history["val_accuracy"].iloc[-1] > 0.5
    assert_pictures(out, "learning_curve.png")
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# Chapter 5") and "| a random legal move |" in summary
    assert "tactics (a fork, a block) that 27 numbers" in " ".join(summary.split()) and "capture" not in summary


def test_ch05_on_go_learns_a_teachers_moves(quick, clone):
    quick("ch05_numpy_network", "--game", "go:size=5")
    out = clone / "runs" / "ch05_numpy_network-go5-quick"
    history = pd.read_csv(out / "history.csv")
    assert (history["loss"] - history["keras_loss"]).abs().max() < 1e-4
    summary = (out / "summary.md").read_text()
    assert "40 positions (32 to train on, 8 held out), each from random go:size=5 games, labelled with the move " \
           "`mcts:rounds=20,plain=true` chooses there. A 75-16-26 network" in summary
    assert "tactics (a capture, a ladder) that 75 numbers" in " ".join(summary.split())


def test_ch04a_counts_nodes_and_every_search_finds_the_exact_value(quick, tmp_path):
    out, _ = quick("ch04a_minimax_alphabeta")
    nodes = pd.read_csv(out / "nodes.csv")
    assert (nodes["value"] == nodes["exact_value"]).all()
    wide = nodes.pivot(index="position", columns="search", values="nodes")
    assert (wide["minimax:pruning=true"] < wide["minimax"]).all()
    assert wide.loc["a1", "minimax"] == 59_704  # the whole game tree below X in a corner
    assert_pictures(out, "nodes.png", "positions.png")
    assert "Every search found the exact value" in (out / "summary.md").read_text()

    shallow = tmp_path / "depth2"
    assert chapter("ch04a_minimax_alphabeta").main(["--quick", "--depth", "2", "--out", str(shallow)]) == 0
    nodes = pd.read_csv(shallow / "nodes.csv")
    plain = nodes[(nodes.position == "a1") & (nodes.search == "minimax")].iloc[0]
    assert plain.nodes == 8 + 8 * 7  # two plies, then a heuristic score
    scores = nodes[nodes.position == "a1"].value.astype(float)
    assert len(set(scores)) == 1  # every search finds the same heuristic value at the same depth
    summary = (shallow / "summary.md").read_text()
    assert "found the same value in every position (a heuristic score at the depth limit" in summary
    assert "their values are estimates" in summary


def test_ch04b_mcts_ladder_against_random(quick):
    out, _ = quick("ch04b_mcts")
    games = pd.read_csv(out / "tournament" / "games.csv")
    assert len(games) == 3 * 2
    assert_pictures(out, "visits.png", "tournament/strength_vs_compute.png")
    summary = (out / "summary.md").read_text()
    assert "| `mcts:rounds=32` |" in summary and "visits.png" in summary


def test_ch06_07_trains_a_predictor_that_ch08_ch10_and_ch15_then_play(quick, capsys):
    out, work = quick("ch06_07_train_predictor", "--workers", "1")
    assert (out / "accuracy.csv").exists()
    assert_pictures(out, "learning_curve.png", "policy.png")
    model = Path("data/ch06_07_train_predictor-quick/runs/tiny-planes/model.keras")
    assert (work / "runs" / "tiny-planes" / "model.keras").exists()
    assert f"--model {model}" in (out / "summary.md").read_text()
    from dlgo.app.cli import main as dlgo_main

    assert dlgo_main(["analyze", "--model", str(model), "--moves", "4", "--simulations", "10"]) == 0
    assert "policy-only network has no value head" in capsys.readouterr().out

    play, _ = quick("ch08_play_predictor")  # finds the --quick network by itself
    games = pd.read_csv(play / "tournament" / "games.csv")
    assert len(games) == 2 * 2 + 2  # the predictor and two opponents, two games a pair
    assert_pictures(play, "game.png", "game.gif", "policy.png")
    assert "dlgo play --game connect4 --black human --white predictor:model=" in (play / "summary.md").read_text()

    tuned, _ = quick("ch10_policy_gradient")  # policy gradients from scratch, then from this predictor
    finetune = pd.read_csv(tuned / "finetune.csv")
    assert finetune["opponent"].tolist() == [f"predictor:model={model}"] and finetune["games"].tolist() == [4]
    assert "## Fine-tuning the supervised predictor" in (tuned / "summary.md").read_text()
    assert_pictures(tuned, "learning_curve.png", "finetune_curve.png", "game.png")

    everyone, _ = quick("ch15_strength_per_compute")
    ratings = pd.read_csv(everyone / "ratings.csv")
    assert {"random", "mcts:rounds=10", "alphabeta:depth=1,nodes=0", "alphazero:checkpoint=connect4,simulations=0",
            f"predictor:model={model}", "pg:model=data/ch10_policy_gradient-quick/run/current.keras"
            } == set(ratings["engine"])
    assert "## What to look for" in (everyone / "summary.md").read_text()


def test_ch08_without_a_model_says_what_to_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        chapter("ch08_play_predictor").main(["--quick", "--model", str(tmp_path / "missing.keras")])
    assert exit_.value.code == 2
    assert "ch06_07_train_predictor.py" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["ch14a_alphazero_tictactoe", "ch14b_alphazero_connect4"])
def test_ch14_alphazero_chapters_train_and_draw_what_the_network_sees(quick, name):
    out, _ = quick(name, "--workers", "1")
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# Chapter 14") and "## What to look for" in summary
    assert f"python experiments/chapters/{name}.py --quick" in summary
    stems = ["block"] if name.endswith("tictactoe") else ["ours", "shipped"]
    assert_pictures(out, "learning_curve.png", *[f"{s}-{kind}.png" for s in stems for kind in ("policy", "search")])
    if name.endswith("connect4"):
        assert len(pd.read_csv(out / "vs-shipped" / "games.csv")) == 2


def test_the_course_guide_covers_every_chapter_and_its_links_resolve():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    guide = (root / "docs" / "course.md").read_text()
    scripts = sorted(p.stem for p in (root / "experiments" / "chapters").glob("ch[0-9]*.py"))
    assert scripts == sorted(CHAPTERS)
    for name in scripts:
        assert f"python experiments/chapters/{name}.py" in guide, name
    links = re.findall(r"\]\((\.\./[^)#]+)\)", guide)
    assert len(links) > 15
    missing = [link for link in links if not (root / "docs" / link).resolve().exists()]
    assert not missing, missing
    assert not re.search(r"CH\d+\w*_[A-Z]+", guide), "a placeholder is left in docs/course.md"


def test_ch09_collects_experience_in_two_chunks(quick):
    out, work = quick("ch09_experience", "--workers", "1")
    table = pd.read_csv(out / "buffer.csv")
    assert table["engine"].tolist() == ["mcts:rounds=5", "random"] and (table["moves"] > 0).all()
    assert sorted(p.name for p in (work / "experience").glob("*.npz")) == ["chunk-00000.npz", "chunk-00001.npz"]
    assert_pictures(out, "rewards.png")
    assert "## What to look for" in (out / "summary.md").read_text()


@pytest.mark.parametrize("name", ["ch11_q_learning", "ch12_actor_critic"])
def test_rl_chapters_train_judge_and_resume(quick, name):
    out, work = quick(name)
    final = pd.read_csv(out / "final.csv")
    assert final["opponent"].tolist() == ["random", "its starting network"] and final["games"].tolist() == [4, 4]
    assert pd.read_csv(out / "history.csv")["generation"].tolist() == [1, 2]
    assert_pictures(out, "learning_curve.png", "game.png", "game.gif")
    summary = (out / "summary.md").read_text()
    assert f"python experiments/chapters/{name}.py --quick" in summary and "## What to look for" in summary
    played = (work / "final" / "games.csv").read_text()
    quick(name)  # nothing left to do
    assert (work / "final" / "games.csv").read_text() == played


@pytest.mark.skipif(not os.access(GNUGO, os.X_OK), reason=f"GNU Go is not installed at {GNUGO}")
def test_ch13_learns_from_gnu_go_and_plays_it_with_alphago(quick):
    out, work = quick("ch13_alphago")
    match = pd.read_csv(out / "match.csv")
    assert match["engine"].tolist() == ["SL policy alone", "RL policy alone", "alphago"]
    assert match["games"].tolist() == [2, 2, 2] and match["score"].between(0, 1).all()
    assert {"policy", "value", "rollout"} <= set(checkpoint_set(str(work / "go9")))
    assert pd.read_csv(out / "value.csv")["positions"].iloc[0] > 0
    assert_pictures(out, "learning_curve.png", "rl_curve.png", "game.png", "strength_vs_training.png")
    assert match["training_minutes"].is_monotonic_increasing and (match["training_minutes"] > 0).all()
    summary = (out / "summary.md").read_text()
    assert "python experiments/chapters/ch13_alphago.py --quick" in summary and "## What to look for" in summary
    played = (work / "match" / "games.csv").read_text()
    quick("ch13_alphago")  # resumes
    assert (work / "match" / "games.csv").read_text() == played


def test_rl_chapters_refuse_bad_settings_in_one_line(tmp_path, capsys):
    assert chapter("ch11_q_learning").main(["--learning-rate", "0", "--out", str(tmp_path / "out"),
                                            "--work", str(tmp_path / "work")]) == 2
    assert capsys.readouterr().err.strip() == "error: learning_rate must be above 0, got 0.0"
    assert chapter("ch11_q_learning").main(["--sparring", "random,nobody", "--no-symmetries", "--out",
                                            str(tmp_path / "out"), "--work", str(tmp_path / "work")]) == 2
    assert capsys.readouterr().err.strip().startswith("error: unknown engine 'nobody'")
    assert not (tmp_path / "work").exists()


def test_ch10_without_a_predictor_says_what_to_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        chapter("ch10_policy_gradient").main(["--quick", "--predictor", str(tmp_path / "missing.keras")])
    assert exit_.value.code == 2
    assert "ch06_07_train_predictor.py" in capsys.readouterr().err


def test_a_run_with_other_settings_in_the_same_folder_names_the_way_out(quick, clone, capsys):
    if not (clone / "runs" / "ch03_random_go-quick" / "summary.md").exists():  # test_ch03_random_go's run, if run
        quick("ch03_random_go")
    other = ["--quick", "--size", "5", "--komi", "0"]  # 5x5: the run --fresh starts over takes seconds, not 9x9's
    assert chapter("ch03_random_go").main(other) == 2
    error = capsys.readouterr().err.splitlines()[-1]  # after the progress bar, one line
    assert error.startswith("error: runs/ch03_random_go-quick/games.csv already holds") and "komi=0" in error
    assert error.endswith("rerun with the settings that made it, start over with --fresh, or use another --out")
    assert chapter("ch03_random_go").main([*other, "--fresh"]) == 0
    game = pd.read_csv(clone / "runs" / "ch03_random_go-quick" / "games.csv")["game"].iloc[0]
    assert "size=5" in game and "komi=0" in game


def test_fresh_deletes_only_run_folders(quick, clone, capsys):
    (clone / "notes").mkdir()
    (clone / "notes" / "mine.txt").write_text("keep me")
    assert chapter("ch03_random_go").main(["--quick", "--out", "notes", "--fresh"]) == 2
    assert "holds no run" in capsys.readouterr().err and (clone / "notes" / "mine.txt").exists()
    (clone / "notes" / "mine.txt").unlink()
    (clone / "notes").rmdir()


def test_every_chapter_ran_quick_in_the_clone_and_left_its_committed_files_alone(quick, clone):
    for name in CHAPTERS:  # those the tests above ran (or skipped) are run here
        if not (clone / "runs" / f"{name}-quick" / "summary.md").exists():
            if name == "ch13_alphago" and not os.access(GNUGO, os.X_OK):
                continue
            quick(name, *(["--workers", "1"] if name in ("ch06_07_train_predictor", "ch09_experience") else []))
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=clone, check=True,
                            capture_output=True, text=True).stdout
    assert status == "", status
    runs = clone / "runs"
    assert written_facts_differ([runs / f"{name}-quick" for name in CHAPTERS if name not in WITHOUT_FACTS]) == {}
    assert read_facts(runs / "ch14a_alphazero_tictactoe-quick")["perfect_play"]  # the check's, known to its run only
