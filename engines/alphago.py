"""AlphaGo (the book's chapter 13): a tree search guided by a policy network,
with each new position valued by a value network *and* a fast rollout.

``alphago-puct:policy=P,value=V,rollout=R,simulations=400,lam=0.5`` searches
with PUCT (:mod:`engines.puct`), the book's search: the policy network ``P`` (a move predictor from
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

``alphago-go``'s search is the compiled Go engine's (:mod:`engines.go_search`:
RAVE, pattern priors, heavy playouts from the rollout policy, the tree kept,
time managed) *guided* by the networks as AlphaGo's asynchronous search was:
the tree grows and the playouts run without waiting, and a node simulated
``guide`` times is queued for the networks, which answer a whole queue in one
batch between short compiled chunks (AlphaGo expanded with the tree policy's
patterns until the policy network's priors arrived). Its moves get virtual wins
for their policy probability (``prior`` times its square root, Pachi's form),
and every later simulation through it counts AlphaGo's mix ``(1 - lam) * v +
lam * z`` of the value network's estimate ``v`` of the deepest such node on its
path and its playout's result ``z``. There the rollouts alone (``lam=1``, the
default of this search) play stronger with the shipped networks: against GNU Go
level 10 at 2 s a move, 36 of 40 games against 13 of 22 at ``lam=0.5``.

Each search is an engine of its own; ``alphago``, the name they shared, is
``alphago-go`` with Go networks and ``alphago-puct`` with any other game's or
with ``plain=true`` (:mod:`engines.aliases`).
"""
from __future__ import annotations

import math
import random
from typing import Any, Sequence

import numpy as np

from dlgo.core.agent import Agent, Decision, SearchReport
from dlgo.core.errors import SpecError
from dlgo.core.game import Game, State, value_for
from dlgo.core.specs import require
from dlgo.games.go.state import GoState, GoGame
from engines.checkpoints import checkpoint_set
from engines.neural.loading import LoadedModel, load_network, metadata_only, value_output
from engines.predictor import candidate_plays, choose_from_policy, pass_wins
from engines.puct import Evaluator, PUCTAgent, check_search_settings
from engines.rollouts import Rollouts, load_move_patterns, load_rollout_policy


#: the compiled search asks the networks about a node simulated this often
GUIDE_AFTER = 32
#: the policy network's weight there: virtual wins times the square root of a move's probability
PRIOR_NET = 300.0
#: the rollouts' share of a position's value: AlphaGo's in the book's PUCT search; in the compiled Go
#: search the rollouts alone (there the shipped value network, mixed in at 0.5, cost strength)
BOOK_LAM, GUIDED_LAM = 0.5, 1.0
#: simulations a move when neither simulations nor seconds are given: about a second, in either search
BOOK_SIMULATIONS, GUIDED_SIMULATIONS = 400, 10_000


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
        return self.policy_of(self.policy.encoder.encode_batch(list(states)) if planes is None else planes)

    def network_values(self, states: Sequence[State], planes: np.ndarray | None = None) -> np.ndarray:
        """The value network's estimates for the player to move (zeros without one)."""
        if self.value is None:
            return np.zeros(len(states))
        return self.values_of(self.value.encoder.encode_batch(list(states)) if planes is None else planes)

    def policy_of(self, planes: np.ndarray) -> np.ndarray:
        """The policy network's move probabilities for positions already encoded."""
        return self.policy.call(planes)[0]

    def values_of(self, planes: np.ndarray) -> np.ndarray:
        """The value network's estimates for positions already encoded (zeros without one)."""
        return value_output(self.value.call(planes)) if self.value is not None else np.zeros(len(planes))

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


class NetworkGuide:
    """The networks of an :class:`AlphaGoEvaluator` as the compiled Go search asks
    them (:class:`engines.go_search.Guide`): positions it encoded itself."""

    def __init__(self, evaluator: AlphaGoEvaluator):
        from dlgo.encoders.go_kernels import recipe_array  # numba: only where the compiled search runs

        self.check(evaluator)
        self.evaluator = evaluator
        encoder = evaluator.policy.encoder
        planes = encoder.go_planes()
        assert planes is not None
        self.recipe: np.ndarray = recipe_array(planes)
        self.shape: tuple[int, int, int] = encoder.shape

    @staticmethod
    def check(evaluator: AlphaGoEvaluator) -> None:
        """A :class:`SpecError` if the compiled search cannot encode the networks' positions itself."""
        encoder = evaluator.policy.encoder
        if encoder.go_planes() is None:
            raise SpecError(f"alphago: the compiled Go search cannot encode positions as the {encoder.name!r} "
                            "encoder does; add plain=true")
        if evaluator.value is not None and evaluator.value.encoder.config() != encoder.config():
            raise SpecError("alphago: the compiled Go search needs the policy and value networks to read positions "
                            "alike (the same encoder); add plain=true, or lam=1 for no value network")

    def evaluate(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        evaluator = self.evaluator
        evaluator.evaluations += len(planes)
        values = evaluator.values_of(planes) if evaluator.lam < 1 else np.zeros(len(planes))
        return evaluator.policy_of(planes), values


#: the heads each network parameter names must have (``checkpoint=``: a set of both, and rollouts)
NETWORK_HEADS: dict[str, tuple[str, ...]] = {"policy": ("policy",), "value": ("value",)}


def alphago_files(checkpoint: str, policy: str, value: str, rollout: str, patterns: str = "") -> dict[str, str]:
    """The policy, value, rollout and patterns files by role: each one named, else the set's (if it
    has one); a :class:`SpecError` with no policy network."""
    files = checkpoint_set(checkpoint) if checkpoint else {}
    named = {"policy": policy, "value": value, "rollout": rollout, "patterns": patterns}
    chosen = {role: given or files.get(role, "") for role, given in named.items()}
    if not chosen["policy"]:
        raise SpecError("alphago needs policy=PATH (a move predictor, `dlgo train-supervised`) "
                        "or checkpoint=NAME (a set of policy, value and rollout files)")
    return chosen


def policy_game(checkpoint: str, policy: str, engine: str) -> Game:
    """The game the policy network of a spec's files plays (its metadata alone is read)."""
    with metadata_only():
        return load_network(alphago_files(checkpoint, policy, "", "")["policy"], NETWORK_HEADS["policy"],
                            engine).encoder.game


def alphago_evaluator(files: dict[str, str], lam: float, seed: int | None, engine: str) -> AlphaGoEvaluator:
    """AlphaGo's networks and rollouts from ``files`` (:func:`alphago_files`), the value network
    loaded where ``lam`` gives it a share."""
    require(0 <= lam <= 1, f"alphago: lam is the rollouts' share in [0, 1], got {lam}")
    policy_net = load_network(files["policy"], NETWORK_HEADS["policy"], engine)
    value_net = None
    if lam < 1:
        if not files["value"]:
            raise SpecError(f"alphago: lam={lam:g} gives the value network a share, but there is none; "
                            "add value=PATH (`dlgo train-supervised --target value`) or set lam=1")
        value_net = load_network(files["value"], NETWORK_HEADS["value"], engine)
        if value_net.encoder.game_spec != policy_net.encoder.game_spec:
            raise SpecError(f"alphago: the policy plays {policy_net.encoder.game_spec}, "
                            f"the value network {value_net.encoder.game_spec}")
    return AlphaGoEvaluator(policy_net, value_net, load_rollout_policy(files["rollout"]), lam, seed)


def check_guidance(guide: int, prior: float) -> None:
    """A :class:`SpecError` for the compiled search's guidance settings out of range."""
    require(guide >= 1, f"alphago: guide is the simulations before the networks are asked, at least 1, got {guide}")
    require(0 <= prior < math.inf, f"alphago: prior must be a finite number, at least 0, got {prior}")


def check_networks(evaluator: AlphaGoEvaluator, state: State) -> None:
    """A :class:`~dlgo.core.errors.DlgoError` if the networks (or the rollouts they use) cannot play ``state``."""
    evaluator.policy.check(state)
    if evaluator.value is not None:
        evaluator.value.check(state)
    if evaluator.lam > 0:
        evaluator.rollouts.check(state)


def policy_move(evaluator: AlphaGoEvaluator, state: State, temperature: float,
                rng: random.Random) -> tuple[int, SearchReport]:
    """The policy network's most likely sensible move (a pass when passing wins), as the predictor plays."""
    evaluator.evaluations += 1
    policy = evaluator.priors([state])[0]
    if pass_wins(state):
        assert state.game.pass_action is not None
        action = state.game.pass_action
    else:
        action = choose_from_policy(policy, candidate_plays(state), temperature, rng)
    value = float(evaluator.network_values([state])[0]) if evaluator.value is not None else None
    return action, SearchReport(value=value, policy=policy, principal_variation=(action,))


class AlphaGoPUCTAgent(PUCTAgent):
    """AlphaGo as the book's chapter 13 builds it, on any game: PUCT with a policy network's priors, leaves valued by a
    value network and fast rollouts, (1 - lam) v + lam z (simulations=0: the policy network's move)."""

    name = "alphago-puct"
    network_heads = NETWORK_HEADS
    budget_parameters = ("simulations", "seconds")

    def __init__(self, checkpoint: str = "", policy: str = "", value: str = "", rollout: str = "",
                 simulations: int | None = None, lam: float = BOOK_LAM, c: float = 2.0, seconds: float = 0.0,
                 temperature: float = 0.0, seed: int | None = None, reuse: bool = True, fpu: float | None = None,
                 batch: int = 8):
        """``checkpoint``: the prefix of a set of three files (``NAME-policy.keras``,
        ``NAME-value.keras``, ``NAME-rollout.npz``; a shipped name such as ``go9``);
        ``policy``/``value``/``rollout``: the files one by one (they override the
        set's); ``simulations``: searches per move (0 = the policy network's
        move; default 400); ``lam``: the rollouts' share of a position's value (1 =
        rollouts only, 0 = the value network only; AlphaGo's 0.5); ``c``: PUCT
        exploration; ``seconds``: time per move (0 = none; a game clock caps it,
        and with neither ``simulations`` nor ``seconds`` given sets it);
        ``temperature``: 0 plays the most visited move; ``reuse``: keep the tree;
        ``fpu``: first-play urgency; ``batch``: leaves evaluated per network call
        (kept apart by virtual losses)."""
        simulations = BOOK_SIMULATIONS if simulations is None else simulations
        check_search_settings(self.name, simulations, c, temperature, fpu, seconds, batch)
        self.evaluator: AlphaGoEvaluator = alphago_evaluator(alphago_files(checkpoint, policy, value, rollout),
                                                             lam, seed, self.name)
        super().__init__(self.evaluator, simulations=simulations, c=c, temperature=temperature, seed=seed,
                         reuse=reuse, fpu=fpu, seconds=seconds, batch=batch)

    def check_game(self, state: State) -> None:
        check_networks(self.evaluator, state)

    def native_game(self) -> Game:
        return self.evaluator.policy.encoder.game

    def raw_move(self, state: State) -> tuple[int, SearchReport]:
        return policy_move(self.evaluator, state, self.temperature, self.rng)


class AlphaGoGoAgent(Agent):
    """Go's compiled search (mcts-go's: RAVE, pattern priors, heavy playouts, time management) guided by AlphaGo's
    networks as AlphaGo's asynchronous search was: a node simulated guide times is queued for the networks, whose
    priors become virtual wins and whose value mixes in at 1 - lam. Go networks only."""

    name = "alphago-go"
    unit = "simulations"
    units = ("simulations", "evaluations with simulations=0")
    network_heads = NETWORK_HEADS
    budget_parameters = ("simulations", "seconds")

    def __init__(self, checkpoint: str = "", policy: str = "", value: str = "", rollout: str = "",
                 simulations: int | None = None, lam: float = GUIDED_LAM, seconds: float = 0.0,
                 seed: int | None = None, reuse: bool = True, guide: int = GUIDE_AFTER, prior: float = PRIOR_NET,
                 patterns: str = ""):
        """The files and ``lam``, ``seconds`` and ``reuse`` as ``alphago-puct``'s; ``simulations``:
        the compiled search's a move (0 = the policy network's move; default 10,000, or no limit but
        ``seconds`` when it is set); ``lam``: the rollouts' share, 1 by default (the shipped value
        network mixed in at 0.5 cost strength); ``guide``: simulations through a node before the
        networks are asked about it; ``prior``: the policy's weight, in virtual wins times the square
        root of a move's probability; ``patterns``: move patterns (``dlgo train-patterns``) whose
        probabilities replace the rollout policy's among the search's priors until the networks
        answer (default none)."""
        super().__init__()
        check_guidance(guide, prior)
        files = alphago_files(checkpoint, policy, value, rollout, patterns)
        self.evaluator = alphago_evaluator(files, lam, seed, self.name)
        game = self.native_game()
        if not isinstance(game, GoGame):
            raise SpecError(f"{self.name} plays Go: its networks play {game.name}; "
                            "on other games use alphago-puct (or alphago)")
        self.raw = simulations == 0  # the policy network's move, no search
        if self.raw:
            self.unit = "evaluations"
        if simulations is None:  # 0 is no limit but the time
            simulations = 0 if seconds > 0 else GUIDED_SIMULATIONS
        check_search_settings(self.name, simulations, seconds=seconds)
        self.simulations, self.seconds, self.reuse = simulations, seconds, reuse
        self.rng = random.Random(seed)
        NetworkGuide.check(self.evaluator)
        heavy = bool(files["rollout"])  # the rollout policy plays the playouts, else the shipped one's priors alone
        self._settings: dict[str, Any] = {"heavy": heavy, "guide_after": guide, "prior_net": prior,
                                          "value_share": 1 - lam}
        self._patterns = self.evaluator.rollouts if heavy else load_rollout_policy("go9-rollout")
        move_patterns = load_move_patterns(files["patterns"])
        self._log_gamma = None if move_patterns is None else move_patterns.log_gamma
        self._go: Any = None  # engines.go_search.GoSearch, made at the first position

    def new_game(self) -> None:
        if self._go is not None:
            self._go.new_game()

    def choose(self, state: State) -> Decision:
        if self.raw:
            before = self.evaluator.evaluations
            action, report = policy_move(self.evaluator, state, 0.0, self.rng)
            return Decision(state.index_to_move(action), self.evaluator.evaluations - before, report)
        assert isinstance(state, GoState)
        if self._go is None:
            from engines.go_search import GoSearch, SearchSettings  # numba: loaded where it runs
            self._go = GoSearch(SearchSettings(**self._settings), self._patterns, self.rng.getrandbits(63),
                                NetworkGuide(self.evaluator), log_gamma=self._log_gamma)
        simulations, seconds = self.move_budget(self.simulations, self.seconds)
        result = self._go.search(state, simulations, seconds, self.deadline(seconds * 2.5), self.reuse)
        return Decision(result.move, result.simulations, result.report())

    def check_game(self, state: State) -> None:
        check_networks(self.evaluator, state)

    def native_game(self) -> Game:
        return self.evaluator.policy.encoder.game
