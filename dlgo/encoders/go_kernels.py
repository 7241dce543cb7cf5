"""The Go encoders' planes, written straight from the compiled board.

A search over the compiled board (:mod:`engines.mcts_kernels`) that asks a
network about its positions has no :class:`~dlgo.games.go.state.GoState` to
hand to :meth:`Encoder.encode <dlgo.encoders.base.Encoder.encode>`, and making
one costs more than the network's answer. :func:`encode_board` writes the same
planes from the board's arrays, as an encoder's
:class:`~dlgo.encoders.base.GoPlanes` describes them: each stone in the plane of
its side and its string's liberties (a popcount of the string's liberty
bitset), the planes of who is to move, and the points only ko forbids (a play
that is legal on the board but repeats a position of ``seen``). The tests
check it against every Go encoder's ``encode`` on thousands of positions.
"""
from __future__ import annotations

import numpy as np

from dlgo.encoders.base import GoPlanes
from dlgo.games.go.kernels import BLACK, EMPTY, GoBoard, GoGeometry, hash_after_play, liberty_count, side_key
from dlgo.games.kernels import HashSet, kernel, set_contains


def recipe_array(planes: GoPlanes) -> np.ndarray:
    """An encoder's :class:`GoPlanes` as the int32 array :func:`encode_board` reads."""
    return np.array([int(planes.relative), planes.max_liberties, planes.black_turn, planes.white_turn, planes.ko],
                    np.int32)


@kernel
def encode_board(b: GoBoard, g: GoGeometry, c: int, seen: HashSet, recipe: np.ndarray, out: np.ndarray) -> None:
    """Write the planes of the position ``b`` (``c`` to move; ``seen``: the
    positions before it, side to move included) into ``out``, a float32
    ``(rows, cols, planes)`` array, as ``recipe`` (:func:`recipe_array`) says."""
    relative, max_liberties, black_turn, white_turn, ko = recipe[0], recipe[1], recipe[2], recipe[3], recipe[4]
    rows, cols, planes = out.shape
    for r in range(rows):
        for col in range(cols):
            for k in range(planes):
                out[r, col, k] = 0.0
    side = side_key(3 - c)
    for p in range(len(b.color)):
        r, col = p // cols, p % cols
        stone = b.color[p]
        if stone != EMPTY:
            if max_liberties == 0:
                out[r, col, 0] = 1.0 if stone == c else -1.0
            else:
                first = stone == c if relative != 0 else stone == BLACK
                libs = min(liberty_count(b, b.string[p]), max_liberties)
                out[r, col, (0 if first else max_liberties) + libs - 1] = 1.0
        elif ko >= 0:
            legal, h = hash_after_play(b, g, p, c)
            if legal and set_contains(seen, h ^ side):
                out[r, col, ko] = 1.0
    turn = black_turn if c == BLACK else white_turn
    if turn >= 0:
        for r in range(rows):
            for col in range(cols):
                out[r, col, turn] = 1.0
