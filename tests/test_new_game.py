"""The shared contract is enough: a game defined here, and registered, plays in a
tournament with its report, goes through an encoder and trains one AlphaZero
iteration, without any change to a generic module."""
from __future__ import annotations

import random

import numpy as np
import pytest

from dlgo.arena.report import write_report
from dlgo.arena.tournament import run_tournament
from dlgo.core.errors import IllegalMoveError
from dlgo.core.game import Game, State
from dlgo.core.types import RESIGN, Move, Player, Point
from dlgo.encoders import get_encoder_by_name
from dlgo.games import GAMES, new_game, register_game
from dlgo.games.grid import letter_column_label, parse_letter_point, render_grid
from engines import ENGINES


class BottomRowGame(Game):
    """Fill a 2x3 board; when it is full, whoever holds more of the bottom row wins."""

    name = spec = "bottomrow"
    num_rows, num_cols, num_actions = 2, 3, 6

    def initial_state(self) -> "BottomRowState":
        return BottomRowState(self, (0,) * 6, Player.black, None, None)


class BottomRowState(State):
    __slots__ = ("game", "cells", "next_player", "previous_state", "last_move")

    def __init__(self, game: Game, cells: tuple[int, ...], next_player: Player,
                 previous: "BottomRowState | None", move: Move | None):
        self.game, self.cells, self.next_player = game, cells, next_player
        self.previous_state, self.last_move = previous, move

    def legal_actions(self) -> list[int]:
        return [] if self.is_over() else [a for a, c in enumerate(self.cells) if not c]

    def apply_action(self, action: int) -> "BottomRowState":
        if action not in self.legal_actions():
            raise IllegalMoveError(f"illegal move {action}")
        cells = list(self.cells)
        cells[action] = int(self.next_player)
        return BottomRowState(self.game, tuple(cells), self.next_player.other, self, self.index_to_move(action))

    def after_resignation(self) -> "BottomRowState":
        return BottomRowState(self.game, self.cells, self.next_player.other, self, RESIGN)

    def is_over(self) -> bool:
        return all(self.cells) or (self.last_move is not None and self.last_move.is_resign)

    def winner(self) -> Player | None:
        if not self.is_over():
            return None
        if self.last_move is not None and self.last_move.is_resign:
            return self.next_player
        black = sum(c == 1 for c in self.cells[:3])
        return Player.black if black >= 2 else Player.white

    def zobrist_hash(self) -> int:
        return hash((self.cells, self.next_player))

    def move_to_index(self, move: Move) -> int:
        if move.point is None:
            raise IllegalMoveError("only plays have actions here")
        return (move.point.row - 1) * 3 + move.point.col - 1

    def index_to_move(self, index: int) -> Move:
        return Move.play(Point(index // 3 + 1, index % 3 + 1))

    def stone_array(self) -> np.ndarray:
        return np.array(self.cells, dtype=np.int8).reshape(2, 3)

    def parse_move(self, text: str) -> Move:
        return RESIGN if text == "resign" else Move.play(parse_letter_point(text, 2, 3))

    def format_move(self, move: Move) -> str:
        return "resign" if move.point is None else f"{letter_column_label(move.point.col)}{move.point.row}"

    def render(self) -> str:
        return render_grid(2, 3, lambda r, c: self.cells[(r - 1) * 3 + c - 1], ["a", "b", "c"])

    def random_playout(self, rng: random.Random, moves: list[Move] | None = None) -> Player | None:
        state = self
        while not state.is_over():
            actions = state.legal_actions()
            state = state.apply_action(actions[int(rng.random() * len(actions))])
            if moves is not None and state.last_move is not None:
                moves.append(state.last_move)
        return state.winner()


@pytest.fixture
def bottomrow():
    register_game("bottomrow", "a test game: fill a 2x3 board", BottomRowGame)
    yield "bottomrow"
    del GAMES["bottomrow"]


def test_a_new_game_plays_a_tournament_and_writes_its_report(bottomrow, tmp_path):
    specs = ["random", "mcts:rounds=20", "alphabeta"]
    records = run_tournament(ENGINES, tmp_path, bottomrow, specs, 2, seed=1, workers=1, progress=False)
    assert len(records) == 6 and {r.result for r in records} <= {"1-0", "0-1"}
    rows = write_report(tmp_path, records, title="bottom row")
    assert {r.engine for r in rows} == set(specs)
    assert (tmp_path / "summary.md").exists() and (tmp_path / "strength_vs_compute.png").exists()
    assert not (tmp_path / "sgf").exists()  # the game has no SGF


def test_a_new_game_goes_through_the_default_encoder(bottomrow):
    encoder = get_encoder_by_name(None, bottomrow)
    state = new_game(bottomrow).apply_action(1)
    planes = encoder.encode(state)
    assert encoder.shape == (2, 3, 3) and encoder.num_moves == 6
    assert planes[0, 1, 1] == 1 and planes[:, :, 0].sum() == 0 and planes[:, :, 2].sum() == 0  # white to move
    assert [s.name for s in state.game.symmetries()] == ["identity"]


def test_a_new_game_trains_one_alphazero_iteration(bottomrow, tmp_path):
    from engines.training.alphazero_config import AlphaZeroConfig
    from engines.training.alphazero import train_alphazero

    config = AlphaZeroConfig(game=bottomrow, blocks=1, filters=8, games=4, parallel=4, simulations=8, train_steps=2,
                             batch_size=16, eval_games=2, eval_simulations=4, previous_games=2, baselines=["random"])
    history = train_alphazero(tmp_path, config, 1, progress=False)
    assert list(history["iteration"]) == [1] and 0 <= history["score_vs_random"].iloc[0] <= 1
    agent = ENGINES.create(f"alphazero:checkpoint={tmp_path / 'checkpoint.keras'},simulations=4")
    move = agent.select_move(new_game(bottomrow))
    assert move.is_play and agent.last_report.visits is not None and agent.last_report.visits.sum() == 4


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_registered_game_finishes_a_tournament_with_its_report(name, tmp_path):
    game = {"go": "go:size=5", "mnk": "mnk:m=4,n=4,k=3", "connectn": "connectn:columns=5,rows=4,n=3"}.get(name, name)
    records = run_tournament(ENGINES, tmp_path, game, ["random", "mcts:rounds=5"], 2, seed=2, workers=1,
                             progress=False)
    assert len(records) == 2 and all(r.result for r in records)
    write_report(tmp_path, records, title=game)
    assert (tmp_path / "ratings.csv").exists() and (tmp_path / "summary.md").exists()
    assert (tmp_path / "sgf").exists() == new_game(game).game.has_sgf
