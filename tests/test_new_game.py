"""The shared contract is enough: a game defined here, in a few lines, and
registered, passes the whole API suite (``dlgo.games.api_checks``, which
``test_game_api.py`` runs on it), plays
in a tournament with its report, goes through an encoder and trains one
AlphaZero iteration, without any change to a generic module.

The game is Hex on a small board, written to the narrow contract: a
:class:`Game` and four :class:`State` hooks; everything else is the defaults'.
``docs/api.md`` shows the same code (a test below checks it does)."""
from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

from dlgo.arena.report import write_report
from dlgo.arena.tournament import run_tournament
from dlgo.core.errors import IllegalMoveError
from dlgo.core.game import Ending, Game, State
from dlgo.core.types import Move, Player
from dlgo.encoders import get_encoder_by_name
from dlgo.games import GAMES, get_game, new_game, register_game
from dlgo.games.solvers.brute_force import exact_value, perfect_moves
from engines import ENGINES

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------- the new game
HEX_STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, -1), (-1, 1))  # to a cell's six neighbours


def joins_edges(stones: np.ndarray, player: Player) -> bool:
    """Does a chain of ``player``'s stones join their edges? Black joins the
    bottom row to the top row, white the left column to the right column."""
    board = stones if player == Player.black else stones.T  # white's edges as rows
    size = len(board)
    todo = [(0, col) for col in range(size) if board[0, col] == player]
    seen = set(todo)
    while todo:
        row, col = todo.pop()
        if row == size - 1:
            return True
        for dr, dc in HEX_STEPS:
            r, c = row + dr, col + dc
            if 0 <= r < size and 0 <= c < size and (r, c) not in seen and board[r, c] == player:
                seen.add((r, c))
                todo.append((r, c))
    return False


class Hex(Game):
    """Hex on a ``size`` x ``size`` rhombus, drawn square: a cell also touches its
    up-left and down-right diagonal neighbours. The board never fills without a winner."""

    def __init__(self, size: int = 4):
        self.name, self.spec = "hex", f"hex:size={size}"
        self.num_rows = self.num_cols = size
        self.num_actions = size * size  # one action per cell

    def initial_state(self) -> "HexState":
        return HexState(self, np.zeros((self.num_rows, self.num_cols), np.int8), Player.black, None, None)


class HexState(State):
    def __init__(self, game: Hex, stones: np.ndarray, next_player: Player,
                 previous: "HexState | None", last_move: Move | None):
        self.game, self.stones, self.next_player = game, stones, next_player
        self.previous_state, self.last_move = previous, last_move
        mover = next_player.other
        self._winner = mover if last_move is not None and joins_edges(stones, mover) else None

    def legal_actions(self) -> list[int]:
        return [] if self._winner else np.flatnonzero(self.stones == 0).tolist()

    def apply_action(self, action: int) -> "HexState":
        if action not in self.legal_actions():
            raise IllegalMoveError(f"illegal move {action}: the cell is taken or the game is over")
        stones = self.stones.copy()
        stones.flat[action] = self.next_player
        return HexState(self.game, stones, self.next_player.other, self, self.index_to_move(action))

    def winner(self) -> Player | None:
        return self._winner

    def stone_array(self) -> np.ndarray:
        return self.stones.copy()


def hex_game(size: int = 4) -> Hex:
    """The registry's factory: its keyword parameters, typed, are the game's options."""
    return Hex(size)
# ------------------------------------------------------ end of the new game

GAME_CODE = (joins_edges, Hex, HexState, hex_game)


@pytest.fixture
def hexgame():
    register_game("hex", "Hex: join your two edges of the board", hex_game)
    yield "hex"
    del GAMES["hex"]


def play(state: State, *moves: str) -> State:
    for text in moves:
        state = state.apply_move(state.parse_move(text))
    return state


def test_the_contract_asks_a_new_game_for_four_hooks_and_the_game_is_short():
    assert State.__abstractmethods__ == {"legal_actions", "apply_action", "winner", "stone_array"}
    assert Game.__abstractmethods__ == {"initial_state"}
    lines = 1 + sum(len(inspect.getsource(part).splitlines()) for part in GAME_CODE)  # 1: HEX_STEPS
    assert lines <= 60


def test_docs_api_shows_the_same_code():
    docs = (ROOT / "docs" / "api.md").read_text()
    assert f"HEX_STEPS = {HEX_STEPS!r}" in docs
    for part in GAME_CODE:
        assert inspect.getsource(part) in docs, part.__name__


def test_hex_rules_and_results(hexgame):
    start = new_game(hexgame)
    assert start.game == Hex(4) and get_game(start.game.spec) == start.game
    assert get_game("hex:size=3").num_actions == 9
    black = play(start, "b1", "a1", "b2", "a2", "b3", "a3")  # white's a1-a3 joins nothing: a column is black's
    assert not black.is_over() and black.legal_actions() == [2, 3, 6, 7, 10, 11, 12, 13, 14, 15]
    black = play(black, "b4")
    assert black.is_over() and black.winner() is Player.black and black.legal_actions() == []
    assert black.outcome().text == "1-0" and black.outcome().ending is Ending.WIN
    white = play(start, "a1", "a2", "b1", "b2", "c1", "c2", "a3")  # b2-c2 goes on down-right to d1
    assert not white.is_over()
    white = play(white, "d1")
    assert white.winner() is Player.white and white.outcome().text == "0-1"
    upright = play(start, "b1", "a1", "c2", "a2", "c3", "a3", "c4", "a4")  # b1 and c2 do not touch
    assert not upright.is_over()
    assert play(upright, "d1").winner() is Player.black  # d1 touches c2 up-left
    with pytest.raises(IllegalMoveError, match="taken"):
        play(start, "b1", "b1")
    resigned = play(start, "b1", "resign")
    assert resigned.winner() is Player.black and resigned.outcome().text == "B+R"
    assert resigned.moves_text() == "b1 resign"


def test_the_first_player_wins_hex_with_perfect_play():
    small = Hex(3).initial_state()
    assert exact_value(small) == 1
    assert Move.play((2, 2)) in perfect_moves(small)  # the centre wins


def test_a_new_game_plays_a_tournament_and_writes_its_report(hexgame, tmp_path):
    specs = ["random", "mcts:rounds=20", "alphabeta:nodes=500"]
    records = run_tournament(ENGINES, tmp_path, hexgame, specs, 2, seed=1, workers=1, progress=False)
    assert len(records) == 6 and {r.result for r in records} <= {"1-0", "0-1"}  # Hex has no draws
    rows = write_report(tmp_path, records, title="hex")
    assert {r.engine for r in rows} == set(specs)
    assert (tmp_path / "summary.md").exists() and (tmp_path / "strength_vs_compute.png").exists()
    assert not (tmp_path / "sgf").exists()  # the game has no SGF


def test_a_new_game_goes_through_the_default_encoder(hexgame):
    encoder = get_encoder_by_name(None, hexgame)
    state = new_game(hexgame).apply_action(5)
    planes = encoder.encode(state)
    assert encoder.shape == (4, 4, 3) and encoder.num_moves == 16
    assert planes[1, 1, 1] == 1 and planes[:, :, 1].sum() == 1  # black's stone on b2, from white's side
    assert planes[:, :, 0].sum() == 0 and planes[:, :, 2].sum() == 0  # white to move
    assert [s.name for s in state.game.symmetries()] == ["identity"]


def test_a_new_game_trains_one_alphazero_iteration(hexgame, tmp_path):
    from engines.training.alphazero_config import AlphaZeroConfig
    from engines.training.alphazero import train_alphazero

    config = AlphaZeroConfig(game=hexgame, blocks=1, filters=8, games=4, parallel=4, simulations=8, train_steps=2,
                             batch_size=16, eval_games=2, eval_simulations=4, previous_games=2, baselines=["random"])
    history = train_alphazero(tmp_path, config, 1, progress=False)
    assert list(history["iteration"]) == [0, 1]  # the start measured too: it may be the best network
    assert history["score_vs_random"].between(0, 1).all()
    agent = ENGINES.create(f"alphazero:checkpoint={tmp_path / 'checkpoint.keras'},simulations=4")
    move = agent.select_move(new_game(hexgame))
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
