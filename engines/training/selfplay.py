"""Batched self-play and matches: many games advance together, their leaves evaluated in one call.

AlphaZero's training data comes from the network playing itself with search.
Evaluating one leaf at a time would leave the network waiting on Python; here
``parallel`` games each run one PUCT descent per step, and all the leaves that
need the network go to ``evaluator.evaluate`` as one batch (one compiled call
for a :class:`engines.alphazero.NetworkEvaluator`). Each game keeps its tree
from move to move; Dirichlet noise is mixed into every new root's priors; the
first ``temperature_moves`` moves of a game are sampled in proportion to the
visit counts (temperature 1), later ones are the most visited, or, with a
``temperature_floor``, sampled at a temperature that falls linearly to that
floor over ``temperature_decay_moves`` more moves and stays there
(AlphaZero.jl's schedule for Connect Four: 1 for 20 moves, 0.3 from move 30),
so that self-play keeps visiting lines off its greedy path all game long
(:func:`temperature_at`).

Every position played becomes one training example: the encoded board, the
search's visit distribution ``pi`` and the final result ``z`` for the player to
move there (win 1, draw 0, loss -1). With ``search_value_weight`` w > 0 the
value target is ``(1 - w) * z + w * q`` instead, where ``q`` is the search's
own mean value at the root: less noisy than one game's result, and the mix
(0.5 in Oracle's Connect Four study of AlphaZero) learns values faster: the
shipped Connect Four run reached 97% against MCTS with it, where runs without
it stayed in the 80s.

A game played with exploration is not the game its positions' values are
about: a move sampled at a temperature, not the search's choice, can throw a
won game away, and ``z`` then teaches that the positions before it were lost.
With ``greedy_return`` the value target is the result of play without those
moves instead (the cut of Watkins' Q(lambda)): ``z`` for a position from which
every move played was the search's choice (the policy target's most likely),
else the root value of the first exploratory move's search (before that move,
for the player to move here). On 5x4 Connect Four, judged by the solver on
self-play's own positions, it is right in 91% at 16 simulations (``z`` 76%,
the 0.5 mix 77%, ``q`` alone 91%) with the smallest squared error of all
(``reports/recipe-ablation``, "Which value target is right?").

With ``gumbel`` > 0 every move is searched as Gumbel AlphaZero searches
(:mod:`engines.gumbel`): the Gumbel noise, not Dirichlet noise or a
temperature, explores, and the policy target is the search's improved policy
rather than its visit counts, a better target with few simulations (16 rather
than 100-800).

With playout-cap randomisation (``fast_simulations`` > 0, after KataGo), only
a ``full_fraction`` of the moves get the full search, Dirichlet noise and an
example; the others are played after ``fast_simulations`` simulations and
recorded nowhere, so the same time gives more games and so more independent
results to learn values from.

With ``opening_moves`` k > 0 each game starts after 0 to k uniformly random
moves (:func:`random_opening`), played but never learnt from, so self-play
also meets the positions that follow moves no search would choose.

The same loop plays two evaluators against each other (:func:`play_batched_match`,
used to score a network against its previous checkpoint): each side keeps its
own tree, and each step's leaves go to each side's network in one call.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

import numpy as np

from dlgo.arena.workers import run_jobs, worker_pool
from dlgo.core.errors import SpecError
from dlgo.core.game import State, value_for
from dlgo.core.types import Player
from dlgo.encoders.base import Encoder
from dlgo.display.progress import progress_bar
from dlgo.games import new_game
from engines.alphazero import NetworkEvaluator
from engines.neural.loading import load_network
from engines.gumbel import GumbelSearch
from engines.forest import Forest, make_forest
from engines.puct import Evaluator, MoveSearch, Node, PUCTSearch
from engines.training.auxiliary import joined_targets, targets_of


@dataclass
class Examples:
    """Training examples: ``features`` (n, rows, cols, planes), ``policies`` (n, actions), ``values`` (n,),
    game after game; ``lengths`` says how many positions each game gave."""

    features: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    games: list[State] = field(default_factory=list)  # the finished games, last states (in-process only)
    lengths: list[int] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)  # each game's moves as typed, space separated (for SGF)
    evaluations: int = 0  # the network evaluations the games cost (self-play's compute)
    auxiliary: dict[str, np.ndarray] = field(default_factory=dict)  # auxiliary targets by name, (n, ...) each

    @staticmethod
    def concatenate(parts: Sequence["Examples"]) -> "Examples":
        """One batch of examples from several, in order."""
        return Examples(np.concatenate([p.features for p in parts]), np.concatenate([p.policies for p in parts]),
                        np.concatenate([p.values for p in parts]), [g for p in parts for g in p.games],
                        [n for p in parts for n in p.lengths], [m for p in parts for m in p.moves],
                        sum(p.evaluations for p in parts),
                        {name: np.concatenate([p.auxiliary[name] for p in parts]) for name in parts[0].auxiliary}
                        if parts else {})


@dataclass(frozen=True)
class SelfPlaySettings:
    """How self-play searches and chooses its moves: one object, from a run's
    settings (:meth:`~engines.training.alphazero_config.AlphaZeroConfig.self_play_settings`)
    to every game and every worker process."""

    parallel: int = 32              # games advancing together (their leaves evaluated in one call)
    simulations: int = 100          # per full move
    c: float = 1.5                  # PUCT's exploration constant
    temperature_moves: int = 8      # the first moves of a game sampled by visits; later ones the most visited
    temperature_floor: float = 0.0  # ... or sampled at a temperature falling to this floor (0: greedy) ...
    temperature_decay_moves: int = 0  # ... linearly over this many moves after temperature_moves
    dirichlet_alpha: float = 0.3    # root noise: Dirichlet(alpha) ...
    dirichlet_epsilon: float = 0.25  # ... mixed in at this weight
    fast_simulations: int = 0       # playout-cap randomisation: > 0 searches most moves this much, unrecorded
    full_fraction: float = 1.0      # ... and gives the full search (and an example) to this share of moves
    search_value_weight: float = 0.0  # value target: (1 - w) * game result + w * the root's search value
    greedy_return: bool = False     # the game result cut at exploratory moves, their root value in its place
    gumbel: int = 0                 # > 0: Gumbel AlphaZero's search, considering this many root moves (0: PUCT)
    forced_playouts: float = 0.0    # PUCT: KataGo's forced playouts and policy target pruning, with this k (2)
    opening_moves: int = 0          # > 0: each game opens with 0 to this many uniformly random moves, unrecorded
    auxiliary: tuple[str, ...] = ()  # auxiliary targets to record (engines.training.auxiliary)
    precision: str = "float32"      # the network's arithmetic in worker processes (engines.neural.precision.PRECISIONS)
    compiled: bool = True           # the trees in the compiled forest where it plays the game (engines.forest)

    def __post_init__(self) -> None:
        if not 0.0 <= self.search_value_weight <= 1.0:
            raise SpecError(f"search_value_weight must lie in [0, 1], got {self.search_value_weight}")


@dataclass(frozen=True)
class MatchSettings:
    """How a batched match between two evaluators searches: no noise, every move
    a full search; the first ``temperature_moves`` moves sampled so the games differ."""

    parallel: int = 32
    simulations: int = 50
    c: float = 1.5
    temperature_moves: int = 2
    gumbel: int = 0  # > 0: both sides search as Gumbel AlphaZero does (without its noise)
    compiled: bool = True  # the trees in the compiled forest where it plays the game (engines.forest)


@dataclass
class _Game:
    index: int
    state: State        # the position reached (each search's tree of the game: in its forest, by index)
    full: bool = True   # this move gets the full search (and becomes an example)
    moves: int = 0      # moves played so far
    positions: list[tuple[State, np.ndarray, float]] = field(default_factory=list)  # state, pi, root q
    played: list[tuple[Player, float, bool, bool]] = field(default_factory=list)  # each move's mover, root q,
    #                                                        whether it became a position, whether it explored


#: which search (an index into the searches) moves for a player in a game (by its index)
Seat = Callable[[int, Player], int]


def _play_batched(game: str, searches: Sequence[MoveSearch], seat: Seat, num_games: int, settings: SelfPlaySettings,
                  *, noise: bool, rng: np.random.Generator, progress: bool, desc: str,
                  starts: Callable[[int], State] | None = None) -> list[_Game]:
    """Play ``num_games`` games, ``settings.parallel`` at a time; ``seat`` names the
    search that moves for each player; ``starts`` gives game ``k``'s first position
    (default :func:`random_opening`). With ``settings.fast_simulations`` > 0
    each move is a full one with probability ``full_fraction``, else a fast one
    (see the module's docstring)."""
    forests = [make_forest(search, new_game(game).game, settings.compiled) for search in searches]
    active: list[_Game] = []
    finished: list[_Game] = []
    started = 0
    bar = progress_bar(total=num_games, desc=desc, unit="game", disable=not progress, leave=False)
    while active or started < num_games:
        while len(active) < settings.parallel and started < num_games:
            opening = starts(started) if starts else random_opening(game, settings.opening_moves, rng)
            active.append(_Game(started, opening, moves=len(opening.move_history())))
            for forest in forests:
                forest.plant(started, opening)
            started += 1
        movers = [seat(g.index, g.state.next_player) for g in active]
        for g in active:
            g.full = settings.fast_simulations <= 0 or rng.random() < settings.full_fraction
        budgets = [settings.simulations if g.full else settings.fast_simulations for g in active]
        _prepare_roots(active, movers, searches, forests, budgets, noise)
        _search(active, movers, forests, budgets)
        for g, s in zip(active, movers):
            _play_move(g, searches[s], forests, s, settings, rng)
        over = [g for g in active if g.state.is_over()]
        for g in over:
            for forest in forests:
                forest.fell(g.index)
        finished += over
        bar.update(len(over))
        active = [g for g in active if not g.state.is_over()]
    bar.close()
    return sorted(finished, key=lambda g: g.index)


def random_opening(game: str, most: int, rng: np.random.Generator) -> State:
    """The start of a game: with ``most`` > 0, a uniformly drawn number from 0 to
    ``most`` of uniformly random moves (among the sensible ones), drawn again until
    the game is not over; else the empty board (and no draw from ``rng``)."""
    if most <= 0:
        return new_game(game)
    while True:
        state = new_game(game)
        for _ in range(int(rng.integers(most + 1))):
            actions = state.sensible_actions()
            state = state.apply_action(actions[int(rng.integers(len(actions)))])
            if state.is_over():
                break
        if not state.is_over():
            return state


def _search(games: list[_Game], movers: list[int], forests: Sequence[Forest], budgets: list[int]) -> None:
    """Run each game's search for its budget of simulations, one descent per game
    per step; each step's leaves go to each side's evaluator in one batch."""
    for s, forest in enumerate(forests):
        mine = [(g.index, budget) for g, m, budget in zip(games, movers, budgets) if m == s]
        if mine:
            forest.search([key for key, _ in mine], [budget for _, budget in mine])


def temperature_at(move: int, settings: SelfPlaySettings) -> float:
    """The temperature of a game's ``move``-th move (from 1): 1 for the first
    ``temperature_moves``, then falling linearly over ``temperature_decay_moves``
    moves to ``temperature_floor``, which holds to the end (0: the most visited)."""
    past = move - settings.temperature_moves
    if past <= 0:
        return 1.0
    if past >= settings.temperature_decay_moves:
        return settings.temperature_floor
    return 1.0 + (settings.temperature_floor - 1.0) * past / settings.temperature_decay_moves


def _play_move(g: _Game, search: MoveSearch, forests: Sequence[Forest], mover: int, settings: SelfPlaySettings,
               rng: np.random.Generator) -> None:
    """Record a full move's position (state, the search's policy target, root
    value), then play the move at the game's temperature (:func:`temperature_at`;
    PUCT samples by visits, Gumbel search plays its choice); every move's mover,
    root value and whether it explored (not the policy target's most likely) are
    kept for :func:`greedy_returns`. Every side's tree goes on to the new position."""
    root = forests[mover].root(g.index)
    target, value = search.policy_target(root), search.search_value(root)
    if g.full:
        g.positions.append((root.state, target, value))
    g.moves += 1
    action = search.play(root, temperature_at(g.moves, settings), rng)
    g.played.append((root.state.next_player, value, g.full, action != int(np.argmax(target))))
    g.state = g.state.apply_action(action)
    for forest in forests:
        forest.advance(g.index, action, g.state)


def _prepare_roots(games: list[_Game], movers: list[int], searches: Sequence[MoveSearch], forests: Sequence[Forest],
                   budgets: list[int], noise: bool) -> None:
    """Expand the movers' new roots (one batched call per side) and begin each
    move's search; with ``noise``, a full move's search explores (PUCT: Dirichlet
    noise in the root's priors; Gumbel: the Gumbel noise)."""
    for s, forest in enumerate(forests):
        forest.expand_roots([g.index for g, m in zip(games, movers) if m == s])
    for g, s, budget in zip(games, movers, budgets):
        root = forests[s].root(g.index)
        searches[s].begin(root, noise and g.full, budget)
        forests[s].store(g.index, root)


def make_search(evaluator: Evaluator, settings: SelfPlaySettings | MatchSettings,
                seed: int | None = None) -> MoveSearch:
    """The search ``settings`` name: Gumbel (``gumbel`` > 0) or PUCT with its root noise."""
    if settings.gumbel:
        return GumbelSearch(evaluator, considered=settings.gumbel, seed=seed)
    if isinstance(settings, SelfPlaySettings):
        return PUCTSearch(evaluator, c=settings.c, dirichlet_alpha=settings.dirichlet_alpha,
                          dirichlet_epsilon=settings.dirichlet_epsilon, seed=seed,
                          forced_playouts=settings.forced_playouts)
    return PUCTSearch(evaluator, c=settings.c, seed=seed)


def _searched_roots(search: MoveSearch, states: Sequence[State], simulations: int, parallel: int,
                    noise: bool) -> list[Node]:
    """Each state's root after ``simulations`` simulations of ``search`` (with the
    self-play noise where ``noise``), ``parallel`` searches advancing together."""
    roots: list[Node] = []
    if not states:
        return roots
    forest = make_forest(search, states[0].game)
    for start in range(0, len(states), parallel):
        games = [_Game(start + k, state) for k, state in enumerate(states[start:start + parallel])]
        for g in games:
            forest.plant(g.index, g.state)
        movers, budgets = [0] * len(games), [simulations] * len(games)
        _prepare_roots(games, movers, [search], [forest], budgets, noise=noise)
        _search(games, movers, [forest], budgets)
        roots += [forest.root(g.index) for g in games]
        for g in games:
            forest.fell(g.index)
    return roots


def search_moves(search: MoveSearch, states: Sequence[State], simulations: int, parallel: int = 64) -> list[int]:
    """The move ``search`` plays in each of ``states`` (unfinished) after
    ``simulations`` simulations without noise, ``parallel`` searches advancing
    together (their leaves evaluated in one call)."""
    rng = np.random.default_rng(0)  # unused at temperature 0
    return [search.play(root, 0.0, rng) for root in _searched_roots(search, states, simulations, parallel, False)]


def search_targets(search: MoveSearch, states: Sequence[State], simulations: int, parallel: int = 64,
                   noise: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The training targets self-play would record in each of ``states``: the search's
    policy targets (a row a state, over the whole action space) and root values, after
    ``simulations`` simulations with self-play's noise (without, unless ``noise``)."""
    roots = _searched_roots(search, states, simulations, parallel, noise)
    policies = np.array([search.policy_target(root) for root in roots], np.float32).reshape(len(roots), -1)
    values = np.array([search.search_value(root) for root in roots], np.float32)
    rng = np.random.default_rng(0)
    for root in roots:
        search.play(root, 0.0, rng)  # ends each root's search, as a move would (Gumbel keeps a plan a root)
    return policies, values


def self_play(game: str, evaluator: Evaluator, encoder: Encoder, num_games: int,
              settings: SelfPlaySettings = SelfPlaySettings(), *, seed: int | None = None,
              progress: bool = False) -> Examples:
    """Play ``num_games`` games of ``game`` against itself with ``evaluator``
    guiding the search as ``settings`` say; return their examples."""
    before = evaluator.evaluations
    games = _self_play_games(game, evaluator, num_games, settings, seed, progress)
    examples = _examples(games, encoder, settings.search_value_weight, settings.auxiliary, settings.greedy_return)
    examples.evaluations = evaluator.evaluations - before
    return examples


def _self_play_games(game: str, evaluator: Evaluator, num_games: int, settings: SelfPlaySettings,
                     seed: int | None, progress: bool) -> list[_Game]:
    """The finished games of :func:`self_play`, their positions and moves recorded."""
    searching, playing = np.random.SeedSequence(seed).spawn(2)  # the search's noise apart from the moves' draws
    search = make_search(evaluator, settings, int(searching.generate_state(1)[0]))
    return _play_batched(game, [search], lambda index, player: 0, num_games, settings, noise=True,
                         rng=np.random.default_rng(playing), progress=progress, desc="self-play")


class ValueTargets(NamedTuple):
    """The value targets self-play could learn from, for each position it records
    (each for the player to move there)."""

    states: list[State]
    results: np.ndarray         # the game's result
    search_values: np.ndarray   # the root's search value
    greedy_returns: np.ndarray  # the result cut at exploratory moves (:func:`greedy_returns`)


def value_targets(game: str, evaluator: Evaluator, num_games: int, settings: SelfPlaySettings,
                  seed: int | None = None) -> ValueTargets:
    """Play ``num_games`` self-play games as :func:`self_play` does and return every
    value target its positions could have (to judge them against a solver)."""
    games = _self_play_games(game, evaluator, num_games, settings, seed, progress=False)
    states = [state for g in games for state, _, _ in g.positions]
    results = [value_for(g.state.winner(), state.next_player) for g in games for state, _, _ in g.positions]
    return ValueTargets(states, np.array(results, np.float32),
                        np.array([q for g in games for _, _, q in g.positions], np.float32),
                        np.array([r for g in games for r in greedy_returns(g)], np.float32))


class MatchGame(NamedTuple):
    """One game of a batched match: its number, where it started, where it ended,
    and the first evaluator's score (win 1, draw 0.5, loss 0)."""

    number: int
    opening: State
    final: State
    score: float


def play_batched_match(game: str, first: Evaluator, second: Evaluator, num_games: int,
                       settings: MatchSettings = MatchSettings(), *, seed: int | None = None,
                       progress: bool = False, desc: str = "vs previous") -> list[float]:
    """``first`` against ``second`` with search and no noise, ``first`` opening the
    even-numbered games. Returns ``first``'s score per game (win 1, draw 0.5, loss 0)."""
    return [g.score for g in play_batched_games(game, first, second, num_games, settings, seed=seed,
                                                progress=progress, desc=desc)]


def play_batched_games(game: str, first: Evaluator, second: Evaluator, num_games: int,
                       settings: MatchSettings = MatchSettings(), *, openings: Sequence[State] | None = None,
                       seed: int | None = None, progress: bool = False, desc: str = "vs previous") -> list[MatchGame]:
    """:func:`play_batched_match`'s games in full. With ``openings``, games ``2i``
    and ``2i + 1`` start from ``openings[i]``, ``first`` playing the first player's
    colour in the even one and the second player's in the odd one (a colour-swapped pair)."""
    if openings is not None and len(openings) * 2 < num_games:
        raise ValueError(f"{num_games} games in pairs need {(num_games + 1) // 2} openings, not {len(openings)}")
    searches = [make_search(first, settings, seed), make_search(second, settings, seed)]
    opener = new_game(game).next_player

    def seat(index: int, player: Player) -> int:
        return int((player == opener) != (index % 2 == 0))

    played = SelfPlaySettings(parallel=settings.parallel, simulations=settings.simulations, c=settings.c,
                              temperature_moves=settings.temperature_moves, gumbel=settings.gumbel,
                              compiled=settings.compiled)
    starts = None if openings is None else (lambda k: openings[k // 2])
    games = _play_batched(game, searches, seat, num_games, played, noise=False, rng=np.random.default_rng(seed),
                          progress=progress, desc=desc, starts=starts)
    results = []
    for g in games:
        winner = g.state.winner()
        first_player = opener if g.index % 2 == 0 else opener.other
        start = openings[g.index // 2] if openings is not None else new_game(game)
        results.append(MatchGame(g.index, start, g.state, 0.5 if winner is None else float(winner == first_player)))
    return results


def greedy_returns(g: _Game) -> list[float]:
    """For each of a finished game's positions, the result of the game without its
    exploratory moves, for the player to move there: the result if every move from
    there on was the search's choice, else the root value of the first that was not
    (the search's value before the exploration)."""
    winner = g.state.winner()
    returns: list[float] = []
    cut: tuple[Player, float] | None = None  # the first exploratory move from here on: its mover and root value
    for mover, value, recorded, explored in reversed(g.played):
        if explored:
            cut = (mover, value)
        if recorded:
            returns.append(value_for(winner, mover) if cut is None else cut[1] if cut[0] == mover else -cut[1])
    return returns[::-1]


def _examples(games: list[_Game], encoder: Encoder, search_value_weight: float = 0.0,
              auxiliary: Sequence[str] = (), greedy_return: bool = False) -> Examples:
    states, policies, values = [], [], []
    extra: dict[str, list[np.ndarray]] = {name: [] for name in auxiliary}
    for g in games:
        winner = g.state.winner()
        results = greedy_returns(g) if greedy_return else \
            [value_for(winner, state.next_player) for state, _, _ in g.positions]
        for (state, pi, q), z in zip(g.positions, results):
            states.append(state)
            policies.append(pi)
            values.append((1.0 - search_value_weight) * z + search_value_weight * q)
        for name, rows in targets_of([state for state, _, _ in g.positions], g.state, auxiliary).items():
            extra[name].append(rows)
    features = encoder.encode_batch(states) if states else np.zeros((0,) + encoder.shape, np.float32)
    game = encoder.game
    return Examples(features, np.asarray(policies, np.float32).reshape(len(states), -1),
                    np.asarray(values, np.float32), [g.state for g in games], [len(g.positions) for g in games],
                    [g.state.moves_text() for g in games],
                    auxiliary=joined_targets(extra, game))


def _init_worker() -> None:
    """One thread per worker process for the networks (the Keras backend's and the
    fast inference path's): the processes share the cores."""
    from engines.neural.backend import limit_threads  # the backend's lazy import: only workers pay it
    from engines.neural.inference import set_threads

    limit_threads(1)
    set_threads(1)


#: a share of a batch of self-play games: the game, the network's file, how many games, how, and the seed
SelfPlayJob = tuple[str, str, int, SelfPlaySettings, int]


def _self_play_task(job: SelfPlayJob) -> Examples:
    game, checkpoint, num_games, settings, seed = job
    loaded = load_network(checkpoint, precision=settings.precision)
    examples = self_play(game, NetworkEvaluator(loaded), loaded.encoder, num_games, settings, seed=seed)
    # Positions only: finished game states are long chains of objects, costly to send back.
    return Examples(examples.features.astype(np.int8), examples.policies, examples.values,
                    lengths=examples.lengths, moves=examples.moves, evaluations=examples.evaluations,
                    auxiliary=examples.auxiliary)


def _self_play_share(task: tuple[int, SelfPlayJob]) -> tuple[int, Examples]:
    """A share of the self-play games, with its index (in a pool's worker or a Ray task)."""
    _init_worker()
    share, job = task
    return share, _self_play_task(job)


class SelfPlayPool:
    """Self-play in worker processes, each with its own copy of the network.

    The processes start once (TensorFlow's start-up is paid once per worker)
    and load the network from a checkpoint file for each batch of games. With
    ``ray`` (an address, see :mod:`dlgo.arena.distributed`) the ``workers``
    shares are Ray tasks instead: the same games, on the cluster's machines.
    Use as a context manager."""

    def __init__(self, workers: int, ray: str | None = None):
        self.workers = workers
        self.ray = ray
        if ray:
            from dlgo.arena.distributed import connect  # the distributed extra (Ray), only when asked for

            connect(ray)
        self.pool = None if ray else worker_pool(workers, initializer=_init_worker)

    def __enter__(self) -> "SelfPlayPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Let the worker processes end. No batch is playing here (a batch that failed has
        stopped them at once), so each exits normally and releases what it held: a worker
        killed instead leaves its semaphores for the resource tracker to warn about."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def self_play(self, game: str, checkpoint: str | Path, num_games: int,
                  settings: SelfPlaySettings = SelfPlaySettings(), *, seed: int | None = None,
                  progress: bool = False) -> Examples:
        """:func:`self_play` with the network in ``checkpoint``, the games split
        between the workers (each seeded from ``seed``); the examples come back
        without the finished game states."""
        shares = [num_games // self.workers + (k < num_games % self.workers) for k in range(self.workers)]
        base = 0 if seed is None else seed
        jobs = {k: (game, str(checkpoint), n, replace(settings, parallel=min(settings.parallel, n)), base * 1009 + k)
                for k, n in enumerate(shares) if n}
        parts: dict[int, Examples] = {}
        with progress_bar(total=num_games, desc="self-play", unit="game", disable=not progress,
                          leave=False) as bar:
            def finished(share: int, examples: Examples) -> None:
                parts[share] = examples
                bar.update(len(examples.lengths))

            if self.pool is None:
                from dlgo.arena.distributed import run_tasks  # Ray: this pool was made with it

                run_tasks(_self_play_share, list(jobs.items()), lambda result: finished(*result))
            else:  # any exception, Ctrl-C too, stops the workers at once
                run_jobs(_self_play_share, list(jobs.items()), lambda result: finished(*result), self.pool)
        return Examples.concatenate([parts[k] for k in sorted(parts)])
