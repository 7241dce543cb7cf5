"""The contract every game state in the suite honours (Go and the small games).

Engines, the arena, encoders and the CLI talk to games only through these
members, so every engine plays every game. See ../shared/DESIGN.md.
"""
from __future__ import annotations

import abc
import random
from typing import TYPE_CHECKING, Iterator

import numpy as np

if TYPE_CHECKING:
    from dlgo.goboard import Move
    from dlgo.gotypes import Player


class GameStateBase(abc.ABC):
    """An immutable position plus its history.

    Concrete states provide ``next_player``, ``previous_state`` and ``last_move``
    attributes and the abstract methods below.
    """

    __slots__ = ()
    game_name: str = "game"

    next_player: "Player"
    previous_state: "GameStateBase | None"
    last_move: "Move | None"

    # ------------------------------------------------------------- the rules
    @abc.abstractmethod
    def apply_move(self, move: "Move") -> "GameStateBase":
        """The state after ``move``. Never mutates ``self``; ``ValueError`` if illegal."""

    @abc.abstractmethod
    def legal_moves(self) -> list["Move"]:
        """All legal plays (and pass where the game has one). Resign is always
        valid but never listed. Empty when the game is over."""

    def is_valid_move(self, move: "Move") -> bool:
        """Can ``move`` be played now? (Resign is valid until the game ends.)"""
        if self.is_over():
            return False
        return move.is_resign or move in self.legal_moves()

    def swap_available(self) -> bool:
        """Pie rule: may the second player take over the first stone now?
        (Only games played with the pie rule ever say yes.)"""
        return False

    @abc.abstractmethod
    def is_over(self) -> bool:
        """Has the game ended (a win, a draw, two passes or a resignation)?"""

    @abc.abstractmethod
    def winner(self) -> "Player | None":
        """The winner, or None for a draw or an unfinished game."""

    @abc.abstractmethod
    def zobrist_hash(self) -> int:
        """A 64-bit hash of the position and the side to move, updated incrementally."""

    # ---------------------------------------------------- fixed action space
    @property
    @abc.abstractmethod
    def num_actions(self) -> int:
        """Size of the game's fixed action space (for neural engines)."""

    @abc.abstractmethod
    def move_to_index(self, move: "Move") -> int:
        """Action index of ``move``; ``ValueError`` for moves without one (resign)."""

    @abc.abstractmethod
    def index_to_move(self, index: int) -> "Move":
        """The move for action ``index`` in this state."""

    def legal_action_mask(self) -> np.ndarray:
        """Boolean array over the action space, True where the action is legal."""
        mask = np.zeros(self.num_actions, dtype=bool)
        for move in self.legal_moves():
            mask[self.move_to_index(move)] = True
        return mask

    # ------------------------------------------------------------- human I/O
    @abc.abstractmethod
    def parse_move(self, text: str) -> "Move":
        """A move from human input; ``ValueError`` with a clear message if malformed.
        Legality is checked by :meth:`apply_move`, not here."""

    @abc.abstractmethod
    def format_move(self, move: "Move") -> str:
        """The text :meth:`parse_move` reads back as ``move``."""

    @abc.abstractmethod
    def render(self) -> str:
        """The board as text with coordinates, the last move in parentheses."""

    def __str__(self) -> str:
        return self.render()

    # --------------------------------------------------------------- helpers
    @abc.abstractmethod
    def random_playout(self, rng: random.Random, moves: list["Move"] | None = None) -> "Player | None":
        """Play the game out with random moves (Go: never filling one's own eyes)
        on a private fast path and return the winner. This state is unchanged;
        if ``moves`` is given the moves played are appended to it."""

    def sensible_moves(self) -> list["Move"]:
        """The moves worth searching: every legal move here. Go narrows this to
        plays that do not fill the mover's own eye, with pass only after the
        opponent's pass or when no such play is left (as strong Go programs do)."""
        return self.legal_moves()

    def random_move(self, rng: random.Random) -> "Move":
        """A uniformly random legal move (Go refines this: never into one's own
        eye, and pass only when nothing else is left). ``ValueError`` if over."""
        moves = self.legal_moves()
        if not moves:
            raise ValueError("the game is over")
        return moves[int(rng.random() * len(moves))]

    def history(self) -> Iterator["GameStateBase"]:
        """The states of the game from the first to this one."""
        chain = []
        state: GameStateBase | None = self
        while state is not None:
            chain.append(state)
            state = state.previous_state
        return reversed(chain)

    def move_history(self) -> list["Move"]:
        """The moves played to reach this state, in order."""
        return [s.last_move for s in self.history() if s.last_move is not None]

    def moves_text(self) -> str:
        """The moves played, as typed and space separated: the form games.csv
        keeps and :func:`dlgo.arena.match.replay` reads back."""
        states = list(self.history())
        return " ".join(before.format_move(after.last_move) for before, after in zip(states, states[1:]))

    @property
    def num_moves_played(self) -> int:
        n, state = 0, self
        while state.previous_state is not None:
            n, state = n + 1, state.previous_state
        return n


def result_text(state: GameStateBase) -> tuple[str, str]:
    """(result, winner) of a finished game: ``("B+3.5", "black")`` for Go by area,
    ``("W+R", "white")`` after a resignation, ``("1-0", "black")``,
    ``("0-1", "white")`` or ``("1/2-1/2", "draw")`` for the other games."""
    winner = state.winner()
    name = "draw" if winner is None else winner.name
    if state.last_move is not None and state.last_move.is_resign:
        return f"{winner}+R", name
    if state.game_name == "go":
        from dlgo.scoring import compute_game_result

        return str(compute_game_result(state)), name
    return {"black": "1-0", "white": "0-1", "draw": "1/2-1/2"}[name], name
