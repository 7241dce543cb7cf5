"""SplitMix64: the random generator the compiled playouts and their readable references share.

A compiled playout (:mod:`dlgo.games.kernels`) cannot call Python's
``random.Random``, so it draws from SplitMix64 (Steele, Lea & Flood, "Fast
splittable pseudorandom number generators", OOPSLA 2014): 64 bits of state, an
add and two multiply-xorshift rounds a number. This class is the same generator
in plain Python integers, so a readable reference playout driven by
``SplitMix64(seed).random`` draws exactly the numbers its compiled twin draws from
the same seed, and the two play the same game move for move (the tests check it).

>>> rng = SplitMix64(0)
>>> round(rng.random(), 6), round(rng.random(), 6)
(0.883311, 0.431528)
"""
from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_1 = 0xBF58476D1CE4E5B9
MIX_2 = 0x94D049BB133111EB
#: 2**-53: a 53-bit integer times this is a float in [0, 1), every value equally likely
TO_UNIT = 1.0 / 9007199254740992.0


class SplitMix64:
    """A SplitMix64 stream from ``seed`` (any integer; taken modulo 2**64)."""

    __slots__ = ("state",)

    def __init__(self, seed: int):
        self.state = seed & MASK64

    def next64(self) -> int:
        """The next 64-bit output."""
        self.state = z = (self.state + GOLDEN_GAMMA) & MASK64
        z = ((z ^ (z >> 30)) * MIX_1) & MASK64
        z = ((z ^ (z >> 27)) * MIX_2) & MASK64
        return z ^ (z >> 31)

    def random(self) -> float:
        """A float in [0, 1) from the top 53 bits of the next output."""
        return (self.next64() >> 11) * TO_UNIT
