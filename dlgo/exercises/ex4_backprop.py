"""Exercise 4 (chapter 5): backpropagation, checked against finite differences
and the library's numpy network (:mod:`engines.neural.numpy_network`)."""
from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from dlgo.exercises.checking import Check, Exercise, expect
from engines.neural import numpy_network as library
from engines.neural.numpy_network import numerical_gradient

def _close(got: Any, expected: np.ndarray, what: str) -> None:
    got = np.asarray(got, dtype=float)
    expect(got.shape == expected.shape, f"{what} has shape {got.shape}; expected {expected.shape}")
    error = float(np.max(np.abs(got - expected))) if got.size else 0.0
    expect(error < 1e-5 * max(1.0, float(np.max(np.abs(expected)))),
           f"{what} is off by up to {error:.2g}; expected\n{np.round(expected, 5)}\n got\n{np.round(got, 5)}")


def dense_forward(module: Any) -> None:
    rng = np.random.default_rng(0)
    layer = module.Dense(3, 2, rng)
    layer.weights[...] = [[1.0, -1.0], [0.5, 2.0], [0.0, 1.0]]
    layer.bias[...] = [0.1, -0.2]
    x = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]])
    _close(layer.forward(x), x @ layer.weights + layer.bias, "Dense.forward")


def dense_backward(module: Any) -> None:
    rng = np.random.default_rng(1)
    layer = module.Dense(4, 3, rng)
    x, upstream = rng.normal(size=(5, 4)), rng.normal(size=(5, 3))

    def loss() -> float:
        return float((layer.forward(x) * upstream).sum())  # its gradient at the output is `upstream`

    layer.forward(x)
    grad_x = layer.backward(upstream)
    _close(layer.weights_grad, numerical_gradient(loss, layer.weights), "Dense.weights_grad")
    _close(layer.bias_grad, numerical_gradient(loss, layer.bias), "Dense.bias_grad")
    _close(grad_x, numerical_gradient(loss, x), "the gradient Dense.backward returns")


def sigmoid(module: Any) -> None:
    rng = np.random.default_rng(2)
    layer = module.Sigmoid()
    x, upstream = rng.normal(size=(4, 3)) * 3, rng.normal(size=(4, 3))
    _close(layer.forward(x), 1 / (1 + np.exp(-x)), "Sigmoid.forward")

    def loss() -> float:
        return float((layer.forward(x) * upstream).sum())

    layer.forward(x)
    _close(layer.backward(upstream), numerical_gradient(loss, x), "Sigmoid.backward")


def cross_entropy(module: Any) -> None:
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(6, 4)) * 2
    targets = np.eye(4)[rng.integers(0, 4, size=6)]
    theirs = library.SoftmaxCrossEntropy()
    ours = module.SoftmaxCrossEntropy()
    expected = theirs.forward(logits, targets)
    got = ours.forward(logits, targets)
    expect(abs(float(got) - expected) < 1e-6,
           f"SoftmaxCrossEntropy.forward is {got}; expected {expected:.6f} (the mean over the batch)")
    _close(ours.backward(), numerical_gradient(lambda: float(ours.forward(logits, targets)), logits),
           "SoftmaxCrossEntropy.backward")
    large = np.array([[1000.0, 0.0], [0.0, -1000.0]])
    value = float(ours.forward(large, np.eye(2)))
    expect(np.isfinite(value), "SoftmaxCrossEntropy.forward overflows on logits of 1000: subtract each row's "
                               "maximum before exp")


def learns_xor(module: Any) -> None:
    rng = np.random.default_rng(4)
    network = library.Network([module.Dense(2, 8, rng), module.Sigmoid(), module.Dense(8, 2, rng)])
    x = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    labels = np.array([0, 1, 1, 0])
    history = library.train(network, module.SoftmaxCrossEntropy(), x, np.eye(2)[labels], epochs=3000,
                            batch_size=4, optimizer=library.SGD(0.5, momentum=0.9), rng=rng)
    predicted = network.forward(x).argmax(axis=1)
    expect(history[-1]["loss"] < history[0]["loss"] / 4,
           f"the loss went from {history[0]['loss']:.3f} to {history[-1]['loss']:.3f} in 3,000 epochs")
    expect((predicted == labels).all(), f"after training the network answers {predicted.tolist()} for "
                                        f"XOR's {labels.tolist()}")


EXERCISE = Exercise(
    number=4, chapter="5", title="backpropagation in numpy", file="ex4_backprop.py",
    step="step 4, with ch05_numpy_network.py",
    writes=["Dense.forward", "Dense.backward", "Sigmoid", "SoftmaxCrossEntropy"],
    reference=lambda: importlib.import_module("engines.neural.numpy_network"),
    checks=[
        Check("Dense.forward", dense_forward, [
            "a dense layer is a matrix product and a shift: which shapes must meet?",
            "x has a row per example and weights a row per input; add the bias to every row; the backward pass "
            "will need x",
            "x @ self.weights + self.bias; keep x for the backward pass"]),
        Check("Dense.backward", dense_backward, [
            "the chain rule, one parameter at a time: the gradient of each has the shape of the parameter",
            "each weight's gradient sums input times output gradient over the batch; the bias's sums the output "
            "gradient over the batch; the input's gradient goes back through the transposed weights; write "
            "into the gradient arrays in place so the optimizer sees them",
            "weights_grad = x.T @ grad, bias_grad = grad.sum(axis=0), return grad @ weights.T; write into "
            "the gradient arrays (weights_grad[...] = ...) so the optimizer sees them"]),
        Check("Sigmoid", sigmoid, [
            "the sigmoid's derivative can be written with its own output: which one is cheapest to keep?",
            "keep the output y in forward; backward returns grad * y * (1 - y)"]),
        Check("SoftmaxCrossEntropy", cross_entropy, [
            "softmax then cross-entropy, averaged over the batch: the gradient of the two together is simple",
            "subtract each row's maximum before exp (it does not change the softmax); the loss is the mean over "
            "the batch, so its gradient is divided by the batch size",
            "p = softmax(logits); the loss is -(targets * log p).sum(axis=1).mean(); its gradient is "
            "(p - targets) / batch size"]),
        Check("your pieces learn XOR", learns_xor, [
            "if the gradients pass, look at the signs: the optimizer subtracts the gradient"]),
    ],
)
