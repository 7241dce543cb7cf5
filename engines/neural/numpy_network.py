"""A neural network from scratch in numpy: the book's chapter 5, readable end to end.

Everything a deep-learning library does for a small fully connected network, in
a few dozen lines each:

* **layers** with a ``forward`` pass (remembering its input) and a ``backward``
  pass (given the gradient of the loss with respect to its output, it stores the
  gradients of its own parameters and returns the gradient with respect to its
  input): :class:`Dense`, and the activations :class:`ReLU`, :class:`Sigmoid`
  and :class:`Tanh`;
* **losses** with a value and a gradient: :class:`SoftmaxCrossEntropy` (the
  softmax and the cross-entropy together, whose gradient is simply
  ``probabilities - targets``) and :class:`MeanSquaredError`;
* **backpropagation**: :meth:`Network.backward` runs the layers' backward passes
  in reverse order (the chain rule, one layer at a time);
* **mini-batch stochastic gradient descent**: :class:`SGD` and :func:`train`.

>>> rng = np.random.default_rng(0)
>>> net = Network([Dense(2, 8, rng), Tanh(), Dense(8, 2, rng)])
>>> x = rng.normal(size=(64, 2))
>>> labels = (x[:, 0] * x[:, 1] > 0).astype(int)          # the XOR of two signs
>>> history = train(net, SoftmaxCrossEntropy(), x, np.eye(2)[labels], epochs=300, batch_size=16,
...                 optimizer=SGD(0.5), rng=rng)
>>> history[0]["loss"] > 0.6 > 0.2 > history[-1]["loss"]
True

No TensorFlow here: ``tests/test_numpy_network.py`` checks every gradient against
finite differences and trains the same network with the same initial weights in
numpy and in Keras, step for step.
"""
from __future__ import annotations

import abc
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from dlgo.core.errors import SpecError


class Layer(Protocol):
    """One step of the network."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The output for the batch ``x`` (rows are examples); remembers what backward needs."""
        ...

    def backward(self, grad: np.ndarray) -> np.ndarray:
        """Given d loss / d output, store d loss / d parameters and return d loss / d input."""
        ...

    def parameters(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(parameter, its gradient) pairs, updated in place by the optimizer."""
        ...


class Dense:
    """``y = x @ W + b``, initialised like Keras's default (Glorot uniform weights, zero biases)."""

    def __init__(self, inputs: int, outputs: int, rng: np.random.Generator):
        limit = np.sqrt(6.0 / (inputs + outputs))
        self.weights = rng.uniform(-limit, limit, size=(inputs, outputs))
        self.bias = np.zeros(outputs)
        self.weights_grad = np.zeros_like(self.weights)
        self.bias_grad = np.zeros_like(self.bias)
        self._x = np.zeros((0, inputs))

    def forward(self, x: np.ndarray) -> np.ndarray:
        self._x = x
        return x @ self.weights + self.bias

    def backward(self, grad: np.ndarray) -> np.ndarray:
        self.weights_grad[...] = self._x.T @ grad   # each weight's share: its input times the output's gradient
        self.bias_grad[...] = grad.sum(axis=0)
        return grad @ self.weights.T                 # how the loss changes with each input

    def parameters(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [(self.weights, self.weights_grad), (self.bias, self.bias_grad)]


class _Activation(abc.ABC):
    """An elementwise function: no parameters; backward multiplies by its derivative."""

    def __init__(self) -> None:
        self._y = np.zeros(0)
        self._x = np.zeros(0)

    @abc.abstractmethod
    def forward(self, x: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def backward(self, grad: np.ndarray) -> np.ndarray: ...

    def parameters(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return []


class ReLU(_Activation):
    """``max(0, x)``."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        self._x = x
        return np.maximum(x, 0.0)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return grad * (self._x > 0)


class Sigmoid(_Activation):
    """``1 / (1 + exp(-x))``, whose derivative is ``y (1 - y)``."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        self._y = 1.0 / (1.0 + np.exp(-x))
        return self._y

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return grad * self._y * (1.0 - self._y)


class Tanh(_Activation):
    """``tanh(x)``, whose derivative is ``1 - y^2``."""

    def forward(self, x: np.ndarray) -> np.ndarray:
        self._y = np.tanh(x)
        return self._y

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return grad * (1.0 - self._y ** 2)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Probabilities from scores, row by row (shifted by the row maximum, so exp never overflows)."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class SoftmaxCrossEntropy:
    """The mean cross-entropy of ``softmax(logits)`` against target distributions
    (one-hot labels, or several right answers sharing the probability)."""

    def __init__(self) -> None:
        self._p = np.zeros(0)
        self._targets = np.zeros(0)

    def forward(self, logits: np.ndarray, targets: np.ndarray) -> float:
        self._p, self._targets = softmax(logits), targets
        return float(-(targets * np.log(np.clip(self._p, 1e-12, 1.0))).sum(axis=1).mean())

    def backward(self) -> np.ndarray:
        return (self._p - self._targets) / len(self._p)


class MeanSquaredError:
    """The mean over examples and outputs of ``(prediction - target)^2``."""

    def __init__(self) -> None:
        self._diff = np.zeros(0)

    def forward(self, predictions: np.ndarray, targets: np.ndarray) -> float:
        self._diff = predictions - targets
        return float((self._diff ** 2).mean())

    def backward(self) -> np.ndarray:
        return 2.0 * self._diff / self._diff.size


class Loss(Protocol):
    def forward(self, outputs: np.ndarray, targets: np.ndarray) -> float: ...

    def backward(self) -> np.ndarray: ...


class Network:
    """Layers applied in order; backward runs them in reverse (backpropagation)."""

    def __init__(self, layers: Sequence[Layer]):
        self.layers = list(layers)

    def forward(self, x: np.ndarray) -> np.ndarray:
        for layer in self.layers:
            x = layer.forward(x)
        return x

    def backward(self, grad: np.ndarray) -> None:
        for layer in reversed(self.layers):
            grad = layer.backward(grad)

    def parameters(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [pair for layer in self.layers for pair in layer.parameters()]

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The outputs for ``x`` (for a classifier: scores; :func:`softmax` makes them probabilities)."""
        return self.forward(x)


class SGD:
    """Stochastic gradient descent: each parameter takes a step of
    ``learning_rate`` against its gradient (plus ``momentum`` of the step before)."""

    def __init__(self, learning_rate: float, momentum: float = 0.0):
        self.learning_rate = learning_rate
        self.momentum = momentum
        self._velocity: dict[int, np.ndarray] = {}

    def step(self, parameters: list[tuple[np.ndarray, np.ndarray]]) -> None:
        for parameter, grad in parameters:
            velocity = self._velocity.setdefault(id(parameter), np.zeros_like(parameter))
            velocity *= self.momentum
            velocity -= self.learning_rate * grad
            parameter += velocity


def numerical_gradient(f: Callable[[], float], array: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d f / d array by central differences, one entry at a time: the check that
    a backward pass is right (``f`` recomputes the loss from ``array`` as it stands)."""
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        saved = array[index]
        array[index] = saved + eps
        up = f()
        array[index] = saved - eps
        down = f()
        array[index] = saved
        grad[index] = (up - down) / (2 * eps)
    return grad


def train(network: Network, loss: Loss, x: np.ndarray, targets: np.ndarray, *, epochs: int, batch_size: int,
          optimizer: SGD, rng: np.random.Generator | None = None, shuffle: bool = True,
          validation: tuple[np.ndarray, np.ndarray] | None = None) -> list[dict[str, Any]]:
    """Mini-batch gradient descent: per epoch, the examples in (shuffled) batches,
    for each a forward pass, the loss, a backward pass and an optimizer step.
    Returns one row per epoch: the mean training loss over the epoch's batches,
    and the validation loss if ``validation`` is given."""
    if epochs < 1 or batch_size < 1:
        raise SpecError(f"epochs and batch_size must be at least 1, got {epochs} and {batch_size}")
    rng = rng or np.random.default_rng(0)
    history = []
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(x)) if shuffle else np.arange(len(x))
        losses = []
        for start in range(0, len(x), batch_size):
            batch = order[start:start + batch_size]
            losses.append(loss.forward(network.forward(x[batch]), targets[batch]))
            network.backward(loss.backward())
            optimizer.step(network.parameters())
        row: dict[str, Any] = {"epoch": epoch, "loss": float(np.mean(losses))}
        if validation is not None:
            row["val_loss"] = loss.forward(network.forward(validation[0]), validation[1])
        history.append(row)
    return history
