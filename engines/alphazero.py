"""The AlphaZero engine: PUCT search guided by a policy-value network.

``alphazero:checkpoint=PATH,simulations=200`` searches with the network as the
evaluator (:class:`NetworkEvaluator`: one compiled call per batch of leaves);
``simulations=0`` plays the network's raw policy over the sensible moves. The
tree is kept between moves (our move and the reply) when ``reuse`` is on.
"""
from __future__ import annotations

from typing import ClassVar, Sequence

import numpy as np

from dlgo.core.agent import Decision, SearchReport
from dlgo.core.errors import ModelFileError, SpecError
from dlgo.core.game import Game, State
from dlgo.core.specs import require
from engines.neural.loading import LoadedModel, load_network
from engines.predictor import choose_from_policy
from engines.gumbel import GumbelSearch
from engines.puct import Evaluator, PUCTAgent


class NetworkEvaluator(Evaluator):
    """A policy-value network as an evaluator; counts its position evaluations.

    With ``symmetries`` each position is also shown to the network under every
    board symmetry (Connect Four's mirror; the 8 of a square board) in the same
    call, and the priors (mapped back) and values are averaged: AlphaGo's
    ensemble, steadier estimates for 2 or 8 times the network work."""

    def __init__(self, loaded: LoadedModel, symmetries: bool = False):
        self.loaded = loaded
        self.symmetries = loaded.encoder.game.symmetries() if symmetries else []
        self.evaluations = 0

    def evaluate(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        self.loaded.check(states[0])
        features = self.loaded.encoder.encode_batch(list(states))
        if self.symmetries:
            features = np.concatenate([sym.planes(features) for sym in self.symmetries])
        outputs = self.loaded.call(features)
        if len(outputs) < 2:
            raise ModelFileError("this network has no value head: train it with AlphaZero, not supervised learning")
        self.evaluations += len(states)
        policy, value = outputs[:2]  # auxiliary heads (moves left, ownership, score) follow; the search uses neither
        if self.symmetries:  # the network's prior for action i under a symmetry sits at sym.actions[i]
            n = len(states)
            policy = np.mean([policy[k * n:(k + 1) * n][:, sym.actions] for k, sym in enumerate(self.symmetries)],
                             axis=0)
            value = value.reshape(len(self.symmetries), n, -1).mean(axis=0)
        return policy, value[:, 0]


class AlphaZeroAgent(PUCTAgent):
    """AlphaZero: PUCT search guided by a policy-value network (simulations=0: the raw policy)."""

    name = "alphazero"
    network_heads = {"checkpoint": ("policy", "value")}
    budget_parameters = ("simulations",)
    #: the specs written before Gumbel AlphaZero had a name of its own: ``alphazero:gumbel=N`` (N > 0)
    #: is ``gumbel:considered=N``; ``gumbel=0`` is this engine
    moved_parameters = {"gumbel": ("gumbel", "considered")}

    def __init__(self, checkpoint: str = "", simulations: int = 200, c: float = 1.5, temperature: float = 0.0,
                 seed: int | None = None, reuse: bool = True, fpu: float | None = None, symmetries: bool = False,
                 batch: int = 1, precision: str = "float32"):
        """``checkpoint``: a .keras policy-value network; ``simulations``: searches per
        move (0 = play the raw policy; not given, it searches for a game clock's
        time when GTP has one); ``c``: PUCT exploration; ``temperature``: 0 plays the
        most visited move, 1 samples by visits; ``reuse``: keep the tree;
        ``fpu``: first-play urgency (an unvisited move counts as the position's
        mean value so far minus ``fpu``; None: it counts 0); ``symmetries``:
        average the network over the board's symmetries (see :class:`NetworkEvaluator`);
        ``batch``: leaves per network call (kept apart by virtual losses; 1 = one at a time);
        ``precision``: the network's arithmetic, float32, or bfloat16 / float16 (mixed
        precision, faster on CPUs with AVX512-BF16 and on GPUs, answers within about 0.01)."""
        if not checkpoint:
            raise SpecError(f"{self.name} needs checkpoint=PATH (a .keras file from AlphaZero training)")
        self.check_settings(simulations, c, temperature, fpu, batch=batch)
        network = load_network(checkpoint, self.network_heads["checkpoint"], self.name, precision=precision)
        self.evaluator: NetworkEvaluator = NetworkEvaluator(network, symmetries=symmetries)
        super().__init__(self.evaluator, simulations=simulations, c=c, temperature=temperature, seed=seed,
                         reuse=reuse, fpu=fpu, batch=batch)
        self.gumbel: GumbelSearch | None = None  # Gumbel AlphaZero's root search (the gumbel engine)

    def check_game(self, state: State) -> None:
        self.evaluator.loaded.check(state)

    def native_game(self) -> Game:
        return self.evaluator.loaded.encoder.game

    def choose(self, state: State) -> Decision:
        if self.gumbel is None or self.simulations == 0:
            return super().choose(state)
        before = self.evaluator.evaluations
        root, action = self.gumbel.run(state, self.simulations, deadline=self.deadline(self.seconds))
        report = root.report(action)._replace(policy=self.gumbel.policy_target(root))  # the improved policy
        return Decision(state.index_to_move(action), self.evaluator.evaluations - before, report)

    def raw_move(self, state: State) -> tuple[int, SearchReport]:
        policy, value = self.evaluator.evaluate([state])
        action = choose_from_policy(policy[0], state.sensible_actions(), self.temperature, self.rng)
        return action, SearchReport(value=float(value[0]), policy=policy[0], principal_variation=(action,))


class GumbelAgent(AlphaZeroAgent):
    """Gumbel AlphaZero (Danihelka et al. 2022): the network's considered moves at the root narrowed by sequential halving on completed Q-values, its improved policy the report's (simulations=0: the raw policy).

    It plans each move's visits from a fresh root (:mod:`engines.gumbel`): no tree
    kept, no exploration constant; ``temperature`` > 0 adds the Gumbel noise."""

    name = "gumbel"
    moved_parameters: ClassVar[dict[str, tuple[str, str]]] = {}

    def __init__(self, checkpoint: str = "", simulations: int = 200, considered: int = 16, temperature: float = 0.0,
                 seed: int | None = None, symmetries: bool = False, precision: str = "float32"):
        """``checkpoint``, ``simulations``, ``symmetries``, ``precision``: as ``alphazero``'s;
        ``considered``: the root moves Gumbel search considers (16 in the paper);
        ``temperature``: above 0, the Gumbel noise samples the considered moves (0: the
        network's best ones)."""
        require(considered >= 1, f"{self.name}: considered is the root moves Gumbel search considers, at least 1, "
                                 f"got {considered}")
        super().__init__(checkpoint, simulations, temperature=temperature, seed=seed, symmetries=symmetries,
                         precision=precision)
        self.gumbel = GumbelSearch(self.evaluator, considered=considered,
                                   gumbel_scale=1.0 if temperature > 0 else 0.0, seed=seed)
