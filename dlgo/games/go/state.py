"""Go: the game (board size, komi, handicap) and its immutable states.

The rules: stones with no liberties are captured; self-capture is illegal;
situational superko (no play may recreate an earlier position with the same
player to move) is enforced with the Zobrist hashes of the game's history; the
game ends after two consecutive passes or a resignation and is scored by area.

Actions are the board's points in row-major order (``(row - 1) * cols + col - 1``)
and then pass, the last action.

**Superko without copying the history.** Every state needs the set of the hashes
of its game so far. Copying that set on every move costs O(moves) per move, the
whole game O(moves²). Instead, all the states that grow from one start share a
single set of every hash ever reached from it (``_reached``; a search tree adds
its branches to it too). A hash that is not in it repeats nothing. One that is
may come from another branch, so it is checked against this state's own history,
gathered once per state by walking back (``history_hashes``) and kept. Superko
makes every hash of one game distinct, so while the shared set holds exactly as
many hashes as the game has states (a game being played, not a search tree), it
*is* this state's history and serves as it is.
"""
from __future__ import annotations

import random
from typing import Callable, Container, Iterator, Protocol, Sequence

import numpy as np

from dlgo.core import zobrist
from dlgo.core.splitmix import SplitMix64
from dlgo.core.errors import IllegalMoveError, SpecError
from dlgo.core.game import AreaCount, CompiledRules, Ending, Game, OpenSpielGame, Outcome, State
from dlgo.core.grid import go_column_label, parse_go_point
from dlgo.core.symmetry import Symmetry, grid_symmetries
from dlgo.core.types import PASS, RESIGN, Move, Player, Point
from dlgo.games.go.board import BLACK, Board, side_key
from dlgo.games.go.deadstones import score_with_dead_stones, stone_status
from dlgo.games.go.handicap import fixed_handicap_points
from dlgo.games.go.scoring import (GameResult, area_score, area_winner, count_area, evaluate_territory,
                                   point_owners)

__all__ = ["GoGame", "GoState", "compute_game_result"]

class PlayoutPolicy(Protocol):
    """Chooses the plays of a playout (a fast rollout policy, :mod:`dlgo.games.go.patterns`)."""

    def select(self, board: Board, c: int, last: int, forbidden: Container[int], side_key: int,
               rand: Callable[[], float]) -> int:
        """A play for colour ``c`` after a play at ``last`` (-1: none), or -1 to pass."""

    #: the weight of each feature (:mod:`dlgo.games.go.features`): what the compiled playouts draw by
    weights: np.ndarray


#: a shared set of reached hashes larger than this starts afresh (bounded memory
#: when one start state seeds many games)
MAX_REACHED = 1 << 20
#: the largest komi either way: more than the points of the largest board
MAX_KOMI = 1000


class GoGame(Game):
    """Go on a ``num_rows x num_cols`` board with ``komi`` for white and
    ``handicap`` black stones on GTP's fixed points (white then moves first).
    With ``dead_stones`` a finished game is counted with its dead stones removed
    (estimated by :mod:`dlgo.games.go.deadstones`, as Go servers do) instead of
    the board as it stands."""

    has_pass = True
    scored_by_area = True
    has_sgf = True
    board_style = "go"
    default_encoder = "simple"

    def __init__(self, num_rows: int = 9, num_cols: int | None = None, komi: float = 7.5, handicap: int = 0,
                 dead_stones: bool = False):
        if not -MAX_KOMI <= komi <= MAX_KOMI:  # NaN fails it too
            raise SpecError(f"komi must be between -{MAX_KOMI} and {MAX_KOMI}, got {komi:g}")
        self.num_rows = num_rows
        self.num_cols = num_rows if num_cols is None else num_cols
        self.komi = float(komi)
        self.handicap = handicap
        self.dead_stones = dead_stones
        self.num_actions = self.num_rows * self.num_cols + 1
        self.name = "go"
        size = str(num_rows) if num_rows == self.num_cols else f"{num_rows}x{self.num_cols}"
        self.spec = (f"go:size={size},komi={komi:g}" + (f",handicap={handicap}" if handicap else "")
                     + (",dead_stones=true" if dead_stones else ""))
        if handicap:
            if num_rows != self.num_cols:
                raise SpecError("handicap stones need a square board")
            self.handicap_points = fixed_handicap_points(num_rows, handicap)  # GTP's standard points
        Board(self.num_rows, self.num_cols)  # a size the board cannot take fails here

    def initial_state(self) -> "GoState":
        if not self.handicap:
            return GoState(Board(self.num_rows, self.num_cols), Player.black, None, None, self)
        return GoState.with_handicap(self.num_rows, self.handicap_points, self.komi, game=self)

    def describe(self) -> str:
        """``go 9x9, komi 7.5 for white (go:size=9,komi=7.5)``, with the handicap and the dead stones where set."""
        words = [f"go {self.num_rows}x{self.num_cols}", f"komi {self.komi:g} for white"]
        if self.handicap:
            words.append(f"{self.handicap} handicap stones")
        if self.dead_stones:
            words.append("dead stones taken off at the count")
        return f"{', '.join(words)} ({self.spec})"

    def with_komi(self, komi: float) -> "GoGame":
        """The same board with another komi."""
        return GoGame(self.num_rows, self.num_cols, komi, self.handicap, self.dead_stones)

    def symmetries(self) -> list[Symmetry]:
        return grid_symmetries(self.num_rows, self.num_cols, self.num_actions)

    def openspiel_game(self) -> OpenSpielGame | None:
        """OpenSpiel's ``go`` (square boards, no handicap, the board scored as it stands),
        with the same actions: points from A1 row by row, then pass. Its rules differ
        in one place: it forbids only the simple ko, where we forbid any repeated
        position (situational superko)."""
        if self.num_rows != self.num_cols or self.handicap or self.dead_stones:
            return None
        size = self.num_rows
        return OpenSpielGame(f"go(board_size={size},komi={self.komi:g},max_game_length={4 * size * size})",
                             tuple(range(self.num_actions)))

    def compiled_rules(self) -> CompiledRules | None:
        """Go's rules compiled (:class:`dlgo.games.go.compiled_rules.GoRules`: the board's
        tables, the komi, a state put on the compiled board), for the compiled forest
        of PUCT trees (:class:`engines.forest.GoForest`)."""
        from dlgo.games.go.compiled_rules import GoRules  # numba: loaded on first use

        return GoRules(self.num_rows, self.num_cols, self.komi)

    def outcome_text(self, winner: Player | None, ending: Ending) -> str:
        if ending is Ending.FORFEIT:
            return f"{winner}+F"
        return super().outcome_text(winner, ending)


class _History:
    """``h in _History(state)``: would ``h`` repeat a position of ``state``'s game?"""

    __slots__ = ("state",)

    def __init__(self, state: "GoState"):
        self.state = state

    def __contains__(self, h: object) -> bool:
        return h in self.state._reached and h in self.state.history_hashes()


class GoState(State):
    """An immutable Go position with its history: the board, the player to move,
    the previous state and the move that led here.

    >>> s = GoState.new_game(9).apply_move(Move.play(Point(3, 3)))
    >>> s.next_player
    <Player.white: 2>
    """

    __slots__ = ("game", "board", "next_player", "previous_state", "last_move", "_hash", "_reached", "_seen",
                 "_ply", "_action", "_compiled")

    game: GoGame
    previous_state: "GoState | None"

    def __init__(self, board: Board, next_player: Player, previous: "GoState | None", move: Move | None,
                 game: GoGame | None = None, action: int | None = None):
        self.game = game if game is not None else (
            previous.game if previous is not None else GoGame(board.num_rows, board.num_cols))
        self.board = board
        self.next_player = Player(next_player)
        self.previous_state = previous
        self.last_move = move
        self._hash = h = board.hash ^ side_key(self.next_player)
        self._seen: frozenset[int] | None = None  # this game's hashes, gathered on first need
        self._ply: int = 0 if previous is None else previous._ply + 1
        #: the action that led here (-1: none, or a resignation), for replaying the game compiled
        self._action: int = action if action is not None else (
            -1 if move is None or move.is_resign else board.geometry.num_points if move.is_pass
            else board.geometry.index_of_unchecked(move.point))  # type: ignore[arg-type]
        self._compiled: object = None  # the compiled board of a game's first state (dlgo.games.go.playouts)
        if previous is None:
            self._reached: set[int] = {h}
        elif len(previous._reached) < MAX_REACHED:
            self._reached = previous._reached
            self._reached.add(h)
        else:
            self._reached = set(previous.history_hashes()) | {h}

    @classmethod
    def new_game(cls, board_size: int | tuple[int, int], komi: float = 7.5) -> "GoState":
        """An empty board (``board_size`` an int or ``(rows, cols)``), black to move."""
        rows, cols = (board_size, board_size) if isinstance(board_size, int) else board_size
        return GoGame(rows, cols, komi).initial_state()

    @classmethod
    def from_board(cls, board: Board, next_player: Player = Player.black, komi: float = 7.5) -> "GoState":
        """A game that starts from a set-up position (e.g. handicap stones)."""
        return cls(board.copy(), next_player, None, None, GoGame(board.num_rows, board.num_cols, komi))

    @classmethod
    def with_handicap(cls, size: int, points: Sequence[Point], komi: float = 0.5,
                      game: GoGame | None = None) -> "GoState":
        """A handicap game: black stones on ``points``, white to move."""
        board = Board(size, size)
        for point in points:
            board.place_stone(Player.black, point)
        return cls(board, Player.white, None, None, game or GoGame(size, size, komi))

    # -------------------------------------------------------------- superko
    def history_hashes(self) -> frozenset[int]:
        """The hashes of every state of this game so far, this one included."""
        if self._seen is None:
            chain: list[int] = []
            state: GoState | None = self
            while state is not None and state._seen is None:
                chain.append(state._hash)
                state = state.previous_state
            base = state._seen if state is not None and state._seen is not None else frozenset()
            self._seen = base.union(chain)
        return self._seen

    def _forbidden(self) -> "set[int] | _History":
        """The hashes this game may not repeat, as a container: the shared set
        itself when it holds only this game's history (see the module's docstring)."""
        reached = self._reached
        return reached if len(reached) == self._ply + 1 else _History(self)

    def _repeats(self, h: int) -> bool:
        """Would a state with hash ``h`` repeat a position of this game?"""
        return h in self._reached and h in self.history_hashes()

    # ----------------------------------------------------------------- moves
    def _check_play(self, p: int) -> None:
        """:class:`IllegalMoveError` naming the rule a play at flat index ``p`` breaks."""
        board = self.board
        c = int(self.next_player)
        if board.color[p]:
            raise IllegalMoveError(f"illegal move {self._name(p)}: the point is occupied")
        h = board.hash_after_play(p, c)
        if h < 0:
            raise IllegalMoveError(f"illegal move {self._name(p)}: self-capture")
        h ^= side_key(3 - c)
        if self._repeats(h):
            prev = self.previous_state
            if prev is not None and prev._hash == h:
                raise IllegalMoveError(f"illegal move {self._name(p)}: ko (retake it after a move elsewhere)")
            raise IllegalMoveError(f"illegal move {self._name(p)}: superko (it repeats an earlier position)")

    def _name(self, p: int) -> str:
        point = self.board.geometry.points[p]
        return f"{go_column_label(point.col)}{point.row}"

    def apply_action(self, action: int) -> "GoState":
        """The state after ``action`` (a point's index, or the pass index)."""
        if self.is_over():
            raise IllegalMoveError("the game is over")
        geometry = self.board.geometry
        if action == geometry.num_points:
            return GoState(self.board, self.next_player.other, self, PASS, self.game, action)
        if not 0 <= action < geometry.num_points:
            raise IllegalMoveError(f"action index {action} out of range 0..{geometry.num_points}")
        self._check_play(action)
        board = self.board.copy()
        board.play(action, int(self.next_player))
        return GoState(board, self.next_player.other, self, geometry.plays[action], self.game, action)

    def apply_move(self, move: Move) -> "GoState":
        if move.point is not None:
            return self.apply_action(self.board.geometry.index_of(move.point))
        if self.is_over():
            raise IllegalMoveError("the game is over")
        return self.after_resignation() if move.is_resign else self.apply_action(self.board.geometry.num_points)

    def after_resignation(self) -> "GoState":
        return GoState(self.board, self.next_player.other, self, RESIGN, self.game)

    def with_turn(self, player: Player) -> "GoState":
        """This position with ``player`` to move (``self`` if it is already their
        turn): how a controller's two moves of one colour are kept (GTP), with no
        pass that two passes could end the game with. The turn handed over is a
        state of the game (its hash counts for superko, as a pass's would) with
        no ``last_move``, so records and :meth:`move_history` show no move; the
        compiled board replays it as a pass (same stones, colour and hash)."""
        if player == self.next_player:
            return self
        if self.is_over():
            raise IllegalMoveError("the game is over")
        return GoState(self.board, player, self, None, self.game, action=self.board.geometry.num_points)

    def is_valid_move(self, move: Move) -> bool:
        if self.is_over():
            return False
        if move.point is None:
            return True
        try:
            self._check_play(self.board.geometry.index_of(move.point))
        except IllegalMoveError:
            return False
        return True

    def _legal_play_indices(self) -> Iterator[int]:
        board = self.board
        color = board.color
        c = int(self.next_player)
        side = side_key(3 - c)
        reached = self._reached
        hash_after_play = board.hash_after_play
        for p in range(board.geometry.num_points):
            if not color[p]:
                h = hash_after_play(p, c)
                if h >= 0:
                    h ^= side
                    if h not in reached or h not in self.history_hashes():
                        yield p

    def ko_points(self) -> list[int]:
        """Flat indices of the empty points where a play is forbidden only by
        (super)ko: it would capture or have liberties, but repeats a position."""
        board = self.board
        c = int(self.next_player)
        side = side_key(3 - c)
        color, hash_after_play = board.color, board.hash_after_play
        return [p for p in range(board.geometry.num_points)
                if not color[p] and (h := hash_after_play(p, c)) >= 0 and self._repeats(h ^ side)]

    def legal_actions(self) -> list[int]:
        """Every legal play, in board order, then pass. Empty once the game is over."""
        if self.is_over():
            return []
        return [*self._legal_play_indices(), self.board.geometry.num_points]

    def sensible_actions(self) -> list[int]:
        """Legal plays that do not fill the mover's own eye, then pass if the
        opponent has just passed (so a won game can be ended) or if no such play
        is left. Search trees and the neural agents choose among these."""
        if self.is_over():
            return []
        board, c = self.board, int(self.next_player)
        is_eye = board.is_eye
        actions = [p for p in self._legal_play_indices() if not is_eye(p, c)]
        if not actions or (self.last_move is not None and self.last_move.is_pass):
            actions.append(board.geometry.num_points)
        return actions

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=bool)
        if not self.is_over():
            mask[list(self._legal_play_indices())] = True
            mask[-1] = True  # pass
        return mask

    def random_move(self, rng: random.Random) -> Move:
        """The book's random bot: a uniformly random legal play that does not fill
        the mover's own eye; pass only when no such play is left. Same policy and
        code as the playouts (:meth:`Board.select_random_play`), on a scratch copy."""
        if self.is_over():
            raise IllegalMoveError("the game is over")
        c = int(self.next_player)
        p = self.board.copy().select_random_play(c, self._forbidden(), side_key(3 - c), rng.random)
        return PASS if p < 0 else self.board.geometry.plays[p]

    # ----------------------------------------------------------------- result
    def is_over(self) -> bool:
        """Two passes in a row, or a resignation."""
        move = self.last_move
        if move is None or move.is_play:
            return False
        if move.is_resign:
            return True
        previous = self.previous_state
        second_last = previous.last_move if previous is not None else None
        return second_last is not None and second_last.is_pass

    def winner(self) -> Player | None:
        """The winner of a finished game (area scoring), None if unfinished or a draw."""
        if not self.is_over():
            return None
        if self.last_move is not None and self.last_move.is_resign:
            return self.next_player  # the other player resigned
        return area_winner(self.board, self.game.komi)

    def outcome(self) -> Outcome | None:
        """Resignation (``W+R``), or the area count after two passes (``B+3.5``, ``0``)."""
        if not self.is_over():
            return None
        if self.last_move is not None and self.last_move.is_resign:
            return self.game.outcome(self.next_player, Ending.RESIGNATION)
        score = score_with_dead_stones(self, seed=self._hash) if self.game.dead_stones else compute_game_result(self)
        return Outcome(score.winner, Ending.SCORE, str(score))

    def area_count(self) -> AreaCount | None:
        """The count behind :meth:`outcome` after two passes: the board as it
        stands, or with the dead stones off when the game estimates them (the
        same estimate as the outcome's); None while the game goes on or after a resignation."""
        if not self.is_over() or (self.last_move is not None and self.last_move.is_resign):
            return None
        dead = stone_status(self, seed=self._hash).dead if self.game.dead_stones else frozenset()
        return count_area(self.board, self.game.komi, dead)

    def heuristic_value(self) -> float:
        """Capture difference plus an area estimate (stones and empty regions that
        touch one colour only), komi included, for the player to move."""
        board = self.board
        t = evaluate_territory(board)
        black = t.num_black_stones + t.num_black_territory + board.captures[Player.black]
        white = t.num_white_stones + t.num_white_territory + board.captures[Player.white] + self.game.komi
        return black - white if self.next_player is Player.black else white - black

    def zobrist_hash(self) -> int:
        """Hash of the stones and the player to move, updated incrementally."""
        return self._hash

    # ----------------------------------------------------------- action space
    def move_to_index(self, move: Move) -> int:
        if move.point is not None:
            return self.board.geometry.index_of(move.point)
        if move.is_pass:
            return self.board.geometry.num_points
        raise IllegalMoveError("resign has no action index")

    def index_to_move(self, index: int) -> Move:
        geometry = self.board.geometry
        if index == geometry.num_points:
            return PASS
        if not 0 <= index < geometry.num_points:
            raise IllegalMoveError(f"action index {index} out of range 0..{geometry.num_points}")
        return geometry.plays[index]

    def action_point(self, action: int) -> Point | None:
        geometry = self.board.geometry
        return geometry.points[action] if action < geometry.num_points else None

    def stone_array(self) -> np.ndarray:
        return np.asarray(self.board.color, dtype=np.int8).reshape(self.board.num_rows, self.board.num_cols)

    # ------------------------------------------------------------- human I/O
    def parse_move(self, text: str) -> Move:
        """``C3`` (columns A-Z without I, rows from 1 at the bottom), ``pass`` or ``resign``."""
        word = text.strip().lower()
        if word == "pass":
            return PASS
        if word == "resign":
            return RESIGN
        return Move.play(parse_go_point(text, self.board.num_rows, self.board.num_cols))

    def move_help(self) -> str:
        last = go_column_label(self.board.num_cols)
        return f"a point, column A-{last} without I, row 1-{self.board.num_rows} from the bottom"

    def format_move(self, move: Move) -> str:
        if move.is_pass:
            return "pass"
        if move.is_resign or move.point is None:
            return "resign"
        return f"{go_column_label(move.point.col)}{move.point.row}"

    def render(self) -> str:
        return self.board.render(self.last_move.point if self.last_move is not None else None)

    # --------------------------------------------------------------- playouts
    def random_playout(self, rng: random.Random, moves: list[Move] | None = None,
                       max_moves: int | None = None, policy: "PlayoutPolicy | None" = None,
                       compiled: bool = True) -> Player | None:
        """Finish the game with the book's random policy (uniform over legal plays
        that do not fill one's own eye; pass when none is left) on a private
        mutable board, and return the winner by area scoring. With ``policy``
        (a fast rollout policy, :mod:`dlgo.games.go.patterns`) the moves are drawn
        from it instead.

        Two paths play the same games: the compiled board (the default,
        :mod:`dlgo.games.go.playouts`) and, with ``compiled=False``, the readable
        reference, this module's :class:`Board` and :meth:`Board.select_random_play`
        (or the policy's ``select``): the rules of :meth:`apply_action`, same code.
        Both draw one 63-bit seed from ``rng`` and their moves from SplitMix64 with it.
        If ``moves`` is a list, the moves played are appended to it. ``max_moves``
        (default 10 x points) is a safety cap: the position is scored when reached."""
        if self.is_over():
            return self.winner()
        if compiled:
            from dlgo.games.go.playouts import random_playout
            return random_playout(self, rng, moves, max_moves, policy=policy)
        passes = 1 if self.last_move is not None and self.last_move.is_pass else 0
        stream = SplitMix64(rng.getrandbits(63))
        board = self._play_on(stream, self.next_player, passes, moves, max_moves, policy=policy)
        return area_winner(board, self.game.komi)

    def continued_board(self, rng: "random.Random | SplitMix64", first: Player) -> Board:
        """The board after both players play on from here, ``first`` moving
        first, until two passes in a row, even if the game is over: the random
        policy of :meth:`random_playout` that also never plays a self-atari (a
        light policy, as Go programs use to judge life and death at the end)."""
        return self._play_on(rng, first, 0, None, None, careful=True)

    def continued_owners(self, first: Player, seed: int, compiled: bool = True) -> list[int]:
        """Who owns each point (1 black, 2 white, 0 neither; by point index) once
        both players have played on as in :meth:`continued_board`, with SplitMix64
        from ``seed``: compiled (the default) or on the readable board, the same game."""
        if compiled:
            from dlgo.games.go.playouts import continued_owners
            return continued_owners(self, first, seed)
        board = self.continued_board(SplitMix64(seed), first)
        return point_owners(board.color, board.geometry.neighbors)

    def _play_on(self, rng: "random.Random | SplitMix64", first: Player, passes: int, moves: list[Move] | None,
                 max_moves: int | None, careful: bool = False, policy: "PlayoutPolicy | None" = None) -> Board:
        board = self.board.copy()
        forbidden = self._forbidden()
        seen = set(forbidden) if isinstance(forbidden, set) else set(self.history_hashes())
        c = int(first)
        rand = rng.random
        select = board.select_random_play
        play = board.play
        plays = board.geometry.plays
        budget = 10 * board.geometry.num_points if max_moves is None else max_moves
        p = -1 if self.last_move is None or self.last_move.point is None else self.board.geometry.index_of(
            self.last_move.point)
        while passes < 2 and budget > 0:
            budget -= 1
            side = zobrist.WHITE_TO_MOVE if c == BLACK else 0  # the opponent moves next
            p = select(c, seen, side, rand, careful) if policy is None else policy.select(board, c, p, seen, side, rand)
            if p < 0:
                passes += 1
            else:
                passes = 0
                play(p, c)
            seen.add(board.hash ^ side)
            if moves is not None:
                moves.append(PASS if p < 0 else plays[p])
            c = 3 - c
        return board

    def __repr__(self) -> str:
        return f"<go GoState {self.board.num_rows}x{self.board.num_cols}, {self.next_player.name} to move>"


#: the book's name for Go's state (``dlgo.goboard.GameState``); the suite's code says GoState
GameState = GoState


def compute_game_result(game_state: GoState) -> GameResult:
    """Area score of a game state's board with the game's komi (the book's name)."""
    return area_score(game_state.board, game_state.game.komi)
