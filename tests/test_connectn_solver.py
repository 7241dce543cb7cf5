"""The Connect-N solver and the perfect player: known positions, the brute force
on small boards, the compiled search against the readable one, MCTS-Solver's proofs."""
from __future__ import annotations

import random

import pytest

import engines
from dlgo.core.errors import SpecError
from dlgo.games import new_game
from dlgo.games.solvers.bitboard import Solver
from dlgo.games.solvers.brute_force import BruteForceSolver, exact_value
from helpers import play

#: boards small enough for the brute force, with the first ply it checks from (earlier: slower than a test should be)
SMALL_BOARDS = [("connectn:columns=4,rows=4,n=3", 3), ("connectn:columns=4,rows=4,n=4", 3),
                ("connectn:columns=5,rows=4,n=4", 8), ("connectn:columns=4,rows=5,n=4", 8)]


def random_positions(spec: str, games: int, seed: int, plies: range | None = None):
    """Every unfinished position of ``games`` seeded random games (those at ``plies`` only, if given)."""
    rng = random.Random(seed)
    for _ in range(games):
        state = new_game(spec)
        while not state.is_over():
            if plies is None or state.num_moves_played in plies:
                yield state
            state = state.apply_action(rng.choice(state.legal_actions()))


# ------------------------------------------------------------ known positions
def test_an_immediate_win_scores_by_the_stones_left():
    s = play(new_game("connect4"), "1", "1", "2", "2", "3", "3")  # red to move: 4 completes the bottom row
    assert Solver(s.game).score(s) == (42 + 1 - 6) // 2 == 18  # the 7th stone wins


def test_a_forced_win_in_three_and_the_losses_it_leaves():
    s = play(new_game("connect4"), "4", "4", "3", "3")  # red to move: 2 or 5 makes an open three on the bottom
    solver = Solver(s.game)
    assert solver.score(s) == 18  # red's 4th stone, the game's 7th, wins after yellow blocks one end
    assert solver.score(play(s, "2")) == solver.score(play(s, "5")) == -18


@pytest.mark.parametrize("spec,first", SMALL_BOARDS)
def test_small_boards_agree_with_the_brute_force(spec, first):
    brute = BruteForceSolver(new_game(spec).game)
    compiled = Solver(new_game(spec).game)
    reference = Solver(new_game(spec).game, compiled=False)
    checked = 0
    for state in random_positions(spec, games=4, seed=1, plies=range(first, 20)):
        expected = brute.move_scores(state)
        assert compiled.move_scores(state) == expected, state.moves_text()
        assert reference.score(state) == max(expected.values()), state.moves_text()
        assert (brute.score(state) > 0) - (brute.score(state) < 0) == exact_value(state)
        checked += 1
    assert checked > 12


def test_known_small_board_values():
    # four in a row on 4x4 is a draw; three in a row on 4x4 a win for the first player with their 5th stone
    assert Solver(new_game("connectn:columns=4,rows=4,n=4").game).score(new_game("connectn:columns=4,rows=4,n=4")) == 0
    assert Solver(new_game("connectn:columns=4,rows=4,n=3").game).score(new_game("connectn:columns=4,rows=4,n=3")) == 4


@pytest.mark.parametrize("spec", ["connectn:columns=4,rows=4,n=3", "connectn:columns=4,rows=4,n=4"])
def test_the_compiled_search_is_the_readable_one_step_for_step(spec):
    """Same scores, and the same positions searched: the table never has to replace
    an entry on these boards at 2**20 slots, so the two searches are one."""
    for state in random_positions(spec, games=3, seed=2):
        reference, compiled = Solver(state.game, compiled=False), Solver(state.game, table_bits=20)
        assert compiled.score(state) == reference.score(state)
        assert compiled.nodes == reference.nodes > 0 or reference.nodes == 0


def test_connect4_positions_after_12_plies_are_consistent():
    """The score is the best move's, and the best move leaves the opponent its negation."""
    solver = Solver(new_game("connect4").game)
    for state in random_positions("connect4", games=3, seed=5, plies=range(14, 15)):
        scores = solver.move_scores(state)
        best = max(scores, key=scores.__getitem__)
        assert solver.score(state) == scores[best]
        after = state.apply_action(best)
        if not after.is_over():
            assert solver.score(after) == -scores[best]


def test_mcts_solver_proofs_agree_with_the_solver():
    solver = Solver(new_game("connect4").game)
    proofs = 0
    for state in random_positions("connect4", games=6, seed=3, plies=range(26, 34)):
        agent = engines.create("mcts:rounds=3000,seed=1,plain=true")
        agent.select_move(state)
        if agent.last_report.proven:
            assert agent.last_report.value == (solver.score(state) > 0) - (solver.score(state) < 0)
            proofs += 1
    assert proofs >= 3


def test_the_solver_refuses_what_it_cannot_solve():
    with pytest.raises(SpecError, match="64"):
        Solver(new_game("connectn:columns=9,rows=7,n=4").game)
    with pytest.raises(ValueError, match="finished"):
        s = play(new_game("connect4"), "1", "2", "1", "2", "1", "2", "1")
        Solver(s.game).score(s)
    assert new_game("go:size=5").game.solver() is None
    with pytest.raises(SpecError, match="cannot solve"):
        engines.check_engine("solver", new_game("go:size=5"))


# ------------------------------------------------------------ the perfect player
def test_the_solver_engine_never_loses_tictactoe_and_draws_itself():
    for seed in range(4):
        state = new_game("tictactoe")
        players = [engines.create(f"solver:seed={seed}"), engines.create(f"random:seed={seed}")]
        if seed % 2:
            players.reverse()
        while not state.is_over():
            state = state.apply_move(players[state.num_moves_played % 2].select_move(state))
        perfect = 0 if seed % 2 == 0 else 1
        assert state.winner() in (None, state.game.players[perfect])
    state = new_game("tictactoe")
    a, b = engines.create("solver:seed=1,fastest=false"), engines.create("solver:seed=2,fastest=false")
    while not state.is_over():
        state = state.apply_move((a if state.num_moves_played % 2 == 0 else b).select_move(state))
    assert state.winner() is None


def test_two_perfect_players_play_the_known_value_out():
    """4x4, three in a row: the first player wins with their 5th stone, the game's 9th (score 4: three
    of their eight stones to spare), the second holding out longest."""
    for seed in range(3):
        state = new_game("connectn:columns=4,rows=4,n=3")
        players = [engines.create(f"solver:seed={seed}"), engines.create(f"solver:seed={seed + 10}")]
        while not state.is_over():
            agent = players[state.num_moves_played % 2]
            state = state.apply_move(agent.select_move(state))
            assert agent.last_report.proven and agent.last_report.value == (1.0 if state.num_moves_played % 2 else -1.0)
        assert state.winner() == state.game.players[0] and state.num_moves_played == 9


def test_solve_shows_its_progress_and_stops_at_its_time_limit(capsys):
    import re

    from dlgo.app.cli import main

    assert main(["solve", "--moves", "4 4 3", "--time-limit", "2"]) == 2  # minutes of search: stopped at 2 s
    captured = capsys.readouterr()
    assert re.search(r"dlgo: error: not solved within the time limit of 2 s \([0-6] of 7 moves scored\)", captured.err)
    assert "solving:" in captured.err and "to move" not in captured.out  # the bar, and no verdict
    assert main(["solve", "--game", "tictactoe", "--moves", "a1", "--time-limit", "100"]) == 0
    assert "O to move draws with perfect play" in capsys.readouterr().out


@pytest.mark.parametrize("spec", ["connectn:columns=4,rows=4,n=3", "connectn:columns=7,rows=6,n=4",
                                  "connectn:columns=6,rows=5,n=5", "connectn:columns=5,rows=7,n=4",
                                  "connectn:columns=3,rows=20,n=4", "connectn:columns=5,rows=11,n=6"])
def test_the_compiled_winning_cells_are_the_readable_ones(spec):
    """Every cell that completes k in a row, for both players, through whole random games:
    the generic form (three, five and six in a row), four in a row's unrolled one, and tall
    boards whose diagonals shift by 64 bits or more (a machine shift would wrap round)."""
    import numpy as np

    import dlgo.games.solvers.bitboard_kernels as kernels
    from dlgo.games.solvers.bitboard import Position, winning_cells

    solver = Solver(new_game(spec).game)
    shape = solver.shape
    board = kernels.board_of(shape.columns, shape.rows, shape.k, solver.order)
    found = 0
    for state in random_positions(spec, games=20, seed=7):
        position = Position.of(shape, state)
        for stones in (position.current, position.current ^ position.mask):
            expected = winning_cells(shape, stones, position.mask)
            assert kernels.winning_cells(board, np.uint64(stones), np.uint64(position.mask)) == expected
            found += expected != 0
    assert found > 20  # threats were there to find


@pytest.mark.parametrize("compiled", [True, False])
def test_clear_forgets_the_table(compiled):
    """A solved position searched again reuses the table; after clear() it is searched as from scratch."""
    state = play(new_game("connectn:columns=5,rows=4,n=4"), "3", "3", "2", "4")
    solver = Solver(state.game, compiled=compiled, table_bits=16)
    first = solver.score(state), solver.nodes
    solver.score(state)
    assert solver.nodes - first[1] < first[1]  # the table remembered
    solver.clear()
    before = solver.nodes
    assert solver.score(state) == first[0] and solver.nodes - before == first[1]
