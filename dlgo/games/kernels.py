"""What every compiled kernel shares: the ``njit`` decorator, SplitMix64, bit counts, a hash set.

The suite's hot loops (Go's board and playouts, the bitboard games' playouts,
the Go engine's tree search) are compiled with numba: plain Python over numpy
arrays, turned into machine code by ``@njit`` on first use and cached on disk
(``cache=True``), so a later process loads them in milliseconds. Each compiled
kernel sits beside a readable reference in pure Python, and the tests check
that the two play the same games move for move: both draw their random numbers
from SplitMix64 (:mod:`dlgo.core.splitmix` is the same generator in Python).

This module imports numba, so the rest of the suite imports it lazily (a game's
playout imports its kernel on first use): ``import dlgo`` and the classic
engines never pay numba's start-up.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable, NamedTuple, TypeVar, cast

import numpy as np
from llvmlite import ir
from numba import njit as _numba_njit
from numba import typeof, types
from numba.core.caching import FunctionCache, InTreeCacheLocator, UserWideCacheLocator, CompileResultCacheImpl
from numba.extending import intrinsic

F = TypeVar("F", bound=Callable[..., Any])

# ------------------------------------------------------------ disk cache
#: the suite's folders; a module that holds compiled code is named ``kernels.py`` or ``*_kernels.py``
SUITE_ROOT = Path(__file__).resolve().parents[2]


def kernel_modules() -> list[Path]:
    """Every module of the suite that holds compiled code."""
    return sorted(path for folder in ("dlgo", "engines") for path in (SUITE_ROOT / folder).rglob("*kernels.py"))


def _sources_stamp() -> str:
    digest = hashlib.sha256()
    for path in kernel_modules():
        digest.update(path.read_bytes())
    return digest.hexdigest()


#: numba keeps a compiled function until *its own* file changes, but a kernel
#: compiles the kernels it calls into itself: one changed helper in another file
#: would leave its callers' cached code stale. So every kernel's cache is keyed
#: by the text of all the kernel modules together.
SOURCES_STAMP = _sources_stamp()


class _InTreeLocator(InTreeCacheLocator):
    def get_source_stamp(self) -> str:
        return SOURCES_STAMP


class _UserWideLocator(UserWideCacheLocator):
    def get_source_stamp(self) -> str:
        return SOURCES_STAMP


class _SuiteCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_InTreeLocator, _UserWideLocator]  # __pycache__ beside the source, else the user's cache


class _SuiteFunctionCache(FunctionCache):
    _impl_class = _SuiteCacheImpl


def _compile(function: F, **options: Any) -> F:
    dispatcher = _numba_njit(**options)(function)
    dispatcher._cache = _SuiteFunctionCache(function)  # what cache=True does, with the suite's key
    return dispatcher


def njit(function: F) -> F:
    """``numba.njit`` as the suite compiles: no Python objects, cached on disk."""
    return _compile(function)


def kernel(function: F) -> F:
    """:func:`njit` for a function that allocates nothing: compiled without numba's
    reference counting. With it, every use of an array passed in a tuple costs two
    atomic counter updates through a function pointer, more than a board step's
    work; a kernel that only reads and writes the arrays it is given needs none.
    (The entry points that allocate, a playout's copy of the board, are :func:`njit`.)"""
    return _compile(function, _nrt=False)


def inline(function: F) -> F:
    """:func:`kernel` for a helper inlined into its callers (a call passes every
    array of a tuple as seven machine words; inlined, it passes nothing)."""
    return _compile(function, _nrt=False, inline="always")


def entry_point(dispatcher: Any, *example: Any) -> Callable[..., Any]:
    """The machine code ``dispatcher`` compiles for arguments of the types of
    ``example``, callable from Python without numba's dispatch (which works out
    the types of every argument on every call: a microsecond or two, as long as
    a whole Connect Four playout). Its callers must pass those types exactly."""
    signature = tuple(typeof(value) for value in example)
    dispatcher.compile(signature)
    return dispatcher.overloads[signature].entry_point


# ------------------------------------------------------------------ bits
@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def _cttz(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return x(x), codegen


#: the number of set bits of an integer (one machine instruction; compiled code only)
popcount = cast(Callable[[Any], int], _ctpop)
#: the index of the lowest set bit of a non-zero integer (compiled code only)
trailing_zeros = cast(Callable[[Any], int], _cttz)


# ------------------------------------------------------------- SplitMix64
GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
TO_UNIT = 1.0 / 9007199254740992.0


@inline
def next64(rng: np.ndarray) -> np.uint64:
    """The next output of the SplitMix64 stream whose state is ``rng[0]``
    (the same numbers as :class:`dlgo.core.splitmix.SplitMix64`)."""
    z = rng[0] + GOLDEN_GAMMA
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


@inline
def uniform(rng: np.ndarray) -> float:
    """A float in [0, 1): :meth:`SplitMix64.random`."""
    return float(next64(rng) >> np.uint64(11)) * TO_UNIT


@inline
def below(rng: np.ndarray, n: int) -> int:
    """An integer in [0, n), as the references draw it: ``int(random() * n)``."""
    return int(uniform(rng) * n)


# --------------------------------------------------------------- hash set
class HashSet(NamedTuple):
    """A set of 64-bit hashes with undo, for superko: open addressing with linear
    probing in ``slots`` (a power of two, at most half full), ``used`` marking the
    filled ones, and ``log`` the slots in the order they were filled, so
    :func:`set_truncate` forgets everything added after a mark (a search adds a
    simulation's positions to the game's and takes them out again)."""

    slots: np.ndarray  # uint64[capacity]
    used: np.ndarray  # bool[capacity]
    log: np.ndarray  # int64[capacity // 2]
    size: np.ndarray  # int64[1]: how many hashes it holds


@njit
def new_hash_set(max_items: int) -> HashSet:
    """An empty set with room for ``max_items`` hashes."""
    capacity = 16
    while capacity < 2 * max_items:
        capacity *= 2
    return HashSet(np.zeros(capacity, np.uint64), np.zeros(capacity, np.bool_),
                   np.zeros(capacity // 2, np.int64), np.zeros(1, np.int64))


@inline
def set_contains(s: HashSet, h: np.uint64) -> bool:
    mask = len(s.slots) - 1
    i = np.int64(h & np.uint64(mask))
    while s.used[i]:
        if s.slots[i] == h:
            return True
        i = (i + 1) & mask
    return False


@inline
def set_add(s: HashSet, h: np.uint64) -> None:
    """Add ``h`` (nothing if it is there already)."""
    mask = len(s.slots) - 1
    i = np.int64(h & np.uint64(mask))
    while s.used[i]:
        if s.slots[i] == h:
            return
        i = (i + 1) & mask
    s.used[i] = True
    s.slots[i] = h
    s.log[s.size[0]] = i
    s.size[0] += 1


@kernel
def set_truncate(s: HashSet, size: int) -> None:
    """Forget the hashes added after the set held ``size`` of them.

    Linear probing stays correct because the hashes leave in the reverse order
    of their arrival: a later arrival never sits in front of an earlier one's probe."""
    while s.size[0] > size:
        s.size[0] -= 1
        s.used[s.log[s.size[0]]] = False
