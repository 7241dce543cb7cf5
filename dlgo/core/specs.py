"""Spec strings: ``name`` or ``name:key=value,key=value``.

One syntax names games (``go:size=9,komi=6.5``) and engines
(``mcts:rounds=800,c=1.4``) in the CLI, tournaments and GTP. Values are typed by
the annotations of the function they are passed to; quote text that holds
commas (``gtp:cmd="gnugo --mode gtp"``).
"""
from __future__ import annotations

import inspect
import math
import types
import typing
from typing import Any, Callable

from dlgo.core.errors import SpecError


def split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:rounds=800,c=1.4"`` -> ``("mcts", {"rounds": "800", "c": "1.4"})``."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    if not rest.strip():
        return name.strip(), params
    items: list[str] = []
    current: list[str] = []
    quote: str | None = None
    for ch in rest:
        if quote:
            if ch == quote:
                quote = None
            else:
                current.append(ch)
        elif ch in "\"'":
            quote = ch
        elif ch == ",":
            items.append("".join(current))
            current = []
        else:
            current.append(ch)
    if quote:
        raise SpecError(f"unbalanced quote in {spec!r}")
    items.append("".join(current))
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"parameters look like key=value, got {item!r} in {spec!r}")
        if key.strip() in params:
            raise SpecError(f"parameter {key.strip()!r} is given twice in {spec!r}")
        params[key.strip()] = value.strip()
    return name.strip(), params


def coerce(value: Any, kind: Any, where: str) -> Any:
    """Turn spec text into the declared type ``kind`` (int, float, bool, str,
    tuples and unions of these); :class:`SpecError` naming ``where`` otherwise."""
    if not isinstance(value, str):
        return value
    union = isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union
    options = typing.get_args(kind) if union else (kind,)
    if type(None) in options and value.lower() in ("none", ""):
        return None
    for option in options:
        if option is bool:
            if value.lower() in ("true", "yes", "on", "1"):
                return True
            if value.lower() in ("false", "no", "off", "0"):
                return False
        elif option in (int, float):
            try:
                number = option(value)
            except ValueError:
                continue
            if not math.isfinite(number):
                raise SpecError(f"{where} must be a finite number, got {value!r}")
            if option is int and not -2**63 <= number < 2**63:  # numpy's and the compiled kernels' int64
                raise SpecError(f"{where} must be a whole number of at most 19 digits, got {value!r}")
            return number
        elif option is str:
            return value
        elif typing.get_origin(option) is tuple:
            parsed = _tuple(value, typing.get_args(option), where)
            if parsed is not None:
                return parsed
    names = " or ".join(" x ".join(getattr(k, "__name__", "...") for k in typing.get_args(o))
                        if typing.get_origin(o) is tuple else getattr(o, "__name__", str(o))
                        for o in options if o is not type(None))
    raise SpecError(f"{where} must be {names}, got {value!r}")


def _tuple(value: str, kinds: tuple[Any, ...], where: str) -> tuple[Any, ...] | None:
    """``"9x13"`` (or ``"9,13"``) as a tuple of ``kinds`` (``(int, int)``, or
    ``(int, ...)`` for any length); None when the text is not one."""
    parts = [part.strip() for part in value.replace("x", ",").split(",")]
    if len(kinds) == 2 and kinds[1] is Ellipsis:
        kinds = (kinds[0],) * len(parts)
    if len(parts) != len(kinds) or not all(parts):
        return None
    try:
        return tuple(coerce(part, kind, where) for part, kind in zip(parts, kinds))
    except SpecError:
        return None


#: the longest time in seconds a spec may give (a day): a longer one is a typo, and
#: the platform's clocks and waits overflow near 1e10 s (an OverflowError mid-game)
MAX_SECONDS = 86_400.0


def require_seconds(value: float, where: str, positive: bool = False) -> None:
    """A :class:`SpecError` unless ``value`` is a time a spec may give: at least 0
    (above 0 with ``positive``) and at most :data:`MAX_SECONDS` (NaN fails it)."""
    require((0 < value if positive else 0 <= value) and value <= MAX_SECONDS,
            f"{where} must be a number of seconds {'above' if positive else 'at least'} 0 and at most "
            f"{MAX_SECONDS:g} (a day), got {value}")


def require(condition: bool, message: str) -> None:
    """A :class:`SpecError` with ``message`` unless ``condition``: how engines and
    games check the range of a parameter (write ``0 <= x < inf``: NaN fails it)."""
    if not condition:
        raise SpecError(message)


def bind(func: Callable, params: dict[str, Any], what: str) -> dict[str, Any]:
    """Check ``params`` against ``func``'s signature and type them; unknown names
    are an error that lists the valid ones with their defaults. A class is read
    through its ``__init__``."""
    signature = inspect.signature(func)
    hints = typing.get_type_hints(func.__init__ if inspect.isclass(func) else func)
    declared = {n: p for n, p in signature.parameters.items() if n != "self"}
    unknown = [k for k in params if k not in declared]
    if unknown:
        valid = ", ".join(f"{n}={p.default!r}" for n, p in declared.items()) or "none"
        raise SpecError(f"{what} has no parameter {', '.join(map(repr, unknown))}; its parameters are: {valid}")
    return {k: coerce(v, hints.get(k, str), f"{what} parameter {k!r}") for k, v in params.items()}


def format_spec(name: str, params: dict[str, Any]) -> str:
    """The canonical spec text for ``name`` with ``params``."""
    def text(value: Any) -> str:
        s = str(value).lower() if isinstance(value, bool) else str(value)
        return f'"{s}"' if any(c in s for c in ",: ") else s

    return name + (":" + ",".join(f"{k}={text(v)}" for k, v in params.items()) if params else "")
