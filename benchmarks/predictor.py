"""Inference speed of the move predictor: why the agent never calls ``model.predict``.

    python benchmarks/predictor.py              # about a minute
    python benchmarks/predictor.py --model medium

For the 9x9 Go and Connect Four "small" networks (untrained: speed does not
depend on the weights) it times one position through ``model.predict``,
an eager call and the graph-compiled call the agent uses, a batch of 256
through the compiled call, and finally whole predictor moves (encode, network,
mask, choose) in self-play, one game at a time and --games games advancing
together (one network call per step for all of them).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

from dlgo.arena.match import Task, play_matches
from dlgo.core.arguments import count
from dlgo.encoders import get_encoder_by_name
from dlgo.games import new_game
from engines.registry import ENGINES, create
from markdown import DEFAULT_FOLDER, Table


def rate(fn: Callable[[], object], seconds: float) -> float:
    """Calls per second of ``fn`` over about ``seconds`` (after one warm-up call)."""
    fn()
    n, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        fn()
        n += 1
    return n / elapsed


def network_rates(model, call, one: np.ndarray, batch: np.ndarray, seconds: float) -> list[tuple[str, float]]:
    """Positions/s through each way of calling the network."""
    return [
        ("model.predict, one position", rate(lambda: model.predict(one, verbose=0), seconds)),
        ("eager model(x), one position", rate(lambda: model(one, training=False), seconds)),
        ("compiled call, one position", rate(lambda: call(one), seconds)),
        (f"compiled call, batches of {len(batch)}", len(batch) * rate(lambda: call(batch), seconds)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="small", help="network (default small)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per row (default 3)")
    parser.add_argument("--games", type=count("games"), default=256, help="games played together (default 256)")
    parser.add_argument("--out", default=f"{DEFAULT_FOLDER}/predictor.md", help="where the table is saved")
    args = parser.parse_args()

    from engines.neural.backend import compiled_call, keras, save_model
    from engines.neural.models import build_model

    table = Table(["game", "how", "positions/s"], [False, False, True],
                  f"Keras {keras.__version__}, the untrained {args.model!r} network, one process")
    with tempfile.TemporaryDirectory() as tmp:
        for game, encoder in (("go:size=9", "simple"), ("connect4", "planes")):
            enc = get_encoder_by_name(encoder, game)
            model = build_model(args.model, enc.shape, enc.num_moves)
            rng = random.Random(0)
            state = new_game(game)
            for _ in range(6):
                state = state.apply_move(state.random_move(rng))
            one = enc.encode(state)[np.newaxis]
            batch = np.repeat(one, 256, axis=0)
            rows = network_rates(model, compiled_call(model), one, batch, args.seconds)
            path = Path(tmp) / f"{encoder}.keras"
            save_model(model, path, {"kind": "predictor", "encoder": enc.config()})
            agent = create(f"predictor:model={path}")
            positions = [state]
            while not positions[-1].is_over() and len(positions) < 40:
                positions.append(positions[-1].apply_move(agent.select_move(positions[-1])))
            start = time.perf_counter()
            for s in positions[:-1]:
                agent.select_move(s)
            rows.append(("predictor agent moves (encode + call + choose)",
                         (len(positions) - 1) / (time.perf_counter() - start)))
            spec = f"predictor:model={path},temperature=1"
            tasks = [Task(f"#{k}", spec, spec, k) for k in range(args.games)]
            start = time.perf_counter()
            records = play_matches(ENGINES, game, tasks, opening_plies=2)
            moves = sum(r.plies - r.opening_plies for r in records)
            rows.append((f"predictor agent moves, {args.games} games together (play_matches)",
                         moves / (time.perf_counter() - start)))
            for how, value in rows:
                table.row(game, how, f"{value:,.0f}")
    table.save(args.out)


if __name__ == "__main__":
    main()
