"""Counts in words, for reports, plots and the command line: ``1 simulation``, ``4 simulations``."""
from __future__ import annotations

from typing import Sequence, SupportsInt


def plural(count: SupportsInt | Sequence[SupportsInt], word: str) -> str:
    """``count`` and ``word`` (singular), the word plural unless the count is one: ``1 simulation``,
    ``1,000 simulations``; a list of counts is joined, ``1, 4 simulations`` (``1 simulation`` alone)."""
    counts = [int(n) for n in count] if isinstance(count, Sequence) else [int(count)]
    return f"{', '.join(f'{n:,}' for n in counts)} {word}{'' if counts == [1] else 's'}"


def amount(value: float, units: str) -> str:
    """``value`` as a whole number with its ``units`` (a plural, as a compute record names
    them), singular where the number shows as one: ``1 round``, ``2,048 rounds``, ``1 evaluation``."""
    shown = f"{value:,.0f}"
    return f"{shown} {units.removesuffix('s') if shown == '1' else units}"
