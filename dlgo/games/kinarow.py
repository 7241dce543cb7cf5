"""What the k-in-a-row games share: bitboards, win lines, the pie rule.

Tic-tac-toe, gomoku (free placement, :mod:`dlgo.games.mnk`) and Connect Four
(stones fall, :mod:`dlgo.games.connectn`) are all "get k of your stones in a line" games on a
grid. A position is two integers, one bit per cell for each player, with cell
index ``(row - 1) * cols + (col - 1)`` (row 1 at the bottom). A win can only
pass through the stone just played, so each cell has a precomputed list of the
k-cell windows through it: the mover wins if any of them is all theirs.

Pie rule (optional): after the first stone the second player may take it over
instead of playing; the stone becomes theirs and the first player moves again.
The swap is written as a play on the first stone's own point (as in OpenSpiel's
Hex and Havannah); humans type ``swap``.
"""
from __future__ import annotations

import abc
import functools
import random
from typing import Any, Callable, cast

import numpy as np

from dlgo.core import zobrist
from dlgo.core.errors import IllegalMoveError, SpecError
from dlgo.core.game import Game, State
from dlgo.core.grid import grid_plays, grid_points, render_grid
from dlgo.core.splitmix import SplitMix64
from dlgo.core.types import RESIGN, Move, Player, Point

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # horizontal, vertical, two diagonals
_NO_MOVES = np.empty(0, np.int32)
_WINNERS = (None, Player.black, Player.white)


class LineGeometry:
    """Fixed facts of a ``rows x cols`` board with ``k`` in a row to win."""

    def __init__(self, num_rows: int, num_cols: int, k: int):
        if not (1 <= num_rows <= zobrist.MAX_BOARD_SIZE and 1 <= num_cols <= zobrist.MAX_BOARD_SIZE):
            raise SpecError(f"board must be 1..{zobrist.MAX_BOARD_SIZE} on each side, got {num_rows}x{num_cols}")
        if not 1 <= k <= max(num_rows, num_cols):
            raise SpecError(f"k={k} can never be reached on a {num_rows}x{num_cols} board")
        self.num_rows, self.num_cols, self.k = num_rows, num_cols, k
        self.num_cells = num_rows * num_cols
        self.full = (1 << self.num_cells) - 1
        self.points = grid_points(num_rows, num_cols)
        self.plays = grid_plays(num_rows, num_cols)
        self.keys = zobrist.keys_for_grid(num_rows, num_cols)
        windows: list[list[int]] = [[] for _ in range(self.num_cells)]
        self.all_windows: list[int] = []
        for r in range(num_rows):
            for c in range(num_cols):
                for dr, dc in DIRECTIONS:
                    cells = [(r + i * dr, c + i * dc) for i in range(k)]
                    if all(0 <= rr < num_rows and 0 <= cc < num_cols for rr, cc in cells):
                        mask = 0
                        for rr, cc in cells:
                            mask |= 1 << (rr * num_cols + cc)
                        self.all_windows.append(mask)
                        for rr, cc in cells:
                            windows[rr * num_cols + cc].append(mask)
        #: windows_through[cell]: masks of every k-window containing ``cell``.
        self.windows_through: tuple[tuple[int, ...], ...] = tuple(tuple(w) for w in windows)

    def is_win_through(self, bits: int, cell: int) -> bool:
        """Does ``bits`` fill a whole window through ``cell``?"""
        for w in self.windows_through[cell]:
            if bits & w == w:
                return True
        return False

    def index_of(self, point: Point) -> int:
        if not (1 <= point[0] <= self.num_rows and 1 <= point[1] <= self.num_cols):
            raise IllegalMoveError(f"{tuple(point)} is off the {self.num_rows}x{self.num_cols} board")
        return (point[0] - 1) * self.num_cols + (point[1] - 1)


@functools.lru_cache(maxsize=None)
def line_geometry(num_rows: int, num_cols: int, k: int) -> LineGeometry:
    return LineGeometry(num_rows, num_cols, k)


class BitBoard:
    """A read-only board view with the same ``get(point)`` as Go's board."""

    __slots__ = ("geometry", "black", "white")

    def __init__(self, geometry: LineGeometry, black: int, white: int):
        self.geometry, self.black, self.white = geometry, black, white

    @property
    def num_rows(self) -> int:
        return self.geometry.num_rows

    @property
    def num_cols(self) -> int:
        return self.geometry.num_cols

    def is_on_grid(self, point: Point) -> bool:
        return 1 <= point[0] <= self.num_rows and 1 <= point[1] <= self.num_cols

    def color_at(self, cell: int) -> int:
        """0 empty, 1 black, 2 white."""
        bit = 1 << cell
        return 1 if self.black & bit else 2 if self.white & bit else 0

    def get(self, point: Point) -> Player | None:
        c = self.color_at(self.geometry.index_of(point))
        return Player(c) if c else None

    def zobrist_hash(self) -> int:
        keys = self.geometry.keys
        h = 0
        for cell in range(self.geometry.num_cells):
            c = self.color_at(cell)
            if c:
                h ^= keys[c][cell]
        return h


def bits_to_array(bits: int, num_cells: int) -> np.ndarray:
    """A bitboard as a 0/1 int8 vector of ``num_cells`` entries (bit i = cell i)."""
    raw = np.frombuffer(bits.to_bytes((num_cells + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:num_cells].astype(np.int8)


class KInARowGame(Game):
    """A k-in-a-row variant: its line geometry and whether the pie rule is on."""

    def __init__(self, num_rows: int, num_cols: int, k: int, pie_rule: bool = False):
        self.geometry = line_geometry(num_rows, num_cols, k)
        self.num_rows, self.num_cols, self.k = num_rows, num_cols, k
        self.has_swap = self.pie_rule = pie_rule

    @functools.cached_property
    def compiled_playout(self) -> tuple[Callable[..., tuple[int, int]], Any]:
        """The compiled playout and its tables (:func:`dlgo.games.kinarow_kernels.compiled_playout`),
        made on first use."""
        from dlgo.games.kinarow_kernels import compiled_playout
        geo = self.geometry
        start = cast(KInARowState, self.initial_state())
        return compiled_playout(geo.windows_through, geo.num_cols, start._unlocks())

    def compiled_rules(self) -> LineRules | None:
        """The bitboard rules of :class:`LineRules`, for boards of at most 63 cells
        without the pie rule (whose swap the kernels do not play)."""
        from dlgo.games.kinarow_kernels import MAX_CELLS

        if self.pie_rule or self.geometry.num_cells > MAX_CELLS:
            return None
        return LineRules(self.compiled_playout[1])


class LineRules:
    """A k-in-a-row game as the compiled search plays it (:mod:`engines.forest_kernels`):
    the board's tables (windows through each cell; the cell above, in a gravity game,
    whose actions are its columns; else an action is its cell), and a position as
    (black's bitboard, white's, the player to move, the stones on the board)."""

    family = "line"

    def __init__(self, tables: Any):
        self.tables = tables

    def words(self, state: "State") -> tuple[int, ...]:
        assert isinstance(state, KInARowState)
        return state.bits[1], state.bits[2], int(state.next_player), state._num_stones


class KInARowState(State):
    """Shared state of the k-in-a-row games; subclasses say where stones may go."""

    __slots__ = ("game", "geometry", "bits", "next_player", "previous_state", "last_move",
                 "_hash", "_winner", "_full", "_num_stones")

    game: KInARowGame
    previous_state: "KInARowState | None"

    def __init__(self, game: KInARowGame, bits: tuple[int, int, int],
                 next_player: Player, previous: "KInARowState | None", move: Move | None,
                 hash_: int, winner: Player | None, num_stones: int):
        self.game = game
        self.geometry = game.geometry
        self.bits = bits  # (unused, black bitboard, white bitboard): indexed by colour
        self.next_player = next_player
        self.previous_state = previous
        self.last_move = move
        self._hash = hash_
        self._winner = winner
        self._num_stones = num_stones
        self._full = num_stones == game.geometry.num_cells

    # ----------------------------------------------------------- the board
    @property
    def board(self) -> BitBoard:
        return BitBoard(self.geometry, self.bits[1], self.bits[2])

    def stone_array(self) -> np.ndarray:
        g = self.geometry
        stones = bits_to_array(self.bits[1], g.num_cells) + 2 * bits_to_array(self.bits[2], g.num_cells)
        return stones.reshape(g.num_rows, g.num_cols)

    def swap_available(self) -> bool:
        """Pie rule: may the second player take over the first stone right now?"""
        return self.game.pie_rule and self._num_stones == 1 and self.previous_state is not None \
            and self.previous_state.previous_state is None

    def _first_stone_cell(self) -> int:
        return self.bits[1].bit_length() - 1

    # ------------------------------------------------------------- the rules
    @abc.abstractmethod
    def _legal_cells(self) -> list[int]:
        """Cells where the player to move may place a stone (not counting the swap)."""

    @abc.abstractmethod
    def _cell_of_play(self, move: Move) -> int:
        """The cell a play fills; :class:`IllegalMoveError` (with the reason) if it is illegal."""

    @abc.abstractmethod
    def _cell_of_action(self, action: int) -> int:
        """The cell an action (not the swap) fills; :class:`IllegalMoveError` if it is illegal."""

    @abc.abstractmethod
    def _swap_action(self) -> int:
        """The action index of the pie rule's swap (valid only while it is on offer)."""

    def _swapped(self) -> "KInARowState":
        """The first stone changes hands; the first player (black) moves again."""
        cell = self._first_stone_cell()
        keys = self.geometry.keys
        h = self._hash ^ keys[1][cell] ^ keys[2][cell] ^ zobrist.SWAP_AVAILABLE ^ zobrist.WHITE_TO_MOVE
        return type(self)(self.game, (0, 0, 1 << cell), Player.black, self, self.geometry.plays[cell], h, None, 1)

    def _placed(self, cell: int) -> "KInARowState":
        """The player to move puts a stone on the (legal) ``cell``."""
        player = self.next_player
        bits = list(self.bits)
        bits[player] |= 1 << cell
        h = self._hash ^ self.geometry.keys[player][cell] ^ zobrist.WHITE_TO_MOVE
        if self.swap_available():
            h ^= zobrist.SWAP_AVAILABLE  # the offer lapses
        elif self.game.pie_rule and self._num_stones == 0:
            h ^= zobrist.SWAP_AVAILABLE  # the first stone opens the offer
        winner = player if self.geometry.is_win_through(bits[player], cell) else None
        return type(self)(self.game, (bits[0], bits[1], bits[2]), player.other, self, self.geometry.plays[cell], h,
                          winner, self._num_stones + 1)

    def apply_action(self, action: int) -> "KInARowState":
        if self.is_over():
            raise IllegalMoveError("the game is over")
        if self.swap_available() and action == self._swap_action():
            return self._swapped()
        return self._placed(self._cell_of_action(action))

    def apply_move(self, move: Move) -> "KInARowState":
        if self.is_over():
            raise IllegalMoveError("the game is over")
        if move.is_resign:
            return self.after_resignation()
        if move.is_pass:
            raise IllegalMoveError(f"there is no passing in {self.game.name}")
        if self.swap_available() and move.point == self.geometry.points[self._first_stone_cell()]:
            return self._swapped()
        return self._placed(self._cell_of_play(move))

    def after_resignation(self) -> "KInARowState":
        other = self.next_player.other
        return type(self)(self.game, self.bits, other, self, RESIGN, self._hash ^ zobrist.WHITE_TO_MOVE, other,
                          self._num_stones)

    def legal_actions(self) -> list[int]:
        if self.is_over():
            return []
        actions = self._legal_actions_without_swap()
        if self.swap_available():
            actions.append(self._swap_action())
        return actions

    def _legal_actions_without_swap(self) -> list[int]:
        return self._legal_cells()

    def random_move(self, rng: random.Random) -> Move:
        """A uniformly random legal move (the swap included when it is on offer)."""
        if self.is_over():
            raise IllegalMoveError("the game is over")
        cells = self._legal_cells()
        if self.swap_available():
            cells.append(self._first_stone_cell())
        return self.geometry.plays[cells[int(rng.random() * len(cells))]]

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=bool)
        if not self.is_over():
            mask[self._legal_actions_without_swap()] = True
            if self.swap_available():
                mask[self._swap_action()] = True
        return mask

    def is_valid_move(self, move: Move) -> bool:
        if self.is_over():
            return False
        if move.is_resign:
            return True
        if move.is_pass:
            return False
        if self.swap_available() and move.point == self.geometry.points[self._first_stone_cell()]:
            return True
        try:
            self._cell_of_play(move)
        except IllegalMoveError:
            return False
        return True

    def is_over(self) -> bool:
        return self._winner is not None or self._full

    def winner(self) -> Player | None:
        return self._winner

    def winning_line(self) -> list[Point] | None:
        """The points of the winner's line: every full window through the stone
        that won (two lines at once, or one longer than k, are all there)."""
        move = self.last_move
        if self._winner is None or move is None or move.point is None:
            return None  # no one won, or the loser resigned
        geometry, bits = self.geometry, self.bits[self._winner]
        line = 0
        for window in geometry.windows_through[geometry.index_of(move.point)]:
            if bits & window == window:
                line |= window
        return [point for cell, point in enumerate(geometry.points) if line >> cell & 1]

    def heuristic_value(self) -> float:
        """Open lines and threats: every k-window that holds stones of one player
        only is worth 10^(n-1) for its n stones (a k-1 threat double), plus for
        the mover, minus for the opponent. Central cells lie on more windows, so
        the count also rewards the centre."""
        geo = self.geometry
        me = self.bits[self.next_player]
        opp = self.bits[self.next_player.other]
        weights = _line_weights(geo.k)
        score = 0
        for w in geo.all_windows:
            mine = me & w
            theirs = opp & w
            if mine:
                if not theirs:
                    score += weights[mine.bit_count()]
            elif theirs:
                score -= weights[theirs.bit_count()]
        return score

    def zobrist_hash(self) -> int:
        return self._hash

    # ------------------------------------------------------------- human I/O
    def _swap_help(self) -> str:
        return "; swap takes the first stone as your own (pie rule)" if self.swap_available() else ""

    def _parse_common(self, text: str) -> Move | None:
        word = text.strip().lower()
        if word == "resign":
            return Move.resign()
        if word == "pass":
            raise IllegalMoveError(f"there is no passing in {self.game.name}")
        if word == "swap":
            if not self.swap_available():
                raise IllegalMoveError("swap is only possible as the second player's first move, with the pie rule on")
            return Move.play(self.geometry.points[self._first_stone_cell()])
        return None

    def _format_common(self, move: Move) -> str | None:
        if move.is_resign:
            return "resign"
        if move.is_pass:
            return "pass"
        if self.swap_available() and move.point == self.geometry.points[self._first_stone_cell()]:
            return "swap"
        return None

    def _render(self, col_labels: list[str]) -> str:
        last = self.last_move.point if self.last_move is not None and self.last_move.is_play else None
        black, white = self.bits[1], self.bits[2]
        cols = self.geometry.num_cols

        def color_at(r: int, c: int) -> int:
            bit = 1 << ((r - 1) * cols + c - 1)
            return 1 if black & bit else 2 if white & bit else 0

        return render_grid(self.geometry.num_rows, cols, color_at, col_labels, last)

    # --------------------------------------------------------------- playouts
    def random_playout(self, rng: random.Random, moves: list[Move] | None = None,
                       compiled: bool = True) -> Player | None:
        """Uniformly random moves to the end; returns the winner (None = draw).

        Two paths play the same games from the same ``rng``: the compiled one (the
        default, :mod:`dlgo.games.kinarow_kernels`) and, with ``compiled=False``,
        the readable reference below (:meth:`_fast_playout`). Both draw one seed from ``rng`` and their moves
        from SplitMix64 with it."""
        state = self
        if state.swap_available() and not state.is_over():  # rare: take the generic path once
            legal = state.legal_moves()
            move = legal[int(rng.random() * len(legal))]
            if moves is not None:
                moves.append(move)
            state = state.apply_move(move)
        if state._winner is not None or state._full:
            return state._winner
        seed = rng.getrandbits(63)
        if compiled:
            playout, tables = state.game.compiled_playout
            record = np.empty(state.geometry.num_cells, np.int32) if moves is not None else _NO_MOVES
            winner, played = playout(tables, state.bits[1], state.bits[2], state.next_player.value, seed, record)
            if moves is not None:
                moves.extend(state.geometry.plays[cell] for cell in record[:played].tolist())
            return _WINNERS[winner]
        return state._fast_playout(SplitMix64(seed), moves)

    def _unlocks(self) -> tuple[int, ...] | None:
        """For gravity games: the cell each cell makes playable once filled
        (-1 for none). None for free placement, where filling unlocks nothing."""
        return None

    def _fast_playout(self, rng: SplitMix64, moves: list[Move] | None) -> Player | None:
        """The reference playout loop on plain integers (no swap on offer, game not
        over). ``candidates`` holds the playable cells; a filled cell is replaced
        by the cell it unlocks, or dropped."""
        geo = self.geometry
        bits = list(self.bits)
        candidates = self._legal_cells()
        unlocks = self._unlocks()
        windows = geo.windows_through
        rand = rng.random
        c = int(self.next_player)
        while candidates:
            i = int(rand() * len(candidates))
            cell = candidates[i]
            above = -1 if unlocks is None else unlocks[cell]
            if above >= 0:
                candidates[i] = above
            else:
                candidates[i] = candidates[-1]
                candidates.pop()
            if moves is not None:
                moves.append(geo.plays[cell])
            b = bits[c] | (1 << cell)
            bits[c] = b
            for w in windows[cell]:
                if b & w == w:
                    return Player(c)
            c = 3 - c
        return None

    def __repr__(self) -> str:
        return f"<{self.game.name} state, {self.game.side_name(self.next_player)} to move>"


@functools.lru_cache(maxsize=None)
def _line_weights(k: int) -> tuple[int, ...]:
    """Weight of an open window holding n stones: 10^(n-1), and a threat (k-1 of k)
    counts double on top."""
    weights = [0] + [10 ** (n - 1) for n in range(1, k + 1)]
    if k >= 2:
        weights[k - 1] *= 2
    return tuple(weights)
