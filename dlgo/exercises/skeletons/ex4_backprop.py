"""Exercise 4 (chapter 5): backpropagation by hand, in numpy.

Write the forward and backward passes of three pieces of a network: a dense
layer, the sigmoid and the softmax cross-entropy loss. ``dlgo exercise check 4``
compares your gradients with numerical ones (finite differences) and trains a
small network built from your pieces on XOR, with the library's optimizer.

Shapes: a batch ``x`` has one example per row, ``(batch, inputs)``. Each
``backward`` receives the gradient of the loss with respect to the layer's
output (same shape as the output) and returns the gradient with respect to its
input; a dense layer also stores the gradients of its weights and bias.
"""
from __future__ import annotations

import numpy as np


class Dense:
    """``y = x @ weights + bias``."""

    def __init__(self, inputs: int, outputs: int, rng: np.random.Generator):
        limit = np.sqrt(6.0 / (inputs + outputs))  # Glorot uniform, as Keras starts
        self.weights = rng.uniform(-limit, limit, size=(inputs, outputs))
        self.bias = np.zeros(outputs)
        self.weights_grad = np.zeros_like(self.weights)
        self.bias_grad = np.zeros_like(self.bias)

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The layer's output for the batch ``x`` (keep what backward will need)."""
        raise NotImplementedError("Dense.forward")

    def backward(self, grad: np.ndarray) -> np.ndarray:
        """Set ``weights_grad`` and ``bias_grad`` (summed over the batch) from
        ``grad``, the loss's gradient at the output; return the gradient at the input."""
        raise NotImplementedError("Dense.backward")

    def parameters(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(parameter, its gradient) pairs, for the optimizer."""
        return [(self.weights, self.weights_grad), (self.bias, self.bias_grad)]


class Sigmoid:
    """``1 / (1 + exp(-x))``, element by element."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError("Sigmoid.forward")

    def backward(self, grad: np.ndarray) -> np.ndarray:
        """The gradient at the input: ``grad`` times the sigmoid's derivative, ``y (1 - y)``."""
        raise NotImplementedError("Sigmoid.backward")

    def parameters(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return []


class SoftmaxCrossEntropy:
    """The mean over the batch of ``-sum(targets * log(softmax(logits)))``."""

    def forward(self, logits: np.ndarray, targets: np.ndarray) -> float:
        """The loss of the batch (``targets``: one row per example, summing to 1)."""
        raise NotImplementedError("SoftmaxCrossEntropy.forward")

    def backward(self) -> np.ndarray:
        """The loss's gradient with respect to the logits of the last forward."""
        raise NotImplementedError("SoftmaxCrossEntropy.backward")
