"""Argparse types shared by the ``dlgo`` command and the experiment scripts: a
bad number is argparse's one-line usage error, never a traceback."""
from __future__ import annotations

import argparse
import math
from typing import Callable


def whole(least: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value
    return parse


def number(least: float | None = None, above: float | None = None) -> Callable[[str], float]:
    """An argparse type: a finite number, at least ``least`` or above ``above``."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        if least is not None and value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least:g}, got {value:g}")
        if above is not None and value <= above:
            raise argparse.ArgumentTypeError(f"must be above {above:g}, got {value:g}")
        return value
    return parse
