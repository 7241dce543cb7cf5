"""The reinforcement-learning engines: pg, q and ac load their networks by path,
play every game of the shared API, explore when told to and report what they know."""
from __future__ import annotations

import pytest

import engines
from dlgo.arena.tournament import run_tournament
from dlgo.core.errors import ModelFileError, SpecError
from dlgo.encoders import get_encoder_by_name
from dlgo.games import new_game
from engines import ENGINES

HEADS = {"pg": "policy", "q": "q", "ac": "policy-value"}


@pytest.fixture(scope="module")
def networks(tmp_path_factory):
    """An untrained tiny network of each head, for tic-tac-toe, Connect Four and 5x5 Go."""
    from engines.neural.backend import save_model
    from engines.neural.models import build_model

    folder = tmp_path_factory.mktemp("rl-networks")
    paths = {}
    for game in ("tictactoe", "connect4", "go:size=5"):
        encoder = get_encoder_by_name(None, game)
        for kind, head in HEADS.items():
            path = folder / f"{kind}-{game.replace(':', '-').replace('=', '')}.keras"
            save_model(build_model("tiny", encoder.shape, encoder.num_moves, head=head), path,
                       {"kind": kind, "encoder": encoder.config()})
            paths[kind, game] = path
    return paths


@pytest.mark.parametrize("game", ["tictactoe", "connect4", "go:size=5"])
@pytest.mark.parametrize("kind", ["pg", "q", "ac"])
def test_each_engine_plays_a_whole_game_of_every_kind(networks, kind, game):
    agent = engines.create(f"{kind}:model={networks[kind, game]},seed=1")
    state = new_game(game)
    while not state.is_over() and len(state.move_history()) < 60:
        move = agent.select_move(state)
        assert state.is_valid_move(move)
        state = state.apply_move(move)
        report = agent.last_report
        assert report.principal_variation and agent.last_compute.amount == 1
        if kind == "q":
            assert report.q is not None and -1 <= report.value <= 1
            before = state.previous_state
            if not move.is_pass:  # the best sensible play (a pass is played when passing wins)
                plays = [a for a in before.sensible_actions() if a != before.game.pass_action]
                assert report.value == pytest.approx(max(float(report.q[a]) for a in plays))
        elif kind == "ac":
            assert report.policy is not None and -1 <= report.value <= 1
        else:
            assert report.policy is not None and report.value is None


def test_q_explores_with_epsilon_and_is_greedy_without(networks):
    path = networks["q", "connect4"]
    state = new_game("connect4")
    greedy = {engines.create(f"q:model={path},seed={s}").select_move(state) for s in range(8)}
    exploring = {engines.create(f"q:model={path},epsilon=1,seed={s}").select_move(state) for s in range(20)}
    assert len(greedy) == 1 and len(exploring) > 3


def test_pg_samples_with_temperature(networks):
    path = networks["pg", "connect4"]
    state = new_game("connect4")
    sampled = {engines.create(f"pg:model={path},temperature=1,seed={s}").select_move(state) for s in range(20)}
    assert len(sampled) > 2


def test_a_network_with_the_wrong_heads_is_refused(networks):
    # refused as it is built, from the kind its file records
    with pytest.raises(ModelFileError, match="q plays by a network's action values head; .* has only policy and value"):
        engines.create(f"q:model={networks['ac', 'tictactoe']}")
    with pytest.raises(ModelFileError, match="ac plays by a network's policy and value heads; .* has only a policy"):
        engines.create(f"ac:model={networks['pg', 'tictactoe']}")
    with pytest.raises(ModelFileError):
        engines.create(f"pg:model={networks['pg', 'tictactoe']}").select_move(new_game("connect4"))


@pytest.mark.parametrize("spec", ["pg", "q", "ac", "q:model=x.keras,epsilon=2", "pg:model=x.keras,temperature=-1"])
def test_bad_specs_are_refused(spec):
    with pytest.raises((SpecError, ModelFileError)):
        engines.create(spec)


def test_the_rl_engines_meet_in_a_tournament(networks, tmp_path):
    specs = [f"{kind}:model={networks[kind, 'tictactoe']}" for kind in HEADS] + ["random"]
    games = run_tournament(ENGINES, tmp_path, "tictactoe", specs, 2, workers=1, progress=False)
    assert len(games) == 6 * 2 and {g.black for g in games} | {g.white for g in games} == set(specs)


@pytest.mark.parametrize("kind", ["pg", "q", "ac"])
def test_games_played_together_are_the_games_played_alone(networks, kind):
    """play_matches hands each network all its positions in one call
    (prepare_batch); every game is the one play_match plays with its seed."""
    from dlgo.arena.match import Task, play_match, play_matches

    spec = f"{kind}:model={networks[kind, 'connect4']}," + ("epsilon=0.3" if kind == "q" else "temperature=1")
    tasks = [Task(f"#{k}", *((spec, "random") if k % 2 else ("random", spec)), 100 + k) for k in range(6)]
    tasks += [Task("self", spec, spec, 7)]
    together = play_matches(ENGINES, "connect4", tasks, opening_plies=1, parallel=4)
    alone = [play_match(ENGINES, "connect4", t.black, t.white, t.seed, 1, "", t.game_id) for t in tasks]
    assert [r.moves for r in together] == [r.moves for r in alone]
    assert [r.game_id for r in together] == [t.game_id for t in tasks]
    for record in together + alone:  # a network's moves cost time, its share of a batched call included
        assert (record.black_seconds if record.black == spec else record.white_seconds) > 0


def test_prepared_outputs_serve_their_own_position_once(networks):
    import numpy as np

    from engines.predictor import NetworkAgent

    agents = [engines.create(f"pg:model={networks['pg', 'tictactoe']}") for _ in range(2)]
    start = new_game("tictactoe")
    states = [start, start.apply_action(4)]
    NetworkAgent.prepare_batch(agents, states)
    for agent, state in zip(agents, states):
        assert np.allclose(agent.policy(state), agent.loaded.call(agent.loaded.encoder.encode(state)[None])[0][0],
                           atol=1e-6)
    assert agents[0]._prepared is None  # used once: a later call asks the network again
