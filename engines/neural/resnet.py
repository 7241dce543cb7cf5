"""The AlphaZero network: a residual tower with a policy head and a value head.

    board planes (rows, cols, planes)
      -> 3x3 convolution, batch norm, ReLU
      -> ``blocks`` x residual block: conv-BN-ReLU-conv-BN, + the block's input, ReLU
      -> policy head: 1x1 conv (2 filters), BN, ReLU, dense -> softmax over the moves
      -> value head:  1x1 conv (1 filter), BN, ReLU, dense (``value_units``), ReLU,
                      dense -> tanh: the expected result for the player to move (-1..1)

Every kernel carries L2 regularisation ``l2``; ``channels_last`` throughout.
Built for any game from its encoder's ``shape`` and ``num_moves``.
"""
from __future__ import annotations

from dlgo.core.errors import SpecError
from engines.neural.backend import keras


def build_resnet(input_shape: tuple[int, int, int], num_moves: int, *, blocks: int = 5, filters: int = 64,
                 value_units: int = 64, l2: float = 1e-4, name: str = "alphazero") -> "keras.Model":
    """A policy-value ResNet; outputs ``[policy (batch, num_moves), value (batch, 1)]``."""
    if blocks < 0 or filters < 1:
        raise SpecError(f"need blocks >= 0 and filters >= 1, got blocks={blocks}, filters={filters}")
    layers = keras.layers
    regularizer = keras.regularizers.L2(l2) if l2 else None

    def conv(x, n: int, kernel: int, label: str):
        x = layers.Conv2D(n, kernel, padding="same", use_bias=False, kernel_regularizer=regularizer,
                          name=f"{label}_conv")(x)
        return layers.BatchNormalization(name=f"{label}_bn")(x)

    inputs = keras.Input(shape=input_shape, name="board")
    x = layers.ReLU(name="stem_relu")(conv(inputs, filters, 3, "stem"))
    for b in range(1, blocks + 1):
        y = layers.ReLU(name=f"block{b}_relu1")(conv(x, filters, 3, f"block{b}a"))
        y = conv(y, filters, 3, f"block{b}b")
        x = layers.ReLU(name=f"block{b}_relu2")(layers.Add(name=f"block{b}_add")([x, y]))

    p = layers.ReLU(name="policy_relu")(conv(x, 2, 1, "policy"))
    p = layers.Flatten(name="policy_flat")(p)
    policy = layers.Dense(num_moves, activation="softmax", kernel_regularizer=regularizer, name="policy")(p)

    v = layers.ReLU(name="value_relu")(conv(x, 1, 1, "value"))
    v = layers.Flatten(name="value_flat")(v)
    v = layers.Dense(value_units, activation="relu", kernel_regularizer=regularizer, name="value_hidden")(v)
    value = layers.Dense(1, activation="tanh", kernel_regularizer=regularizer, name="value")(v)
    return keras.Model(inputs, [policy, value], name=name)
