"""AlphaGo (the book's chapter 13): a tree search guided by a policy network,
with each new position valued by a value network *and* a fast rollout.

``alphago:policy=P,value=V,rollout=R,simulations=400,lam=0.5`` searches with
PUCT (:mod:`engines.puct`): the policy network ``P`` (a move predictor from
``dlgo train-supervised``, or one improved by ``dlgo train-rl --method pg``)
gives the priors of a new node, and its value is

    (1 - lam) * v + lam * z

where ``v`` is the value network's estimate (``dlgo train-supervised --target
value``) and ``z`` the result (+1 or -1) of one game played out from it by the
fast rollout policy ``R`` (``dlgo train-rollout``; random moves if none). AlphaGo
found the mix (``lam=0.5``) stronger than either alone. Without a value network
the leaves are valued by rollouts alone; with ``lam=0`` by the network alone.
``checkpoint=NAME`` takes the three from ``NAME-policy.keras``,
``NAME-value.keras`` and ``NAME-rollout.npz`` (a shipped name such as ``go9``,
or a path prefix). ``simulations=0`` plays the policy network's move, no search.
"""
from __future__ import annotations

import random
from typing import Sequence

import numpy as np

from dlgo.core.agent import SearchReport
from dlgo.core.errors import SpecError
from dlgo.core.game import Game, State, value_for
from dlgo.core.specs import require
from engines.checkpoints import checkpoint_set
from engines.neural.loading import LoadedModel, load_network
from engines.predictor import candidate_plays, choose_from_policy, pass_wins
from engines.puct import Evaluator, PUCTAgent
from engines.rollouts import Rollouts, load_rollout_policy


class AlphaGoEvaluator(Evaluator):
    """Priors from a policy network; values mixing a value network and rollouts by ``lam``.

    The networks see all the states of one call in one batch."""

    def __init__(self, policy: LoadedModel, value: LoadedModel | None, rollouts: Rollouts, lam: float,
                 seed: int | None = None):
        self.policy, self.value, self.rollouts = policy, value, rollouts
        self.lam = lam if value is not None else 1.0
        self.rng = random.Random(seed)
        self.evaluations = 0
        self.rollouts_played = 0

    def priors(self, states: Sequence[State], planes: np.ndarray | None = None) -> np.ndarray:
        """The policy network's move probabilities, one row per state (``planes``: the states already encoded)."""
        return self.policy.call(self.policy.encoder.encode_batch(list(states)) if planes is None else planes)[0]

    def network_values(self, states: Sequence[State], planes: np.ndarray | None = None) -> np.ndarray:
        """The value network's estimates for the player to move (zeros without one)."""
        if self.value is None:
            return np.zeros(len(states))
        return self.value.call(self.value.encoder.encode_batch(list(states)) if planes is None else planes)[-1][:, 0]

    def evaluate(self, states: Sequence[State]) -> tuple[np.ndarray, np.ndarray]:
        self.evaluations += len(states)
        planes = self.policy.encoder.encode_batch(list(states))
        shared = self.value is not None and self.value.encoder.config() == self.policy.encoder.config()
        priors = self.priors(states, planes)
        values = (1.0 - self.lam) * self.network_values(states, planes if shared else None) if self.lam < 1.0 \
            else np.zeros(len(states))
        if self.lam > 0.0:
            results = [value_for(self.rollouts.playout(s, self.rng), s.next_player) for s in states]
            self.rollouts_played += len(states)
            values = values + self.lam * np.asarray(results)
        return priors, values


class AlphaGoAgent(PUCTAgent):
    """AlphaGo: PUCT with a policy network's priors; leaves valued by a value network and fast rollouts (lam)."""

    name = "alphago"
    network_heads = {"policy": ("policy",), "value": ("value",)}  # checkpoint=: a set of both (and rollouts)

    def __init__(self, checkpoint: str = "", policy: str = "", value: str = "", rollout: str = "",
                 simulations: int = 400, lam: float = 0.5, c: float = 2.0, seconds: float = 0.0,
                 temperature: float = 0.0, seed: int | None = None, reuse: bool = True, fpu: float | None = None,
                 batch: int = 8):
        """``checkpoint``: the prefix of a set of three files (``NAME-policy.keras``,
        ``NAME-value.keras``, ``NAME-rollout.npz``; a shipped name such as ``go9``);
        ``policy``/``value``/``rollout``: the files one by one (they override the
        set's); ``simulations``: searches per move (0 = the policy network's
        move); ``lam``: the rollouts' share of a leaf's value (1 = rollouts only,
        0 = the value network only); ``c``: PUCT exploration; ``seconds``: time
        per move (0 = none; the game clock also caps it); ``temperature``: 0 plays
        the most visited move; ``reuse``: keep the tree; ``fpu``: first-play urgency;
        ``batch``: leaves evaluated per network call (kept apart by virtual losses)."""
        self.check_settings(simulations, c, temperature, fpu, seconds, batch)
        require(0 <= lam <= 1, f"alphago: lam is the rollouts' share in [0, 1], got {lam}")
        files = checkpoint_set(checkpoint) if checkpoint else {}
        policy, value, rollout = policy or files.get("policy", ""), value or files.get("value", ""), \
            rollout or files.get("rollout", "")
        if not policy:
            raise SpecError("alphago needs policy=PATH (a move predictor, `dlgo train-supervised`) "
                            "or checkpoint=NAME (a set of policy, value and rollout files)")
        if lam < 1 and not value:
            raise SpecError(f"alphago: lam={lam:g} gives the value network a share, but there is none; "
                            "add value=PATH (`dlgo train-supervised --target value`) or set lam=1")
        policy_net = load_network(policy, self.network_heads["policy"], self.name)
        value_net = load_network(value, self.network_heads["value"], self.name) if value and lam < 1 else None
        if value_net is not None and value_net.encoder.game_spec != policy_net.encoder.game_spec:
            raise SpecError(f"alphago: the policy plays {policy_net.encoder.game_spec}, "
                            f"the value network {value_net.encoder.game_spec}")
        self.evaluator: AlphaGoEvaluator = AlphaGoEvaluator(policy_net, value_net, load_rollout_policy(rollout),
                                                            lam, seed)
        super().__init__(self.evaluator, simulations=simulations, c=c, temperature=temperature, seed=seed,
                         reuse=reuse, fpu=fpu, seconds=seconds, batch=batch)

    def check_game(self, state: State) -> None:
        self.evaluator.policy.check(state)
        if self.evaluator.value is not None:
            self.evaluator.value.check(state)
        if self.evaluator.lam > 0:
            self.evaluator.rollouts.check(state)

    def native_game(self) -> Game:
        return self.evaluator.policy.encoder.game

    def raw_move(self, state: State) -> tuple[int, SearchReport]:
        """The policy network's most likely sensible move (a pass when passing wins), as the predictor plays."""
        self.evaluator.evaluations += 1
        policy = self.evaluator.priors([state])[0]
        if pass_wins(state):
            assert state.game.pass_action is not None
            action = state.game.pass_action
        else:
            action = choose_from_policy(policy, candidate_plays(state), self.temperature, self.rng)
        value = float(self.evaluator.network_values([state])[0]) if self.evaluator.value is not None else None
        return action, SearchReport(value=value, policy=policy, principal_variation=(action,))

