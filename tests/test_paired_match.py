"""Paired matches (engines.training.paired_match) and the balanced openings they play (dlgo openings)."""
from __future__ import annotations

from pathlib import Path

import pytest

from dlgo.arena.sprt import SPRT
from dlgo.core.errors import RecordError
from dlgo.data.solved import balanced_openings, generate_openings, shipped_openings
from dlgo.games.solvers.bitboard import Position, shape_of
from dlgo.games import get_game

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"


def test_pairs_are_counted_by_their_half_points_and_their_interval_counts_pairs():
    from engines.training.paired_match import pair_interval, pentanomial, result_of

    scores = [1, 0, 1, 1, 0.5, 0.5, 0, 0.5, 1, 0.5]  # pairs: 2, 4, 2, 1, 3 half points
    assert pentanomial(scores) == (0, 1, 2, 1, 1)
    mean, low, high = pair_interval(scores)
    assert mean == pytest.approx(0.6) and low < mean < high
    # the same games, each pair one sample: an opening that gives each colour its win is no evidence either way
    assert pair_interval([1, 0] * 50)[1:] == (0.5, 0.5)
    assert result_of([1, 1, 1, 0, 1, 0.5, 0.5, 0.5] * 15, SPRT(0, 20)).verdict.accepted == "H1"  # 69%
    assert result_of([1, 1, 1, 0, 1, 0.5, 0.5, 0.5] * 5, SPRT(0, 20)).verdict.accepted is None  # too few yet
    assert result_of([0, 0.5, 1, 0, 0, 0.5, 0.5, 0.5] * 15, SPRT(0, 20)).verdict.accepted == "H0"  # 38%
    assert result_of([1, 0], None).verdict is None


def test_the_shipped_openings_are_balanced_distinct_and_many():
    game = get_game("connect4")
    shape = shape_of(game)
    openings = balanced_openings("connect4")
    assert len(openings) >= 400
    keys = {Position.of(shape, state).book_key() for state in openings}
    assert len(keys) == len(openings)  # no opening twice, nor its mirror image
    assert all(len(state.move_history()) == 8 and not state.is_over() for state in openings)
    text = shipped_openings("connect-7x6-4").read_text()
    assert all(abs(int(line.split()[1])) <= 2 for line in text.splitlines() if not line.startswith("#"))
    assert balanced_openings("tictactoe") == []  # no solver's openings for it: a match plays from the start


def test_openings_are_solved_seeded_and_resume(tmp_path):
    """On the 5x4 board (fast to solve): each kept opening's exact score is within
    the balance, a rerun keeps them, a larger count extends them."""
    spec = "connectn:columns=5,rows=4,n=4"
    path = generate_openings(spec, tmp_path / "a", count=6, plies=4, balance=0, seed=3, workers=1, progress=False)
    openings = balanced_openings(spec, path)
    solver = get_game(spec).solver()
    assert len(openings) == 6 and all(solver.score(state) == 0 for state in openings)
    again = generate_openings(spec, tmp_path / "a", count=6, plies=4, balance=0, seed=3, workers=1, progress=False)
    assert again.read_text() == path.read_text()
    other = generate_openings(spec, tmp_path / "b", count=6, plies=4, balance=0, seed=4, workers=1, progress=False)
    assert other.read_text() != path.read_text()
    with pytest.raises(RecordError):  # another balance in the same folder: another run
        generate_openings(spec, tmp_path / "a", count=6, plies=4, balance=1, seed=3, workers=1, progress=False)


def tiny_network(path: Path) -> Path:
    from dlgo.encoders import get_encoder_by_name
    from engines.neural import backend
    from engines.neural.resnet import build_resnet

    encoder = get_encoder_by_name(None, "connect4")
    backend.save_model(build_resnet(encoder.shape, encoder.num_moves, blocks=1, filters=4), path,
                       {"kind": "alphazero", "encoder": encoder.config()})
    return path


def test_a_killed_match_resumes_and_plays_the_same_games(tmp_path):
    from engines.alphazero import NetworkEvaluator
    from engines.neural.loading import load_network
    from engines.training.paired_match import PairedMatch, play_paired_match, read_records
    from engines.training.selfplay import MatchSettings

    first = NetworkEvaluator(load_network(str(CHECKPOINTS / "connect4.keras")))
    second = NetworkEvaluator(load_network(str(tiny_network(tmp_path / "tiny.keras"))))
    openings = balanced_openings("connect4")[:6]
    match = PairedMatch(openings, MatchSettings(simulations=4), sprt=None, max_pairs=6, chunk=2)
    whole = play_paired_match("connect4", first, second, match, tmp_path / "whole.csv", seed=5)
    rows = (tmp_path / "whole.csv").read_text().splitlines()
    assert whole.pairs == 6 and len(rows) == 1 + 12
    killed = tmp_path / "killed.csv"
    killed.write_text("\n".join(rows[:1 + 4]) + "\n")  # what a kill after the first chunk leaves
    resumed = play_paired_match("connect4", first, second, match, killed, seed=5)
    assert killed.read_text() == (tmp_path / "whole.csv").read_text() and resumed == whole
    records = read_records(killed, openings)
    assert [row["opening"] for row in records[::2]] == [state.moves_text() for state in openings]
    with pytest.raises(RecordError, match="not from this match's openings"):
        read_records(killed, balanced_openings("connect4")[6:12])
