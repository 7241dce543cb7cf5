"""Fixed references for a training run: how far the network plays from perfect.

An iteration's score against its predecessor says whether it moved, not where
to: a run can climb its own Elo ladder while getting weaker against everyone
else (the 9x9 Go run did). So each iteration is also measured against
something that never changes. Where the suite has solved the game (Connect
Four, :mod:`dlgo.data.solved`), that is the network's move in the critical
positions of the early-game sets (``begin-easy``, ``begin-medium``,
``begin-hard``: where some move changes the game-theoretic result), played
from its raw policy and after a search with the run's evaluation budget; a
move that changes the result is a mistake. Elsewhere it is the score against a
fixed baseline (GNU Go at a fixed level), which the loop already plays.

The positions are measured in one batch: one network call for every raw move,
and the searches of all the positions advance together (:func:`~engines.training.selfplay.search_moves`).
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from dlgo.core.errors import SpecError
from dlgo.core.game import State
from dlgo.data.solved import shipped_sets
from dlgo.games import get_game
from dlgo.formats.positions import SolvedPosition, first_of_each_set, position_state, read_positions
from engines.puct import Evaluator
from engines.training.selfplay import (MatchSettings, SelfPlaySettings, make_search, search_moves, search_targets,
                                       value_targets)

#: the sets whose critical positions a run is measured on: the opening, where the network's values matter most
EARLY_SETS = ("begin-easy", "begin-medium", "begin-hard")


class ReferenceMistakes(NamedTuple):
    """The share of the reference positions where a move changed the result."""

    positions: int
    raw: float     # the network's raw policy (its most likely sensible move)
    search: float  # after the run's evaluation search


class TargetQuality(NamedTuple):
    """How right the training targets of a search are on solved positions."""

    positions: int
    policy_mistakes: float  # the share where the policy target's most likely sensible move is a mistake
    mistake_mass: float     # the policy target's mean probability on mistakes
    value_right: float      # the share whose value target lies nearest the exact result (of -1, 0, 1)


def reference_positions(game: str, per_set: int, file: str | Path = "") -> list[SolvedPosition]:
    """The first ``per_set`` critical positions of each early-game set the suite
    ships for ``game``, or of every set in ``file`` (``dlgo positions``' file, for a
    board the suite ships none for); a :class:`SpecError` for a game without solved sets."""
    if file:
        critical = [p for p in read_positions(file) if p.critical]
        return first_of_each_set(critical, per_set)
    path = shipped_sets(game)
    if path is None:
        raise SpecError(f"{game} has no solved position sets to measure a network on (the suite ships them for "
                        "Connect Four); make some with `dlgo positions` and name them with --reference-file, or use "
                        "--reference-positions 0 and a baseline as the reference")
    critical = [p for p in read_positions(path, EARLY_SETS) if p.critical]
    return first_of_each_set(critical, per_set)


def check_reference_file(file: str | Path, game: str) -> None:
    """A :class:`SpecError` (or :class:`~dlgo.core.errors.RecordError`) unless ``file``
    holds solved positions of ``game`` with critical ones among them."""
    if not Path(file).is_file():
        raise SpecError(f"--reference-file {file}: no such file (make one with `dlgo positions`)")
    positions = read_positions(file)
    others = {p.game for p in positions} - {get_game(game).spec}
    if others:
        raise SpecError(f"--reference-file {file} holds positions of {', '.join(sorted(others))}, not {game}")
    if not any(p.critical for p in positions):
        raise SpecError(f"--reference-file {file} has no critical positions (where some move changes the result)")


def likeliest_sensible(state: State, policy: np.ndarray) -> int:
    """The sensible action (see ``sensible_actions``) that ``policy`` (over the whole
    action space) gives the most probability: the move a policy is judged by."""
    sensible = np.asarray(state.sensible_actions())
    return int(sensible[int(np.argmax(np.asarray(policy)[sensible]))])


def measure_reference(evaluator: Evaluator, positions: list[SolvedPosition], settings: MatchSettings,
                      seed: int = 0) -> ReferenceMistakes:
    """The network's mistakes on ``positions``: raw and with ``settings``' search (no noise)."""
    states = [position_state(p) for p in positions]
    priors, _ = evaluator.evaluate(states)
    raw = [likeliest_sensible(state, prior) for state, prior in zip(states, priors)]
    searched = search_moves(make_search(evaluator, settings, seed), states, settings.simulations,
                            parallel=settings.parallel)
    return ReferenceMistakes(len(positions), float(np.mean([p.is_mistake(a) for p, a in zip(positions, raw)])),
                             float(np.mean([p.is_mistake(a) for p, a in zip(positions, searched)])))


def value_right(values: np.ndarray, results: np.ndarray) -> float:
    """The share of values (for the player to move, in [-1, 1]) that lie nearest their
    position's exact result (1, 0 or -1): above 1/3 for a win, below -1/3 for a loss,
    between for a draw."""
    values, results = np.asarray(values, float).ravel(), np.asarray(results).ravel()
    right = np.where(results > 0, values > 1 / 3, np.where(results < 0, values < -1 / 3, np.abs(values) <= 1 / 3))
    return float(right.mean())


def target_quality(policies: np.ndarray, values: np.ndarray, positions: list[SolvedPosition]) -> TargetQuality:
    """How right policy and value targets (a row a position) are: see :class:`TargetQuality`."""
    argmax_mistakes, mass = [], []
    for position, policy in zip(positions, policies):
        argmax_mistakes.append(position.is_mistake(likeliest_sensible(position_state(position), policy)))
        mass.append(sum(float(policy[a]) for a in np.flatnonzero(policy) if position.is_mistake(int(a))))
    return TargetQuality(len(positions), float(np.mean(argmax_mistakes)), float(np.mean(mass)),
                         value_right(values, np.array([p.result for p in positions])))


def measure_targets(evaluator: Evaluator, positions: list[SolvedPosition], settings: SelfPlaySettings,
                    seed: int = 0) -> TargetQuality:
    """How right the targets are that self-play with ``settings`` (its search, simulations and
    noise) would record on ``positions``, searching with ``evaluator``: the floor that training on
    them cannot go below. The policy target is the search's (visit counts, or Gumbel's improved
    policy), the value target its root value."""
    states = [position_state(p) for p in positions]
    policies, values = search_targets(make_search(evaluator, settings, seed), states, settings.simulations,
                                      parallel=settings.parallel)
    return target_quality(policies, values, positions)


def raw_quality(evaluator: Evaluator, positions: list[SolvedPosition]) -> TargetQuality:
    """The network's own policy and value, judged as :func:`measure_targets` judges targets."""
    priors, values = evaluator.evaluate([position_state(p) for p in positions])
    return target_quality(np.asarray(priors), np.asarray(values), positions)


class ValueTargetQuality(NamedTuple):
    """How right one kind of value target is on self-play's own positions."""

    target: str    # result, search value, mixed or greedy return
    positions: int
    right: float   # the share nearest the exact result (:func:`value_right`)
    mse: float     # the mean squared distance from it


def measure_value_targets(game: str, evaluator: Evaluator, settings: SelfPlaySettings, num_games: int,
                          seed: int = 0) -> list[ValueTargetQuality]:
    """Each value target self-play with ``settings`` could record (the game's result, the
    root's search value, the two mixed at the settings' ``search_value_weight``, and the
    result cut at exploratory moves), judged against the exact result of every position
    of ``num_games`` games, which the game's solver scores."""
    solver = get_game(game).solver()
    if solver is None:
        raise SpecError(f"{game} has no exact solver to judge value targets by")
    targets = value_targets(game, evaluator, num_games, settings, seed)
    exact = np.sign([solver.score(state) for state in targets.states])
    w = settings.search_value_weight
    kinds = {"result": targets.results, "search value": targets.search_values,
             "mixed": (1 - w) * targets.results + w * targets.search_values,
             "greedy return": targets.greedy_returns}
    return [ValueTargetQuality(name, len(exact), value_right(values, exact), float(np.mean((values - exact) ** 2)))
            for name, values in kinds.items()]
