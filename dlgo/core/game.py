"""The contract every game honours: a :class:`Game` and its :class:`State`\\ s.

A :class:`Game` is one variant's fixed facts: its spec, board shape, action
space, what it can do (pass, score by area, be written as SGF, offer the pie
rule's swap), its symmetries and its default encoder. A :class:`State` is an
immutable position with its history; every state knows its game
(``state.game``). Generic code (search, the arena, encoders, pictures, records)
asks these two and never a game's name or class, so a new game that implements
them plays with every engine, in every tournament and through every encoder.

A new game needs little: a :class:`Game` with its shape and
:meth:`Game.initial_state`, and a :class:`State` with four hooks (the legal
actions, applying one, the winner and the board as an array). Every other
member has a generic default here, for a game whose actions are its board's
cells; the games of the suite override some of them to go faster.

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
from typing import Any, Iterator, NamedTuple, Protocol

import numpy as np

from dlgo.core import zobrist
from dlgo.core.errors import IllegalMoveError
from dlgo.core.grid import (STONE_SYMBOLS, cell_of, grid_plays, letter_column_label, parse_letter_point,
                            render_grid)
from dlgo.core.symmetry import Symmetry, identity_only
from dlgo.core.types import PASS, RESIGN, Move, Player, Point


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

    def describe(self, side_names: tuple[str, str] = ("black", "white")) -> str:
        """In words: ``B+3.5 (black wins)``, ``white wins``, ``draw``, ``black wins by resignation``;
        the sides named by ``side_names`` (a game's :attr:`Game.side_names`: ``red wins``)."""
        winner = None if self.winner is None else side_names[self.winner.value - 1]
        if self.ending is Ending.RESIGNATION:
            return f"{winner} wins by resignation"
        verdict = "draw" if winner is None else f"{winner} wins"
        return f"{self.text} ({verdict})" if self.ending is Ending.SCORE else verdict


@dataclass(frozen=True, eq=False)
class AreaCount:
    """The count of a game scored by area: who each point belongs to, the stones
    counted as dead, and each side's stones and territory (empty points, and dead
    stones' points, that it alone surrounds); komi goes to white."""

    owners: np.ndarray                  # like stone_array: 0 nobody's (dame), 1 black, 2 white
    dead: frozenset[Point]
    stones: dict[Player, int]           # the living stones on the board
    territory: dict[Player, int]
    komi: float

    def area(self, player: Player) -> int:
        """``player``'s points on the board: stones and territory."""
        return self.stones[player] + self.territory[player]

    def komi_for(self, player: Player) -> float:
        """The komi ``player`` gets: all of it for white, none for black."""
        return self.komi if player == Player.white else 0.0

    def total(self, player: Player) -> float:
        """``player``'s score: the area and the komi."""
        return self.area(player) + self.komi_for(player)


class OpenSpielGame(NamedTuple):
    """The same game in OpenSpiel: the string ``pyspiel.load_game`` takes, and for
    each of our actions (by index) the OpenSpiel action that makes the same move."""

    name: str
    actions: tuple[int, ...]


def result_of(score: int) -> int:
    """+1 a win, 0 a draw, -1 a loss: the result an exact score (:class:`ExactSolver`) stands for."""
    return (score > 0) - (score < 0)


class ExactSolver(Protocol):
    """Perfect play's oracle for a game small enough to solve (:meth:`Game.solver`).

    Scores are for the player to move and count how soon the game ends: 0 for a
    draw; for a win, positive and larger the sooner (winning with the move that
    puts the ``(m + 1)``-th stone on ``N`` cells scores ``(N + 1 - m) // 2``); a loss
    is the winner's score negated. Both sides win as soon and lose as late as they can.
    """

    def score(self, state: "State") -> int:
        """The exact score of an unfinished position."""

    def move_scores(self, state: "State") -> dict[int, int]:
        """Each legal action's exact score for the player making it."""


class CompiledRules(Protocol):
    """What a compiled search needs of a game: the kernels' family (which
    compiled forest plays it), their tables, and a position in machine words."""

    family: str  # "line": the k-in-a-row bitboards of dlgo.games.kinarow_kernels
    tables: Any

    def words(self, state: "State") -> tuple[int, ...]:
        """``state`` as the kernels hold a position."""


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
    #: what players call the two sides, the first mover's first: Go's black and
    #: white, Connect Four's red and yellow, tic-tac-toe's X and O
    side_names: tuple[str, str] = ("black", "white")

    @abc.abstractmethod
    def initial_state(self) -> "State":
        """The position before the first move."""

    def side_name(self, player: Player) -> str:
        """What players call ``player``'s side here (:attr:`side_names`)."""
        return self.side_names[player.value - 1]

    def side_label(self, player: Player, *notes: str) -> str:
        """``player``'s side for people: its name and, in brackets, the letter the
        text board draws it with (unless that is the name) and ``notes``:
        ``red (X, human)``, ``black (X)``, tic-tac-toe's ``O (mcts)``."""
        name, symbol = self.side_name(player), STONE_SYMBOLS[player.value]
        inside = [symbol] if symbol != name else []
        inside += notes
        return f"{name} ({', '.join(inside)})" if inside else name

    def describe(self) -> str:
        """The game in words, for a header: its name and the spec that rebuilds it,
        ``tictactoe (mnk:m=3,n=3,k=3)``; a game with rules beyond its board says
        them (Go: the komi)."""
        return self.name if self.spec == self.name else f"{self.name} ({self.spec})"

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

    def solver(self) -> ExactSolver | None:
        """Perfect play for this game, where the suite can solve it (the ``solver``
        engine and the solved position sets use it); None otherwise."""
        return None

    def compiled_rules(self) -> "CompiledRules | None":
        """The rules as a compiled search plays them (a batch of trees in flat
        arrays, :mod:`engines.forest`), where the game has them; None: the search
        runs on the states themselves."""
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

    A new game provides the attributes ``game``, ``next_player``,
    ``previous_state`` and ``last_move`` and four hooks:

    * :meth:`legal_actions` (empty once the game is over),
    * :meth:`apply_action` (a new state; :class:`IllegalMoveError` if illegal),
    * :meth:`winner` (None while the game goes on, and for a draw),
    * :meth:`stone_array` (the board: 0 empty, 1 black, 2 white).

    Everything else has a generic default, written here once, for a game whose
    actions are the board's cells in row-major order (then pass, if the game has
    one): :meth:`is_over` (no legal action left), :meth:`after_resignation` (a
    :class:`Resigned` state), :meth:`move_to_index` and :meth:`index_to_move`,
    :meth:`zobrist_hash` (the board's Zobrist keys and the side to move),
    :meth:`parse_move`, :meth:`format_move` and :meth:`move_help` (``b2``: column
    letter, row number), :meth:`render` (the board as text) and
    :meth:`random_playout` (:meth:`random_move` until the end). A game overrides
    them where its actions are something else (Connect-N's columns), its notation
    differs (Go's ``C3``, no letter I) or it has a faster way: Go, Connect-N and
    the m,n,k games keep an incremental hash and a playout loop on a private
    mutable board.
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

    def move_to_index(self, move: Move) -> int:
        """Action index of ``move``; :class:`IllegalMoveError` for moves without one (resign).
        Default: a play's cell, row by row from the bottom left; pass the last action."""
        game = self.game
        if move.point is not None:
            return cell_of(move.point, game.num_rows, game.num_cols)
        if move.is_pass and game.pass_action is not None:
            return game.pass_action
        raise IllegalMoveError(f"there is no passing in {game.name}" if move.is_pass
                               else f"{move!r} has no action index in {game.name}")

    def index_to_move(self, index: int) -> Move:
        """The move that action ``index`` makes in this state (default: the play on
        cell ``index``, or pass)."""
        game = self.game
        if index == game.pass_action:
            return PASS
        plays = grid_plays(game.num_rows, game.num_cols)
        if not 0 <= index < len(plays):
            raise IllegalMoveError(f"action index {index} out of range 0..{game.num_actions - 1}")
        return plays[index]

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

    def after_resignation(self) -> "State":
        """The finished state after the player to move resigns (default: a
        :class:`Resigned` state on top of this one)."""
        return Resigned(self)

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

    def illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` cannot be played now (the rules' words: ``column 1 is full``), or
        None if it can: :meth:`is_valid_move`, with the reason."""
        if self.is_valid_move(move):
            return None
        if self.is_over():
            return "the game is over"
        try:
            self.apply_move(move)
        except IllegalMoveError as error:
            return str(error)
        return "the rules forbid it"

    def swap_available(self) -> bool:
        """Pie rule: may the second player take over the first stone now?
        (Only games played with the pie rule ever say yes.)"""
        return False

    # -------------------------------------------------------------- result
    def is_over(self) -> bool:
        """Has the game ended (a win, a draw, two passes or a resignation)?
        Default: no legal action is left."""
        return not self.legal_actions()

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

    def winning_line(self) -> list[Point] | None:
        """The points of the line that won the game, for games won by making one
        (k in a row); None otherwise (the default)."""
        return None

    def area_count(self) -> AreaCount | None:
        """How a finished game scored by area was counted (Go after two passes);
        None otherwise (the default)."""
        return None

    def heuristic_value(self) -> float:
        """A quick estimate of this unfinished position for the player to move,
        in the game's own points (depth-limited search uses it at its horizon).
        This default knows nothing: 0."""
        return 0.0

    def zobrist_hash(self) -> int:
        """A 64-bit hash of the position and the side to move: the XOR of the
        Zobrist keys of the stones (:mod:`dlgo.core.zobrist`), of the side key
        when white is to move and of the swap key while the pie rule's swap is
        on offer. This default computes it from :meth:`stone_array`; the games
        of the suite keep the same hash up to date move by move."""
        keys = _grid_keys(self.game.num_rows, self.game.num_cols)
        h = zobrist.WHITE_TO_MOVE if self.next_player == Player.white else zobrist.EMPTY_BOARD
        if self.swap_available():
            h ^= zobrist.SWAP_AVAILABLE
        for cell, colour in enumerate(self.stone_array().ravel().tolist()):
            if colour:
                h ^= keys[colour][cell]
        return h

    # -------------------------------------------------------------- board
    @abc.abstractmethod
    def stone_array(self) -> np.ndarray:
        """The board as an int8 ``(rows, cols)`` array: 0 empty, 1 black, 2 white;
        entry ``[r - 1, c - 1]`` is ``Point(r, c)`` (row 1 at the bottom)."""

    # ------------------------------------------------------------ human I/O
    def parse_move(self, text: str) -> Move:
        """A move from human input; :class:`IllegalMoveError` with a clear message
        if malformed. Legality is checked by :meth:`apply_move`, not here.
        Default: ``b2`` (column letter, row number from the bottom), ``pass``, ``resign``."""
        word = text.strip().lower()
        if word == "resign":
            return RESIGN
        if word == "pass":
            if self.game.pass_action is None:
                raise IllegalMoveError(f"there is no passing in {self.game.name}")
            return PASS
        return Move.play(parse_letter_point(text, self.game.num_rows, self.game.num_cols))

    def format_move(self, move: Move) -> str:
        """The text :meth:`parse_move` reads back as ``move``."""
        if move.point is None:
            return "pass" if move.is_pass else "resign"
        return f"{letter_column_label(move.point.col)}{move.point.row}"

    def move_help(self) -> str:
        """How a human types a move here, in a few words (for a help screen)."""
        game = self.game
        passing = ", or pass" if game.has_pass else ""
        return (f"a point, column a-{letter_column_label(game.num_cols)}, "
                f"row 1-{game.num_rows} from the bottom{passing}")

    def render(self) -> str:
        """The board as text with coordinates, the last move in parentheses
        (default: drawn from :meth:`stone_array`, columns lettered as typed)."""
        stones = self.stone_array()
        rows, cols = stones.shape
        last = self.last_move.point if self.last_move is not None else None
        return render_grid(rows, cols, lambda r, c: int(stones[r - 1, c - 1]),
                           [letter_column_label(c) for c in range(1, cols + 1)], last)

    def __str__(self) -> str:
        return self.render()

    # -------------------------------------------------------------- random
    def random_playout(self, rng: random.Random, moves: list[Move] | None = None) -> Player | None:
        """Play the game out with random moves (Go: never filling one's own eyes)
        and return the winner. This state is unchanged; if ``moves`` is given the
        moves played are appended to it. Default: :meth:`random_move` until the
        game is over; the suite's games run the same policy on a private fast path."""
        state = self
        while not state.is_over():
            move = state.random_move(rng)
            if moves is not None:
                moves.append(move)
            state = state.apply_move(move)
        return state.winner()

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


class PassEnding(NamedTuple):
    """How a pass would end the game: its outcome, and whether the pass itself
    ends it (the opponent passed just before) or the opponent may by passing back."""

    outcome: Outcome
    at_once: bool


def pass_would_end_game(state: State) -> PassEnding | None:
    """What the game would end with if the player to move passes: at once after
    the opponent's pass, else once the opponent passes back (which it may always
    do, and an engine does whenever the count wins it: one pass in the opening
    can lose the game). None where a pass is no move here (no pass in this game,
    the game over) or cannot end it."""
    game = state.game
    if game.pass_action is None or state.is_over() or game.pass_action not in state.legal_actions():
        return None
    passed = state.apply_action(game.pass_action)
    at_once = passed.is_over()
    if not at_once:
        if game.pass_action not in passed.legal_actions():
            return None
        passed = passed.apply_action(game.pass_action)
    outcome = passed.outcome()
    return None if outcome is None else PassEnding(outcome, at_once)


class Resigned(State):
    """The finished position after the player to move resigned: the board of the
    state before, the other player the winner. The generic
    :meth:`State.after_resignation`; the notation is the state before's."""

    __slots__ = ("game", "next_player", "previous_state", "last_move", "before")

    def __init__(self, before: State):
        self.game = before.game
        self.next_player = before.next_player.other
        self.previous_state = self.before = before
        self.last_move = RESIGN

    def legal_actions(self) -> list[int]:
        return []

    def apply_action(self, action: int) -> State:
        raise IllegalMoveError("the game is over")

    def is_over(self) -> bool:
        return True

    def winner(self) -> Player | None:
        return self.next_player  # the player who did not resign

    def stone_array(self) -> np.ndarray:
        return self.before.stone_array()

    def parse_move(self, text: str) -> Move:
        return self.before.parse_move(text)

    def format_move(self, move: Move) -> str:
        return self.before.format_move(move)

    def move_help(self) -> str:
        return self.before.move_help()


@functools.lru_cache(maxsize=None)
def _grid_keys(num_rows: int, num_cols: int) -> tuple[list[int], list[int], list[int]]:
    return zobrist.keys_for_grid(num_rows, num_cols)
