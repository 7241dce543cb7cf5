"""Compile every numba kernel of the suite once, into the on-disk cache.

    python scripts/compile_kernels.py

`make test` and `make demo` run it before anything else: the kernels compile
in about a minute on a fresh checkout (after which a process loads them in a
fraction of a second), and compiling them here, once, keeps that minute out of
the tests (where parallel workers would each compile them) and out of the first
game. Rerunning it costs a second or two; a change to any kernel module
recompiles them all (:mod:`dlgo.games.kernels` keys the cache by their text).
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import random
import time

import numpy as np

import engines
from dlgo.games import new_game
from dlgo.games.go import playouts
from dlgo.games.go.patterns import NUM_FEATURES, PatternPolicy


def main() -> None:
    start = time.perf_counter()
    rng = random.Random(0)
    go = new_game("go:size=5").apply_action(12)
    go.random_playout(rng, [])
    go.random_playout(rng, [], policy=PatternPolicy(np.zeros(NUM_FEATURES)))
    go.continued_owners(go.next_player, 1)
    playouts.legal_plays(go)
    playouts.area_points(go)
    for game in ("connect4", "gomoku"):
        new_game(game).random_playout(rng, [])
    for spec in ("mcts:rounds=50,seed=1", "mcts:rounds=50,seed=1,rollout=random"):  # the Go engine: a tree kept
        agent = engines.create(spec)
        state = new_game("go:size=5")
        for _ in range(3):
            state = state.apply_move(agent.select_move(state))
    guided_search()
    forests()
    small = new_game("connectn:columns=4,rows=4,n=3")  # the Connect-N solver
    solver = small.game.solver()
    assert solver is not None
    solver.move_scores(small)
    print(f"kernels compiled and cached ({time.perf_counter() - start:.1f} s)")


class UniformGuide:
    """A network's stand-in that answers every position alike: the guided search's
    kernels (queue, encoding, answers, the mixed backup) compile without TensorFlow."""

    def __init__(self, size: int):
        from dlgo.encoders import get_encoder_by_name
        from dlgo.encoders.go_kernels import recipe_array

        encoder = get_encoder_by_name("simple", f"go:size={size}")
        planes = encoder.go_planes()
        assert planes is not None
        self.recipe, self.shape = recipe_array(planes), encoder.shape
        self.actions = encoder.num_moves

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.full((len(planes), self.actions), 1.0 / self.actions), np.zeros(len(planes))


def guided_search() -> None:
    """The Go engine as ``alphago`` drives it, guided by a network (here a stand-in)."""
    from engines.go_search import GoSearch, SearchSettings
    from engines.rollouts import load_rollout_policy

    search = GoSearch(SearchSettings(guide_after=4, prior_net=300.0, value_share=0.5),
                      load_rollout_policy("go9-rollout"), 1, UniformGuide(5))
    search.search(new_game("go:size=5"), rounds=200, seconds=0.0, deadline=float("inf"), reuse=True)


class UniformPlanes:
    """A network's stand-in for the compiled forests (``engines.forest.PlanesEvaluator``):
    uniform priors and a value of 0 for every encoded position, its encoder's reading of
    the planes given, so the forests' kernels compile without TensorFlow."""

    def __init__(self, game: str):
        from dlgo.encoders import get_encoder_by_name

        self.encoder = get_encoder_by_name(None, game)
        self.evaluations = 0

    def check(self, state) -> None:
        self.encoder.check(state.game)

    def stone_planes(self):
        return self.encoder.stone_planes()

    def go_planes(self):
        return self.encoder.go_planes()

    def planes_shape(self):
        return self.encoder.shape

    def evaluate(self, states):
        return self.evaluate_planes(self.encoder.encode_batch(list(states)))

    def evaluate_planes(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.evaluations += len(planes)
        moves = self.encoder.num_moves
        return np.full((len(planes), moves), 1.0 / moves, np.float32), np.zeros(len(planes), np.float32)


def forests() -> None:
    """Self-play's compiled forests: PUCT and Gumbel on Connect Four's bitboards, PUCT on Go's board."""
    from engines.training.selfplay import SelfPlaySettings, self_play

    for game, gumbel in (("connect4", 0), ("connect4", 4), ("go:size=5", 0)):
        evaluator = UniformPlanes(game)
        self_play(game, evaluator, evaluator.encoder, 2,  # type: ignore[arg-type]
                  SelfPlaySettings(parallel=2, simulations=8, gumbel=gumbel), seed=0)


if __name__ == "__main__":
    main()
