"""Network inference, each runtime side by side: evaluations/s and what its precision changes.

    python benchmarks/inference.py              # a few minutes on 2 cores
    python benchmarks/inference.py --quick      # batches of 64 and 256, fewer repeats and positions
    python benchmarks/inference.py --paths keras,openvino

Speed: an untrained Connect Four ResNet of 5 blocks x 64 filters (input 6x7x3, 7
moves) and the shipped ``go9-zero`` network (4 blocks x 64 filters, its
auxiliary heads, input 9x9x11) answer the same batches of 64, 256 and 1,024 positions through each
runtime: Keras' compiled call on TensorFlow in float32 and in mixed bfloat16,
TensorFlow with XLA (``jit_compile``), OpenVINO in f32 and bf16, ONNX Runtime,
and Keras on JAX (this script again, in a process with ``KERAS_BACKEND=jax``).
Each rate is the best of a few timed repeats after warm-up calls; the repeats go
round the runtimes in turn, so a busy machine slows them alike. Conversion (or
tracing) time is reported apart.

Precision: the shipped ``connect4-recipe`` network on the critical positions of
the early-game solved sets (engines.training.references): the largest policy
and value difference from Keras float32, and the mistakes (moves that change
the game-theoretic result) of the raw policy and after the recipe's evaluation
search, so a reader sees whether a half precision changes the play.

The first table is saved to ``--out``, the second beside it (``-precision``).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from dlgo.encoders import get_encoder_by_name
from dlgo.formats.positions import position_state
from engines.alphazero import NetworkEvaluator
from engines.training.references import measure_reference, reference_positions
from engines.training.selfplay import MatchSettings
from markdown import DEFAULT_FOLDER, Table

Call = Callable[[np.ndarray], list[np.ndarray]]

#: the runtimes, by the names --paths knows them (``jax``: Keras on JAX, in a process of its own)
GROUPS = ("keras", "xla", "openvino", "onnxruntime", "jax")
RECIPE = "checkpoints/connect4-recipe.keras"
GO9 = "checkpoints/go9-zero.keras"


def paths(group: str) -> list[tuple[str, Callable[[Any], Call]]]:
    """The paths of one runtime group: (label, builder of the call from a float32 Keras model)."""
    import engines.neural.inference as inference
    from engines.neural.backend import compiled_call, in_precision, keras

    on = keras.backend.backend()
    return {
        "keras": [(f"Keras ({on}) float32", compiled_call),
                  (f"Keras ({on}) bfloat16", lambda m: compiled_call(in_precision(m, "bfloat16")))],
        "xla": [("TensorFlow XLA float32", xla_call)],
        "openvino": [("OpenVINO f32", lambda m: inference.openvino_call(m, "float32")),
                     ("OpenVINO bf16", lambda m: inference.openvino_call(m, "bfloat16")),
                     ("OpenVINO bf16, static batch", lambda m: static_batch(m, "bfloat16"))],
        "onnxruntime": [("ONNX Runtime f32", inference.onnxruntime_call)],
    }[group]


def static_batch(model: Any, precision: str) -> Call:
    """OpenVINO compiled for each batch size apart (on its first batch of that size: in the warm-up)."""
    import engines.neural.inference as inference

    compiled: dict[int, Call] = {}

    def call(batch: np.ndarray) -> list[np.ndarray]:
        if len(batch) not in compiled:
            compiled[len(batch)] = inference.openvino_call(model, precision, batch_size=len(batch))
        return compiled[len(batch)](batch)

    return call


def xla_call(model: Any) -> Call:
    """``model`` as a TensorFlow function compiled by XLA (one compilation per batch size)."""
    from engines.neural.backend import tf

    @tf.function(jit_compile=True, reduce_retracing=True)
    def call(batch):
        out = model(batch, training=False)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    return lambda batch: [o.numpy() for o in call(tf.convert_to_tensor(batch, tf.float32))]


def networks() -> list[tuple[str, Any]]:
    """The networks timed: (description, float32 Keras model)."""
    from engines.neural.backend import keras, load_model
    from engines.neural.resnet import build_resnet

    keras.utils.set_random_seed(0)
    connect4 = get_encoder_by_name(None, "connect4")
    go9, _ = load_model(GO9, compile=False)
    return [("Connect Four 5x64", build_resnet(connect4.shape, connect4.num_moves, blocks=5, filters=64)),
            ("9x9 Go go9-zero 4x64", go9)]


def built(groups: list[str], model: Any) -> tuple[dict[str, Call], dict[str, float], dict[str, str]]:
    """Each path's call of ``model``, the seconds it took to build (conversion), and why any could not be."""
    calls, seconds, failed = {}, {}, {}
    for group in groups:
        for label, builder in paths(group):
            start = time.perf_counter()
            try:
                call = builder(model)
                call(np.zeros((1, *model.inputs[0].shape[1:]), np.float32))  # a first call traces
            except Exception as err:  # noqa: BLE001 - a runtime that is not installed or cannot convert: a row says so
                failed[label] = f"{type(err).__name__}: {err}".splitlines()[0][:80]
                continue
            calls[label], seconds[label] = call, time.perf_counter() - start
    return calls, seconds, failed


def measure_speed(groups: list[str], batches: list[int], repeats: int, seconds: float) -> dict[str, Any]:
    """For each network and path: conversion seconds and the best evaluations/s at each batch size."""
    results: dict[str, Any] = {}
    for name, model in networks():
        calls, convert, failed = built(groups, model)
        rates: dict[str, dict[int, float]] = {label: {} for label in calls}
        for size in batches:
            batch = np.random.default_rng(size).integers(0, 2, size=(size, *model.inputs[0].shape[1:]))
            batch = batch.astype(np.float32)
            counts = {}
            for label, call in calls.items():  # warm up (XLA compiles this batch size) and size the repeats
                call(batch)
                start = time.perf_counter()
                call(batch)
                counts[label] = max(1, round(seconds / max(time.perf_counter() - start, 1e-6)))
            for _ in range(repeats):
                for label, call in calls.items():
                    start = time.perf_counter()
                    for _ in range(counts[label]):
                        call(batch)
                    rate = size * counts[label] / (time.perf_counter() - start)
                    rates[label][size] = max(rate, rates[label].get(size, 0.0))
            print(f"  {name}, batch {size}: measured", file=sys.stderr, flush=True)
        results[name] = {"convert": convert, "rates": rates, "failed": failed}
    return results


def measure_precision(groups: list[str], per_set: int) -> dict[str, Any]:
    """Each path's answers on the recipe network's reference positions and its mistakes there."""
    from engines.neural.backend import load_model

    model, metadata = load_model(RECIPE, compile=False)
    encoder = get_encoder_by_name(metadata["encoder"]["name"], metadata["encoder"]["game"])
    positions = reference_positions("connect4", per_set)
    features = encoder.encode_batch([position_state(p) for p in positions]).astype(np.float32)
    config = metadata.get("config", {})
    settings = MatchSettings(parallel=config.get("parallel", 128), simulations=config.get("eval_simulations", 16))
    calls, _, failed = built(groups, model)
    calls = {label: call for label, call in calls.items() if "static" not in label}  # OpenVINO bf16's arithmetic
    results: dict[str, Any] = {"positions": len(positions), "simulations": settings.simulations, "failed": failed,
                               "paths": {}}
    for label, call in calls.items():
        policy, value = call(features)[:2]
        mistakes = measure_reference(NetworkEvaluator(Network(encoder, call)), positions, settings)
        results["paths"][label] = {"policy": policy.tolist(), "value": value[:, 0].tolist(),
                                   "raw": mistakes.raw, "search": mistakes.search}
        print(f"  precision: {label} measured", file=sys.stderr, flush=True)
    return results


class Network:
    """A network call with its encoder: what :class:`~engines.alphazero.NetworkEvaluator` plays by."""

    def __init__(self, encoder: Any, call: Call) -> None:
        self.encoder, self.call = encoder, call

    def check(self, state: Any) -> None:
        self.encoder.check(state.game)


def on_jax(args: argparse.Namespace) -> dict[str, Any] | None:
    """This script's Keras rows measured in a process with Keras on JAX; None where it fails."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "jax.json"
        command = [sys.executable, __file__, "--paths", "keras", "--json", str(out)]
        command += ["--quick"] if args.quick else []
        try:
            run = subprocess.run(command, env={**os.environ, "KERAS_BACKEND": "jax"}, capture_output=True, text=True,
                                 timeout=1800)
        except subprocess.TimeoutExpired:
            print("Keras on JAX: timed out", file=sys.stderr)
            return None
        if run.returncode != 0 or not out.exists():
            print(f"Keras on JAX failed: {run.stderr.strip().splitlines()[-1:] or run.returncode}", file=sys.stderr)
            return None
        found = json.loads(out.read_text())
    for result in found["speed"].values():  # JSON wrote the batch sizes as strings
        result["rates"] = {label: {int(b): r for b, r in rates.items()} for label, rates in result["rates"].items()}
    return found


def merged(local: dict[str, Any], jax: dict[str, Any] | None, wanted: bool) -> tuple[dict[str, Any], list[str]]:
    """The measurements of this process and the JAX one together; the JAX labels not measured."""
    missing = [] if not wanted or jax is not None else ["Keras (jax) float32", "Keras (jax) bfloat16"]
    if jax is None:
        return local, missing
    for name, result in jax["speed"].items():
        for key in ("convert", "rates", "failed"):
            local["speed"][name][key].update(result[key])
    local["precision"]["paths"].update(jax["precision"]["paths"])
    local["precision"]["failed"].update(jax["precision"]["failed"])
    return local, missing


def speed_table(speed: dict[str, Any], batches: list[int], missing: list[str], setting: str) -> Table:
    table = Table(["network", "path", "ready in s", *(f"evaluations/s, batch {b}" for b in batches)],
                  [False, False] + [True] * (1 + len(batches)), setting)
    for name, result in speed.items():
        baseline = result["rates"].get("Keras (tensorflow) float32", {})
        for label, rates in result["rates"].items():
            cells = [f"{rates[b]:,.0f}" + (f" ({rates[b] / baseline[b]:.1f}x)" if b in baseline else "")
                     for b in batches]
            table.row(name, label, f"{result['convert'][label]:.2f}", *cells)
        for label in [*result["failed"], *missing]:
            reason = result["failed"].get(label, "its process failed")
            table.row(name, label, "", f"not measured ({reason})", *[""] * (len(batches) - 1))
    return table


def precision_table(precision: dict[str, Any], missing: list[str], setting: str) -> Table:
    table = Table(["path", "max policy difference", "max value difference", "raw-policy mistakes",
                   "mistakes after search"], [False] + [True] * 4, setting)
    found = precision["paths"]
    reference = found.get("Keras (tensorflow) float32")
    for label, result in found.items():
        if reference is not None:
            policy = np.max(np.abs(np.array(result["policy"]) - np.array(reference["policy"])))
            value = np.max(np.abs(np.array(result["value"]) - np.array(reference["value"])))
            differences = [f"{policy:.2g}", f"{value:.2g}"]
        else:
            differences = ["", ""]
        table.row(label, *differences, f"{result['raw']:.1%}", f"{result['search']:.1%}")
    for label in [*precision["failed"], *missing]:
        table.row(label, f"not measured ({precision['failed'].get(label, 'its process failed')})", "", "", "")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="batches of 64 and 256, 2 repeats, 20 positions a set")
    parser.add_argument("--paths", default=",".join(GROUPS),
                        help=f"the runtimes to measure (default {','.join(GROUPS)})")
    parser.add_argument("--out", default=f"{DEFAULT_FOLDER}/inference.md", help="where the speed table is saved "
                        "(the precision table beside it, -precision.md)")
    parser.add_argument("--json", default="", help=argparse.SUPPRESS)  # the JAX process's answers, for its parent
    args = parser.parse_args()
    groups = [g for g in args.paths.split(",") if g]
    unknown = set(groups) - set(GROUPS)
    if unknown:
        parser.error(f"unknown paths {', '.join(sorted(unknown))}; the paths: {', '.join(GROUPS)}")
    batches = [64, 256] if args.quick else [64, 256, 1024]
    repeats, seconds, per_set = (2, 0.1, 20) if args.quick else (10, 0.15, 100)  # many short repeats: a quiet moment

    local = [g for g in groups if g != "jax"]
    results = {"speed": measure_speed(local, batches, repeats, seconds), "precision": measure_precision(local, per_set)}
    if args.json:
        Path(args.json).write_text(json.dumps(results))
        return
    results, missing = merged(results, on_jax(args) if "jax" in groups else None, "jax" in groups)

    from engines.neural.inference import fast_call  # what the engines now play on
    from engines.neural.backend import keras

    model = networks()[0][1]
    chosen = f"{fast_call(model).path} for float32, {fast_call(model, 'bfloat16').path} for bfloat16"
    cores = f"{os.cpu_count()} cores, all of them for each runtime"
    out = Path(args.out)
    speed_table(results["speed"], batches, missing,
                f"{cores}; ready in: the conversion (or copy) and a first call of one position (tracing); best of "
                f"{repeats} repeats of about {seconds} s; (Nx): the speed over Keras float32 on TensorFlow; "
                f"`fast_call` picks {chosen} (Keras {keras.__version__})").save(out)
    precision = results["precision"]
    precision_table(precision, missing,
                    f"connect4-recipe on the {precision['positions']} critical positions of the early-game solved "
                    f"sets; differences from Keras float32 on TensorFlow; mistakes: moves that change the result, "
                    f"raw and after a {precision['simulations']}-simulation search").save(
        out.with_name(out.stem + "-precision.md"))


if __name__ == "__main__":
    main()
