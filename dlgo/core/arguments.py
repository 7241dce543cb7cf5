"""Argparse types shared by the ``dlgo`` command and the experiment scripts: a
bad number is argparse's one-line usage error, never a traceback; and
:func:`setting`, a settings dataclass's field that is also an option, with
:func:`check_types`, which checks such fields' types when they are read back."""
from __future__ import annotations

import argparse
import math
import typing
from dataclasses import field, fields
from typing import Any, Callable, Literal, TypeVar

from dlgo.core.errors import SpecError
from dlgo.core.specs import MAX_SECONDS

T = TypeVar("T")

#: the kinds of count the command lines read (:func:`count`)
Kind = Literal["games", "positions", "simulations", "steps", "plies", "processes", "units"]

#: the most a count of each kind may be: past it a run would not end in a lifetime or would
#: fill the memory before its first game (a tournament lists its games up front), so a larger
#: count is a typo, refused in one line before anything runs
MOST: dict[Kind, int] = {
    "games": 1_000_000,         # games to play: in all, per pair, per level, per iteration, at once
    "positions": 10_000_000,    # positions and examples: a data set's, a batch's, a set's
    "simulations": 10_000_000,  # a search's simulations, rounds or considered moves a move
    "steps": 1_000_000,         # training's iterations, generations, epochs and passes
    "plies": 10_000,            # plies into one game: an opening, a move number, a depth, moves listed
    "processes": 1_024,         # workers, engines or sessions alive at once
    "units": 4_096,             # a network's size: hidden units, filters, residual blocks
}

#: the highest TCP port
MAX_PORT = 65_535


def whole(least: int, most: int, unit: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number from ``least`` to ``most`` (of ``unit``, as its error says)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        if value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most:,}{' ' + unit if unit else ''}, got {text[:40]}")
        return value
    return parse


def count(kind: Kind, least: int = 1) -> Callable[[str], int]:
    """An argparse type: a count of ``kind`` (games, ...), at least ``least`` and at most
    its :data:`MOST`. Every count a command line reads is one of these."""
    return whole(least, MOST[kind], kind)


def span(kind: Kind) -> Callable[[str], tuple[int, int]]:
    """An argparse type: ``LOW-HIGH``, two counts of ``kind`` (0 allowed), the lower first."""
    def parse(text: str) -> tuple[int, int]:
        low, dash, high = text.partition("-")
        if not dash:
            raise argparse.ArgumentTypeError(f"expected LOW-HIGH, e.g. 4-26, got {text[:40]!r}")
        bounds = whole(0, MOST[kind], kind)(low), whole(0, MOST[kind], kind)(high)
        if bounds[0] > bounds[1]:
            raise argparse.ArgumentTypeError(f"the lower bound first, got {text[:40]}")
        return bounds
    return parse


def number(least: float | None = None, above: float | None = None,
           most: float | None = None) -> Callable[[str], float]:
    """An argparse type: a finite number, at least ``least`` or above ``above``, and at most ``most``."""
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
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most:g}, got {value:g}")
        return value
    return parse


def seconds() -> Callable[[str], float]:
    """An argparse type for a time limit: a number of seconds above 0 and at most
    a day (:data:`~dlgo.core.specs.MAX_SECONDS`), so that no wait overflows a clock."""
    return number(above=0, most=MAX_SECONDS)


def setting(default: T, about: str, item: type = str, counts: Kind | None = None) -> T:
    """A field of a run's settings dataclass that the command line offers as an
    option (``dlgo.app.cli.shared.add_config_options``): its default, what it is
    (``about``: the option's help), for a list the type of its items, and for a
    count (or a list of them) what it counts, which bounds it (:data:`MOST`). A
    list default is copied for each instance."""
    metadata: dict[str, Any] = {"help": about, "item": item, "counts": counts}
    if isinstance(default, list):
        items = list(default)
        return field(default_factory=lambda: list(items), metadata=metadata)  # type: ignore[return-value]
    return field(default=default, metadata=metadata)


def check_types(settings: Any) -> None:
    """A :class:`SpecError` naming the first field of the settings dataclass
    ``settings`` whose value is not of its declared type (a whole number, a
    number, a string, true or false, or a list of the field's items), or that
    is a count past its kind's :data:`MOST`: settings read back from a file
    (``config.json``) may hold anything."""
    hints = typing.get_type_hints(type(settings))
    for f in fields(settings):
        value, kind = getattr(settings, f.name), hints[f.name]
        item = typing.get_args(kind)[0] if typing.get_origin(kind) is list else None
        fits = isinstance(value, list) and all(_is(v, item) for v in value) if item else _is(value, kind)
        if not fits:
            wanted = f"a list, each {_NAMES[item]}" if item else _NAMES[kind]
            raise SpecError(f"{f.name} must be {wanted}, got {value!r}")
        counts = f.metadata.get("counts")
        if counts and any(v > MOST[counts] for v in (value if isinstance(value, list) else [value])):
            raise SpecError(f"{f.name} must be at most {MOST[counts]:,} {counts}, got {value}")


#: the types a setting may have, as its error names them
_NAMES = {int: "a whole number", float: "a number", str: "a string", bool: "true or false"}


def _is(value: Any, kind: type) -> bool:
    """Is ``value`` a ``kind`` as a setting means it (a whole number is a number; true is neither)?"""
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)
