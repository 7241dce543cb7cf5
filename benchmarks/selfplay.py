"""AlphaZero self-play speed beside its ceiling: the network alone at the batch self-play hands it.

    python benchmarks/selfplay.py                       # Connect Four 5x64, then 9x9 Go at go9-zero's shape
    python benchmarks/selfplay.py --game connect4 --parallel 512
    python benchmarks/selfplay.py --forest readable     # the trees as Python objects, for comparison
    python benchmarks/selfplay.py --simulations 16 --gumbel 16   # Gumbel AlphaZero's search
    python benchmarks/selfplay.py --precision bfloat16            # the network in bfloat16
    python benchmarks/selfplay.py --workers 2 --games 512        # the games split between two processes
    python benchmarks/selfplay.py --tree-only           # the trees alone: a network that answers at once
    python benchmarks/selfplay.py --before              # and self-play as it was: Python trees, Keras's call

An untrained policy-value ResNet (speed does not depend on the weights) plays
itself with batched self-play (``engines.training.selfplay``): ``--parallel``
games advance together, their trees in the compiled forest (``engines.forest``)
where it plays the game, and each step's leaves go to the network in one call.
In the same run the network alone is timed on the batches self-play handed
it (a sample of their sizes; with ``--workers``, their mean), through the same
inference path: the ceiling, and self-play's share of it (the ratio) says how much of the
processor the search leaves to the network. The cases: Connect Four with a
5-block, 64-filter network and 9x9 Go with the shipped ``go9-zero``'s shape
(4 x 64, its encoder's planes). With ``--before`` each case is measured again
as self-play ran before the compiled forest and the fast inference path (the
trees as Python objects, the network through Keras's compiled call:
``DLGO_INFERENCE=keras``), and the speed-up is the ratio of the two rates. With ``--workers`` the games are split
between
that many processes (``SelfPlayPool``); the ceiling is then the network in
this process. Times leave out start-up (the first call's compilation).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import contextlib
import dataclasses
import os
import tempfile
import time
from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from dlgo.core.arguments import count
from dlgo.encoders import get_encoder_by_name
from engines.alphazero import NetworkEvaluator
from engines.neural.inference import ENVIRONMENT
from engines.neural.loading import LoadedModel, load_network
from engines.training.selfplay import SelfPlayPool, SelfPlaySettings, self_play
from markdown import DEFAULT_FOLDER, Table


class Case(NamedTuple):
    """A game and the network shape it is measured with."""

    game: str
    blocks: int
    filters: int
    target: float  # network evaluations/s self-play should reach on the 2-core reference machine
    speedup: float  # and its speed-up over self-play before (--before)
    tree_target: float  # simulations/s the trees alone should reach (--tree-only)


CASES = {"connect4": Case("connect4", 5, 64, 40_000, 3.0, 200_000),
         "go9": Case("go:size=9,komi=7.5", 4, 64, 0.0, 2.5, 0.0)}  # go9-zero's shape
#: self-play's share of the network's own throughput it should reach
TARGET_SHARE = 0.8


class CountingCall:
    """A network's call that counts the batches it is handed."""

    def __init__(self, loaded: LoadedModel):
        self.call = loaded.call
        self.batches: list[int] = []
        loaded.call = self  # type: ignore[method-assign]

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:
        self.batches.append(len(batch))
        return self.call(batch)


class InstantNetwork:
    """A network that answers at once: uniform priors, value 0 (the trees alone)."""

    def __init__(self, encoder, room: int = 8192):
        self.encoder = encoder
        self.priors = np.ones((room, encoder.num_moves), np.float32)
        self.values = np.zeros((room, 1), np.float32)

    def __call__(self, batch: np.ndarray) -> list[np.ndarray]:
        return [self.priors[:len(batch)], self.values[:len(batch)]]


def network_alone(loaded: LoadedModel, batches: Sequence[int], calls: int = 400) -> float:
    """The network's evaluations/s on random boards in the batches self-play handed it:
    up to ``calls`` of them, spread evenly over their sizes, in a shuffled order (after
    a warm-up call), so the ceiling pays for the small batches of the games' ends as
    self-play did."""
    sizes = np.sort(np.asarray(batches, np.int64))
    sample = sizes[np.linspace(0, len(sizes) - 1, min(calls, len(sizes))).round().astype(np.int64)]
    rng = np.random.default_rng(0)
    rng.shuffle(sample)
    planes = rng.integers(0, 2, (int(sample.max()), *loaded.encoder.shape)).astype(np.float32)
    loaded.call(planes)
    start = time.perf_counter()
    for size in sample:
        loaded.call(planes[:size])
    return float(sample.sum()) / (time.perf_counter() - start)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=[*CASES, "all"], default="all")
    parser.add_argument("--games", type=count("games"), default=256, help="games to play (default 256)")
    parser.add_argument("--parallel", type=count("games"), default=256, help="games advancing together (default 256)")
    parser.add_argument("--simulations", type=count("simulations"), default=50,
                        help="simulations per move (default 50)")
    parser.add_argument("--gumbel", type=count("simulations", 0), default=0,
                        help="search as Gumbel AlphaZero, considering this many root moves (default 0: PUCT)")
    parser.add_argument("--precision", default="float32", help="the network's arithmetic: float32 (default), "
                                                                "bfloat16 or float16")
    parser.add_argument("--forest", choices=["compiled", "readable"], default="compiled",
                        help="the trees: compiled where the game has it (default), or Python objects")
    parser.add_argument("--workers", type=count("processes"), default=1,
                        help="self-play processes (default 1: this one)")
    parser.add_argument("--blocks", type=count("units"), default=None,
                        help="the network's blocks (default: the case's)")
    parser.add_argument("--filters", type=count("units"), default=None, help="its filters (default: the case's)")
    parser.add_argument("--tree-only", action="store_true", help="a network that answers at once: the trees alone")
    parser.add_argument("--before", action="store_true", help="each case again as self-play ran before: the trees "
                                                              "as Python objects, Keras's call; and the speed-up")
    parser.add_argument("--out", default=None, help="where the table is saved (default: "
                        f"{DEFAULT_FOLDER}/selfplay.md; with --workers selfplay-workers.md, --tree-only "
                        f"selfplay-tree.md)")
    return parser.parse_args()


class Measured(NamedTuple):
    """One case's self-play run and the network alone beside it."""

    inference: str  # the network's inference path
    moves: int
    mean_batch: int
    alone: float  # the network's own evaluations/s at that batch (nan for the trees alone)
    rate: float  # self-play's network evaluations/s
    seconds: float


def measure(case: Case, args: argparse.Namespace, settings: SelfPlaySettings, blocks: int, filters: int) -> Measured:
    """Self-play of ``case`` with an untrained network of that shape, then the network alone."""
    from engines.neural.backend import save_model  # loads the Keras backend
    from engines.neural.resnet import build_resnet

    enc = get_encoder_by_name(None, case.game)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "net.keras"
        save_model(build_resnet(enc.shape, enc.num_moves, blocks=blocks, filters=filters), path,
                   {"kind": "alphazero", "encoder": enc.config()})
        loaded = load_network(path, precision=args.precision)
        if args.tree_only:
            loaded.call = InstantNetwork(enc)  # type: ignore[method-assign]
        counter = CountingCall(loaded)
        if args.workers > 1:
            with SelfPlayPool(args.workers) as pool:
                # Start the processes and the network in them before timing.
                pool.self_play(case.game, path, args.workers, SelfPlaySettings(parallel=1, simulations=2,
                                                                                precision=args.precision))
                start = time.perf_counter()
                examples = pool.self_play(case.game, path, args.games, settings, seed=0, progress=True)
                seconds = time.perf_counter() - start
            mean_batch = min(args.parallel, max(1, args.games // args.workers))
            batches = [mean_batch]  # (counted in the other processes: their mean)
        else:
            evaluator = NetworkEvaluator(loaded)
            self_play(case.game, evaluator, enc, 2, SelfPlaySettings(parallel=2, simulations=2,
                                                                     compiled=settings.compiled), seed=1)  # warm-up
            counter.batches.clear()
            start = time.perf_counter()
            examples = self_play(case.game, evaluator, enc, args.games, settings, seed=0, progress=True)
            seconds = time.perf_counter() - start
            batches = counter.batches
            mean_batch = max(1, round(float(np.mean(batches))))
        alone = float("nan") if args.tree_only else network_alone(loaded, batches)
        inference = "instant" if args.tree_only else loaded.inference_path
    return Measured(inference, len(examples.values), mean_batch, alone, examples.evaluations / seconds, seconds)


def main() -> None:
    args = arguments()
    suffix = "-tree" if args.tree_only else "-workers" if args.workers > 1 else ""
    out = args.out or f"{DEFAULT_FOLDER}/selfplay{suffix}.md"
    cases = list(CASES.values()) if args.game == "all" else [CASES[args.game]]
    settings = SelfPlaySettings(parallel=args.parallel, simulations=args.simulations, gumbel=args.gumbel,
                                precision=args.precision, compiled=args.forest == "compiled")
    table = Table(["game", "network", "inference", "forest", "games", "moves", "mean batch", "network alone evals/s",
                   "self-play evals/s", "share", "speed-up", "simulations/s", "target"],
                  [False] * 4 + [True] * 8 + [False],
                  f"untrained ResNets, {args.parallel} games in parallel, {args.simulations} simulations per move"
                  + (f", Gumbel search over {args.gumbel} root moves" if args.gumbel else "")
                  + f", the network in {args.precision}"
                  + (f", {args.workers} self-play processes" if args.workers > 1 else "")
                  + (", the trees alone (a network that answers at once)" if args.tree_only else ""))
    for case in cases:
        blocks, filters = args.blocks or case.blocks, args.filters or case.filters
        m = measure(case, args, settings, blocks, filters)
        before = None
        if args.before:
            with keras_inference():
                before = measure(case, args, dataclasses.replace(settings, compiled=False), blocks, filters)
        for row in ([m] if before is None else [m, before]):
            share = row.rate / row.alone
            met = []
            if row is m and case.target and not args.tree_only:
                met.append(f"≥ {case.target:,.0f}/s {'met' if m.rate >= case.target else 'MISSED'}")
            if not args.tree_only:
                met.append(f"share ≥ {TARGET_SHARE:.0%} {'met' if share >= TARGET_SHARE else 'MISSED'}")
            simulations = row.moves * args.simulations / row.seconds
            if args.tree_only and case.tree_target:
                met.append(f"≥ {case.tree_target:,.0f} simulations/s "
                           f"{'met' if simulations >= case.tree_target else 'MISSED'}")
            speedup = m.rate / before.rate if before is not None and row is m else None
            if speedup is not None:
                met.append(f"≥ {case.speedup:g}x {'met' if speedup >= case.speedup else 'MISSED'}")
            table.row(case.game, f"{blocks}x{filters}", row.inference,
                      "readable (before)" if row is before else args.forest, f"{args.games}", f"{row.moves:,}",
                      f"{row.mean_batch}", "—" if args.tree_only else f"{row.alone:,.0f}", f"{row.rate:,.0f}",
                      "—" if args.tree_only else f"{share:.0%}", "—" if speedup is None else f"{speedup:.2f}x",
                      f"{simulations:,.0f}", ", ".join(met) or "—")
    table.save(out)

@contextlib.contextmanager
def keras_inference():
    """The network through Keras's own compiled call (``DLGO_INFERENCE=keras``) while inside."""
    saved = os.environ.get(ENVIRONMENT)
    os.environ[ENVIRONMENT] = "keras"
    try:
        yield
    finally:
        if saved is None:
            del os.environ[ENVIRONMENT]
        else:
            os.environ[ENVIRONMENT] = saved


if __name__ == "__main__":
    main()
