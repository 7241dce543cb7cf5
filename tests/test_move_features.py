"""Coulom's move features on Go positions: each candidate's team of levels."""
import numpy as np
import pytest

from dlgo.games import new_game
from dlgo.games.go import move_features as mf
from dlgo.games.go.features import FEATURE_NAMES
from helpers import go_position, play

#: white C5 in atari (its last liberty D5), white D7 with two liberties (D6, E7), black's eye at A1
DIAGRAM = """
    . . X O . . .
    . . X . . . .
    . X O . . . .
    . . X . . . .
    . . . . . . .
    X X . . . . .
    . X . . . . .
"""


def flat(name: str, cols: int = 7) -> int:
    column, row = "ABCDEFGHJ".index(name[0]), int(name[1:])
    return (row - 1) * cols + column


def levels(team: np.ndarray) -> set[str]:
    return {mf.LEVEL_NAMES[i] for i in team if i >= 0}


def test_the_groups_levels_names_and_offsets_agree():
    assert mf.NUM_LEVELS == len(mf.LEVEL_NAMES) == len(mf.GROUP_OF)
    assert [int(mf.GROUP_OF[o]) for o in mf.OFFSETS] == list(range(len(mf.GROUPS)))
    assert mf.LEVEL_NAMES[mf.OFFSETS[mf.LAST]] == "last 2" and mf.LEVEL_NAMES[-1] == "pass"
    for feature, (group, level) in mf._TACTICAL.items():  # the rollout policy's flags, each in a group of its own
        assert mf.LEVEL_NAMES[mf.OFFSETS[group] + level] == FEATURE_NAMES[feature]


def test_gridcular_distance_is_coulom_s():
    centre = flat("E5", 9)
    assert [mf.gridcular(9, centre, flat(q, 9)) for q in ("E6", "F6", "E7", "F7", "G7", "E5")] == [2, 3, 4, 5, 6, 0]
    assert mf.gridcular(9, flat("A1", 9), flat("J9", 9)) == 24


def test_captures_ataris_edges_and_eyes_in_a_position():
    state = go_position(DIAGRAM)
    actions, teams = mf.position_teams(state)
    team = dict(zip(actions, teams))
    assert levels(team[flat("D5")]) >= {"capture 1", "edge 3"} and "atari" not in levels(team[flat("D5")])
    assert {"atari", "edge 2"} <= levels(team[flat("D6")]) and {"atari", "edge 1"} <= levels(team[flat("E7")])
    assert flat("A1") not in team  # filling its own eye is no candidate
    assert actions[-1] == 49 and levels(teams[-1]) == {"pass"}  # the pass, last, alone
    # the empties but the eye, and the pass
    assert sorted(actions[:-1]) == actions[:-1] and len(actions) == 49 - 9 - 1 + 1
    assert all(sum(1 for i in t if mf.GROUP_OF[i] == mf.SHAPE) == 1 for t in teams[:-1])  # every play has a shape
    assert not any(mf.LAST in {int(mf.GROUP_OF[i]) for i in t if i >= 0} for t in teams)  # no moves played yet


def test_distances_to_the_last_two_moves_and_none_after_a_pass():
    state = play(new_game("go:size=9"), "E5", "C3")
    actions, teams = mf.position_teams(state)
    e6 = levels(teams[actions.index(flat("E6", 9))])
    assert {"last 8", "before 2", "edge 4"} <= e6  # C3 is 2 columns and 3 rows away, E5 just below
    far = levels(teams[actions.index(flat("J9", 9))])
    assert {"before 12", "edge 1"} <= far and not any(name.startswith("last") for name in far)  # C3: 18, too far
    after_pass = play(state, "pass")
    actions, teams = mf.position_teams(after_pass)
    d4 = levels(teams[actions.index(flat("D4", 9))])
    assert "before 3" in d4 and not any(name.startswith("last") for name in d4)  # the last move was the pass


def test_merging_keeps_the_chosen_team_alone_and_counts_the_rest():
    from engines.training.move_patterns import merged

    _, teams = mf.position_teams(play(new_game("go:size=9"), "E5", "C3"))
    rows, counts, chosen = merged(teams, 40)
    assert chosen == 0 and counts[0] == 1 and np.array_equal(rows[0], teams[40])
    assert counts.sum() == len(teams) and len(rows) < len(teams)  # the open board's points share their levels
    assert {tuple(t) for t in rows[1:]} == {tuple(t) for k, t in enumerate(teams) if k != 40}


def test_ratings_fitted_to_gnu_go_predict_its_held_out_moves():
    """80 of chapter 13's GNU Go games (9x9): the ratings name the move GNU Go played in its
    held-out games far more often than chance (about 2%), and read as Go players would."""
    from pathlib import Path

    from dlgo.formats.records import read_games
    from engines.training.move_patterns import fit_move_patterns

    games = read_games(Path(__file__).resolve().parents[1] / "reports" / "ch13_alphago" / "teacher-games.csv.gz")
    fit = fit_move_patterns(games[:80], progress=False)
    assert fit.test_positions > 100 and fit.top1 > 0.25 and fit.top5 > fit.top1 + 0.2
    rating = dict(zip(mf.LEVEL_NAMES, fit.elo))
    assert rating["self-atari"] < -300 and rating["escape"] > 0  # a blunder shunned, a rescue sought
    assert rating["last 2"] > rating["last 12"] + 100  # GNU Go answers next to the last move


def test_a_point_emptied_by_a_capture_has_no_distance_to_itself():
    """Black fills its own last liberty at C5, white captures at A5: C5, the move before the
    last, is empty and a candidate again, at distance 0 from itself, which no level rates."""
    state = play(go_position("""
        . X . O .
        . O O . .
        . . . . .
        . . . . .
        . . . . .
    """), "C5", "A5")
    actions, teams = mf.position_teams(state)
    c5 = levels(teams[actions.index(flat("C5", 5))])
    assert "last 4" in c5 and not any(name.startswith("before") for name in c5)
    assert all(mf.GROUP_OF[level] == column for team in teams for column, level in enumerate(team) if level >= 0)


def test_compiled_competitions_are_the_reference_s():
    """The compiled twin builds the same competitions from GNU Go's games as the readable
    features, a game ended by resignation included (its last move makes none)."""
    import dataclasses
    from pathlib import Path

    from dlgo.formats.records import read_games
    from engines.training.move_patterns import competitions_from_games, reference_competitions

    games = read_games(Path(__file__).resolve().parents[1] / "reports" / "ch13_alphago" / "teacher-games.csv.gz")
    resigned = games[25].moves.rsplit(" ", 1)[0] + " resign"  # in place of the second pass
    games = games[:25] + [dataclasses.replace(games[25], moves=resigned)]
    fast, slow = competitions_from_games(games, progress=False), reference_competitions(games)
    assert len(fast.winner) > 1000
    for name in ("features", "start", "winner", "count"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name


def test_train_patterns_round_trip_play_and_bad_input(tmp_path):
    """``dlgo train-patterns`` writes strengths that mcts-go plays with; wrong files and specs
    get clear errors."""
    from dlgo.core.errors import ModelFileError, SpecError
    from dlgo.data.generate import generate_games
    from engines import ENGINES, registry
    from engines.rollouts import MovePatterns, read_move_patterns, save_move_patterns
    from engines.training.move_patterns import train_patterns

    data = tmp_path / "games"
    generate_games(ENGINES, data, "go:size=5", "random", 30, seed=1, opening_plies=2, workers=1, progress=False)
    fit = train_patterns(data, tmp_path / "patterns.npz", passes=5, progress=False)
    patterns = read_move_patterns(tmp_path / "patterns.npz")
    assert np.array_equal(patterns.gammas, fit.gammas) and patterns.info["games"] == 30
    agent = registry.create(f"mcts-go:rounds=50,patterns={tmp_path / 'patterns.npz'}", seed=0)
    state = new_game("go:size=5")
    assert state.is_valid_move(agent.select_move(state))
    with pytest.raises(SpecError, match=".npz"):
        train_patterns(data, tmp_path / "patterns.keras", progress=False)
    with pytest.raises(SpecError, match="priors=false"):
        registry.create(f"mcts-go:rounds=50,priors=false,patterns={tmp_path / 'patterns.npz'}")
    with pytest.raises(SpecError, match="patterns"):
        registry.create(f"mcts:rounds=50,patterns={tmp_path / 'patterns.npz'}").check_game(new_game("connect4"))
    with pytest.raises(ModelFileError, match="no move patterns file"):
        registry.create("mcts-go:rounds=50,patterns=nowhere/none.npz")
    save_move_patterns(MovePatterns(np.ones(5)), tmp_path / "short.npz")
    with pytest.raises(ModelFileError, match="other move features"):
        read_move_patterns(tmp_path / "short.npz")
    (tmp_path / "bad.npz").write_text("not a zip")
    with pytest.raises(ModelFileError, match="not a move patterns file"):
        read_move_patterns(tmp_path / "bad.npz")
