"""The network from scratch: every gradient against finite differences, and the
same network trained in numpy and in Keras following the same loss curve."""
from __future__ import annotations

import numpy as np
import pytest

from dlgo.core.errors import SpecError
from engines.neural.numpy_network import (SGD, Dense, MeanSquaredError, Network, ReLU, Sigmoid,
                                          SoftmaxCrossEntropy, Tanh, numerical_gradient, softmax, train)


@pytest.mark.parametrize("activation", [ReLU, Sigmoid, Tanh])
@pytest.mark.parametrize("loss_name", ["cross-entropy", "mse"])
def test_every_gradient_agrees_with_finite_differences(activation, loss_name):
    rng = np.random.default_rng(1)
    net = Network([Dense(4, 5, rng), activation(), Dense(5, 3, rng)])
    x = rng.normal(size=(6, 4))
    if loss_name == "cross-entropy":
        loss, targets = SoftmaxCrossEntropy(), softmax(rng.normal(size=(6, 3)))  # soft targets too
    else:
        loss, targets = MeanSquaredError(), rng.normal(size=(6, 3))

    def value() -> float:
        return loss.forward(net.forward(x), targets)

    value()
    net.backward(loss.backward())
    analytic = [grad.copy() for _, grad in net.parameters()]
    for (parameter, _), grad in zip(net.parameters(), analytic):
        np.testing.assert_allclose(grad, numerical_gradient(value, parameter), rtol=1e-5, atol=1e-8)
    # and the gradient with respect to the input, which the layers below would receive
    value()
    grad_x = x.copy()
    out = loss.backward()
    for layer in reversed(net.layers):
        out = layer.backward(out)
    grad_x = out
    np.testing.assert_allclose(grad_x, numerical_gradient(value, x), rtol=1e-5, atol=1e-8)


def test_sgd_steps_against_the_gradient_with_momentum():
    w, g = np.array([1.0, -2.0]), np.array([0.5, 0.5])
    sgd = SGD(0.1, momentum=0.9)
    sgd.step([(w, g)])
    np.testing.assert_allclose(w, [0.95, -2.05])
    sgd.step([(w, g)])  # velocity 0.9 * -0.05 - 0.05
    np.testing.assert_allclose(w, [0.855, -2.145])


def test_training_needs_epochs_and_batches():
    net = Network([Dense(2, 2, np.random.default_rng(0))])
    with pytest.raises(SpecError):
        train(net, MeanSquaredError(), np.zeros((4, 2)), np.zeros((4, 2)), epochs=0, batch_size=2, optimizer=SGD(0.1))


def test_numpy_and_keras_follow_the_same_loss_curve():
    """The same architecture and initial weights, the same batches in the same
    order and plain SGD: the per-epoch losses agree to float32 precision."""
    from engines.neural.backend import keras

    rng = np.random.default_rng(3)
    x = rng.normal(size=(96, 6)).astype(np.float32)
    labels = (x[:, 0] + x[:, 1] * x[:, 2] > 0).astype(int)
    targets = np.eye(2, dtype=np.float32)[labels]
    net = Network([Dense(6, 16, rng), ReLU(), Dense(16, 2, rng)])
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
    model.set_weights([p.astype(np.float32) for p, _ in net.parameters()])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1),
                  loss=keras.losses.CategoricalCrossentropy(from_logits=True))
    ours = [row["loss"] for row in train(net, SoftmaxCrossEntropy(), x, targets, epochs=8, batch_size=16,
                                          optimizer=SGD(0.1), shuffle=False)]
    theirs = model.fit(x, targets, epochs=8, batch_size=16, shuffle=False, verbose=0).history["loss"]
    assert ours[-1] < ours[0] * 0.9  # it learns
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
    for (ours_w, _), theirs_w in zip(net.parameters(), model.get_weights()):
        np.testing.assert_allclose(ours_w, theirs_w, rtol=1e-3, atol=1e-5)
