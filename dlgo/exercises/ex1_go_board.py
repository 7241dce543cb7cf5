"""Exercise 1 (chapter 3): a Go board with strings, captures and Zobrist hashing,
checked against the library's board (:class:`dlgo.goboard.Board`) move by move."""
from __future__ import annotations

import importlib
import random
from typing import Any

from dlgo.core.types import Player, Point
from dlgo.exercises.checking import Check, Exercise, expect
from dlgo.games import new_game
from dlgo.goboard import Board as LibraryBoard

B, W = Player.black, Player.white


def _board(module: Any, size: int = 9) -> Any:
    return module.Board(size, size)


def _describe(string: Any) -> str:
    if string is None:
        return "no string"
    stones = ", ".join(f"({p.row},{p.col})" for p in sorted(string.stones))
    return (f"a {string.color.name} string of {len(string.stones)} stone(s) [{stones}] "
            f"with {string.num_liberties} liberties")


def _same_string(ours: Any, theirs: Any, point: Point, moves: list[str]) -> None:
    played = f" after {' '.join(moves)}" if moves else ""
    if theirs is None:
        expect(ours is None,
               f"point ({point.row},{point.col}) is empty{played}, but get_go_string gave {_describe(ours)}")
        return
    expect(ours is not None, f"get_go_string({point}) gave None{played}; expected {_describe(theirs)}")
    expect(ours.color == theirs.color and set(ours.stones) == set(theirs.stones)
           and set(ours.liberties) == set(theirs.liberties),
           f"at ({point.row},{point.col}){played}: your board has {_describe(ours)}, expected {_describe(theirs)}"
           + (f"; its liberties should be {sorted(tuple(p) for p in theirs.liberties)}"
              if set(ours.stones) == set(theirs.stones) else ""))
    expect(ours.num_liberties == len(theirs.liberties),
           f"num_liberties is {ours.num_liberties} for a string with {len(theirs.liberties)} liberties")


def _compare(ours: Any, theirs: LibraryBoard, size: int, moves: list[str], hashes: bool = False) -> None:
    for row in range(1, size + 1):
        for col in range(1, size + 1):
            point = Point(row, col)
            colour = theirs.get(point)
            expect(ours.get(point) == colour, f"after {' '.join(moves) or 'no moves'}: get(Point({row}, {col})) "
                                             f"is {ours.get(point)}, expected {colour}")
            _same_string(ours.get_go_string(point), theirs.get_go_string(point), point, moves)
    if hashes:
        expect(ours.zobrist_hash() == theirs.zobrist_hash(),
               f"after {' '.join(moves) or 'no moves'}: zobrist_hash() is {ours.zobrist_hash()}, "
               f"expected {theirs.zobrist_hash()}")


def _play(module: Any, size: int, stones: list[tuple[Player, int, int]], hashes: bool = False) -> None:
    """Place ``stones`` one by one on both boards, comparing after each."""
    ours, theirs = _board(module, size), LibraryBoard(size, size)
    moves: list[str] = []
    for player, row, col in stones:
        ours.place_stone(player, Point(row, col))
        theirs.place_stone(player, Point(row, col))
        moves.append(f"{str(player)}({row},{col})")
        _compare(ours, theirs, size, moves, hashes)


def empty_board(module: Any) -> None:
    ours = _board(module)
    _compare(ours, LibraryBoard(9, 9), 9, [])


def lone_stones(module: Any) -> None:
    for row, col, liberties in ((5, 5, 4), (1, 5, 3), (1, 1, 2)):
        ours = _board(module)
        ours.place_stone(B, Point(row, col))
        string = ours.get_go_string(Point(row, col))
        expect(string is not None and string.num_liberties == liberties,
               f"a lone stone at ({row},{col}) has {liberties} liberties; your board says "
               f"{None if string is None else string.num_liberties}")
    _play(module, 9, [(B, 5, 5), (W, 1, 1), (B, 9, 5)])


def strings_join(module: Any) -> None:
    _play(module, 9, [(B, 5, 5), (B, 5, 6), (W, 4, 5), (B, 5, 7), (B, 6, 6), (W, 9, 9), (B, 4, 7), (B, 4, 6)])


def captures(module: Any) -> None:
    _play(module, 9, [(W, 1, 1), (B, 1, 2), (B, 2, 1)])  # a corner stone
    _play(module, 9, [(W, 5, 5), (W, 5, 6), (W, 6, 5), (B, 4, 5), (B, 4, 6), (B, 5, 4), (B, 6, 4), (B, 7, 5),
                      (B, 6, 6), (B, 5, 7)])  # three stones in the middle
    _play(module, 5, [(B, 1, 2), (B, 2, 1), (W, 1, 3), (W, 2, 2), (W, 3, 1), (W, 1, 1)])  # a capture that saves


def random_games(module: Any, games: int = 6, hashes: bool = False, seed: int = 3) -> None:
    """Whole random games (captures, ko and all), played by the library's rules."""
    rng = random.Random(seed)
    for size in (9,) * (games - 1) + (5,):
        state = new_game(f"go:size={size}")
        ours, theirs = _board(module, size), LibraryBoard(size, size)
        moves: list[str] = []
        while not state.is_over() and len(moves) < 3 * size * size:
            plays = [m for m in state.legal_moves() if m.is_play]
            if not plays:
                break
            move = rng.choice(plays)
            assert move.point is not None
            ours.place_stone(state.next_player, move.point)
            theirs.place_stone(state.next_player, move.point)
            moves.append(f"{state.next_player}({move.point.row},{move.point.col})")
            state = state.apply_move(move)
            _compare(ours, theirs, size, moves[-12:] if len(moves) > 12 else moves, hashes)


def hashes_by_hand(module: Any) -> None:
    _play(module, 9, [(B, 3, 3), (W, 7, 7), (B, 3, 4)], hashes=True)
    first, second = _board(module), _board(module)
    for player, point in ((B, Point(3, 3)), (W, Point(7, 7)), (B, Point(5, 5))):
        first.place_stone(player, point)
    for player, point in ((B, Point(5, 5)), (W, Point(7, 7)), (B, Point(3, 3))):
        second.place_stone(player, point)
    expect(first.zobrist_hash() == second.zobrist_hash(),
           "the same stones placed in another order give another hash")
    _play(module, 9, [(W, 1, 1), (B, 1, 2), (B, 2, 1)], hashes=True)  # a capture takes its key out again


def hashes_in_games(module: Any) -> None:
    random_games(module, games=4, hashes=True, seed=11)


EXERCISE = Exercise(
    number=1, chapter="3", title="a Go board: strings, captures, Zobrist hashing", file="ex1_go_board.py",
    step="step 1, after the random games", writes=["Board.__init__", "get", "get_go_string", "place_stone",
                                                   "zobrist_hash"],
    reference=lambda: importlib.import_module("dlgo.goboard"),
    checks=[
        Check("an empty board", empty_board, [
            "what do get and get_go_string answer for a point with no stone on it?",
            "get and get_go_string return None on every point of a new board"]),
        Check("a lone stone's liberties", lone_stones, [
            "which of a stone's neighbours count as liberties, and what about points off the board?",
            "a liberty is an empty neighbour on the board: 4 in the middle, 3 on an edge, 2 in a corner"]),
        Check("stones join into strings", strings_join, [
            "a new stone next to stones of its colour does not start a string of its own: what happens to them?",
            "it merges with every friendly string next to it, however many there are; the merged string's "
            "liberties are theirs and its own together, less the points that are now occupied",
            "a new stone merges with every string of its colour next to it: one string, the union of the "
            "stones, and the union of the liberties minus the points now occupied"]),
        Check("captures", captures, [
            "after a stone is placed, which strings can have lost their last liberty?",
            "the opponent's strings next to the new stone lose a liberty; one left with none leaves the board, "
            "and the points it frees are liberties again for the strings around them",
            "after placing, look at the opponent's strings next to the stone: one with no liberty left "
            "leaves the board, and each of its points becomes a liberty of the strings next to it; "
            "capture before you count the new stone's own liberties"]),
        Check("whole random games", random_games, [
            "replay the moves the message names on your board and look at the strings around the last one",
            "compare your board with dlgo.goboard.Board after each move of a random game (the message "
            "names the last moves)"]),
        Check("Zobrist: the hash of the stones", hashes_by_hand, [
            "the hash depends only on which stones are where: what must change when a stone arrives or leaves?",
            "XOR zobrist_key(colour, point) in when a stone is placed and again when it is captured (XOR "
            "undoes itself); the order of the stones does not matter"]),
        Check("Zobrist: hashes through whole games", hashes_in_games, [
            "where in a game can stones leave the board, and does your hash know?",
            "every capture must take its stones' keys out of the hash"]),
    ],
)
