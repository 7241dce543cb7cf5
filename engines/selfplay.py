"""Batched self-play: many games advance together, their leaves evaluated in one call.

AlphaZero's training data comes from the network playing itself with search.
Evaluating one leaf at a time would leave the network waiting on Python; here
``parallel`` games each run one PUCT descent per step, and all the leaves that
need the network go to ``evaluator.evaluate`` as one batch (one compiled call
for a :class:`engines.alphazero.NetworkEvaluator`). Each game keeps its tree
from move to move; Dirichlet noise is mixed into every new root's priors; the
first ``temperature_moves`` moves of a game are sampled in proportion to the
visit counts (temperature 1), later ones are the most visited.

Every position played becomes one training example: the encoded board, the
search's visit distribution ``pi`` and the final result ``z`` for the player to
move there (win 1, draw 0, loss -1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dlgo.encoders.base import Encoder
from dlgo.game import GameStateBase
from dlgo.games import new_game
from engines.puct import Evaluator, Node, PUCTSearch, backup, select_action


@dataclass
class Examples:
    """Training examples: ``features`` (n, rows, cols, planes), ``policies`` (n, actions), ``values`` (n,)."""

    features: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    games: list[GameStateBase] = field(default_factory=list)  # the finished games, last states


@dataclass
class _Game:
    root: Node
    noised: bool = False
    positions: list[tuple[GameStateBase, np.ndarray]] = field(default_factory=list)


def self_play(game: str, evaluator: Evaluator, encoder: Encoder, num_games: int, *, parallel: int = 32,
              simulations: int = 100, c: float = 1.5, dirichlet_alpha: float = 0.3,
              dirichlet_epsilon: float = 0.25, temperature_moves: int = 8, seed: int | None = None,
              progress: bool = False) -> Examples:
    """Play ``num_games`` games of ``game``, ``parallel`` at a time; return their examples."""
    search = PUCTSearch(evaluator, c=c, dirichlet_alpha=dirichlet_alpha, dirichlet_epsilon=dirichlet_epsilon,
                        seed=seed)
    rng = np.random.default_rng(seed)
    num_actions = new_game(game).num_actions
    active: list[_Game] = []
    finished: list[_Game] = []
    started = 0
    from tqdm import tqdm

    bar = tqdm(total=num_games, desc="self-play", unit="game", disable=not progress)
    while active or started < num_games:
        while len(active) < parallel and started < num_games:
            active.append(_Game(Node(new_game(game))))
            started += 1
        _prepare_roots(active, evaluator, search)
        for _ in range(simulations):
            pending = []
            for g in active:
                path, leaf = search.descend(g.root)
                if leaf.terminal is not None:
                    backup(path, leaf, leaf.terminal)
                else:
                    pending.append((path, leaf))
            if pending:
                priors, values = evaluator.evaluate([leaf.state for _, leaf in pending])
                for (path, leaf), p, v in zip(pending, priors, values):
                    leaf.expand(p)
                    backup(path, leaf, float(v))
        still = []
        for g in active:
            g.positions.append((g.root.state, g.root.visit_policy(num_actions)))
            temperature = 1.0 if len(g.positions) <= temperature_moves else 0.0
            action = select_action(g.root, temperature, rng)
            g.root = g.root.child(int(np.flatnonzero(g.root.actions == action)[0]))
            g.noised = False
            if g.root.terminal is not None:
                finished.append(g)
                bar.update()
            else:
                still.append(g)
        active = still
    bar.close()
    return _examples(finished, encoder)


def _prepare_roots(games: list[_Game], evaluator: Evaluator, search: PUCTSearch) -> None:
    """Expand new roots (one batched call) and mix noise into every fresh root."""
    unexpanded = [g for g in games if not g.root.expanded]
    if unexpanded:
        priors, _ = evaluator.evaluate([g.root.state for g in unexpanded])
        for g, p in zip(unexpanded, priors):
            g.root.expand(p)
    for g in games:
        if not g.noised:
            search.add_noise(g.root)
            g.noised = True


def _examples(games: list[_Game], encoder: Encoder) -> Examples:
    states, policies, values = [], [], []
    for g in games:
        winner = g.root.state.winner()
        for state, pi in g.positions:
            states.append(state)
            policies.append(pi)
            values.append(0.0 if winner is None else 1.0 if winner == state.next_player else -1.0)
    features = encoder.encode_batch(states) if states else np.zeros((0,) + encoder.shape, np.float32)
    return Examples(features, np.asarray(policies, np.float32).reshape(len(states), -1),
                    np.asarray(values, np.float32), [g.root.state for g in games])
