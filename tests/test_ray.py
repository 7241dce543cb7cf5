"""``--ray``: the same games on a Ray cluster as in local workers, and none lost
or doubled when a worker dies (on a two-node cluster on 127.0.0.1 the test starts)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

ray = pytest.importorskip("ray", reason="the distributed extra (ray) is not installed")

from dlgo.arena.tournament import run_tournament, schedule  # noqa: E402
from dlgo.data.experience import collect_experience, load_experience  # noqa: E402
from dlgo.data.generate import generate_games  # noqa: E402
from dlgo.formats.records import read_games  # noqa: E402
from engines.registry import ENGINES  # noqa: E402
from helpers import free_port  # noqa: E402

RAY_CLI = Path(sys.executable).with_name("ray")
#: a cluster of the test's own on this machine: no tokens to share, no usage reports
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_DISABLE_USAGE_STATS": "1", "RAY_USAGE_STATS_ENABLED": "0"}
TIMING = ["experiment", "black_seconds", "white_seconds"]


def same_games(a: Path, b: Path) -> pd.DataFrame:
    """The two folders' games.csv without the columns that vary by run (timings, the folder's name)."""
    frames = [pd.read_csv(folder / "games.csv").drop(columns=TIMING).sort_values("game_id").reset_index(drop=True)
              for folder in (a, b)]
    assert frames[0].equals(frames[1]), frames[0].compare(frames[1])
    return frames[0]


@pytest.fixture(scope="module")
def local_ray():
    """A private Ray instance in this process (``--ray local``), shut down after the module."""
    old = {k: os.environ.get(k) for k in RAY_ENV}
    os.environ.update(RAY_ENV)
    yield "local"
    ray.shutdown()
    for key, value in old.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def test_a_seeded_tournament_gives_the_same_games_on_ray_as_locally(tmp_path, local_ray):
    specs = ["random", "mcts:rounds=40", "alphabeta:depth=2"]
    local = run_tournament(ENGINES, tmp_path / "local", "connect4", specs, 4, seed=3, opening_plies=2, workers=1,
                           progress=False)
    on_ray = run_tournament(ENGINES, tmp_path / "ray", "connect4", specs, 4, seed=3, opening_plies=2,
                            progress=False, ray=local_ray)
    assert len(local) == len(on_ray) == 12
    games = same_games(tmp_path / "local", tmp_path / "ray")
    assert sorted(games["game_id"]) == sorted(t.game_id for t in schedule(specs, 4, 3))


def test_generated_games_and_batched_experience_are_the_same_on_ray(tmp_path, local_ray):
    generate_games(ENGINES, tmp_path / "gen-local", "tictactoe", "mcts:rounds=30", 8, seed=5, workers=1,
                   progress=False)
    generate_games(ENGINES, tmp_path / "gen-ray", "tictactoe", "mcts:rounds=30", 8, seed=5, progress=False,
                   ray=local_ray)
    same_games(tmp_path / "gen-local", tmp_path / "gen-ray")
    # train-rl's path: a batch of games shared among the cluster's CPUs, each share batched
    collect_experience(ENGINES, tmp_path / "exp-local", "connect4", "random", "mcts:rounds=20", 10, seed=2,
                       progress=False, batch=10)
    collect_experience(ENGINES, tmp_path / "exp-ray", "connect4", "random", "mcts:rounds=20", 10, seed=2,
                       progress=False, batch=10, ray=local_ray)
    same_games(tmp_path / "exp-local", tmp_path / "exp-ray")
    a, b = load_experience(tmp_path / "exp-local"), load_experience(tmp_path / "exp-ray")
    assert (a.states == b.states).all() and (a.actions == b.actions).all() and (a.rewards == b.rewards).all()


def test_alphazero_self_play_shares_on_ray_are_the_games_a_local_process_plays(local_ray):
    pytest.importorskip("tensorflow", reason="the neural extra (TensorFlow) is not installed")
    from engines.alphazero import NetworkEvaluator
    from engines.checkpoints import SHIPPED
    from engines.neural.loading import load_network
    from engines.training.selfplay import SelfPlayPool, SelfPlaySettings, self_play

    settings = SelfPlaySettings(parallel=4, simulations=12, temperature_moves=4)
    with SelfPlayPool(2, ray=local_ray) as pool:  # two shares, as --workers 2 with --ray
        on_ray = pool.self_play("tictactoe", SHIPPED / "tictactoe.keras", 6, settings, seed=11)
    network = load_network("tictactoe")
    shares = [self_play("tictactoe", NetworkEvaluator(network), network.encoder, 3, replace(settings, parallel=3),
                        seed=11 * 1009 + k) for k in range(2)]
    assert on_ray.moves == [m for share in shares for m in share.moves]
    assert on_ray.values.tolist() == [v for share in shares for v in share.values.tolist()]


@pytest.fixture
def two_node_cluster(tmp_path):
    """A head node and a second node on 127.0.0.1, one CPU each; stopped afterwards."""
    if not RAY_CLI.exists():
        pytest.skip("no ray command beside this Python")
    env = {**os.environ, **RAY_ENV}
    port = free_port()
    address = f"127.0.0.1:{port}"
    sessions = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes

    def ray_cli(*args: str) -> None:
        done = subprocess.run([str(RAY_CLI), *args], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"ray {' '.join(args)}: {done.stdout[-1500:]}{done.stderr[-1500:]}"

    ray_cli("start", "--head", f"--port={port}", "--num-cpus=1", "--include-dashboard=false",
            "--disable-usage-stats", f"--temp-dir={sessions}")
    try:
        ray_cli("start", f"--address={address}", "--num-cpus=1")
        deadline = time.monotonic() + 60
        while "2.0/2.0 CPU" not in subprocess.run([str(RAY_CLI), "status", f"--address={address}"], env=env,
                                                  capture_output=True, text=True).stdout.replace("0.0/2.0", "2.0/2.0"):
            assert time.monotonic() < deadline, "the second node did not join"
            time.sleep(0.5)
        yield address, env
    finally:
        # SIGKILL at once; no grace: killed processes left as zombies (a container's init may not reap
        # them) would hold `ray stop` for its whole default grace period, some 20 s
        subprocess.run([str(RAY_CLI), "stop", "--force", "--grace-period", "1"], env=env, capture_output=True,
                       timeout=120)
        shutil.rmtree(sessions, ignore_errors=True)


def ray_task_pids() -> list[int]:
    """The processes running one of our Ray tasks right now (Ray names them ``ray::play_task``)."""
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines()[1:] if "ray::play_task" in line]


def test_a_worker_killed_mid_game_has_its_game_played_again_and_none_lost_or_doubled(tmp_path, two_node_cluster):
    address, env = two_node_cluster
    specs = ["mcts:rounds=1500", "alphabeta:depth=3"]
    args = ["--game", "connect4", "--engines", *specs, "--games-per-pair", "6", "--seed", "9"]
    driver = subprocess.Popen([sys.executable, "-m", "dlgo", "tournament", *args, "--out", str(tmp_path / "ray"),
                               "--ray", address], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    killed: list[int] = []

    def kill_one_worker() -> None:
        deadline = time.monotonic() + 120
        while driver.poll() is None and time.monotonic() < deadline:
            pids = ray_task_pids()
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_one_worker)
    killer.start()
    output, _ = driver.communicate(timeout=600)
    killer.join()
    assert driver.returncode == 0, output[-3000:]
    assert killed, "no Ray task was seen running"
    assert "will be retried" in output  # Ray said so, and did
    records = read_games(tmp_path / "ray" / "games.csv")
    assert sorted(r.game_id for r in records) == sorted(t.game_id for t in schedule(specs, 6, 9))  # each once
    local = subprocess.run([sys.executable, "-m", "dlgo", "tournament", *args, "--out", str(tmp_path / "local"),
                            "--workers", "1"], capture_output=True, text=True, timeout=600)
    assert local.returncode == 0, local.stderr[-2000:]
    same_games(tmp_path / "local", tmp_path / "ray")


def test_no_cluster_is_one_line_and_nothing_written(tmp_path, capsys):
    from dlgo.app import cli

    if ray.is_initialized():
        ray.shutdown()
    port = free_port()
    out = tmp_path / "t"
    code = cli.main(["tournament", "--game", "tictactoe", "--engines", "random", "alphabeta", "--games-per-pair",
                     "2", "--out", str(out), "--ray", f"127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert code == 2 and "no Ray cluster answers" in err and err.count("\n") == 1
    assert not (out / "games.csv").exists() or read_games(out / "games.csv") == []
    shutil.rmtree(out, ignore_errors=True)
