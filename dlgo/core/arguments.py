"""Argparse types shared by the ``dlgo`` command and the experiment scripts: a
bad number is argparse's one-line usage error, never a traceback; and
:func:`setting`, a settings dataclass's field that is also an option."""
from __future__ import annotations

import argparse
import math
from dataclasses import field
from typing import Any, Callable, TypeVar

T = TypeVar("T")


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


def setting(default: T, about: str, item: type = str) -> T:
    """A field of a run's settings dataclass that the command line offers as an
    option (``dlgo.app.cli.shared.add_config_options``): its default, what it is
    (``about``: the option's help) and, for a list, the type of its items. A
    list default is copied for each instance."""
    metadata: dict[str, Any] = {"help": about, "item": item}
    if isinstance(default, list):
        items = list(default)
        return field(default_factory=lambda: list(items), metadata=metadata)  # type: ignore[return-value]
    return field(default=default, metadata=metadata)
