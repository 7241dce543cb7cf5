"""The solver's opening book, the solved position sets and engines' mistakes on them."""
from __future__ import annotations

import math

import pytest

from dlgo.app.cli import main as cli
from dlgo.arena.mistakes import Verdict, measure_mistakes, mistake_rates, read_verdicts, write_mistakes_summary
from dlgo.core.errors import RecordError, SpecError
from dlgo.data.solved import bitboard_solver, generate_book, generate_positions, shipped_sets
from dlgo.formats.positions import (SETS, SolvedPosition, read_positions, remaining_plies, set_of,
                                    write_positions)
from dlgo.games import new_game
from dlgo.games.solvers.opening_book import book_path, positions_at, read_book, shipped_book
from dlgo.games.solvers.bitboard import Book, Position, Shape, Solver
from dlgo.games.solvers.brute_force import BruteForceSolver
from engines import ENGINES

SMALL = "connectn:columns=5,rows=4,n=4"  # 20 cells: solved in milliseconds, every set reachable


# ------------------------------------------------------------ scores, remaining plies, sets
def test_remaining_plies_count_to_the_end_of_perfect_play():
    cells = 42
    assert remaining_plies((cells + 1 - 6) // 2, 6, cells) == 1  # winning with the stone now
    assert remaining_plies((cells + 1 - 6) // 2 - 1, 6, cells) == 3  # with the mover's next stone after
    assert remaining_plies(-((cells - 6) // 2), 6, cells) == 2  # the opponent wins with their next stone
    assert remaining_plies(0, 10, cells) == 32  # a draw fills the board
    assert remaining_plies(1, 0, cells) == 41  # the first player wins with their 21st stone: the game's 41st


def test_pons_six_sets_by_stage_and_difficulty():
    assert set_of(13, 28, 42) == "begin-hard" and set_of(14, 27, 42) == "middle-medium"
    assert set_of(28, 13, 42) == "end-easy" and set_of(10, 5, 42) == "begin-easy"


def test_a_position_is_critical_where_some_move_changes_its_result():
    drawn = SolvedPosition("begin-easy", 0, "connect4", "4", 1, 0, 41, {2: 0, 3: 0, 1: -1})
    assert drawn.critical and drawn.is_mistake(1) and not drawn.is_mistake(3) and drawn.perfect_actions() == [2, 3]
    lost = SolvedPosition("end-easy", 1, "connect4", "4", 1, -3, 8, {2: -3, 3: -5})
    assert not lost.critical and not lost.is_mistake(3)  # any move loses: none is a mistake
    assert lost.is_mistake(6)  # an illegal move is


def test_position_files_round_trip_and_refuse_what_they_cannot_trust(tmp_path):
    positions = [SolvedPosition("middle-easy", 7, SMALL, "3 3 2", 3, 2, 11, {0: -1, 1: 2, 2: 2})]
    write_positions(tmp_path / "p.csv", positions)
    assert read_positions(tmp_path / "p.csv") == positions
    with pytest.raises(RecordError, match="no position of begin-hard"):
        read_positions(tmp_path / "p.csv", ["begin-hard"])
    text = (tmp_path / "p.csv").read_text().replace(",1,0:-1", ",0,0:-1")  # the critical flag made wrong
    (tmp_path / "q.csv").write_text(text)
    with pytest.raises(RecordError, match="row 2"):
        read_positions(tmp_path / "q.csv")
    (tmp_path / "r.csv").write_text("moves,score\n44,1\n")
    with pytest.raises(RecordError, match="not a position set"):
        read_positions(tmp_path / "r.csv")


# ------------------------------------------------------------ the opening book
def test_a_generated_book_holds_what_the_search_finds(tmp_path):
    path = generate_book(SMALL, 2, tmp_path / "run", progress=False)
    solver = Solver(new_game(SMALL).game)
    book = read_book(path, solver.shape)
    assert book.plies == 2 and len(book.scores) == 1 + 3 + 13  # one per mirror pair
    for plies in range(3):
        for moves, position in positions_at(solver.shape, plies):
            assert book.get(position) == solver.search(position), moves
            mirror = Position(solver.shape, solver.shape.mirrored(position.current),
                              solver.shape.mirrored(position.mask), position.moves)
            assert book.get(mirror) == book.get(position)
    with_book = Solver(solver.game, book=book)
    for moves in ["", "3", "13", "135", "2244"]:
        state = new_game(SMALL)
        for m in moves:
            state = state.apply_action(int(m) - 1)
        assert with_book.move_scores(state) == solver.move_scores(state), moves
    assert with_book.nodes < solver.nodes  # the book's plies were not searched
    partial = Book(2, {k: v for i, (k, v) in enumerate(book.scores.items()) if i % 3})  # a book still being made
    incomplete = Solver(solver.game, book=partial)
    for plies in range(3):
        for moves, position in positions_at(solver.shape, plies):
            assert incomplete.exact(position) == solver.search(position), moves


def test_book_generation_resumes_and_bad_books_are_refused(tmp_path):
    path = generate_book(SMALL, 1, tmp_path / "run", progress=False)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n")  # killed after all but one position
    assert generate_book(SMALL, 1, tmp_path / "run", progress=False).read_text().splitlines() == lines
    (tmp_path / "bad.txt").write_text("# plies: 1\n9 3\n")
    with pytest.raises(RecordError, match="line 2"):
        read_book(tmp_path / "bad.txt", Shape(5, 4, 4))


def test_the_shipped_connect4_book_knows_the_empty_board():
    game = new_game("connect4").game
    book = shipped_book(game)
    if book is None:
        pytest.skip(f"no book at {book_path(Shape(7, 6, 4))}")
    solver = game.solver()
    state = new_game("connect4")
    assert solver.score(state) == 1  # the first player wins, with their last stone
    assert solver.move_scores(state) == {0: -2, 1: -1, 2: 0, 3: 1, 4: 0, 5: -1, 6: -2}  # Pons: the centre alone wins


# ------------------------------------------------------------ the position sets
def test_generated_sets_are_seeded_solved_and_resumable(tmp_path):
    first = generate_positions(SMALL, tmp_path / "a", per_set=3, seed=3, workers=1, progress=False)
    positions = read_positions(first)
    counts = [sum(p.set == s for p in positions) for s in SETS]  # in Pons' order; random play rarely wins early
    assert [p.set for p in positions] == sorted((p.set for p in positions), key=SETS.index)
    assert min(counts) >= 1 and max(counts) == 3 and sum(counts) >= 14
    brute = BruteForceSolver(new_game(SMALL).game)
    for p in positions:
        state = new_game(SMALL)
        for text in p.moves.split():
            state = state.apply_move(state.parse_move(text))
        assert state.num_moves_played == p.stones and not state.is_over()
        assert brute.move_scores(state) == p.scores, p
        assert set_of(p.stones, p.remaining, 20) == p.set
    log = tmp_path / "a" / "candidates.csv"
    log.write_text(log.read_text()[:-25])  # a killed run's torn last line
    again = generate_positions(SMALL, tmp_path / "a", per_set=3, seed=3, workers=1, progress=False)
    assert read_positions(again) == positions
    # workers finish out of order: a chosen candidate lost while later ones of its set were kept
    candidates = read_positions(log)
    crowded = next(name for name in SETS if sum(c.set == name for c in candidates) > 3)
    lost = min(c.id for c in candidates if c.set == crowded)
    log.write_text("".join(line for line in log.read_text().splitlines(keepends=True)
                           if not line.startswith(f"{crowded},{lost},")))
    again = generate_positions(SMALL, tmp_path / "a", per_set=3, seed=3, workers=1, progress=False)
    assert read_positions(again) == positions  # solved again: its set was not full before it
    parallel = generate_positions(SMALL, tmp_path / "b", per_set=3, seed=3, workers=2, progress=False)
    assert read_positions(parallel) == positions  # the workers do not change the sets
    other = read_positions(generate_positions(SMALL, tmp_path / "c", per_set=3, seed=4, workers=1, progress=False))
    assert [p.moves for p in other] != [p.moves for p in positions]


def test_strong_play_sets_keep_to_the_best_moves(tmp_path):
    """``play="strong"``: the games the positions come from take a best-scoring move but for about one
    in ten; random play's seldom do. A folder keeps the play it was made with."""
    solver = bitboard_solver(SMALL)

    def best_share(positions):
        best = moves = 0
        for p in positions:
            state = new_game(SMALL)
            for text in p.moves.split():
                action = state.move_to_index(state.parse_move(text))
                scores = solver.move_scores(state)
                best += scores[action] == max(scores.values())
                moves += 1
                state = state.apply_action(action)
        return best / moves

    strong = read_positions(generate_positions(SMALL, tmp_path / "s", per_set=3, seed=3, workers=1, progress=False,
                                               play="strong"))
    random = read_positions(generate_positions(SMALL, tmp_path / "r", per_set=3, seed=3, workers=1, progress=False))
    assert len(strong) >= 14 and all(p.scores for p in strong)
    assert best_share(strong) > 0.85 and best_share(random) < best_share(strong) - 0.1
    with pytest.raises(RecordError):
        generate_positions(SMALL, tmp_path / "s", per_set=3, seed=3, workers=1, progress=False)  # made strong
    with pytest.raises(RecordError):
        generate_positions(SMALL, tmp_path / "r", per_set=3, seed=3, workers=1, progress=False, play="strong")
    with pytest.raises(SpecError, match="strong"):
        generate_positions(SMALL, tmp_path / "t", per_set=3, seed=3, workers=1, progress=False, play="perfect")
    assert not (tmp_path / "t").exists()


def test_uniform_play_sets_of_every_depth_hold_blunders_and_their_exact_scores(tmp_path, capsys):
    """``play="uniform", stones=(low, high)``: positions of every stone count from low to high, from
    games whose moves include those that lose at once (Pons' random play never takes one), each
    move scored exactly; a folder keeps its stone range, and a range no position can have is refused."""
    solver = bitboard_solver(SMALL)
    made = generate_positions(SMALL, tmp_path / "u", per_set=4, seed=5, workers=1, progress=False, play="uniform",
                              stones=(4, 16))
    positions = read_positions(made)
    assert len(positions) == 24 and [p.id for p in positions] == list(range(24))
    assert all(4 <= p.stones <= 16 for p in positions) and len({p.stones for p in positions}) >= 8
    brute, blunders = BruteForceSolver(new_game(SMALL).game), 0
    for p in positions:
        state = new_game(SMALL)
        for text in p.moves.split():
            safe = Position.of(solver.shape, state).non_losing_moves()
            action = state.move_to_index(state.parse_move(text))
            blunders += bool(safe) and not safe & solver.shape.column(action)
            state = state.apply_action(action)
        assert brute.move_scores(state) == p.scores and set_of(p.stones, p.remaining, 20) == p.set
    assert blunders > 0
    again = generate_positions(SMALL, tmp_path / "u", per_set=4, seed=5, workers=1, progress=False, play="uniform",
                               stones=(4, 16))
    assert read_positions(again) == positions  # resumed: nothing to do
    log = tmp_path / "u" / "candidates.csv"
    lost = positions[5].moves  # a kill's gap: a chosen candidate unlogged while later ones were
    log.write_text("".join(line for line in log.read_text().splitlines(keepends=True) if lost not in line))
    again = generate_positions(SMALL, tmp_path / "u", per_set=4, seed=5, workers=1, progress=False, play="uniform",
                               stones=(4, 16))
    assert read_positions(again) == positions  # solved again, not replaced by a later candidate
    parallel = generate_positions(SMALL, tmp_path / "p", per_set=4, seed=5, workers=2, progress=False, play="uniform",
                                  stones=(4, 16))
    assert read_positions(parallel) == positions  # the workers do not change the set
    with pytest.raises(RecordError):  # Pons' sets in a folder of every depth
        generate_positions(SMALL, tmp_path / "u", per_set=4, seed=5, workers=1, progress=False, play="uniform")
    with pytest.raises(RecordError):
        generate_positions(SMALL, tmp_path / "u", per_set=4, seed=5, workers=1, progress=False, play="uniform",
                           stones=(4, 15))
    with pytest.raises(SpecError, match="0 to 19 stones"):
        generate_positions(SMALL, tmp_path / "v", per_set=4, seed=5, workers=1, progress=False, stones=(4, 20))
    assert not (tmp_path / "v").exists()
    with pytest.raises(SystemExit) as stopped:  # argparse's usage and its one error line
        cli(["positions", "--game", SMALL, "--stones", "16-4", "--out", str(tmp_path / "w")])
    assert stopped.value.code == 2
    assert "the lower bound first" in capsys.readouterr().err and not (tmp_path / "w").exists()


def test_the_shipped_connect4_sets():
    path = shipped_sets("connect4")
    assert path is not None
    positions = read_positions(path)
    assert len(positions) >= 1000 and len({p.moves for p in positions}) == len(positions)
    assert {p.set for p in positions} == set(SETS) and min(sum(p.set == s for p in positions) for s in SETS) >= 150
    assert 0.2 < sum(p.critical for p in positions) / len(positions) < 0.9
    solver = bitboard_solver("connect4", table_bits=18)
    for p in [p for p in positions if p.set in ("end-easy", "middle-easy")][::40]:  # spot checks, quick to solve
        state = new_game("connect4")
        for text in p.moves.split():
            state = state.apply_move(state.parse_move(text))
        assert solver.move_scores(state) == p.scores, p.moves
    assert shipped_sets("tictactoe") is None


# ------------------------------------------------------------ mistakes
def test_perfect_play_makes_no_mistakes_and_random_play_some(tmp_path):
    positions = read_positions(generate_positions(SMALL, tmp_path / "sets", per_set=6, seed=0, workers=1,
                                                  progress=False))
    out = tmp_path / "mistakes"
    verdicts = measure_mistakes(ENGINES, ["solver", "random"], positions, out, workers=1, progress=False)
    rates = {r.engine: r for r in mistake_rates(verdicts)}
    assert rates["solver"].mistakes == 0 and rates["solver"].positions == len(positions)
    assert rates["random"].critical_mistakes > 0 and rates["random"].critical == sum(p.critical for p in positions)
    assert rates["random"].mistakes == rates["random"].critical_mistakes  # none where no move can change the result
    lines = (out / "mistakes.csv").read_text().splitlines()
    (out / "mistakes.csv").write_text("\n".join(lines[:-5]) + "\n" + lines[-5][:10])  # killed mid-row
    resumed = measure_mistakes(ENGINES, ["solver", "random"], positions, out, workers=2, progress=False)
    assert [v[:8] for v in resumed] == [v[:8] for v in verdicts]  # the same moves, the seeds being per position
    assert sorted(v[:8] for v in read_verdicts(out / "mistakes.csv")) == sorted(v[:8] for v in verdicts)
    overall = write_mistakes_summary(out, verdicts, "test")
    assert [r.engine for r in overall] == ["solver", "random"]
    assert (out / "mistakes_vs_compute.png").stat().st_size > 0 and "| `random` |" in (out / "summary.md").read_text()


def test_a_changed_network_is_measured_again_and_its_old_verdicts_set_aside(tmp_path):
    """A spec naming a network file keeps its verdicts while the file is the same; once another
    network is written there (a new one shipped under the same name), its verdicts move to
    replaced-mistakes.csv and are measured again, the other engines' kept."""
    pytest.importorskip("engines.neural.backend")
    from dlgo.encoders import get_encoder_by_name
    from engines.neural.backend import keras, save_model
    from engines.neural.resnet import build_resnet

    positions = read_positions(generate_positions(SMALL, tmp_path / "sets", per_set=2, seed=0, workers=1,
                                                  progress=False))
    encoder, network, out = get_encoder_by_name(None, SMALL), tmp_path / "net.keras", tmp_path / "mistakes"

    def ship(seed: int) -> None:
        keras.utils.set_random_seed(seed)
        save_model(build_resnet(encoder.shape, encoder.num_moves, blocks=1, filters=4), network,
                   {"kind": "alphazero", "encoder": encoder.config()})

    spec = f"alphazero:checkpoint={network},simulations=0"
    ship(0)
    measure_mistakes(ENGINES, [spec, "solver"], positions, out, workers=1, progress=False)
    first = read_verdicts(out / "mistakes.csv")
    measure_mistakes(ENGINES, [spec, "solver"], positions, out, workers=1, progress=False)
    assert read_verdicts(out / "mistakes.csv") == first and not (out / "replaced-mistakes.csv").exists()
    ship(1)
    log, stamps = (out / "mistakes.csv").read_text(), (out / "mistakes-networks.json").read_text()
    measure_mistakes(ENGINES, [spec, "solver"], positions, out, workers=1, progress=False)
    (out / "mistakes.csv").write_text(log)  # as if killed after setting the old verdicts aside, before the rewrite
    (out / "mistakes-networks.json").write_text(stamps)
    measure_mistakes(ENGINES, [spec, "solver"], positions, out, workers=1, progress=False)
    replaced, now = read_verdicts(out / "replaced-mistakes.csv"), read_verdicts(out / "mistakes.csv")
    assert sorted(replaced) == sorted(v for v in first if v.engine == spec) and len(replaced) == len(positions)
    assert [v for v in now if v.engine == "solver"] == [v for v in first if v.engine == "solver"]
    assert sum(v.engine == spec for v in now) == len(positions)


def test_rates_and_their_intervals():
    recorded = [0.5 * i for i in range(10)]  # the seconds each verdict records (data, not a clock)
    verdicts = [Verdict("e", "end-easy", i, "4 4", 0, 0, i < 3, i < 6, recorded[i], 1, "moves") for i in range(10)]
    [row] = mistake_rates(verdicts)
    assert (row.positions, row.mistakes, row.critical, row.critical_mistakes) == (10, 3, 6, 3)
    assert row.rate == 0.3 and row.critical_rate == 0.5
    assert row.seconds_per_move == pytest.approx(sum(recorded) / len(recorded))  # the mean of what they record
    assert row.low < 0.3 < row.high and math.isclose(row.critical_low + row.critical_high, 1.0)


def test_the_mistakes_command_measures_and_refuses_in_one_line(tmp_path, capsys):
    sets = generate_positions(SMALL, tmp_path / "sets", per_set=2, seed=0, workers=1, progress=False)
    assert cli(["mistakes", "solver", "alphabeta:depth=2", "--game", SMALL, "--positions", str(sets),
                "--out", str(tmp_path / "m"), "--workers", "1"]) == 0
    assert "alphabeta:depth=2" in capsys.readouterr().out
    assert cli(["mistakes", "nosuchengine", "--game", SMALL, "--positions", str(sets), "--out",
                str(tmp_path / "n")]) == 2
    assert cli(["mistakes", "random", "--game", "go", "--out", str(tmp_path / "n")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "Traceback" not in err and not (tmp_path / "n").exists()


def test_the_solve_command(capsys):
    assert cli(["solve", "--game", SMALL, "--moves", "3 3 3"]) == 0
    out = capsys.readouterr().out
    assert "(best)" in out and "to move" in out
    assert cli(["solve", "--game", "tictactoe"]) == 0 and "draws with perfect play" in capsys.readouterr().out
    assert cli(["solve", "--game", "go:size=5"]) == 2


def test_each_engine_is_warmed_up_once_per_process_outside_the_timed_moves(tmp_path):
    from dlgo.arena import match, mistakes

    made = []

    class Counting:
        def create(self, spec, seed=None):
            made.append(seed)
            return ENGINES.create(spec, seed)

        def network_files(self, spec):
            return []

    positions = read_positions(generate_positions(SMALL, tmp_path / "sets", per_set=1, seed=0, workers=1,
                                                  progress=False))[:3]
    match._warmed.discard(("random", mistakes.position_state(positions[0]).game.spec))
    first = mistakes.check_moves(Counting(), "random", positions, seed=0)
    assert len(made) == 4 and made[0] == 0  # one untimed move first, then a seeded engine per position
    again = mistakes.check_moves(Counting(), "random", positions, seed=0)
    assert len(made) == 7 and [v.action for v in again] == [v.action for v in first]
