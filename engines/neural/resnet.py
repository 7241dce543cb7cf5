"""The AlphaZero network: a residual tower with a policy head and a value head.

    board planes (rows, cols, planes)
      -> 3x3 convolution, batch norm, ReLU
      -> ``blocks`` x residual block: conv-BN-ReLU-conv-BN, + the block's input, ReLU
      -> policy head: 1x1 conv (2 filters), BN, ReLU, dense -> softmax over the moves
      -> value head:  1x1 conv (1 filter), BN, ReLU, dense (``value_units``), ReLU,
                      dense -> tanh: the expected result for the player to move (-1..1)

Every kernel carries L2 regularisation ``l2``; ``channels_last`` throughout.
Built for any game from its encoder's ``shape`` and ``num_moves``.

Auxiliary heads (KataGo's, Wu 2019 section 4: more to learn from each game
than its result) follow the value and policy in the outputs, in the order asked:

      -> ``moves_left``: dense from the value head's hidden layer -> the plies
                         to the end, over the number of actions (linear)
      -> ``score``:      dense from the same layer -> the final margin for the
                         player to move, over the board's points (linear)
      -> ``ownership``:  1x1 conv on the tower -> tanh per point: who owns it
                         at the end (1 the player to move, -1 the opponent)
"""
from __future__ import annotations

from typing import Sequence

from dlgo.core.errors import SpecError
from engines.neural.backend import keras

#: the auxiliary heads a network can have: a number per position, or one per point of the board
AUXILIARY_HEADS = {"moves_left": "scalar", "score": "scalar", "ownership": "board"}


def build_resnet(input_shape: tuple[int, int, int], num_moves: int, *, blocks: int = 5, filters: int = 64,
                 value_units: int = 64, l2: float = 1e-4, name: str = "alphazero",
                 auxiliary: Sequence[str] = (), policy_filters: int = 2, value_filters: int = 1) -> "keras.Model":
    """A policy-value ResNet; outputs ``[policy (batch, num_moves), value (batch, 1)]``
    and then each of the ``auxiliary`` heads (:data:`AUXILIARY_HEADS`): ``(batch, 1)``
    for a number, ``(batch, rows, cols, 1)`` for ownership. The heads begin with a
    1x1 convolution to ``policy_filters`` and ``value_filters`` planes (AlphaGo Zero's 2 and 1)."""
    if blocks < 0 or min(filters, policy_filters, value_filters) < 1:
        raise SpecError(f"need blocks >= 0 and filters >= 1, got blocks={blocks}, filters={filters}, "
                        f"policy_filters={policy_filters}, value_filters={value_filters}")
    unknown = [head for head in auxiliary if head not in AUXILIARY_HEADS]
    if unknown:
        raise SpecError(f"unknown auxiliary head {', '.join(unknown)}; the heads: {', '.join(AUXILIARY_HEADS)}")
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

    p = layers.ReLU(name="policy_relu")(conv(x, policy_filters, 1, "policy"))
    p = layers.Flatten(name="policy_flat")(p)
    policy = layers.Dense(num_moves, activation="softmax", kernel_regularizer=regularizer, name="policy")(p)

    v = layers.ReLU(name="value_relu")(conv(x, value_filters, 1, "value"))
    v = layers.Flatten(name="value_flat")(v)
    v = layers.Dense(value_units, activation="relu", kernel_regularizer=regularizer, name="value_hidden")(v)
    value = layers.Dense(1, activation="tanh", kernel_regularizer=regularizer, name="value")(v)
    extra = _auxiliary_heads(auxiliary, x, v, regularizer)
    return keras.Model(inputs, [policy, value, *extra], name=name)


def _auxiliary_heads(auxiliary: Sequence[str], tower, hidden, regularizer) -> list:
    """The ``auxiliary`` heads' outputs: ownership from the ``tower``, the numbers from the value's ``hidden`` layer."""
    layers = keras.layers
    return [layers.Conv2D(1, 1, activation="tanh", kernel_regularizer=regularizer, name=head)(tower)
            if AUXILIARY_HEADS[head] == "board" else layers.Dense(1, kernel_regularizer=regularizer, name=head)(hidden)
            for head in auxiliary]


def add_auxiliary_heads(model: "keras.Model", auxiliary: Sequence[str], l2: float = 1e-4) -> "keras.Model":
    """``model`` (a :func:`build_resnet` network with a policy and a value alone, e.g. a
    supervised start) with fresh ``auxiliary`` heads where :func:`build_resnet` puts them,
    its own layers and weights shared: a :class:`SpecError` for a network of another shape."""
    if not auxiliary:
        return model
    names = {layer.name for layer in model.layers}
    if not {"policy_conv", "value_hidden"} <= names or len(model.outputs) != 2:
        raise SpecError(f"auxiliary heads join AlphaZero's ResNet (a policy and a value, its layers policy_conv and "
                        f"value_hidden); {model.name} is not one")
    regularizer = keras.regularizers.L2(l2) if l2 else None
    tower, hidden = model.get_layer("policy_conv").input, model.get_layer("value_hidden").output
    extra = _auxiliary_heads(auxiliary, tower, hidden, regularizer)
    # its one input as a tensor, as build_resnet's: a list would make Keras warn at every call of a bare tensor
    return keras.Model(model.inputs[0], [*model.outputs, *extra], name=model.name)


def resnet_flops(input_shape: tuple[int, int, int], num_moves: int, *, blocks: int, filters: int,
                 value_units: int = 64, auxiliary: Sequence[str] = (), policy_filters: int = 2,
                 value_filters: int = 1) -> int:
    """Floating-point operations of one position through :func:`build_resnet`'s network
    (two per multiply-add of its convolutions and dense layers; batch norm, ReLU and
    softmax are left out, as scaling studies do): the unit of the scaling lab's compute.
    A training step costs about three forward passes (the backward pass two)."""
    rows, cols, planes = input_shape
    points = rows * cols
    macs = points * 9 * planes * filters                   # the stem's 3x3 convolution
    macs += blocks * 2 * points * 9 * filters * filters    # two 3x3 convolutions a block
    macs += points * filters * policy_filters + policy_filters * points * num_moves  # policy head: 1x1 conv, dense
    macs += points * filters * value_filters + value_filters * points * value_units + value_units  # value head
    for head in auxiliary:
        macs += points * filters if AUXILIARY_HEADS[head] == "board" else value_units
    return 2 * macs
