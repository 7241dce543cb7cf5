"""KataGo's auxiliary targets (engines/training/auxiliary.py): the targets of a
counted Go game, the heads of the network, the buffer moving ownership with the
board, and a run that learns them."""
from __future__ import annotations

import numpy as np
import pytest

from dlgo.core.types import Player
from dlgo.games import get_game, new_game
from engines.training.auxiliary import auxiliary_targets, targets_of
from engines.training.replay import ReplayBuffer
from engines.training.selfplay import Examples
from helpers import play


def test_each_game_offers_its_targets():
    from dlgo.core.errors import SpecError
    from engines.training.alphazero_config import AlphaZeroConfig

    assert auxiliary_targets(get_game("connect4")) == ("moves_left",)
    assert auxiliary_targets(get_game("go:size=5")) == ("moves_left", "ownership", "score")
    assert AlphaZeroConfig(game="go:size=5", auxiliary=["score", "ownership"]).auxiliary_targets() == \
        ("ownership", "score")  # the network's order, whatever the order asked
    assert AlphaZeroConfig(game="connect4", auxiliary=["all"]).auxiliary_targets() == ("moves_left",)
    with pytest.raises(SpecError, match="no auxiliary target ownership"):
        AlphaZeroConfig(game="connect4", auxiliary=["ownership"])


def test_the_targets_of_a_counted_go_game():
    """Black walls off columns a-b, White columns d-e, column c is shared; both
    pass: each position's targets from its mover's view."""
    start = new_game("go:size=5,komi=0.5")
    moves = ["b1", "d1", "b2", "d2", "b3", "d3", "b4", "d4", "b5", "d5", "pass", "pass"]
    states = [start]
    for move in moves:
        states.append(play(states[-1], move))
    final = states[-1]
    count = final.area_count()
    assert final.is_over() and count is not None
    targets = targets_of(states[:-1], final, ("moves_left", "ownership", "score"))
    assert targets["moves_left"][:, 0].tolist() == pytest.approx([(12 - k) / 26 for k in range(12)])
    owners = count.owners
    assert (owners == 1).sum() == (owners == 2).sum() == 10  # columns a-b and d-e; c is a wall of neither
    black_view, white_view = targets["ownership"][0, ..., 0], targets["ownership"][1, ..., 0]
    assert (black_view[owners == 1] == 1).all() and (black_view[owners == 2] == -1).all()
    np.testing.assert_array_equal(white_view, -black_view)
    margin = (count.total(Player.black) - count.total(Player.white)) / 25
    assert targets["score"][0, 0] == pytest.approx(margin) and targets["score"][1, 0] == pytest.approx(-margin)


def test_a_resigned_game_gives_zero_ownership_and_score():
    state = play(new_game("go:size=5"), "c3", "resign")
    before = state.previous_state
    assert before is not None
    targets = targets_of([before], state, ("ownership", "score", "moves_left"))
    assert not targets["ownership"].any() and not targets["score"].any() and targets["moves_left"][0, 0] > 0


def test_the_buffer_moves_ownership_with_the_board_and_round_trips(tmp_path):
    """One position whose ownership target is a copy of its first feature plane:
    under every sampled symmetry the two still agree; the buffer's file keeps the targets."""
    game = get_game("go:size=5")
    rng = np.random.default_rng(0)
    features = rng.integers(0, 2, size=(1, 5, 5, 3)).astype(np.int8)
    ownership = features[..., :1].astype(np.float32)
    examples = Examples(features, np.full((1, 26), 1 / 26, np.float32), np.zeros(1, np.float32), lengths=[1],
                        auxiliary={"ownership": ownership, "score": np.ones((1, 1), np.float32)})
    buffer = ReplayBuffer(4, game.symmetries())
    buffer.add(examples)
    batch = buffer.sample(64, rng)
    np.testing.assert_array_equal(batch.auxiliary["ownership"], batch.x[..., :1])
    assert len({batch.x[k].tobytes() for k in range(64)}) > 1  # some symmetries were drawn
    buffer.save(tmp_path / "buffer.npz")
    again = ReplayBuffer.load(tmp_path / "buffer.npz", game.symmetries())
    np.testing.assert_array_equal(again.games[0].auxiliary["ownership"], ownership)
    assert again.games[0].auxiliary["score"][0, 0] == 1.0


def test_a_run_with_auxiliary_targets_learns_them_and_plays(tmp_path):
    from engines.neural.backend import load_model
    from engines.neural.loading import load_network, value_output
    from engines.training.alphazero import train_alphazero
    from engines.training.alphazero_config import AlphaZeroConfig

    import engines

    config = AlphaZeroConfig(game="go:size=5", blocks=1, filters=8, games=2, parallel=2, simulations=4,
                             auxiliary=["all"], batch_size=8, train_steps=2, eval_games=0, previous_games=2,
                             eval_simulations=2, baselines=[])
    history = train_alphazero(tmp_path, config, iterations=1, progress=False)
    assert {"moves_left_loss", "ownership_loss", "score_loss"} <= set(history.columns)
    model, _ = load_model(tmp_path / "checkpoint.keras")
    assert [tuple(o.shape[1:]) for o in model.outputs] == [(26,), (1,), (1,), (5, 5, 1), (1,)]
    buffer = ReplayBuffer.load(tmp_path / "buffer-001.npz")
    assert set(buffer.games[0].auxiliary) == {"moves_left", "ownership", "score"}
    bot = engines.create(f"alphazero:checkpoint={tmp_path / 'checkpoint.keras'},simulations=4")
    state = new_game("go:size=5")
    assert state.is_valid_move(bot.select_move(state))
    loaded = load_network(tmp_path / "checkpoint.keras")  # the value head is read by position, not as the last
    planes = loaded.encoder.encode_batch([state, state.apply_move(bot.select_move(state))])
    np.testing.assert_array_equal(value_output(loaded.call(planes)), loaded.call(planes)[1][:, 0])


def test_auxiliary_heads_join_a_start_sharing_its_weights_and_its_single_input():
    """A supervised start gains fresh heads on its own tower: its two outputs unchanged, and called
    on a bare batch as the start is, with no warning about the inputs' structure (Keras warns where
    a model's inputs are a list)."""
    import warnings

    from dlgo.core.errors import SpecError
    from engines.neural.models import build_model
    from engines.neural.resnet import add_auxiliary_heads, build_resnet

    start = build_resnet((5, 5, 4), 26, blocks=1, filters=8)
    grown = add_auxiliary_heads(start, ["moves_left", "ownership"])
    batch = np.random.default_rng(0).random((3, 5, 5, 4), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outputs = grown(batch)
    assert len(outputs) == 4 and all(np.allclose(a, b) for a, b in zip(outputs[:2], start(batch)))
    with pytest.raises(SpecError, match="auxiliary heads join AlphaZero's ResNet"):
        add_auxiliary_heads(build_model("tiny", (5, 5, 4), 26, head="policy"), ["moves_left"])
