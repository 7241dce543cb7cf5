"""``dlgo export-kaggle``: an AlphaZero engine as one self-contained ConnectX submission.

    dlgo export-kaggle --engine alphazero:checkpoint=connect4,simulations=200 --out submission.py

The file is :mod:`dlgo.app.kaggle_agent`'s source with the network's weights
(batch norm folded into the convolutions, stored as a compressed npz in base64)
and the engine's search settings written in. It imports nothing but numpy.
"""
from __future__ import annotations

import base64
import io
import json
import os
import pprint
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from dlgo.app import kaggle_agent
from dlgo.core.errors import DlgoError, ModelFileError, SpecError
from dlgo.core.specs import bind, split_spec
from dlgo.storage.atomic import atomic_write
from dlgo.games import get_game
from engines.checkpoints import resolve_model_path
from engines.registry import engine_class, engine_parameters, resolve

#: what the exported search takes from the engine's spec; the others must keep their defaults (but the
#: seed, which a most-visited choice never uses, and reuse: each turn starts a fresh tree)
EXPORTED = ("checkpoint", "simulations", "c", "fpu", "batch")


def fold_batch_norm(kernel: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray,
                    variance: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """A convolution without bias followed by batch norm, as one convolution with a bias."""
    scale = gamma / np.sqrt(variance + epsilon)
    return (kernel * scale).astype(np.float32), (beta - mean * scale).astype(np.float32)


def network_weights(model: Any) -> tuple[dict[str, np.ndarray], int]:
    """The arrays :func:`dlgo.app.kaggle_agent.network` reads from a ResNet of
    ``engines.neural.resnet`` (found by its layers' names), and its number of blocks."""
    layers = {layer.name: layer for layer in model.layers}
    out: dict[str, np.ndarray] = {}
    try:
        convs = ["stem", "policy", "value"] + [n[:-5] for n in layers if re.fullmatch(r"block\d+[ab]_conv", n)]
        for name in convs:
            (kernel,) = layers[f"{name}_conv"].get_weights()
            bn = layers[f"{name}_bn"]
            gamma, beta, mean, variance = bn.get_weights()
            out[f"{name}_kernel"], out[f"{name}_bias"] = fold_batch_norm(kernel, gamma, beta, mean, variance,
                                                                         bn.epsilon)
        for name, layer in (("policy_dense", "policy"), ("value_hidden", "value_hidden"), ("value_dense", "value")):
            out[f"{name}_kernel"], out[f"{name}_bias"] = (w.astype(np.float32) for w in layers[layer].get_weights())
    except (KeyError, ValueError):
        raise ModelFileError("export-kaggle takes an AlphaZero network (the ResNet of dlgo train-alphazero); "
                             "this one has other layers") from None
    blocks = sum(1 for n in layers if re.fullmatch(r"block\d+a_conv", n))
    return out, blocks


def pack(weights: dict[str, np.ndarray]) -> str:
    """The arrays as a compressed npz in base64 (what :func:`kaggle_agent.load_weights` reads)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **weights)  # type: ignore[arg-type]  # numpy's stub types **kwds oddly
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def submission_source(weights: dict[str, np.ndarray], settings: dict[str, Any]) -> str:
    """The agent module's source with ``weights`` and ``settings`` written in."""
    source = Path(kaggle_agent.__file__).read_text(encoding="utf-8")
    blob_line = 'WEIGHTS_BLOB = ""\n'
    settings_start = source.index("SETTINGS: dict[str, Any] = {")
    settings_end = source.index("}\n", settings_start) + 2
    if blob_line not in source:
        raise AssertionError("kaggle_agent.py lost its WEIGHTS_BLOB line")
    source = source[:settings_start] + "SETTINGS: dict[str, Any] = " + pprint.pformat(settings, width=100) + \
        "\n" + source[settings_end:]
    return source.replace(blob_line, f'WEIGHTS_BLOB = "{pack(weights)}"\n', 1)


def export_kaggle(spec: str, out: str | Path, time_fraction: float = 0.5) -> dict[str, Any]:
    """Write ``spec`` (an ``alphazero`` engine on a Connect-N network) to ``out``
    as a ConnectX submission; returns the settings written in."""
    from engines.neural.backend import load_model  # TensorFlow's lazy import

    name, params = resolve(*split_spec(spec))
    if name != "alphazero":
        raise SpecError(f"export-kaggle exports an alphazero engine (alphazero:checkpoint=NAME,...), not {name!r}")
    values = bind(engine_class(name).__init__, params, f"engine {name!r}")
    defaults = {p.name: p.default for p in engine_parameters(name)}
    unsupported = sorted(k for k, v in values.items() if k not in EXPORTED + ("seed", "reuse") and v != defaults[k])
    if unsupported:
        raise SpecError(f"export-kaggle plays the most visited move with a fresh tree each turn; drop "
                        f"{', '.join(unsupported)} from the spec")
    if not values.get("checkpoint"):
        raise SpecError("export-kaggle needs checkpoint=NAME (a Connect Four network, e.g. the shipped connect4)")
    path = resolve_model_path(values["checkpoint"])
    model, metadata = load_model(path, compile=False)
    encoder = metadata.get("encoder") or {}
    game_spec = str(encoder.get("game", ""))
    game = get_game(game_spec) if game_spec else None
    if encoder.get("name") != "planes" or game is None or game.board_style != "columns" or game.has_swap:
        raise ModelFileError(f"{path} is not a Connect-N network without the pie rule (its game: "
                             f"{game_spec or 'unknown'}); ConnectX plays Connect-N")
    weights, blocks = network_weights(model)
    simulations = int(values.get("simulations", defaults["simulations"]))
    if simulations < 1:
        raise SpecError("export-kaggle needs simulations of at least 1 (the search is the agent)")
    settings = {"rows": game.num_rows, "columns": game.num_cols, "inarow": getattr(game, "k", 4), "blocks": blocks,
                "simulations": simulations, "c": float(values.get("c", defaults["c"])), "fpu": values.get("fpu"),
                "batch": int(values["batch"]) if "batch" in values else 8, "time_fraction": time_fraction}
    with atomic_write(out) as handle:
        handle.write(submission_source(weights, settings))
    return settings


#: the runner :func:`play_in_kaggle` starts: Kaggle's own ConnectX environment, one JSON line per game
KAGGLE_RUNNER = """
import json, random, sys
from kaggle_environments import make
submission, opponent, games, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
configuration = {"actTimeout": float(sys.argv[5])} if len(sys.argv) > 5 else {}
for game in range(games):
    random.seed(seed * 1_000_003 + game)  # Kaggle's agents draw from the module's generator: each game replays
    first = game % 2 == 0
    env = make("connectx", configuration=configuration, debug=True)
    env.run([submission, opponent] if first else [opponent, submission])
    ours = env.steps[-1][0 if first else 1]
    boards = [step[0]["observation"]["board"] for step in env.steps]
    columns = [next(i for i, (a, b) in enumerate(zip(before, after)) if a != b) % env.configuration.columns
               for before, after in zip(boards, boards[1:]) if before != after]
    print(json.dumps({"first": first, "reward": ours["reward"], "status": ours["status"], "columns": columns}),
          flush=True)
"""


class KaggleGame(NamedTuple):
    """One ConnectX game of a submission: whether it moved first, its reward (1, 0, -1;
    None after an error), its final status, and the columns both sides played."""

    first: bool
    reward: float | None
    status: str
    columns: list[int]


def play_in_kaggle(submission: str | Path, opponent: str, games: int, timeout: float = 1800,
                   act_timeout: float | None = None, seed: int = 0) -> list[KaggleGame]:
    """``games`` games of ``submission`` against a ConnectX agent of ``kaggle-environments``
    (``negamax``, ``random``), first and second in turn, in a process of their own
    (numpy on one thread, as a Kaggle kernel runs it). ``act_timeout``: the seconds a
    move may take (Kaggle's 2 unless given; the agent searches until half of it, or
    until its simulations are done). ``seed`` seeds the random choices of Kaggle's agents
    (negamax breaks ties at random), game by game, so a game replays whenever the agent's
    search ends at its simulations rather than at the clock."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    extra = [] if act_timeout is None else [str(act_timeout)]
    done = subprocess.run([sys.executable, "-c", KAGGLE_RUNNER, str(submission), opponent, str(games), str(seed),
                           *extra],
                          capture_output=True, text=True, env=env, timeout=timeout)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise DlgoError(f"kaggle-environments could not play {submission}: {last}")
    return [KaggleGame(**json.loads(line)) for line in done.stdout.splitlines() if line.startswith("{")]
