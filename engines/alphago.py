"""AlphaGo (the book's chapter 13): a tree search guided by a policy network,
with each new position valued by a value network *and* a fast rollout.

``alphago:policy=P,value=V,rollout=R,simulations=400,lam=0.5,plain=true`` searches
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

On Go the search is the compiled Go engine's (:mod:`engines.go_search`:
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
``plain=true`` gives the readable PUCT search above, the book's, on Go as on
every other game (and ``lam`` is 0.5 unless set).
"""
from __future__ import annotations

import math
import random
from typing import Any, ClassVar, Sequence

import numpy as np

from dlgo.core.agent import Decision, SearchReport
from dlgo.core.errors import SpecError
from dlgo.core.game import Game, State, value_for
from dlgo.core.specs import require
from dlgo.games.go.state import GoState, GoGame
from engines.checkpoints import checkpoint_set
from engines.neural.loading import LoadedModel, load_network, value_output
from engines.predictor import candidate_plays, choose_from_policy, pass_wins
from engines.puct import Evaluator, PUCTAgent
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


class AlphaGoAgent(PUCTAgent):
    """AlphaGo, by the suite's first name for it: alphago-go with Go networks, alphago-puct with any other game's (and
    with plain=true). Takes the parameters of both.

    ``alphago`` specs written before the two searches had names of their own
    keep their meaning: the networks' game picks the search when it is built."""

    name = "alphago"
    alias_of: ClassVar[tuple[str, ...]] = ("alphago-go", "alphago-puct")
    network_heads = {"policy": ("policy",), "value": ("value",)}  # checkpoint=: a set of both (and rollouts)
    budget_parameters = ("simulations", "seconds")

    def __init__(self, checkpoint: str = "", policy: str = "", value: str = "", rollout: str = "",
                 simulations: int | None = None, lam: float | None = None, c: float = 2.0, seconds: float = 0.0,
                 temperature: float = 0.0, seed: int | None = None, reuse: bool = True, fpu: float | None = None,
                 batch: int = 8, plain: bool = False, guide: int = GUIDE_AFTER, prior: float = PRIOR_NET,
                 patterns: str = ""):
        """``checkpoint``: the prefix of a set of three files (``NAME-policy.keras``,
        ``NAME-value.keras``, ``NAME-rollout.npz``; a shipped name such as ``go9``),
        and its move patterns (``NAME-patterns.npz``) if it has them;
        ``policy``/``value``/``rollout``: the files one by one (they override the
        set's); ``simulations``: searches per move (0 = the policy network's
        move; default 400 in the PUCT search, and in the compiled Go search
        10,000, or no limit but ``seconds`` when it is set); ``lam``: the
        rollouts' share of a position's value (1 = rollouts only, 0 = the value
        network only; default 0.5, AlphaGo's, in the PUCT search, and 1 in the
        compiled Go search, where the shipped value network mixed in at 0.5 cost
        strength); ``c``: PUCT exploration; ``seconds``: time
        per move (0 = none; a game clock caps it, and with neither ``simulations``
        nor ``seconds`` given sets it); ``temperature``: 0 plays
        the most visited move; ``reuse``: keep the tree; ``fpu``: first-play urgency;
        ``batch``: leaves evaluated per network call (kept apart by virtual losses);
        ``plain``: the readable PUCT search on Go too (on Go the search is
        otherwise the compiled Go engine's, guided by the networks, which
        ignores ``c``, ``temperature``, ``fpu`` and ``batch``); ``guide``:
        simulations through a node before the networks are asked about it;
        ``prior``: the policy's weight, in virtual wins times the square root of
        a move's probability; ``patterns``: move patterns (``dlgo train-patterns``)
        whose probabilities replace the rollout policy's among the compiled
        search's priors until the networks answer (default none)."""
        require(lam is None or 0 <= lam <= 1, f"alphago: lam is the rollouts' share in [0, 1], got {lam}")
        require(guide >= 1, f"alphago: guide is the simulations before the networks are asked, at least 1, got {guide}")
        require(0 <= prior < math.inf, f"alphago: prior must be a finite number, at least 0, got {prior}")
        policy, value, rollout, patterns = self._files(checkpoint, policy, value, rollout, patterns)
        policy_net = load_network(policy, self.network_heads["policy"], self.name)
        guided = not plain and isinstance(policy_net.encoder.game, GoGame)  # the compiled Go search
        lam = (GUIDED_LAM if guided else BOOK_LAM) if lam is None else lam
        self.raw = simulations == 0  # the policy network's move, no search
        if simulations is None:  # in the compiled search, 0 is no limit but the time
            simulations = (0 if seconds > 0 else GUIDED_SIMULATIONS) if guided else BOOK_SIMULATIONS
        self.check_settings(simulations, c, temperature, fpu, seconds, batch)
        self.evaluator: AlphaGoEvaluator = AlphaGoEvaluator(policy_net, self._value_network(value, lam, policy_net),
                                                            load_rollout_policy(rollout), lam, seed)
        if guided and not self.raw:
            self.unit = "simulations"  # of the compiled search; the networks see a few hundred positions a move
        super().__init__(self.evaluator, simulations=simulations, c=c, temperature=temperature, seed=seed,
                         reuse=reuse, fpu=fpu, seconds=seconds, batch=batch)
        self.plain = plain
        self._go: Any = None  # engines.go_search.GoSearch, made at the first Go position
        self._go_options: dict[str, Any] | None = None  # the compiled search's settings (None: the PUCT search)
        self._go_patterns: Any = None
        self._log_gamma: np.ndarray | None = None  # move patterns' log strengths (None: the rollout policy's priors)
        if guided:
            self._guide_go_search(bool(rollout), guide, prior, lam, patterns)
        elif patterns:
            raise SpecError(f"{self.name}: patterns give the compiled Go search its priors; the PUCT search "
                            "(plain=true, or a network of another game) takes its priors from the policy network")

    @staticmethod
    def _files(checkpoint: str, policy: str, value: str, rollout: str, patterns: str) -> tuple[str, str, str, str]:
        """The policy, value, rollout and patterns files: each one named, else the set's (if it has one);
        a :class:`SpecError` with no policy network."""
        files = checkpoint_set(checkpoint) if checkpoint else {}
        named = {"policy": policy, "value": value, "rollout": rollout, "patterns": patterns}
        policy, value, rollout, patterns = (given or files.get(role, "") for role, given in named.items())
        if not policy:
            raise SpecError("alphago needs policy=PATH (a move predictor, `dlgo train-supervised`) "
                            "or checkpoint=NAME (a set of policy, value and rollout files)")
        return policy, value, rollout, patterns

    def _guide_go_search(self, heavy: bool, guide: int, prior: float, lam: float, patterns: str) -> None:
        """The compiled Go search's settings: the rollout policy's patterns give its priors (the shipped
        one's if the set has none; the move ``patterns``' if given) and, if ``heavy``, play its playouts."""
        NetworkGuide.check(self.evaluator)
        self._go_options = {"heavy": heavy, "guide_after": guide, "prior_net": prior, "value_share": 1 - lam}
        self._go_patterns = self.evaluator.rollouts if heavy else load_rollout_policy("go9-rollout")
        move_patterns = load_move_patterns(patterns)
        self._log_gamma = None if move_patterns is None else move_patterns.log_gamma

    def _value_network(self, value: str, lam: float, policy_net: LoadedModel) -> LoadedModel | None:
        """The value network, if ``lam`` gives it a share."""
        if lam == 1:
            return None
        if not value:
            raise SpecError(f"alphago: lam={lam:g} gives the value network a share, but there is none; "
                            "add value=PATH (`dlgo train-supervised --target value`) or set lam=1")
        value_net = load_network(value, self.network_heads["value"], self.name)
        if value_net.encoder.game_spec != policy_net.encoder.game_spec:
            raise SpecError(f"alphago: the policy plays {policy_net.encoder.game_spec}, "
                            f"the value network {value_net.encoder.game_spec}")
        return value_net

    def searches_go(self, state: State) -> bool:
        """Does this engine search ``state`` with the compiled, guided Go search? On Go, unless ``plain``."""
        return self._go_options is not None and isinstance(state, GoState)

    def new_game(self) -> None:
        super().new_game()
        if self._go is not None:
            self._go.new_game()

    def choose(self, state: State) -> Decision:
        if self.raw or not self.searches_go(state):
            return super().choose(state)
        assert isinstance(state, GoState)
        if self._go is None:
            from engines.go_search import GoSearch, SearchSettings  # numba: loaded where it runs
            assert self._go_options is not None
            self._go = GoSearch(SearchSettings(**self._go_options), self._go_patterns, self.rng.getrandbits(63),
                                NetworkGuide(self.evaluator), log_gamma=self._log_gamma)
        simulations, seconds = self.move_budget(self.simulations, self.seconds)
        result = self._go.search(state, simulations, seconds, self.deadline(seconds * 2.5), self.reuse)
        return Decision(result.move, result.simulations, result.report())

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


class AlphaGoPUCTAgent(AlphaGoAgent):
    """AlphaGo as the book's chapter 13 builds it, on any game: PUCT with a policy network's priors, leaves valued by a
    value network and fast rollouts, (1 - lam) v + lam z (simulations=0: the policy network's move)."""

    name = "alphago-puct"
    alias_of = ()

    def __init__(self, checkpoint: str = "", policy: str = "", value: str = "", rollout: str = "",
                 simulations: int | None = None, lam: float = BOOK_LAM, c: float = 2.0, seconds: float = 0.0,
                 temperature: float = 0.0, seed: int | None = None, reuse: bool = True, fpu: float | None = None,
                 batch: int = 8):
        """As ``alphago``'s (:class:`AlphaGoAgent`); ``simulations`` 400 unless given (or, with
        neither it nor ``seconds``, a game clock's time)."""
        super().__init__(checkpoint, policy, value, rollout, simulations, lam, c, seconds, temperature, seed, reuse,
                         fpu, batch, plain=True)


class AlphaGoGoAgent(AlphaGoAgent):
    """Go's compiled search (mcts-go's: RAVE, pattern priors, heavy playouts, time management) guided by AlphaGo's
    networks as AlphaGo's asynchronous search was: a node simulated guide times is queued for the networks, whose
    priors become virtual wins and whose value mixes in at 1 - lam. Go networks only."""

    name = "alphago-go"
    alias_of = ()
    units = ("simulations", "evaluations with simulations=0")

    def __init__(self, checkpoint: str = "", policy: str = "", value: str = "", rollout: str = "",
                 simulations: int | None = None, lam: float = GUIDED_LAM, seconds: float = 0.0,
                 seed: int | None = None, reuse: bool = True, guide: int = GUIDE_AFTER, prior: float = PRIOR_NET,
                 patterns: str = ""):
        """As ``alphago``'s (:class:`AlphaGoAgent`); ``simulations`` 10,000 unless given (0 or
        ``seconds``: the time alone)."""
        super().__init__(checkpoint, policy, value, rollout, simulations, lam, seconds=seconds, seed=seed,
                         reuse=reuse, guide=guide, prior=prior, patterns=patterns)
        if self._go_options is None:
            raise SpecError(f"{self.name} plays Go: its networks play {self.native_game().name}; "
                            "on other games use alphago-puct (or alphago)")
