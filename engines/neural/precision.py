"""The arithmetic a network can play in, without TensorFlow (the engines check
their ``precision`` option before loading anything)."""
from __future__ import annotations

from dlgo.core.errors import SpecError

#: each precision and its Keras dtype policy: the weights stay float32; bfloat16 is
#: faster on CPUs with AVX512-BF16, both halves on GPUs
PRECISIONS = {"float32": "float32", "bfloat16": "mixed_bfloat16", "float16": "mixed_float16"}


def check_precision(precision: str) -> None:
    """A :class:`SpecError` naming the precisions, for one that is not among them."""
    if precision not in PRECISIONS:
        raise SpecError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
