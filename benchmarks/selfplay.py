"""AlphaZero self-play speed: network evaluations/s and simulations/s.

    python benchmarks/selfplay.py                       # Connect Four, the default net
    python benchmarks/selfplay.py --parallel 128 --blocks 3 --filters 32
    python benchmarks/selfplay.py --simulations 16 --gumbel 16   # Gumbel AlphaZero's search
    python benchmarks/selfplay.py --precision bfloat16            # the network in mixed precision
    python benchmarks/selfplay.py --workers 2 --games 256 --parallel 128 --precision bfloat16   # both cores

An untrained policy-value ResNet (speed does not depend on the weights) plays
Connect Four against itself with batched self-play (``engines.training.selfplay``):
``--parallel`` games advance together and their leaves go to the network in one
compiled call per step. The targets on the 2-core machine: 3,000 evaluations/s
in one process (a per-leaf ``model.predict`` loop manages about 20/s), 8,000/s
with both cores (two processes, the network in bfloat16). With ``--workers`` the
games are split between that many processes (``SelfPlayPool``, as
``train_alphazero(workers=...)`` plays them), each with ``--parallel`` games at
most; the time counts each batch's network loading but not the processes'
start-up.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import tempfile
import time
from pathlib import Path

from dlgo.core.arguments import count
from dlgo.encoders import get_encoder_by_name
from engines.alphazero import NetworkEvaluator
from engines.neural.loading import load_network
from engines.training.selfplay import SelfPlayPool, SelfPlaySettings, self_play
from markdown import DEFAULT_FOLDER, Table


TARGET = 3000  # network evaluations/s on the 2-core reference machine, one process
TARGET_ALL_CORES = 8000  # the same with both cores (two worker processes, mixed precision)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--games", type=count("games"), default=64, help="games to play (default 64)")
    parser.add_argument("--parallel", type=count("games"), default=64, help="games advancing together (default 64)")
    parser.add_argument("--simulations", type=count("simulations"), default=50, help="simulations per move (default 50)")
    parser.add_argument("--gumbel", type=count("simulations", 0), default=0,
                        help="search as Gumbel AlphaZero, considering this many root moves (default 0: PUCT)")
    parser.add_argument("--precision", default="float32", help="the network's arithmetic: float32 (default), "
                                                                "bfloat16 or float16")
    parser.add_argument("--workers", type=count("processes"), default=1, help="self-play processes (default 1: this one)")
    parser.add_argument("--blocks", type=count("units"), default=5)
    parser.add_argument("--filters", type=count("units"), default=64)
    parser.add_argument("--out", default=None, help="where the table is saved (default: "
                        f"{DEFAULT_FOLDER}/selfplay.md, with --workers selfplay-workers.md)")
    args = parser.parse_args()
    target = TARGET_ALL_CORES if args.workers > 1 else TARGET
    out = args.out or f"{DEFAULT_FOLDER}/selfplay{'-workers' if args.workers > 1 else ''}.md"

    from engines.neural.backend import save_model  # loads TensorFlow
    from engines.neural.resnet import build_resnet

    enc = get_encoder_by_name(None, args.game)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "net.keras"
        save_model(build_resnet(enc.shape, enc.num_moves, blocks=args.blocks, filters=args.filters), path,
                   {"kind": "alphazero", "encoder": enc.config()})
        settings = SelfPlaySettings(parallel=args.parallel, simulations=args.simulations, gumbel=args.gumbel,
                                    precision=args.precision)
        if args.workers > 1:
            with SelfPlayPool(args.workers) as pool:
                # Start the processes and TensorFlow in them before timing.
                pool.self_play(args.game, path, args.workers, SelfPlaySettings(parallel=1, simulations=2,
                                                                                precision=args.precision))
                start = time.perf_counter()
                examples = pool.self_play(args.game, path, args.games, settings, seed=0, progress=True)
                seconds = time.perf_counter() - start
            evaluations = examples.evaluations
        else:
            evaluator = NetworkEvaluator(load_network(path, precision=args.precision))
            evaluator.evaluate([enc.game.initial_state()])  # trace the compiled call before timing
            evaluator.evaluations = 0
            start = time.perf_counter()
            examples = self_play(args.game, evaluator, enc, args.games, settings, seed=0, progress=True)
            seconds = time.perf_counter() - start
            evaluations = evaluator.evaluations
    moves = len(examples.values)
    rate = evaluations / seconds
    table = Table(["games", "moves", "seconds", "network evaluations/s", "simulations/s", "moves/s", "target"],
                  [True] * 6 + [False],
                  f"{args.game}, an untrained ResNet of {args.blocks} blocks x {args.filters} filters, "
                  f"{args.parallel} games in parallel, {args.simulations} simulations per move"
                  + (f", Gumbel search over {args.gumbel} root moves" if args.gumbel else "")
                  + (f", the network in {args.precision}" if args.precision != "float32" else "")
                  + (f", {args.workers} self-play processes" if args.workers > 1 else ""))
    table.row(f"{args.games}", f"{moves:,}", f"{seconds:.1f}", f"{rate:,.0f}", f"{moves * args.simulations / seconds:,.0f}",
              f"{moves / seconds:,.1f}", f"≥ {target:,} {'met' if rate >= target else 'MISSED'}")
    table.save(out)


if __name__ == "__main__":
    main()
