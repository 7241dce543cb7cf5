"""Engines: the registry and spec strings, random, minimax/alpha-beta, MCTS."""
import random
from collections import Counter

import pytest

import engines
from dlgo.games import new_game
from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from helpers import exact_value as exact, go_position, play


# ------------------------------------------------------------- registry

def proven_value(agent):
    """The game value the agent's last search proved (+1, 0, -1), or None for an estimate."""
    report = agent.last_report
    return int(report.value) if report.proven else None

def test_create_from_spec_string_and_keywords():
    a = engines.create("uct:rounds=800,c=1.4")
    b = engines.create("uct", rounds=800)
    assert (a.rounds, a.c) == (800, 1.4) and a.spec == "uct:rounds=800,c=1.4"
    assert b.rounds == 800 and b.spec == "uct:rounds=800"
    assert engines.create("alphabeta:depth=3,nodes=0").max_nodes == 0
    assert engines.create("uct:reuse=false").reuse is False
    # an alias keeps its spec, and builds the engines it stands for from it, each with its own defaults
    alias = engines.create("mcts:rounds=800")
    assert alias.spec == "mcts:rounds=800" and set(alias.engines) == {"uct", "mcts-go"}
    assert (alias.engines["uct"].rounds, alias.engines["uct"].c, alias.engines["mcts-go"].rounds) == (800, 1.4, 800)
    assert engines.engine_names()[:4] == ["random", "minimax", "alphabeta", "mcts"]


@pytest.mark.parametrize("spec,message", [
    ("chess", "unknown engine 'chess'; the engines are: random, minimax, alphabeta, mcts"),
    ("mcts:round=5", "engine 'mcts' has no parameter 'round'; its parameters are: rounds=None, seconds=0.0"),
    ("mcts:rounds=lots", "engine 'mcts' parameter 'rounds' must be int, got 'lots'"),
    ("mcts:reuse=maybe", "parameter 'reuse' must be bool"),
    ("mcts:rounds", "parameters look like key=value"),
    ('mcts:c="1.4', "unbalanced quote"),
    ("mcts:rounds=0", "needs a budget"),
])
def test_spec_errors_are_clear(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        engines.create(spec)


def test_quoted_values_keep_commas():
    from dlgo.core.specs import split_spec

    assert split_spec('gtp:cmd="gnugo --mode gtp, --level 10",x=1') == (
        "gtp", {"cmd": "gnugo --mode gtp, --level 10", "x": "1"})


def test_create_seeded_only_seeds_engines_that_take_a_seed():
    assert engines.create_seeded("mcts", 5).spec == "mcts:seed=5"
    assert engines.create_seeded("mcts:seed=9", 5).spec == "mcts:seed=9"
    assert engines.create_seeded("alphabeta", 5).spec == "alphabeta"


def test_dlgo_engines_lists_parameters_and_defaults(capsys):
    from dlgo.app.cli import main

    assert main(["engines"]) == 0
    out = capsys.readouterr().out
    for name in engines.engine_names():
        assert out.count(f"\n{name} ") + out.startswith(name) == 1
    assert "rounds=None" in out and "c=1.4" in out and "nodes=20000" in out
    assert "an alias: the parameters of mcts-go and uct" in out  # mcts: its parameters are theirs
    assert "``" not in out and "`pruning=True` adds textbook alpha-beta" in out  # no reST markup


@pytest.mark.parametrize("spec,unit", [("random", "moves"), ("minimax:depth=2", "nodes"),
                                       ("alphabeta:depth=3", "nodes"), ("mcts:rounds=50", "rounds")])
def test_every_engine_reports_its_compute(spec, unit):
    agent = engines.create(spec)
    move = agent.select_move(new_game("connect4"))
    assert move in new_game("connect4").legal_moves()
    compute = agent.last_compute
    assert compute.unit == unit and compute.amount > 0 and compute.seconds >= 0
    with pytest.raises(ValueError, match="over"):
        agent.select_move(play(new_game("tictactoe"), "a1", "a2", "b1", "b2", "c1"))


# ---------------------------------------------------------------- random
def test_random_is_uniform_and_seeded():
    agent = engines.create("random:seed=3")
    counts = Counter(agent.select_move(new_game("tictactoe")) for _ in range(9000))
    assert len(counts) == 9 and all(850 < n < 1150 for n in counts.values())
    a, b = engines.create("random:seed=4"), engines.create("random:seed=4")
    s = new_game("go")
    assert [a.select_move(s) for _ in range(20)] == [b.select_move(s) for _ in range(20)]


def test_random_never_fills_its_own_eye_in_go():
    # Black's empty points: five eyes (A5 C5 E5 B3 A1), E1 (self-capture) and C1,
    # the only play that is legal and not an eye. White's group is in no danger.
    s = go_position("""
        . X . X .
        X X X X X
        X . X X X
        X X X O O
        . X . O .
    """)
    agent = engines.create("random:seed=1")
    assert {agent.select_move(s) for _ in range(50)} == {Move.play(Point(1, 3))}
    after = s.apply_move(Move.play(Point(1, 3))).apply_move(Move.pass_turn())
    assert {agent.select_move(after) for _ in range(20)} == {Move.play(Point(1, 5))}  # E1 captures


# ------------------------------------------------------- minimax family
@pytest.mark.parametrize("colour", [Player.black, Player.white])
def test_alphabeta_plays_tictactoe_perfectly_against_every_line(colour):
    """Enumerate every opponent reply: the engine never loses, and in every
    position it keeps the best result available (it converts won positions)."""
    agent = engines.create("alphabeta")
    results = Counter()

    def walk(state):
        if state.is_over():
            results["draw" if state.winner() is None else "win" if state.winner() == colour else "loss"] += 1
            return
        if state.next_player == colour:
            move = agent.select_move(state)
            assert -exact(state.apply_move(move)) == exact(state), state
            assert proven_value(agent) == exact(state)  # the search completed: the game value
            walk(state.apply_move(move))
        else:
            for m in state.legal_moves():
                walk(state.apply_move(m))

    walk(new_game("tictactoe"))
    assert results["loss"] == 0 and results["win"] > 0


def random_tictactoe_positions(seed: int, count: int):
    """Unfinished tic-tac-toe positions a few random moves in."""
    rng = random.Random(seed)
    for _ in range(count):
        s = new_game("tictactoe")
        for _ in range(rng.randrange(1, 5)):
            s = s.apply_move(s.random_move(rng))
        if not s.is_over():
            yield s


@pytest.mark.parametrize("pruned_spec", ["alphabeta", "minimax:pruning=true"])
def test_pruning_keeps_minimax_values_on_fewer_nodes(pruned_spec):
    for s in random_tictactoe_positions(3, 8):
        plain, pruned = engines.create("minimax"), engines.create(pruned_spec)
        m1, m2 = plain.select_move(s), pruned.select_move(s)
        assert proven_value(plain) == proven_value(pruned) == exact(s)
        assert -exact(s.apply_move(m1)) == exact(s) and -exact(s.apply_move(m2)) == exact(s)
        assert pruned.last_compute.amount < plain.last_compute.amount
        if pruned_spec.startswith("minimax"):
            assert m1 == m2  # the same first best move: cut-offs alone never change the choice


def test_minimax_visits_the_whole_tictactoe_game_tree():
    agent = engines.create("minimax")
    assert agent.select_move(new_game("tictactoe")) is not None
    assert proven_value(agent) == 0  # a draw
    assert agent.last_compute.amount == 549_946 - 1  # every node of the game tree but the root


def test_depth_limited_minimax_reports_no_value():
    agent = engines.create("minimax:depth=2")
    agent.select_move(new_game("tictactoe"))
    assert proven_value(agent) is None and agent.last_compute.amount == 9 + 9 * 8


FORCED_WIN = ("4", "4", "3", "3")  # black to play 2 or 5: an open three, two threats at once


@pytest.mark.parametrize("spec", ["alphabeta:depth=3", "alphabeta:depth=5,nodes=0", "alphabeta"])
def test_alphabeta_finds_a_forced_connect4_win(spec):
    s = play(new_game("connect4"), *FORCED_WIN)
    agent = engines.create(spec)
    assert s.format_move(agent.select_move(s)) in {"2", "5"}
    assert proven_value(agent) == 1


def test_alphabeta_wins_at_once_and_blocks_at_once():
    agent = engines.create("alphabeta:depth=4")
    win = play(new_game("connect4"), "1", "1", "2", "2", "3", "3")  # black completes the bottom row
    assert win.format_move(agent.select_move(win)) == "4"
    block = play(new_game("connect4"), "1", "4", "1", "4", "2", "4")  # white threatens column 4
    assert block.format_move(agent.select_move(block)) == "4"
    both = play(new_game("connect4"), "1", "5", "1", "5", "1", "5")  # black can win in 1: do it
    assert both.format_move(agent.select_move(both)) == "1"


def test_alphabeta_respects_its_node_budget_and_plays_go():
    agent = engines.create("alphabeta:nodes=500")
    s = new_game("go:size=9")
    assert agent.select_move(s) in s.legal_moves()
    assert agent.last_compute.amount <= 501
    atari = go_position("""
        . . . . .
        . . X . .
        . X O X .
        . . . . .
        . . . . .
    """)
    assert agent.select_move(atari) == Move.play(Point(2, 3))  # capture the stone in atari


# ---------------------------------------------------------------- MCTS
WIN_POSITIONS = [  # (game, moves, the only good reply)
    ("tictactoe", ("a1", "a2", "b1", "b2"), "c1"),                 # win at once
    ("tictactoe", ("a1", "b2", "a2"), "a3"),                       # block
    ("tictactoe", ("b2", "a1", "c3", "c1", "b1"), "b3"),           # block, no own win
    ("connect4", ("1", "1", "2", "2", "3", "3"), "4"),              # win at once
    ("connect4", ("1", "1", "2", "2", "3"), "4"),                   # block (white to move)
    ("connect4", ("1", "4", "1", "4", "2", "4"), "4"),              # block a vertical
    ("connect4", ("4", "4", "5", "5", "6", "3", "4"), "7"),         # white must cover 7 (4 5 6 . on row 1)
]


@pytest.mark.parametrize("game,moves,answer", WIN_POSITIONS)
def test_mcts_never_misses_a_win_or_a_block(game, moves, answer):
    s = play(new_game(game), *moves)
    for seed in range(10):
        agent = engines.create(f"mcts:rounds=200,seed={seed}")
        assert s.format_move(agent.select_move(s)) == answer, f"seed {seed}"


def test_mcts_solver_proves_a_forced_win_and_stops():
    s = play(new_game("connect4"), *FORCED_WIN)
    agent = engines.create("mcts:rounds=20000,seed=1")
    assert s.format_move(agent.select_move(s)) in {"2", "5"}
    assert proven_value(agent) == 1 and agent.last_compute.amount < 20000


def play_match(black, white, game="connect4"):
    state = new_game(game)
    players = {Player.black: black, Player.white: white}
    while not state.is_over():
        state = state.apply_move(players[state.next_player].select_move(state))
    return state


def test_mcts_beats_random_in_connect4():
    wins = 0
    for game in range(40):
        mcts = engines.create(f"mcts:rounds=200,seed={game}")
        rnd = engines.create(f"random:seed={game}")
        colour = Player.black if game % 2 == 0 else Player.white
        players = (mcts, rnd) if colour is Player.black else (rnd, mcts)
        wins += play_match(*players).winner() == colour
    assert wins >= 38  # at least 95%


@pytest.mark.parametrize("spec", ["mcts:rounds=100", "random", "alphabeta:depth=2"])
def test_the_same_seed_gives_the_same_game(spec):
    def game():
        a = engines.create_seeded(spec, 11)
        b = engines.create_seeded("random", 12)
        return play_match(a, b).move_history()

    assert game() == game()


def test_mcts_reuses_its_tree():
    agent = engines.create("uct:rounds=300,seed=2")
    start = s = new_game("connect4")
    mine = agent.select_move(s)
    s = s.apply_move(mine)
    reply = s.legal_moves()[0]
    expected = agent.root.child_for(start.move_to_index(mine)).child_for(s.move_to_index(reply))
    visits_before = expected.visits if expected else 0
    s = s.apply_move(reply)
    agent.select_move(s)
    assert expected is not None and agent.root is expected and expected.parent is None
    assert agent.root.visits == visits_before + 300
    assert agent.last_report.visits.sum() == agent.root.visits - 1  # the report counts the root's children
    fresh = engines.create("uct:rounds=300,seed=2,reuse=false")
    fresh.select_move(s)
    assert fresh.root.visits == 300


def test_mcts_time_budget_and_resign():
    engines.create("mcts:rounds=20,seed=1").select_move(new_game("go:size=9"))  # its kernels loaded, not timed
    agent = engines.create("mcts:seconds=0.05,seed=1,manage=false")
    agent.select_move(new_game("go:size=9"))
    # it spends its budget and then stops (the loose upper bound only catches a search that ignores it)
    assert agent.last_compute.amount > 0 and 0.04 < agent.last_compute.seconds < 5.0
    lost = go_position("""
        . O . O .
        O O O O O
        . . O . .
        O O O O O
        . O . O .
    """, komi=7.5)
    assert engines.create("mcts:rounds=200,seed=1,resign=0.2,plain=true").select_move(lost) == Move.resign()
    assert engines.create("mcts:rounds=200,seed=1,plain=true").select_move(lost) != Move.resign()  # never, unless told
