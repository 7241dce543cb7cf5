"""The book's move-prediction networks (chapters 6 and 7), by name.

Each is a stack of convolutions (``same`` padding, which is what the book's
``ZeroPadding2D`` + unpadded convolution pairs amount to), a dense layer and a
softmax over the game's moves. ``channels_last`` throughout.

======  ==========================================================  ===========
name    convolutions (filters x kernel)                              dense
======  ==========================================================  ===========
ch6     48x3, 48x3 + 2x2 max-pool, dropout 0.5 (the chapter 6 net)   512
small   48x7, 32x5, 32x5, 32x5                                       512
medium  64x5, 64x5, 64x3, 64x3, 64x3                                 512
large   64x7, 64x5, 64x5, 48x5, 48x5, 32x5, 32x5                     1024
tiny    16x3, 16x3 (for tests)                                       32
======  ==========================================================  ===========
"""
from __future__ import annotations

from typing import NamedTuple

from dlgo.core.errors import SpecError
from engines.neural.backend import keras


class ConvNet(NamedTuple):
    convolutions: tuple[tuple[int, int], ...]  # (filters, kernel size)
    dense: int
    dropout: float = 0.0
    pool_after: int | None = None  # max-pool 2x2 after this convolution (0-based)


MODELS: dict[str, ConvNet] = {
    "ch6": ConvNet(((48, 3), (48, 3)), 512, dropout=0.5, pool_after=1),
    "small": ConvNet(((48, 7), (32, 5), (32, 5), (32, 5)), 512),
    "medium": ConvNet(((64, 5), (64, 5), (64, 3), (64, 3), (64, 3)), 512),
    "large": ConvNet(((64, 7), (64, 5), (64, 5), (48, 5), (48, 5), (32, 5), (32, 5)), 1024),
    "tiny": ConvNet(((16, 3), (16, 3)), 32),
}


#: what a network answers: move probabilities (a predictor, a policy-gradient
#: network), action values in [-1, 1] (Q-learning), both probabilities and a
#: position value in [-1, 1] (actor-critic), or the value alone (AlphaGo's value network)
HEADS = ("policy", "q", "policy-value", "value")


def build_model(name: str, input_shape: tuple[int, int, int], num_moves: int, l2: float = 0.0,
                head: str = "policy") -> "keras.Model":
    """The network ``name`` for boards of ``input_shape`` (rows, cols, planes),
    with ``head`` on top (see :data:`HEADS`; by default a softmax over
    ``num_moves`` moves); ``l2`` weight decay on every kernel."""
    if head not in HEADS:
        raise SpecError(f"unknown head {head!r}; the heads are: {', '.join(HEADS)}")
    try:
        net = MODELS[name]
    except KeyError:
        raise SpecError(f"unknown model {name!r}; the models are: {', '.join(MODELS)}") from None
    regularizer = keras.regularizers.L2(l2) if l2 else None
    inputs = keras.Input(shape=input_shape, name="board")
    x = inputs
    for i, (filters, kernel) in enumerate(net.convolutions):
        x = keras.layers.Conv2D(filters, kernel, padding="same", activation="relu",
                                kernel_regularizer=regularizer, name=f"conv{i + 1}")(x)
        if net.pool_after == i and min(input_shape[:2]) >= 2:
            x = keras.layers.MaxPooling2D(2, name="pool")(x)
        if net.dropout:
            x = keras.layers.Dropout(net.dropout)(x)
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(net.dense, activation="relu", kernel_regularizer=regularizer, name="dense")(x)
    if net.dropout:
        x = keras.layers.Dropout(net.dropout)(x)
    if head == "q":
        return keras.Model(inputs, keras.layers.Dense(num_moves, activation="tanh", name="q")(x), name=name)
    if head == "value":
        return keras.Model(inputs, keras.layers.Dense(1, activation="tanh", name="value")(x), name=name)
    policy = keras.layers.Dense(num_moves, activation="softmax", name="policy")(x)
    if head == "policy":
        return keras.Model(inputs, policy, name=name)
    value = keras.layers.Dense(1, activation="tanh", name="value")(x)
    return keras.Model(inputs, [policy, value], name=name)
