"""Elo ratings of Go move features from a teacher's games (Coulom 2007, in small).

:func:`competitions_from_games` turns every move a player chose in recorded Go
games (after the random opening plies) into a competition among the
position's candidate moves, each a team of
:mod:`dlgo.games.go.move_features` levels; :func:`fit_move_patterns` fits one
strength per level by MM (:mod:`engines.training.bradley_terry`) on the
training games and says how well the ratings predict the held-out test games'
moves (the same split by game id as the networks' datasets,
:func:`dlgo.data.dataset.split_of`): the share of moves that were the rated
favourite (Coulom's 34.9% on strong human games), in the top 5, and the mean
log-probability of the move played.

Identical candidates of one position (in open areas, many empty points hold
the same levels) are merged into one team with a count, which the model treats
as the teams it stands for.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from dlgo.core.errors import RecordError, SpecError
from dlgo.data.dataset import split_of
from dlgo.display.progress import progress_bar
from dlgo.formats.records import GameRecord, replay
from dlgo.games.go.features import NUM_FEATURES
from dlgo.games.go.kernels import copy_board, geometry_arrays
from dlgo.games.go.move_feature_kernels import game_competitions
from dlgo.games.go.move_features import GROUP_OF, GROUPS, NUM_LEVELS, position_teams
from dlgo.games.go.pattern_kernels import policy_tables
from dlgo.games.go.playouts import game_path, root_board
from dlgo.games.go.state import GoState
from dlgo.games.kernels import new_hash_set
from engines.rollouts import MovePatterns, save_move_patterns
from engines.training.bradley_terry import (Competitions, elo, fit_gammas, mean_log_evidence, top_k_accuracy)
from engines.training.rollout_policy import read_go_games


def merged(teams: np.ndarray, chosen: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``teams`` with identical rows merged: ``(rows, counts, the chosen row)``; the chosen team
    keeps a row of its own, counted once, so that it alone wins."""
    others = np.delete(teams, chosen, axis=0)
    distinct, counts = np.unique(others, axis=0, return_counts=True) if len(others) else (others, np.zeros(0, int))
    return np.vstack([teams[chosen:chosen + 1], distinct]), np.r_[1, counts].astype(np.float64), 0


def competitions_from_games(records: Sequence[GameRecord], progress: bool = True,
                            desc: str = "positions") -> Competitions:
    """One competition per move chosen in ``records`` (Go games), after their opening plies,
    built on the compiled board (:func:`reference_competitions` is its readable twin)."""
    tables = policy_tables(np.zeros(NUM_FEATURES))  # the shapes and flags alone: no weights
    rows: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    start: list[int] = [0]
    winner: list[int] = []
    for record in progress_bar(records, desc=desc, unit="game", disable=not progress):
        end = replay(record.game, record.moves)[-1]
        assert isinstance(end, GoState)  # Go games only
        root, path = game_path(end)
        assert isinstance(root, GoState)
        geometry = geometry_arrays(root.board.num_rows, root.board.num_cols)
        width = root.board.geometry.num_points + 1
        teams = np.empty((len(path) * width, len(GROUPS)), np.int32)
        first, chosen = np.empty(len(path) + 1, np.int64), np.empty(len(path), np.int64)
        made = game_competitions(copy_board(root_board(root)), geometry, tables, int(root.next_player), path,
                                 record.opening_plies, new_hash_set(len(path) + 2), teams, first, chosen)
        for i in range(made):
            _add(rows, counts, start, winner, teams[first[i]:first[i + 1]], int(chosen[i] - first[i]))
    return _competitions(rows, counts, start, winner)


def reference_competitions(records: Sequence[GameRecord]) -> Competitions:
    """:func:`competitions_from_games` by the readable :func:`position_teams`."""
    rows: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    start: list[int] = [0]
    winner: list[int] = []
    for record in records:
        states = replay(record.game, record.moves)
        for ply, state in enumerate(states[:-1]):
            move = states[ply + 1].last_move
            if ply < record.opening_plies or move is None or move.is_resign:
                continue
            assert isinstance(state, GoState)  # Go games only
            actions, teams = position_teams(state)
            board = state.board
            played = board.geometry.num_points if move.point is None else board.geometry.index_of(move.point)
            if played in actions:  # else an eye filled: no candidate the model rates
                _add(rows, counts, start, winner, teams, actions.index(played))
    return _competitions(rows, counts, start, winner)


def _add(rows: list[np.ndarray], counts: list[np.ndarray], start: list[int], winner: list[int], teams: np.ndarray,
         chosen: int) -> None:
    """One position's competition, its identical teams merged."""
    team, count, first = merged(teams, chosen)
    winner.append(start[-1] + first)
    rows.append(team)
    counts.append(count)
    start.append(start[-1] + len(team))


def _competitions(rows: list[np.ndarray], counts: list[np.ndarray], start: list[int],
                  winner: list[int]) -> Competitions:
    features = np.vstack(rows) if rows else np.zeros((0, len(GROUPS)), np.int32)
    return Competitions(features.astype(np.int32), np.array(start, np.int64), np.array(winner, np.int64),
                        np.concatenate(counts) if counts else np.zeros(0), NUM_LEVELS, GROUP_OF)


@dataclass
class PatternFit:
    """Fitted strengths and how well they predict held-out moves."""

    gammas: np.ndarray
    positions: int        # training competitions
    test_positions: int
    top1: float           # share of held-out moves that were the favourite
    top5: float
    log_evidence: float   # mean log-probability of the held-out move

    @property
    def elo(self) -> np.ndarray:
        return elo(self.gammas)


def fit_move_patterns(records: Sequence[GameRecord], passes: int = 50, progress: bool = True) -> PatternFit:
    """Ratings fitted on the training games of ``records``, measured on their test games."""
    train = [r for r in records if split_of(r.game_id) == "train"]
    test = [r for r in records if split_of(r.game_id) == "test"]
    learn = competitions_from_games(train, progress, "training positions")
    gammas = fit_gammas(learn, passes=passes)
    held = competitions_from_games(test, progress, "test positions")
    return PatternFit(gammas, len(learn.winner), len(held.winner), top_k_accuracy(held, gammas, 1),
                      top_k_accuracy(held, gammas, 5), mean_log_evidence(held, gammas))


def train_patterns(data: str | Path, out: str | Path, passes: int = 50, progress: bool = True) -> PatternFit:
    """Fit move patterns to the Go games of the dataset folder ``data`` and save them to ``out``
    (``.npz``, :func:`engines.rollouts.save_move_patterns`); returns the fit with its test figures."""
    out = Path(out)
    if out.suffix != ".npz":
        raise SpecError(f"a move patterns file ends in .npz, got {out}")
    records = read_go_games(data, "move patterns are")
    fit = fit_move_patterns(records, passes=passes, progress=progress)
    if not fit.positions:
        raise RecordError(f"the training games of {data} have no moves to learn from")
    info = {"data": str(data), "passes": passes, "games": len(records), "positions": fit.positions,
            "test_positions": fit.test_positions, "top1": round(fit.top1, 6), "top5": round(fit.top5, 6),
            "log_evidence": round(fit.log_evidence, 6)}
    save_move_patterns(MovePatterns(fit.gammas, info), out)
    return fit
