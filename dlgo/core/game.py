"""The contract every game honours: a :class:`Game` and its :class:`State`\\ s.

A :class:`Game` is one variant's fixed facts: its spec, board shape, action
space, what it can do (pass, score by area, be written as SGF, offer the pie
rule's swap), its symmetries and its default encoder. A :class:`State` is an
immutable position with its history; every state knows its game
(``state.game``). Generic code (search, the arena, encoders, pictures, records)
asks these two and never a game's name or class, so a new game that implements
them plays with every engine, in every tournament and through every encoder.

Search works on int actions (:meth:`State.legal_actions`,
:meth:`State.apply_action`, :meth:`State.legal_action_mask`); :class:`Move` and
text (:meth:`State.parse_move`, :meth:`State.format_move`) are for the edges:
console, GTP, SGF and CSV records. A finished game has one :class:`Outcome`.
"""
from __future__ import annotations

import abc
import enum
import functools
import random
from dataclasses import dataclass
from typing import Iterator, NamedTuple

import numpy as np

from dlgo.core.errors import IllegalMoveError
from dlgo.core.symmetry import Symmetry, identity_only
from dlgo.core.types import Move, Player, Point


def value_for(winner: Player | None, player: Player) -> float:
    """A result as a number for ``player``: 1 if ``player`` won, -1 if they lost,
    0 for a draw (``winner`` None). The one place this conversion is written.

    >>> value_for(Player.black, Player.white)
    -1.0
    """
    if winner is None:
        return 0.0
    return 1.0 if winner == player else -1.0


class Ending(enum.Enum):
    """How a game ended."""

    WIN = "win"                  # a rule decided it (k in a row)
    DRAW = "draw"                # no one won (a full board)
    SCORE = "score"              # both passed and the board was counted (Go)
    RESIGNATION = "resignation"
    FORFEIT = "forfeit"          # an engine failed (a program died or answered nonsense)


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game: who won (None for a draw), how, and the
    result as records write it: ``B+3.5``, ``W+R``, ``B+F``, ``0`` (a drawn
    count) in Go; ``1-0``, ``0-1``, ``1/2-1/2`` in the other games."""

    winner: Player | None
    ending: Ending
    text: str

    def value_for(self, player: Player) -> float:
        """+1 if ``player`` won, -1 if they lost, 0 for a draw."""
        return value_for(self.winner, player)

    @property
    def winner_name(self) -> str:
        """``"black"``, ``"white"`` or ``"draw"`` (the ``winner`` column of games.csv)."""
        return "draw" if self.winner is None else self.winner.name

    def describe(self) -> str:
        """In words: ``B+3.5 (black wins)``, ``white wins``, ``draw``, ``black wins by resignation``."""
        if self.ending is Ending.RESIGNATION:
            return f"{self.winner_name} wins by resignation"
        verdict = "draw" if self.winner is None else f"{self.winner_name} wins"
        return f"{self.text} ({verdict})" if self.ending is Ending.SCORE else verdict


class OpenSpielGame(NamedTuple):
    """The same game in OpenSpiel: the string ``pyspiel.load_game`` takes, and for
    each of our actions (by index) the OpenSpiel action that makes the same move."""

    name: str
    actions: tuple[int, ...]


class Game(abc.ABC):
    """A game variant: everything about it that no move changes.

    Subclasses set the attributes below in their constructor and implement
    :meth:`initial_state`. Two games are equal when their specs are.
    """

    #: short name for messages and titles: ``go``, ``connect4``, ``mnk(4,4,3)``
    name: str
    #: the spec string that rebuilds this game: ``new_game(game.spec)``
    spec: str
    num_rows: int
    num_cols: int
    #: size of the fixed action space (for search and neural networks)
    num_actions: int
    players: tuple[Player, Player] = (Player.black, Player.white)
    #: the last action is a pass, and two passes in a row end the game
    has_pass: bool = False
    #: finished games are counted (area scoring) and the result is a margin: ``B+3.5``
    scored_by_area: bool = False
    #: games are recorded as SGF files beside games.csv
    has_sgf: bool = False
    #: the pie rule: the second player may take over the first stone
    has_swap: bool = False
    #: how pictures draw it: ``"go"`` (stones on lines), ``"columns"`` (discs that
    #: fall; one action per column) or ``"grid"`` (marks in cells)
    board_style: str = "grid"
    #: the encoder neural engines use unless told otherwise
    default_encoder: str = "planes"

    @abc.abstractmethod
    def initial_state(self) -> "State":
        """The position before the first move."""

    @property
    def pass_action(self) -> int | None:
        """The action index of a pass, or None in a game without one."""
        return self.num_actions - 1 if self.has_pass else None

    def symmetries(self) -> list[Symmetry]:
        """The board symmetries with their action permutations, identity first
        (for data augmentation and symmetric evaluation)."""
        return identity_only(self.num_actions)

    def openspiel_game(self) -> OpenSpielGame | None:
        """The same game in OpenSpiel, where it has one with the same rules (the
        ``openspiel`` engine plays its bots there); None otherwise."""
        return None

    def outcome_text(self, winner: Player | None, ending: Ending) -> str:
        """How a result is written: ``W+R`` for a resignation, else ``1-0``,
        ``0-1`` or ``1/2-1/2``. Scored games write a margin instead."""
        if ending is Ending.RESIGNATION:
            return f"{winner}+R"
        return "1/2-1/2" if winner is None else "1-0" if winner == Player.black else "0-1"

    def outcome(self, winner: Player | None, ending: Ending) -> Outcome:
        """An outcome of this game that no position decides: a resignation or a forfeit."""
        return Outcome(winner, ending, self.outcome_text(winner, ending))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.spec == other.spec

    def __hash__(self) -> int:
        return hash(self.spec)

    def __repr__(self) -> str:
        return f"<game {self.spec}>"


class State(abc.ABC):
    """An immutable position plus its history; ``state.game`` is its :class:`Game`.

    Concrete states provide ``game``, ``next_player``, ``previous_state`` and
    ``last_move`` attributes and the abstract methods below.
    """

    __slots__ = ()

    game: Game
    next_player: Player
    previous_state: "State | None"
    last_move: Move | None

    # ------------------------------------------------------ actions: the core
    @abc.abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal actions (indices into the game's action space), in a fixed
        order; empty once the game is over."""

    @abc.abstractmethod
    def apply_action(self, action: int) -> "State":
        """The state after ``action``. Never mutates ``self``;
        :class:`~dlgo.core.errors.IllegalMoveError` if it is illegal here."""

    def sensible_actions(self) -> list[int]:
        """The actions worth searching: every legal one here. Go narrows this to
        plays that do not fill the mover's own eye, with pass only after the
        opponent's pass or when no such play is left (as strong Go programs do)."""
        return self.legal_actions()

    def legal_action_mask(self) -> np.ndarray:
        """Boolean array over the action space, True where the action is legal."""
        mask = np.zeros(self.game.num_actions, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    @property
    def num_actions(self) -> int:
        """Size of the game's fixed action space."""
        return self.game.num_actions

    @abc.abstractmethod
    def move_to_index(self, move: Move) -> int:
        """Action index of ``move``; :class:`IllegalMoveError` for moves without one (resign)."""

    @abc.abstractmethod
    def index_to_move(self, index: int) -> Move:
        """The move that action ``index`` makes in this state."""

    def action_point(self, action: int) -> Point | None:
        """The point where ``action`` puts a stone here (None for a pass)."""
        return self.index_to_move(action).point

    # ---------------------------------------------------- moves: the edges
    def apply_move(self, move: Move) -> "State":
        """The state after ``move`` (a play, a pass or a resignation); never
        mutates ``self``; :class:`IllegalMoveError` with the reason if illegal."""
        if self.is_over():
            raise IllegalMoveError("the game is over")
        if move.is_resign:
            return self.after_resignation()
        return self.apply_action(self.move_to_index(move))

    @abc.abstractmethod
    def after_resignation(self) -> "State":
        """The finished state after the player to move resigns."""

    def legal_moves(self) -> list[Move]:
        """All legal plays (and pass where the game has one). Resign is always
        valid but never listed. Empty when the game is over."""
        return [self.index_to_move(a) for a in self.legal_actions()]

    def sensible_moves(self) -> list[Move]:
        """:meth:`sensible_actions` as moves."""
        return [self.index_to_move(a) for a in self.sensible_actions()]

    def is_valid_move(self, move: Move) -> bool:
        """Can ``move`` be played now? (Resign is valid until the game ends.)"""
        if self.is_over():
            return False
        if move.is_resign:
            return True
        try:
            self.apply_move(move)
        except IllegalMoveError:
            return False
        return True

    def swap_available(self) -> bool:
        """Pie rule: may the second player take over the first stone now?
        (Only games played with the pie rule ever say yes.)"""
        return False

    # -------------------------------------------------------------- result
    @abc.abstractmethod
    def is_over(self) -> bool:
        """Has the game ended (a win, a draw, two passes or a resignation)?"""

    @abc.abstractmethod
    def winner(self) -> Player | None:
        """The winner, or None for a draw or an unfinished game."""

    def outcome(self) -> Outcome | None:
        """How the game ended (None while it goes on): the winner, the ending
        and the result text. Scored games override this to count the board."""
        if not self.is_over():
            return None
        winner = self.winner()
        if self.last_move is not None and self.last_move.is_resign:
            return self.game.outcome(winner, Ending.RESIGNATION)
        return self.game.outcome(winner, Ending.DRAW if winner is None else Ending.WIN)

    def heuristic_value(self) -> float:
        """A quick estimate of this unfinished position for the player to move,
        in the game's own points (depth-limited search uses it at its horizon).
        This default knows nothing: 0."""
        return 0.0

    @abc.abstractmethod
    def zobrist_hash(self) -> int:
        """A 64-bit hash of the position and the side to move, updated incrementally."""

    # -------------------------------------------------------------- board
    @abc.abstractmethod
    def stone_array(self) -> np.ndarray:
        """The board as an int8 ``(rows, cols)`` array: 0 empty, 1 black, 2 white;
        entry ``[r - 1, c - 1]`` is ``Point(r, c)`` (row 1 at the bottom)."""

    # ------------------------------------------------------------ human I/O
    @abc.abstractmethod
    def parse_move(self, text: str) -> Move:
        """A move from human input; :class:`IllegalMoveError` with a clear message
        if malformed. Legality is checked by :meth:`apply_move`, not here."""

    @abc.abstractmethod
    def format_move(self, move: Move) -> str:
        """The text :meth:`parse_move` reads back as ``move``."""

    def move_help(self) -> str:
        """How a human types a move here, in a few words (for a help screen)."""
        return "a move in the game's notation"

    @abc.abstractmethod
    def render(self) -> str:
        """The board as text with coordinates, the last move in parentheses."""

    def __str__(self) -> str:
        return self.render()

    # -------------------------------------------------------------- random
    @abc.abstractmethod
    def random_playout(self, rng: random.Random, moves: list[Move] | None = None) -> Player | None:
        """Play the game out with random moves (Go: never filling one's own eyes)
        on a private fast path and return the winner. This state is unchanged;
        if ``moves`` is given the moves played are appended to it."""

    def random_move(self, rng: random.Random) -> Move:
        """A uniformly random legal move (Go refines this: never into one's own
        eye, and pass only when nothing else is left). IllegalMoveError if over."""
        actions = self.legal_actions()
        if not actions:
            raise IllegalMoveError("the game is over")
        return self.index_to_move(actions[int(rng.random() * len(actions))])

    # ------------------------------------------------------------- history
    def history(self) -> Iterator["State"]:
        """The states of the game from the first to this one."""
        chain = []
        state: State | None = self
        while state is not None:
            chain.append(state)
            state = state.previous_state
        return reversed(chain)

    def move_history(self) -> list[Move]:
        """The moves played to reach this state, in order."""
        return [s.last_move for s in self.history() if s.last_move is not None]

    def moves_text(self) -> str:
        """The moves played, as typed and space separated: the form games.csv keeps."""
        states = list(self.history())
        return " ".join(before.format_move(after.last_move) for before, after in zip(states, states[1:])
                        if after.last_move is not None)

    @property
    def num_moves_played(self) -> int:
        n, state = 0, self
        while state.previous_state is not None:
            n, state = n + 1, state.previous_state
        return n


@functools.lru_cache(maxsize=None)
def grid_points(num_rows: int, num_cols: int) -> tuple[Point, ...]:
    """Every point of a board in row-major order (cell ``(r - 1) * cols + c - 1``)."""
    return tuple(Point(r, c) for r in range(1, num_rows + 1) for c in range(1, num_cols + 1))


@functools.lru_cache(maxsize=None)
def grid_plays(num_rows: int, num_cols: int) -> tuple[Move, ...]:
    """``Move.play`` of every point, by cell: states share these instead of building moves."""
    return tuple(Move.play(p) for p in grid_points(num_rows, num_cols))
