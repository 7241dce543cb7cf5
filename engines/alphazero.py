"""The AlphaZero engine: PUCT search guided by a policy-value network.

``alphazero:checkpoint=PATH,simulations=200`` searches with the network as the
evaluator (:class:`NetworkEvaluator`: one compiled call per batch of leaves);
``simulations=0`` plays the network's raw policy over the sensible moves. The
tree is kept between moves (our move and the reply) when ``reuse`` is on.
"""
from __future__ import annotations

import sys
from typing import ClassVar, Sequence

import numpy as np

from dlgo.core.agent import Decision, SearchReport
from dlgo.core.errors import ModelFileError, SpecError
from dlgo.core.game import Game, State
from dlgo.core.specs import require
from engines.neural.loading import LoadedModel, load_network
from engines.predictor import choose_from_policy
from engines.gumbel import GumbelSearch
from engines.forest import CompiledForest, make_forest
from engines.puct import Evaluator, PUCTAgent, select_action


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
        return self.evaluate_planes(self.loaded.encoder.encode_batch(list(states)))

    def check(self, state: State) -> None:
        """:class:`ModelFileError` unless the network plays ``state``'s game."""
        self.loaded.check(state)

    def stone_planes(self) -> tuple[int, int, int, int] | None:
        """How the network's encoder reads stones, for a compiled search (:mod:`engines.forest`)."""
        return self.loaded.encoder.stone_planes()

    def planes_shape(self) -> tuple[int, int, int]:
        """One position's planes: rows, columns, planes."""
        return self.loaded.encoder.shape

    def evaluate_planes(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`evaluate` for positions already encoded: ``features`` (n, rows, cols, planes)."""
        n = len(features)
        if self.symmetries:
            features = np.concatenate([sym.planes(features) for sym in self.symmetries])
        outputs = self.loaded.call(features)
        if len(outputs) < 2:
            raise ModelFileError("this network has no value head: train it with AlphaZero, not supervised learning")
        self.evaluations += n
        policy, value = outputs[:2]  # auxiliary heads (moves left, ownership, score) follow; the search uses neither
        if self.symmetries:  # the network's prior for action i under a symmetry sits at sym.actions[i]
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
        self.forest: CompiledForest | None = None  # the compiled tree, where it plays the game
        self.forest_game: Game | None = None
        self.kept: State | None = None  # the position at the compiled tree's root: after our last move

    def check_game(self, state: State) -> None:
        self.evaluator.loaded.check(state)

    def native_game(self) -> Game:
        return self.evaluator.loaded.encoder.game

    def new_game(self) -> None:
        super().new_game()
        if self.forest is not None and self.kept is not None:
            self.forest.fell(0)
        self.kept = None

    def choose(self, state: State) -> Decision:
        if self.simulations and self.search.batch == 1 and self._compiled(state):
            return self._compiled_choice(state) if self.gumbel is None else self._compiled_gumbel_choice(state)
        if self.gumbel is None or self.simulations == 0:
            return super().choose(state)
        before = self.evaluator.evaluations
        root, action = self.gumbel.run(state, self.simulations, deadline=self.deadline(self.seconds))
        report = root.report(action)._replace(policy=self.gumbel.policy_target(root))  # the improved policy
        return Decision(state.index_to_move(action), self.evaluator.evaluations - before, report)

    def _compiled_gumbel_choice(self, state: State) -> Decision:
        """:meth:`GumbelSearch.run` in a compiled tree of one game (a fresh one each move)."""
        forest, gumbel = self.forest, self.gumbel
        assert forest is not None and gumbel is not None
        before = self.evaluator.evaluations
        forest.plant(0, state)
        forest.expand_roots([0])
        root = forest.root(0)
        gumbel.begin(root, noise=gumbel.gumbel_scale > 0, simulations=self.simulations)
        forest.store(0, root)
        forest.search([0], [self.simulations], deadline=self.deadline(self.seconds))
        root = forest.root(0)
        action = gumbel.play(root, 0.0, gumbel.rng)
        report = root.report(action)._replace(policy=gumbel.policy_target(root),  # the improved policy
                                              principal_variation=forest.principal_variation(0, action))
        forest.fell(0)
        return Decision(state.index_to_move(action), self.evaluator.evaluations - before, report)

    def _compiled(self, state: State) -> bool:
        """Does this engine search ``state``'s game in a compiled tree (:class:`CompiledForest`)?"""
        if self.forest is None or self.forest_game != state.game:
            if self.forest is not None and self.kept is not None:
                self.forest.fell(0)
            self.kept = None
            forest = make_forest(self.gumbel or self.search, state.game)
            self.forest = forest if isinstance(forest, CompiledForest) else None
            self.forest_game = state.game
        return self.forest is not None

    def _compiled_choice(self, state: State) -> Decision:
        """:meth:`PUCTAgent.choose` in a compiled tree of one game: the same search
        and the same move, its tree kept (our move and the reply) as there."""
        forest = self.forest
        assert forest is not None
        before = self.evaluator.evaluations
        kept, last, previous = self.kept, state.last_move, state.previous_state
        if kept is not None and last is not None and not last.is_resign and previous is not None \
                and previous.zobrist_hash() == kept.zobrist_hash():
            forest.advance(0, state.move_to_index(last), state)  # the reply: on down the tree kept
        else:
            if kept is not None:
                forest.fell(0)
            forest.plant(0, state)
        forest.expand_roots([0])
        simulations, seconds = self.move_budget(self.simulations, self.seconds)
        forest.search([0], [simulations or sys.maxsize], deadline=self.deadline(seconds))
        root = forest.root(0)
        action = select_action(root, self.temperature, self.np_rng)
        report = root.report(action)._replace(principal_variation=forest.principal_variation(0, action))
        if self.reuse:
            self.kept = state.apply_action(action)
            forest.advance(0, action, self.kept)
        else:
            forest.fell(0)
            self.kept = None
        return Decision(state.index_to_move(action), self.evaluator.evaluations - before, report)

    def raw_move(self, state: State) -> tuple[int, SearchReport]:
        policy, value = self.evaluator.evaluate([state])
        action = choose_from_policy(policy[0], state.sensible_actions(), self.temperature, self.rng)
        return action, SearchReport(value=float(value[0]), policy=policy[0], principal_variation=(action,))


class GumbelAgent(AlphaZeroAgent):
    """Gumbel AlphaZero (Danihelka et al. 2022): the network's considered moves at the root narrowed by sequential
    halving on completed Q-values, its improved policy the report's (simulations=0: the raw policy).

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
