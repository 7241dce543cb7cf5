"""Nothing lost: readers never rewrite a results file, a writer stops at a file it
cannot trust and keeps it, one writer holds a folder at a time, a folder holds one
kind of run, and training resumes to a consistent state after a kill at any step."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dlgo.app import cli
from dlgo.arena.report import engine_rows
from dlgo.arena.tournament import run_tournament
from dlgo.core.errors import RecordError, SettingsMismatchError
from dlgo.data.generate import generate_games
from dlgo.storage.atomic import remove_orphaned_temporary_files
from dlgo.storage.folders import LOCK, claim_folders, hold_folder, read_manifest, read_settings, record_settings
from dlgo.formats.records import BOM, HEADER, read_games, write_games
from engines import ENGINES

SPECS = ["random", "alphabeta:depth=1"]


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A finished little tournament: 4 games of tic-tac-toe."""
    out = tmp_path_factory.mktemp("played")
    run_tournament(ENGINES, out, "tictactoe", SPECS, 4, seed=3, workers=1, progress=False)
    return out


def copy_of(played: Path, tmp_path: Path, text: str | None = None) -> Path:
    """A fresh folder holding ``played``'s manifest and games.csv (or ``text`` in its place)."""
    folder = tmp_path / "copy"
    folder.mkdir()
    (folder / "run.json").write_text((played / "run.json").read_text())
    (folder / "games.csv").write_text((played / "games.csv").read_text() if text is None else text)
    return folder


def games_played(folder: Path) -> list[tuple[str, str, str]]:
    """(id, moves, result) of every game in ``folder``: what a replay must reproduce."""
    return sorted((r.game_id, r.moves, r.result) for r in read_games(folder / "games.csv"))


def dead_pid() -> int:
    """The id of a process that has just exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def damaged(played: Path) -> dict[str, str]:
    """games.csv files a writer must not trust, by what is wrong with them."""
    text = (played / "games.csv").read_text()
    header, *rows = text.splitlines(keepends=True)
    return {"renamed header": header.replace("game_id", "id") + "".join(rows),
            "no header": "".join(rows),
            "byte-order mark": BOM + text,
            "damaged middle row": header + rows[0] + "x,y\n" + "".join(rows[1:])}


def run_cli(args: list[str], capsys) -> tuple[int, str]:
    code = cli.main(args)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("problem", ["renamed header", "no header", "damaged middle row", "torn last line",
                                     "byte-order mark", "empty"])
def test_reading_commands_never_rewrite_a_games_file(played, tmp_path, problem, capsys):
    text = (played / "games.csv").read_text()
    versions = {**damaged(played), "torn last line": text[:-5], "empty": ""}
    folder = copy_of(played, tmp_path, versions[problem])
    before = (folder / "games.csv").read_bytes()
    for args in (["ratings", str(folder)], ["replay", str(folder), "--list"],
                 ["render", str(folder), "--out", str(tmp_path / "game.png")]):
        code, err = run_cli(args, capsys)
        assert (folder / "games.csv").read_bytes() == before, (problem, args)
        if problem in ("renamed header", "no header", "damaged middle row", "empty"):
            assert code == 2 and err.startswith("dlgo: error: ") and err.count("\n") == 1, (problem, args, err)


@pytest.mark.parametrize("problem", ["renamed header", "no header", "byte-order mark", "damaged middle row"])
def test_a_writer_stops_at_a_file_it_cannot_trust_and_keeps_it(played, tmp_path, problem):
    folder = copy_of(played, tmp_path, damaged(played)[problem])
    before = (folder / "games.csv").read_bytes()
    with pytest.raises(RecordError, match="kept as it is"):
        run_tournament(ENGINES, folder, "tictactoe", SPECS, 6, seed=3, workers=1, progress=False)
    assert (folder / "games.csv").read_bytes() == before


def test_a_writer_cuts_a_torn_line_and_fills_an_empty_file(played, tmp_path):
    text = (played / "games.csv").read_text()
    torn = copy_of(played, tmp_path, text[:-5])
    run_tournament(ENGINES, torn, "tictactoe", SPECS, 4, seed=3, workers=1, progress=False)
    assert games_played(torn) == games_played(played)  # the cut game played again, the same
    assert (torn / "games.csv").read_text().startswith(text[:text.rfind("\n", 0, -1) + 1])  # the others kept
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "run.json").write_text((played / "run.json").read_text())
    (empty / "games.csv").write_text("")
    run_tournament(ENGINES, empty, "tictactoe", SPECS, 4, seed=3, workers=1, progress=False)
    assert (empty / "games.csv").read_text().startswith(HEADER + "\n") and games_played(empty) == games_played(played)


def test_duplicated_game_ids_count_once(played, tmp_path, caplog):
    text = (played / "games.csv").read_text()
    header, *rows = text.splitlines(keepends=True)
    folder = copy_of(played, tmp_path, header + "".join(rows) + "".join(rows[:2]))  # two writers, long ago
    records = read_games(folder / "games.csv")
    assert len(records) == 4 and "2 rows with a game id seen before" in caplog.text
    assert sum(row.games for row in engine_rows(records, bootstrap=0)) == 2 * 4


HOLDER = """
import sys, time
from dlgo.storage.folders import hold_folder
with hold_folder(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "tournament"):
    print("held", flush=True)
    time.sleep(60)
"""


def second_writers(tmp_path: Path) -> dict[str, object]:
    """Per kind of results folder, a run that writes into it."""
    from engines.training.alphazero import train_alphazero
    from engines.training.supervised import train_supervised

    data = tmp_path / "data"
    generate_games(ENGINES, data, "tictactoe", "random", 6, workers=1, progress=False)
    return {
        "tournament": lambda out: run_tournament(ENGINES, out, "tictactoe", SPECS, 2, workers=1, progress=False),
        "generate": lambda out: generate_games(ENGINES, out, "tictactoe", "random", 2, workers=1, progress=False),
        "train-supervised": lambda out: train_supervised(data, out, model="tiny", epochs=1, progress=False),
        "train-alphazero": lambda out: train_alphazero(out, tiny_config(), 1, progress=False),
    }


def test_every_kind_of_results_folder_has_one_writer_at_a_time(tmp_path):
    for kind, write in second_writers(tmp_path).items():
        folder = tmp_path / kind
        holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), kind], stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            with pytest.raises(RecordError, match=f"in use by process {holder.pid}"):
                write(folder)
            assert sorted(p.name for p in folder.iterdir()) == [".lock", "run.json"], kind  # nothing written
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.wait()


def test_one_writer_per_folder_and_a_dead_writer_leaves_no_lock(played, tmp_path):
    folder = copy_of(played, tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(RecordError, match=f"in use by process {holder.pid}"):
            run_tournament(ENGINES, folder, "tictactoe", SPECS, 6, seed=3, workers=1, progress=False)
        assert len(read_games(folder / "games.csv")) == 4  # nothing played, nothing written
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    games = run_tournament(ENGINES, folder, "tictactoe", SPECS, 6, seed=3, workers=1, progress=False)
    assert len(games) == 6 and len({g.game_id for g in games}) == 6


def test_nested_holds_in_one_process_are_free(tmp_path):
    with hold_folder(tmp_path / "run", "tournament"):
        with hold_folder(tmp_path / "run", "tournament"):
            pass
        with pytest.raises(RecordError, match="holds a tournament run, not a generate"):
            with hold_folder(tmp_path / "run", "generate"):
                pass


def test_a_manifest_from_before_a_fact_is_read_as_its_assumed_value(tmp_path):
    """A fact a folder's manifest lacks is the value it had before it was recorded: a folder
    made then holds a run with that value (and gains the fact), and refuses another."""
    old, fresh = tmp_path / "old", tmp_path / "fresh"
    with hold_folder(old, "positions", seed=1):  # made before play was recorded
        pass
    before = (old / "run.json").read_bytes()
    with pytest.raises(SettingsMismatchError, match="with play 'random', not 'strong'"):
        with hold_folder(old, "positions", assumed={"play": "random"}, seed=1, play="strong"):
            pass
    assert (old / "run.json").read_bytes() == before  # refused: nothing written
    with hold_folder(old, "positions", assumed={"play": "random"}, seed=1, play="random"):
        pass
    assert read_manifest(old) == {"kind": "positions", "seed": 1, "play": "random"}
    with hold_folder(fresh, "positions", assumed={"play": "random"}, seed=1, play="strong"):
        pass  # a new folder records what it is given
    assert read_manifest(fresh)["play"] == "strong"


def test_a_folder_holds_one_kind_of_run_with_one_set_of_facts(played, tmp_path):
    folder = copy_of(played, tmp_path)
    run_tournament(ENGINES, folder, "tictactoe", SPECS, 4, seed=3, workers=1, progress=False)
    assert read_manifest(folder) == {"kind": "tournament", "game": "mnk:m=3,n=3,k=3"}  # a tournament's game too
    before = (folder / "games.csv").read_bytes()
    with pytest.raises(RecordError, match="holds a tournament run, not a generate"):
        generate_games(ENGINES, folder, "tictactoe", "random", 2, workers=1, progress=False)
    with pytest.raises(RecordError, match="holds games of tictactoe, and this run plays connect4"):
        run_tournament(ENGINES, folder, "connect4", SPECS, 4, seed=3, workers=1, progress=False)
    with pytest.raises(RecordError, match="with seed"):
        run_tournament(ENGINES, folder, "tictactoe", SPECS, 4, seed=4, workers=1, progress=False)
    assert (folder / "games.csv").read_bytes() == before
    data = tmp_path / "data"
    generate_games(ENGINES, data, "tictactoe", "random", 2, workers=1, progress=False)
    with pytest.raises(RecordError, match="holds a generate run with engine 'random', not 'mcts"):
        generate_games(ENGINES, data, "tictactoe", "mcts:rounds=5", 2, workers=1, progress=False)


def test_a_writer_removes_temporary_files_of_dead_writers_only(tmp_path):
    folder = tmp_path / "run"
    with hold_folder(folder, "tournament"):  # a run that was killed while it wrote these
        (folder / "sub").mkdir()
    orphan = folder / "sub" / f".games.csv.{dead_pid()}.tmp"
    model = folder / f".model.keras.{dead_pid()}.tmp.keras"
    live = folder / f".games.csv.{os.getppid()}.tmp"  # a live process's write in progress
    for path in (orphan, model, live):
        path.write_text("partial")
    with hold_folder(folder, "tournament"):
        pass
    assert not orphan.exists() and not model.exists() and live.exists()
    assert remove_orphaned_temporary_files(folder) == []


def test_the_header_is_the_records_columns():
    assert HEADER.split(",")[:3] == ["experiment", "game_id", "game"] and HEADER.endswith(",note,ending")


# Training after a kill at every step ---------------------------------------------------------------------------


class Killed(BaseException):
    """A kill, as a test can make one: nothing after it runs."""


def tiny_config(**changes):
    from engines.training.alphazero_config import AlphaZeroConfig

    return AlphaZeroConfig(**{**dict(game="tictactoe", blocks=1, filters=4, games=2, parallel=2, simulations=4,
                                     buffer_games=4, batch_size=8, train_steps=1, eval_games=1, previous_games=1,
                                     eval_simulations=2), **changes})


def test_alphazero_training_resumes_consistently_after_a_kill_at_every_write(tmp_path, monkeypatch):
    """Each file a run writes (settings, untrained network; then per iteration:
    checkpoint, buffer, history, published network), the run killed just before
    it and then resumed: the history is whole, the published network is the last
    recorded iteration, and nothing temporary or stale is left. The kills of the
    second iteration start from a copy of a run that finished the first."""
    from engines.training import alphazero as training
    from engines.neural.backend import read_metadata
    from engines.training.replay import ReplayBuffer

    writes = {"save_model": training.save_model, "atomic_write": training.atomic_write, "buffer": ReplayBuffer.save,
              "publish_copy": training.publish_copy, "record_settings": training.record_settings}
    steps, kill_at = 0, 0

    def counted(name):
        def write(*args, **kwargs):
            nonlocal steps
            steps += 1
            if steps == kill_at:
                raise Killed(name)
            return writes[name](*args, **kwargs)
        return write

    monkeypatch.setattr(training, "save_model", counted("save_model"))
    monkeypatch.setattr(training, "atomic_write", counted("atomic_write"))
    monkeypatch.setattr(ReplayBuffer, "save", counted("buffer"))
    monkeypatch.setattr(training, "publish_copy", counted("publish_copy"))  # checkpoint.keras, the network to play
    monkeypatch.setattr(training, "record_settings", counted("record_settings"))  # config.json
    config = tiny_config()
    training.train_alphazero(tmp_path / "second", config, 1, progress=False)  # its writes are the first iteration's
    first_writes = steps
    shutil.copytree(tmp_path / "second", tmp_path / "base")
    steps = 0
    training.train_alphazero(tmp_path / "second", config, 2, progress=False)
    second_writes = steps
    assert first_writes >= 6 and second_writes >= 4  # settings, iter-000; checkpoint, buffer, history, published
    # every write of the first call (settings, the untrained network, its measured row 0) and of the second
    cases = [(1, k) for k in range(1, first_writes + 1)] + [(2, k) for k in range(1, second_writes + 1)]
    start = 0 if config.publish == "best" else 1  # the start is measured (and may be published) as row 0
    for iterations, k in cases:
        out = tmp_path / f"killed-{iterations}-{k}"
        if iterations == 2:
            shutil.copytree(tmp_path / "base", out)
        steps, kill_at = 0, k
        with pytest.raises(Killed):
            training.train_alphazero(out, config, iterations, progress=False)
        steps, kill_at = 0, 0
        history = training.train_alphazero(out, config, iterations, progress=False)
        case = f"killed at write {k} of iteration {iterations}"
        assert list(history["iteration"]) == list(range(start, iterations + 1)), case
        assert read_metadata(out / "checkpoint.keras")["iteration"] == int(history["published"].iloc[-1]), case
        assert int(history["published"].iloc[-1]) in range(start, iterations + 1), case
        assert [p.name for p in out.glob("buffer-*.npz")] == [f"buffer-{iterations:03d}.npz"], case
        assert not list(out.rglob(".*.tmp*")), case


def test_a_published_network_behind_its_history_is_put_right_on_resume(tmp_path):
    from engines.training.alphazero import train_alphazero
    from engines.neural.backend import read_metadata

    config = tiny_config()
    train_alphazero(tmp_path, config, 1, progress=False)
    (tmp_path / "checkpoint.keras").write_bytes((tmp_path / "checkpoints" / "iter-000.keras").read_bytes())
    orphan = tmp_path / f".history.csv.{dead_pid()}.tmp"
    orphan.write_text("partial")
    train_alphazero(tmp_path, config, 1, progress=False)  # nothing to train: only put right
    assert read_metadata(tmp_path / "checkpoint.keras")["iteration"] == 1 and not orphan.exists()


def test_alphazero_settings_are_checked_before_a_folder_is_made(tmp_path):
    from dlgo.core.errors import SpecError
    from engines.training.alphazero import train_alphazero

    for bad in (dict(game="bogus"), dict(baselines=["random", "mcts:c=nan"]), dict(baselines=["nobody"]),
                dict(simulations=0), dict(learning_rate=float("nan")), dict(games=-1)):
        with pytest.raises(SpecError):
            train_alphazero(tmp_path / "run", tiny_config(**bad), 1, progress=False)
    with pytest.raises(SpecError, match="iterations"):
        train_alphazero(tmp_path / "run", tiny_config(), 0, progress=False)
    assert not (tmp_path / "run").exists()


def test_a_supervised_run_publishes_its_best_epoch_on_resume(tmp_path):
    """Killed between history.csv and the copy to model.keras: the resume puts
    the best recorded epoch in model.keras."""
    import pandas as pd

    from engines.neural.backend import read_metadata
    from engines.training.supervised import best_epoch, train_supervised

    data = tmp_path / "data"
    generate_games(ENGINES, data, "tictactoe", "random", 12, workers=1, progress=False)
    out = tmp_path / "run"
    history = train_supervised(data, out, model="tiny", epochs=2, batch_size=16, progress=False)
    best = best_epoch(history)
    other = 1 if best == 2 else 2
    if (out / "checkpoints" / f"epoch-{other:03d}.keras").exists():
        (out / "model.keras").write_bytes((out / "checkpoints" / f"epoch-{other:03d}.keras").read_bytes())
    else:
        (out / "model.keras").unlink()
    train_supervised(data, out, model="tiny", epochs=2, batch_size=16, progress=False)
    assert read_metadata(out / "model.keras")["epoch"] == best_epoch(pd.read_csv(out / "history.csv")) == best



def test_a_compressed_games_file_starts_another_run_that_plays_only_what_it_lacks(tmp_path):
    from experiments.shared.supervised import start_from_games

    first = tmp_path / "first"
    made = generate_games(ENGINES, first, "tictactoe", "random", 6, seed=5, workers=1, progress=False)
    archive = tmp_path / "teacher-games.csv.gz"
    write_games(archive, made[:4])
    assert archive.read_bytes()[:2] == b"\x1f\x8b"  # gzip
    write_games(tmp_path / "again.csv.gz", made[:4])
    assert (tmp_path / "again.csv.gz").read_bytes() == archive.read_bytes()  # the same games, the same bytes
    assert read_games(archive) == made[:4]

    second = tmp_path / "second"
    start_from_games(second, archive)
    again = generate_games(ENGINES, second, "tictactoe", "random", 6, seed=5, batch=2, progress=False)
    assert again[:4] == made[:4]  # kept as they were, to their timings: not played again
    assert games_played(second) == games_played(first)  # the two it lacked, played together, are the same games

    other = tmp_path / "other"
    start_from_games(other, archive)
    with pytest.raises(RecordError, match="with seed"):  # games made with other settings stop the run
        generate_games(ENGINES, other, "tictactoe", "random", 6, seed=6, workers=1, progress=False)
    with pytest.raises(RecordError, match="no such games file"):
        start_from_games(tmp_path / "third", tmp_path / "missing.csv.gz")
    (tmp_path / "broken.csv.gz").write_bytes(b"\x1f\x8b not gzip")
    with pytest.raises(RecordError, match="not a games.csv.gz file"):
        start_from_games(tmp_path / "third", tmp_path / "broken.csv.gz")


# --fresh deletes a folder only if its own run.json names the script, and only once every argument is checked

class Taken(Exception):
    """Raised right after a script took its folders: the test needs nothing more of the run."""


def kept_by_a_user(folder: Path) -> set[Path]:
    """``folder`` filled as a person's folder: photos, notes and, deep inside, a
    run of something else (its games.csv and summary.md). Returns what is in it."""
    (folder / "photos").mkdir(parents=True)
    (folder / "photos" / "cat.jpg").write_bytes(b"\xff\xd8\xff")
    (folder / "notes.txt").write_text("keep me")
    (folder / "old" / "run").mkdir(parents=True)
    (folder / "old" / "run" / "games.csv").write_text(HEADER)
    (folder / "old" / "run" / "summary.md").write_text("# an old run")
    return contents(folder)


def contents(folder: Path) -> set[Path]:
    return {path.relative_to(folder) for path in folder.rglob("*")}


def exit_status(main, argv: list[str]) -> int:
    """A script's exit status, argparse's own exits included."""
    try:
        return main(argv)
    except SystemExit as err:
        return int(err.code or 0)


def test_fresh_keeps_a_folder_that_no_run_of_the_script_made(tmp_path, capsys):
    from experiments.headline import scaling

    work, out = tmp_path / "DIR", tmp_path / "out"
    before = kept_by_a_user(work)
    assert scaling.main(["--fresh", "--work", str(work), "--out", str(out), "--boards", "bogus"]) == 2
    assert contents(work) == before and not out.exists()  # the bad board first, and nothing deleted
    assert capsys.readouterr().err.strip().startswith("error: unknown")
    assert scaling.main(["--fresh", "--quick", "--work", str(work), "--out", str(out)]) == 2  # the board put right
    assert capsys.readouterr().err.strip() == (
        f"error: {work} holds no run of experiments/headline/scaling.py (it has no run.json); nothing "
        "deleted: delete it yourself if you mean to, or use another folder")
    assert contents(work) == before and not out.exists()  # nothing deleted, nothing written


def test_fresh_keeps_a_reports_tree_and_another_scripts_or_commands_run(tmp_path, capsys):
    from experiments.chapters import ch04a_minimax_alphabeta as ch04a

    reports = tmp_path / "reports"
    for name in ("ch03_random_go", "ch04a_minimax_alphabeta"):
        (reports / name).mkdir(parents=True)
        (reports / name / "summary.md").write_text("# the committed sample")
    (reports / "run.json").write_text('{"kind": "tournament"}')  # a run of `dlgo tournament`, not of the script
    before = contents(reports)
    assert ch04a.main(["--quick", "--fresh", "--out", str(reports)]) == 2  # a typo for reports/ch04a...
    assert "holds no run of experiments/chapters/ch04a_minimax_alphabeta.py" in capsys.readouterr().err
    assert contents(reports) == before

    other = tmp_path / "other"  # another script's folder: refused, with or without --fresh
    claim_folders([other], "experiments/chapters/ch03_random_go.py")
    (other / "games.csv").write_text(HEADER)
    for fresh in (["--fresh"], []):
        assert ch04a.main(["--quick", *fresh, "--out", str(other)]) == 2
        assert capsys.readouterr().err.strip().startswith(
            f"error: {other} holds a run of experiments/chapters/ch03_random_go.py, not of "
            "experiments/chapters/ch04a_minimax_alphabeta.py;")
    assert contents(other) == {Path("run.json"), Path("games.csv")}


def test_a_script_claims_the_folders_it_makes_and_only_those(tmp_path):
    made, found = tmp_path / "made", tmp_path / "found"
    found.mkdir()
    (found / "notes.txt").write_text("mine")
    with pytest.raises(RecordError, match=r"found holds no run of experiments/x.py \(it has no run.json\); "
                                          "nothing written: use a new or empty folder"):
        claim_folders([made, found], "experiments/x.py")
    assert not made.exists() and contents(found) == {Path("notes.txt")}  # one refused: neither touched
    (found / "notes.txt").unlink()  # emptied: a folder the run may take
    claim_folders([made, found], "experiments/x.py")
    assert read_manifest(made) == read_manifest(found) == {"experiment": "experiments/x.py"}  # the run's own
    (made / "stray.txt").write_text("inside the run's folder")
    claim_folders([made], "experiments/x.py")  # its own folder: used again
    with pytest.raises(RecordError, match="made holds a run of experiments/x.py, not of experiments/y.py; "
                                          "nothing written: use another folder"):
        claim_folders([made], "experiments/y.py")
    claim_folders([made], "experiments/x.py", fresh=True)
    assert contents(made) == {Path("run.json")}  # started over, claimed again


def test_fresh_deletes_no_folder_through_a_link_and_none_that_a_run_holds(tmp_path):
    """A run's folder named through a link is refused before anything is deleted
    (the other folder of the same run kept too); a folder whose run is going on
    stays locked until the deletion is done, and is refused while held."""
    out, work = tmp_path / "out", tmp_path / "work"
    claim_folders([out, work], "experiments/x.py")
    link = tmp_path / "link"
    link.symlink_to(work)
    with pytest.raises(RecordError, match="is a link; nothing deleted"):
        claim_folders([out, link], "experiments/x.py", fresh=True)
    assert (out / "run.json").exists() and (work / "run.json").exists()
    with hold_folder(work, "tournament"):
        with pytest.raises(RecordError, match="in use by another run; nothing deleted"):
            claim_folders([out, work], "experiments/x.py", fresh=True)
    assert (out / "run.json").exists() and (work / "run.json").exists()
    claim_folders([out, work], "experiments/x.py", fresh=True)
    assert contents(out) == {Path("run.json")} and contents(work) == {Path("run.json")}


#: every experiment script, whether it has --work, and an argument it refuses only after parsing
FRESH_SCRIPTS = [
    ("chapters.ch03_random_go", False, ["--size", "0"]),
    ("chapters.ch04a_minimax_alphabeta", False, ["--game", "connect4"]),
    ("chapters.ch04b_mcts", False, ["--c", "-1"]),
    ("chapters.ch05_numpy_network", False, ["--hidden", "0"]),
    ("chapters.ch06_07_train_predictor", True, ["--teacher", "nobody"]),
    ("chapters.ch08_play_predictor", False, ["--model", "missing.keras"]),
    ("chapters.ch09_experience", True, ["--discount", "2"]),
    ("chapters.ch10_policy_gradient", True, ["--predictor", "none", "--opponents", "nobody"]),
    ("chapters.ch11_q_learning", True, ["--learning-rate", "0"]),
    ("chapters.ch12_actor_critic", True, ["--opponents", "nobody"]),
    ("chapters.ch13_alphago", True, ["--opponent", "nobody"]),
    ("chapters.ch14a_alphazero_tictactoe", True, ["--iterations", "0"]),
    ("chapters.ch14b_alphazero_connect4", True, ["--games", "0"]),
    ("chapters.ch15_strength_per_compute", False, ["--engines", "nobody"]),
    ("headline.alphazero_go5", True, ["--simulations", "0"]),
    ("headline.alphazero_go7", True, ["--workers", "0"]),
    ("headline.alphazero_go9", True, ["--games", "0"]),
    ("headline.alphazero_economies", True, ["--variants", "nope"]),
    ("headline.connect4_ceiling", True, ["--selfplay", "missing.keras"]),
    ("headline.mcts_go9", False, ["--opponent", "nobody"]),
    ("headline.scaling", True, ["--boards", "bogus"]),
    ("headline.supervised_connect4", True, ["--teacher", "nobody"]),
    ("headline.supervised_go9", True, ["--teacher-games", "missing.csv.gz"]),
    ("crosschecks.calibration", False, ["--game", "nope"]),
    ("crosschecks.challenger", False, ["--network", "missing.keras"]),
    ("crosschecks.dead_stones", False, ["--engine", "nobody"]),
    ("crosschecks.gumbel_search", False, ["--network", "missing.keras"]),
    ("crosschecks.kaggle_connectx", False, ["--engine", "nobody"]),
    ("crosschecks.perfect_play", False, ["--engines", "nobody"]),
    ("crosschecks.unseen_positions", True, ["--networks", "missing.keras", "missing.keras"]),
    ("crosschecks.vs_gnugo", False, ["--engines", "nobody"]),
    ("crosschecks.vs_openspiel", False, ["--engines", "nobody"]),
]

#: what a script needs beside --quick to get as far as taking its folders
QUICK_NEEDS = {"chapters.ch08_play_predictor": ["--model", "{tmp}/model.keras"],
               "chapters.ch10_policy_gradient": ["--predictor", "none"],
               "crosschecks.challenger": ["--network", "connect4"]}


@pytest.mark.parametrize("script, work, bad", FRESH_SCRIPTS, ids=[s for s, _, _ in FRESH_SCRIPTS])
def test_every_script_deletes_only_its_own_folders_once_its_arguments_are_checked(script, work, bad, tmp_path,
                                                                                  monkeypatch):
    import importlib

    from experiments.shared import chapters

    module = importlib.import_module(f"experiments.{script}")
    if script in ("chapters.ch13_alphago", "headline.mcts_go9", "crosschecks.vs_gnugo") and \
            not os.access("/usr/games/gnugo", os.X_OK):
        pytest.skip("GNU Go is not installed")
    if script == "crosschecks.vs_openspiel":
        pytest.importorskip("pyspiel")
    out, data = tmp_path / "out", tmp_path / "work"
    folders = [out, data] if work else [out]
    where = [f"--{'out' if folder is out else 'work'}={folder}" for folder in folders]
    claim_folders(folders, chapters.script_path(module.__file__))  # an earlier run of this script
    for folder in folders:
        (folder / "games.csv").write_text(HEADER)
        (folder / "stray.txt").write_text("put there since")
    before = {folder: contents(folder) for folder in folders}

    assert exit_status(module.main, [*where, "--fresh", *bad]) == 2  # the bad argument: nothing deleted
    assert {folder: contents(folder) for folder in folders} == before

    real = chapters.claim_folders

    def claim_then_stop(*args, **kwargs):
        real(*args, **kwargs)
        raise Taken

    monkeypatch.setattr(chapters, "claim_folders", claim_then_stop)
    (tmp_path / "model.keras").write_bytes(b"")  # ch08 checks only that its model exists before it plays
    needs = [word.format(tmp=tmp_path) for word in QUICK_NEEDS.get(script, [])]
    with pytest.raises(Taken):
        module.main([*where, "--fresh", "--quick", *needs])
    for folder in folders:  # the script's own folders: started over
        assert contents(folder) == {Path("run.json")}
        assert read_manifest(folder) == {"experiment": chapters.script_path(module.__file__)}


def test_a_run_folder_keeps_its_settings_and_refuses_others(tmp_path):
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Settings:
        blocks: int = 2
        rate: float = 0.1

    record_settings(tmp_path, Settings(blocks=3))
    record_settings(tmp_path, Settings(blocks=3))  # the same settings: the run resumes
    assert read_settings(tmp_path, Settings, "test") == Settings(blocks=3)
    with pytest.raises(SettingsMismatchError, match=r"other settings \{'blocks': \(3, 4\)\}"):
        record_settings(tmp_path, Settings(blocks=4))
    (tmp_path / "config.json").write_text('{"blocks": 3}')  # a setting added since: its default
    record_settings(tmp_path, Settings(blocks=3))
    with pytest.raises(SettingsMismatchError, match="rate"):
        record_settings(tmp_path, Settings(blocks=3, rate=0.2))
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(RecordError, match="cannot be read"):
        record_settings(tmp_path, Settings())
    assert (tmp_path / "config.json").read_text() == "{not json"  # kept as it was


# A run writes only into a folder that is new, empty or its own: a person's files are never overwritten

def a_persons_folder(folder: Path, games: Path | None = None) -> dict[Path, bytes]:
    """``folder`` holding a person's own files, named as a report's are (and, with
    ``games``, a games.csv copied from there, no run.json): what is in it, byte for byte."""
    folder.mkdir(parents=True)
    (folder / "summary.md").write_text("my thesis notes")
    (folder / "facts.json").write_text('{"mine": true}')
    (folder / "strength_vs_compute.png").write_bytes(b"\x89PNG my picture")
    if games is not None:
        (folder / "games.csv").write_text((games / "games.csv").read_text())
    return {path: path.read_bytes() for path in folder.rglob("*")}


def untouched(before: dict[Path, bytes], folder: Path) -> bool:
    return {path: path.read_bytes() for path in folder.rglob("*")} == before


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("dataset")
    generate_games(ENGINES, data, "tictactoe", "random", 4, workers=1, progress=False)
    return data


#: every command that writes a folder, its arguments (DIR: the folder it writes; DATA: a dataset;
#: GAMES: a tournament's folder; SGF: a game record)
WRITING_COMMANDS = {
    "tournament": ["tournament", "--game", "tictactoe", "--engines", "random", "alphabeta:depth=1",
                   "--games-per-pair", "2", "--workers", "1", "--out", "DIR"],
    "ratings": ["ratings", "DIR"],
    "generate": ["generate", "--game", "tictactoe", "--engine", "random", "--games", "2", "--workers", "1",
                 "--out", "DIR"],
    "import-sgf": ["import-sgf", "SGF", "--out", "DIR"],
    "label-games": ["label-games", "GAMES", "--teacher", "random", "--out", "DIR"],
    "train-supervised": ["train-supervised", "--data", "DATA", "--model", "tiny", "--epochs", "1", "--out", "DIR"],
    "train-alphazero": ["train-alphazero", "--game", "tictactoe", "--iterations", "1", "--out", "DIR"],
    "train-rl": ["train-rl", "--method", "pg", "--game", "tictactoe", "--generations", "1", "--out", "DIR"],
    "solve-book": ["solve-book", "--game", "connectn:columns=4,rows=4,n=3", "--out", "DIR"],
    "positions": ["positions", "--game", "connectn:columns=4,rows=4,n=3", "--per-set", "2", "--workers", "1",
                  "--out", "DIR"],
    "mistakes": ["mistakes", "random", "--per-set", "2", "--workers", "1", "--out", "DIR"],
}


def command_line(name: str, folder: Path, played: Path, dataset: Path, tmp_path: Path) -> list[str]:
    sgf = tmp_path / "game.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])")
    names = {"DIR": folder, "DATA": dataset, "GAMES": played, "SGF": sgf}
    return [str(names.get(word, word)) for word in WRITING_COMMANDS[name]]


@pytest.mark.parametrize("name", list(WRITING_COMMANDS))
def test_no_command_writes_into_a_persons_folder(name, played, dataset, tmp_path, capsys):
    folder = tmp_path / "notes"
    before = a_persons_folder(folder, games=played if name == "ratings" else None)
    code, err = run_cli(command_line(name, folder, played, dataset, tmp_path), capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"dlgo: error: {folder} holds "), err
    assert "nothing written" in err and "run.json" in err, err
    assert untouched(before, folder)  # not a byte changed, not even a lock file added


def test_ratings_write_only_a_tournaments_own_folder_or_a_new_one(played, tmp_path, capsys):
    """A script's tournament folder keeps the report the script wrote; ``--out`` writes
    the ratings of any games.csv into a folder of their own, never over the games' folder."""
    script = tmp_path / "script"
    claim_folders([script], "experiments/chapters/ch03_random_go.py")
    run_tournament(ENGINES, script, "tictactoe", SPECS, 4, seed=3, workers=1, progress=False)
    (script / "summary.md").write_text("# Chapter 3")
    code, err = run_cli(["ratings", str(script)], capsys)
    assert code == 2 and "holds a run of experiments/chapters/ch03_random_go.py, whose report that script " \
                          "writes; nothing written: write the ratings elsewhere with --out DIR" in err
    assert (script / "summary.md").read_text() == "# Chapter 3"
    notes = tmp_path / "notes"
    before = a_persons_folder(notes, games=played)
    elsewhere = tmp_path / "ratings"
    assert run_cli(["ratings", str(notes), "--out", str(elsewhere)], capsys)[0] == 0
    assert untouched(before, notes) and (elsewhere / "ratings.csv").exists() and (elsewhere / "summary.md").exists()
    assert run_cli(["ratings", str(notes), "--out", str(elsewhere)], capsys)[0] == 0  # its own folder: again
    code, err = run_cli(["ratings", str(script), "--out", str(elsewhere)], capsys)
    assert code == 2 and "with games" in err  # the ratings of other games: refused


@pytest.mark.parametrize("script, work, bad", FRESH_SCRIPTS, ids=[s for s, _, _ in FRESH_SCRIPTS])
def test_no_script_writes_into_a_persons_folder(script, work, bad, tmp_path, capsys):
    """The issue's case: ``ch03_random_go.py --quick --out notes`` over a person's
    summary.md. Every script refuses it (and a person's --work) in one line."""
    import importlib

    module = importlib.import_module(f"experiments.{script}")
    if script == "crosschecks.vs_openspiel":
        pytest.importorskip("pyspiel")
    (tmp_path / "model.keras").write_bytes(b"")  # ch08 checks only that its model exists before it plays
    needs = [word.format(tmp=tmp_path) for word in QUICK_NEEDS.get(script, [])]
    for option in ("--out", "--work") if work else ("--out",):
        folder = tmp_path / option.strip("-")
        before = a_persons_folder(folder)
        others = [f"--work={tmp_path / 'own-work'}"] if option == "--out" and work else \
            [f"--out={tmp_path / 'own-out'}"] if option == "--work" else []
        code = exit_status(module.main, ["--quick", *needs, f"{option}={folder}", *others])
        err = capsys.readouterr().err
        if code == 2 and "GNU Go" in err:
            pytest.skip("GNU Go is not installed")
        assert code == 2 and err.strip() == (f"error: {folder} holds no run of {module.__name__.replace('.', '/')}"
                                             ".py (it has no run.json); nothing written: use a new or empty folder")
        assert untouched(before, folder)
        assert not (tmp_path / "own-out").exists() and not (tmp_path / "own-work").exists()  # neither taken


def test_the_top_of_reports_runs_and_data_is_never_a_run_folder(tmp_path, monkeypatch, capsys):
    """``--out reports`` (a typo for ``--out reports/NAME``) is refused, in the
    current folder and in the suite's own project from anywhere; ``reports/NAME`` is not."""
    from dlgo.storage.folders import PROJECT
    from experiments.chapters import ch03_random_go as ch03

    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports" / "ch03_random_go").mkdir(parents=True)
    (tmp_path / "reports" / "ch03_random_go" / "summary.md").write_text("# the committed sample")
    before = contents(tmp_path)
    for out in ("reports", "runs", "data", "./reports/", str(PROJECT / "reports"), str(PROJECT / "data")):
        code, err = run_cli(["tournament", "--game", "tictactoe", "--engines", "random", "alphabeta:depth=1",
                             "--games-per-pair", "2", "--workers", "1", "--out", out], capsys)
        assert code == 2 and "holds the runs' folders and is not one itself; nothing written: name a folder " \
                             "inside it, e.g." in err, (out, err)
        assert ch03.main(["--quick", "--out", out]) == 2
        assert "holds the runs' folders" in capsys.readouterr().err
    assert contents(tmp_path) == before
    assert not (PROJECT / "reports" / LOCK).exists() and not (PROJECT / "reports" / "games.csv").exists()
    assert run_cli(["tournament", "--game", "tictactoe", "--engines", "random", "alphabeta:depth=1",
                    "--games-per-pair", "2", "--workers", "1", "--out", "reports/mine"], capsys)[0] == 0



def test_each_resume_pack_copied_back_is_a_work_folder_its_experiment_takes(tmp_path):
    """``cp -rn resume/NAME data/`` then the experiment's command resumes: each pack
    names the experiment that owns it, and that experiment takes the copied folder."""
    from dlgo.storage.folders import check_folder

    resume = Path(__file__).resolve().parent.parent / "resume"
    packs = [p for p in resume.iterdir() if p.is_dir()]
    for pack in packs:
        manifest = read_manifest(pack)
        copied = tmp_path / pack.name
        shutil.copytree(pack, copied)
        if manifest.get("kind") == "positions":  # a solved set a run finds by its path: today's code takes it
            facts = {k: v for k, v in manifest.items() if k not in ("kind", "experiment")}
            check_folder(copied, "positions", assumed={"play": "random", "stones": "pons"},
                         **{"play": "random", "stones": "pons", **facts})
            continue
        owner = manifest.get("experiment")
        assert owner and (resume.parent / owner).is_file(), f"{pack.name}: its run.json names no experiment"
        claim_folders([str(copied)], owner, fresh=False)
        assert read_manifest(copied)["experiment"] == owner
    other = tmp_path / "unowned"
    shutil.copytree(packs[0], other, ignore=shutil.ignore_patterns("run.json"))
    (other / "run.json").unlink(missing_ok=True)
    with pytest.raises(RecordError, match="holds no run of"):
        claim_folders([str(other)], "experiments/headline/connect4_ceiling.py", fresh=False)
