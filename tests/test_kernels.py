"""The compiled kernels against their readable references: the same boards
move by move, the same legal moves and scores, and the same playouts (moves,
superko refusals, captures, winners) from the same seeds, on Go boards from
4x4 to 19x19 and on the k-in-a-row games."""
import random

import numpy as np
import pytest

from dlgo.core.splitmix import SplitMix64
from dlgo.games import new_game
from dlgo.games.go import kernels, playouts
from dlgo.games.go.patterns import NUM_FEATURES, PatternPolicy
from dlgo.games.go.scoring import area_score, point_owners
from dlgo.games.go.state import GoState
from dlgo.gotypes import Player
from dlgo.games.kernels import SUITE_ROOT, kernel_modules, new_hash_set, njit, set_add, set_contains, set_truncate
from dlgo.games.kernels import uniform as compiled_uniform
from engines.rollouts import load_rollout_policy


def random_states(seed: int, game: str, max_moves: int = 400) -> list[GoState]:
    """A game of uniformly random legal moves (passes included), every state of it."""
    rng = random.Random(seed)
    states = [new_game(game)]
    while not states[-1].is_over() and len(states) < max_moves:
        states.append(states[-1].apply_action(rng.choice(states[-1].legal_actions())))
    return states


@njit
def _draws(seed: int, n: int) -> np.ndarray:
    rng = np.full(1, np.uint64(seed), np.uint64)
    out = np.empty(n)
    for i in range(n):
        out[i] = compiled_uniform(rng)
    return out


def test_splitmix_draws_the_same_numbers_compiled_and_in_python():
    for seed in (0, 1, 2**63 - 1, 123456789):
        python = SplitMix64(seed)
        assert _draws(seed, 1000).tolist() == [python.random() for _ in range(1000)]


def test_the_hash_set_adds_finds_and_forgets_in_reverse_order():
    s = new_hash_set(100)
    values = [np.uint64(v) for v in random.Random(0).sample(range(1, 1 << 62), 60)] + [np.uint64(0)]
    for v in values[:30]:
        set_add(s, v)
    set_add(s, values[0])  # already there: no change
    assert s.size[0] == 30
    mark = s.size[0]
    for v in values[30:]:
        set_add(s, v)
    assert all(set_contains(s, v) for v in values)
    set_truncate(s, mark)
    assert [set_contains(s, v) for v in values] == [True] * 30 + [False] * 31


# ------------------------------------------------------------------ Go
def same_board(compiled: kernels.GoBoard, state: GoState) -> None:
    """The compiled board equals the reference's twin in everything the rules and the
    random draws depend on: stones, strings (stone order too), liberties, empty points in order."""
    twin = kernels.board_arrays(state.board)
    n = int(twin.counts[0])
    assert compiled.color.tolist() == twin.color.tolist()
    assert compiled.counts.tolist() == twin.counts.tolist() and compiled.hash[0] == twin.hash[0]
    assert compiled.empties[:n].tolist() == twin.empties[:n].tolist()
    stones = twin.color != 0
    assert compiled.string[stones].tolist() == twin.string[stones].tolist()
    assert compiled.next_stone[stones].tolist() == twin.next_stone[stones].tolist()
    roots = np.unique(twin.string[stones])
    for field in ("last_stone", "size", "stones_hash", "liberties"):
        assert getattr(compiled, field)[roots].tolist() == getattr(twin, field)[roots].tolist(), field


@pytest.mark.parametrize("game, games", [("go:size=4", 30), ("go:size=9", 12), ("go:size=13", 3), ("go:size=19", 1),
                                         ("go:size=5x7", 10)])
def test_the_compiled_board_follows_the_reference_move_by_move(game, games):
    checked = 0
    for seed in range(games):
        for state in random_states(seed, game)[::3]:
            board, _, c = playouts.compiled_position(state)
            assert c == int(state.next_player)
            same_board(board, state)
            assert playouts.legal_plays(state) == state.legal_actions()[:-1] if not state.is_over() else True
            checked += 1
    assert checked > 20


def test_eyes_self_ataris_and_hashes_after_a_play_agree_with_the_reference():
    geometry = kernels.geometry_arrays(9, 9)
    for state in random_states(3, "go:size=9")[20::10]:
        board, _, _ = playouts.compiled_position(state)
        ref = state.board
        for p in range(81):
            for c in (1, 2):
                assert kernels.is_eye(board, geometry, p, c) == ref.is_eye(p, c)
                legal, h = kernels.hash_after_play(board, geometry, p, c)
                assert (int(h) if legal else -1) == ref.hash_after_play(p, c)
                if legal:
                    assert kernels.is_self_atari(board, geometry, p, c) == ref.is_self_atari(p, c)


@pytest.mark.parametrize("name", ["oneplane", "sevenplane", "simple", "planes"])
def test_the_compiled_encoder_writes_every_go_encoders_planes(name):
    """The planes a guided search writes from the compiled board are the encoder's own,
    ko points included (a 4x4 board repeats positions often)."""
    from dlgo.encoders import get_encoder_by_name
    from dlgo.encoders.go_kernels import encode_board, recipe_array

    checked = with_ko = 0
    for game, games in (("go:size=4", 40), ("go:size=9", 4), ("go:size=5x7", 4)):
        encoder = get_encoder_by_name(name, game)
        recipe = recipe_array(encoder.go_planes())
        for seed in range(games):
            for state in random_states(seed, game):
                board, seen, c = playouts.compiled_position(state)
                out = np.full(encoder.shape, 7.0, np.float32)  # every plane is written, not only the stones
                encode_board(board, kernels.geometry_arrays(state.board.num_rows, state.board.num_cols), c, seen,
                             recipe, out)
                assert np.array_equal(out, encoder.encode(state))
                checked += 1
                with_ko += bool(state.ko_points())
    assert checked > 500 and with_ko > 5


@pytest.mark.parametrize("game, games", [("go:size=4,komi=0", 800), ("go:size=5,komi=0.5", 600),
                                         ("go:size=9", 1000), ("go:size=13", 80), ("go:size=19", 20)])
def test_compiled_playouts_play_the_reference_games(game, games):
    """Thousands of seeded playouts from random positions: the same moves (so the
    same superko refusals and captures) and the same winner, draws included."""
    outcomes = set()
    ko_refusals = 0
    for seed in range(games):
        starts = random_states(seed, game, max_moves=random.Random(seed).randrange(1, 40))
        start = starts[-1]
        if start.is_over():
            continue
        compiled, reference = [], []
        winner = start.random_playout(random.Random(seed), compiled)
        assert winner == start.random_playout(random.Random(seed), reference, compiled=False)
        assert compiled == reference
        outcomes.add(winner)
        state = start
        for move in compiled:
            ko_refusals += len(state.ko_points()) if len(compiled) < 60 else 0
            state = state.apply_move(move)
        assert state.winner() == winner
    assert outcomes >= ({None} if "komi=0," in game + "," else set()) | {Player.black, Player.white}
    if "size=4" in game:
        assert ko_refusals > 0  # the games met ko and superko


@pytest.mark.parametrize("weights", ["go9-rollout", "random"])
def test_compiled_policy_playouts_play_the_reference_games(weights):
    policy = (load_rollout_policy("go9-rollout") if weights == "go9-rollout"
              else PatternPolicy(np.random.default_rng(5).normal(0, 2, NUM_FEATURES)))
    for game, games in (("go:size=9", 150), ("go:size=7", 150), ("go:size=13", 15)):
        for seed in range(games):
            start = random_states(seed, game, max_moves=random.Random(seed).randrange(1, 30))[-1]
            compiled, reference = [], []
            winner = start.random_playout(random.Random(seed), compiled, policy=policy)
            assert winner == start.random_playout(random.Random(seed), reference, policy=policy, compiled=False)
            assert compiled == reference, (game, seed)


def test_continued_playouts_and_their_owners_match_the_reference():
    for seed in range(40):
        state = random_states(seed, "go:size=9", max_moves=60 + seed)[-1]
        for first in (state.next_player, state.next_player.other):
            assert state.continued_owners(first, seed) == state.continued_owners(first, seed, compiled=False)
    board = state.continued_board(SplitMix64(1), state.next_player)
    assert state.continued_owners(state.next_player, 1) == point_owners(board.color, board.geometry.neighbors)


def test_compiled_area_count_equals_the_reference_count():
    for seed in range(30):
        final = random_states(seed, "go:size=9")[-1]
        result = area_score(final.board, 7.5)
        assert playouts.area_points(final) == (result.b, result.w)


# ---------------------------------------------------------- k in a row
@pytest.mark.parametrize("game", ["connect4", "tictactoe", "connectn:columns=5,rows=4,n=3", "mnk:m=5,n=5,k=4",
                                  "gomoku", "connect4:pie_rule=true"])
def test_compiled_line_playouts_play_the_reference_games(game):
    start = new_game(game)
    outcomes = set()
    for seed in range(1500 if "gomoku" not in game else 60):
        rng = random.Random(seed)
        state = start
        for _ in range(rng.randrange(0, 6)):
            if not state.is_over():
                state = state.apply_action(rng.choice(state.legal_actions()))
        compiled, reference = [], []
        winner = state.random_playout(random.Random(seed), compiled)
        assert winner == state.random_playout(random.Random(seed), reference, compiled=False)
        assert compiled == reference
        for move in compiled:
            state = state.apply_move(move)
        assert state.is_over() and state.winner() == winner
        outcomes.add(winner)
    assert Player.black in outcomes and Player.white in outcomes


# ------------------------------------------------------------ the cache
def test_every_module_with_compiled_code_is_in_the_cache_key():
    """A kernel's cached machine code is keyed by every kernel module's text
    (numba itself watches one file): a module that compiles must be one of them."""
    users = set()
    for folder in ("dlgo", "engines"):
        for path in (SUITE_ROOT / folder).rglob("*.py"):
            text = path.read_text()
            if "from dlgo.games.kernels import" in text and any(
                    f"@{name}\n" in text for name in ("njit", "kernel", "inline")):
                users.add(path)
    assert users and users <= set(kernel_modules())
