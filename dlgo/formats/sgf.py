"""Go games as SGF (FF[4]), the format every Go program and GUI reads: writing,
and reading through sgfmill (a well-kept parser) into moves we can replay.

SGF points are two letters, column then row, counted from the top-left corner
(``aa``); a pass is an empty value (``B[]``).
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from sgfmill import sgf

from dlgo.core.errors import RecordError
from dlgo.core.game import State
from dlgo.core.types import Move, Player, Point
from dlgo.games.go.board import Board
from dlgo.games.go.state import GoState


def sgf_point(move: Move, num_rows: int) -> str:
    """``aa`` for the top-left point; an empty string for a pass."""
    if move.point is None:
        return ""
    return chr(ord("a") + move.point.col - 1) + chr(ord("a") + num_rows - move.point.row)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def game_to_sgf(state: State, black: str = "", white: str = "", result: str = "") -> str:
    """The Go game that led to ``state`` as an SGF string (area rules; a
    resignation ends the record with ``RE[B+R]``/``RE[W+R]``). Stones on the
    first position's board (handicap) become ``AB``/``AW`` set-up with ``HA``.
    :class:`RecordError` for a game that is not Go."""
    if not isinstance(state, GoState):
        raise RecordError(f"SGF records Go games, not {state.game.name}")
    rows, cols = state.board.num_rows, state.board.num_cols
    size = str(rows) if rows == cols else f"{cols}:{rows}"
    states = list(state.history())
    assert isinstance(states[0], GoState)
    header = (f"(;FF[4]GM[1]CA[UTF-8]AP[dlgo]SZ[{size}]KM[{state.game.komi:g}]RU[Chinese]"
              f"PB[{_escape(black)}]PW[{_escape(white)}]" + (f"RE[{_escape(result)}]" if result else ""))
    header += _setup_properties(states[0])
    nodes = []
    for s in states:
        move = s.last_move
        if move is None or move.is_resign:
            continue
        colour = "W" if s.next_player.name == "black" else "B"  # the player who just moved
        nodes.append(f";{colour}[{sgf_point(move, rows)}]")
    return header + "".join(nodes) + ")\n"


def _setup_properties(start: GoState) -> str:
    """``HA``, ``AB``, ``AW`` and ``PL`` for a game that starts from stones on the board."""
    board, rows = start.board, start.board.num_rows
    stones: dict[Player, list[str]] = {Player.black: [], Player.white: []}
    for row in range(1, rows + 1):
        for col in range(1, board.num_cols + 1):
            owner = board.get(Point(row, col))
            if owner is not None:
                stones[owner].append(sgf_point(Move.play(Point(row, col)), rows))
    text = ""
    if stones[Player.black] and not stones[Player.white] and start.next_player == Player.white:
        text += f"HA[{len(stones[Player.black])}]"
    for player, tag in ((Player.black, "AB"), (Player.white, "AW")):
        if stones[player]:
            text += tag + "".join(f"[{p}]" for p in stones[player])
    if start.next_player == Player.white:
        text += "PL[W]"
    return text


# ------------------------------------------------------------------ reading
@dataclass
class SgfRecord:
    """A Go game read from SGF: the board, the setup stones and the moves."""

    size: int
    komi: float
    black: str = ""
    white: str = ""
    result: str = ""
    setup: dict[Player, list[Point]] = field(default_factory=lambda: {Player.black: [], Player.white: []})
    moves: list[tuple[Player, Move]] = field(default_factory=list)

    @property
    def game(self) -> str:
        """The game spec, e.g. ``go:size=19,komi=6.5``."""
        return f"go:size={self.size},komi={self.komi:g}"

    def plies(self) -> tuple[list[Move], int]:
        """The game as moves that alternate colours from an empty board, and how
        many of them only place the setup stones.

        Setup stones (handicap ``AB``, and ``AW``) become plays by their colour,
        with a pass by the other side between two stones of one colour; a pass
        is also put between two moves of one colour in the game itself."""
        sequence = [(Player.black, Move.play(p)) for p in self.setup[Player.black]]
        sequence += [(Player.white, Move.play(p)) for p in self.setup[Player.white]]
        out: list[Move] = []
        to_move = Player.black

        def add(player: Player, move: Move) -> None:
            nonlocal to_move
            if player != to_move:
                out.append(Move.pass_turn())
                to_move = to_move.other
            out.append(move)
            to_move = to_move.other

        for player, move in sequence:
            add(player, move)
        setup_plies = len(out)
        for player, move in self.moves:
            add(player, move)
        return out, setup_plies


def read_sgf(data: bytes | str) -> SgfRecord:
    """Parse one SGF game (sgfmill does the parsing); :class:`RecordError` if it
    is not a readable Go game."""
    raw = data.encode() if isinstance(data, str) else data
    try:
        game = sgf.Sgf_game.from_bytes(raw)
    except ValueError as err:
        raise RecordError(f"not a readable SGF game: {err}") from None
    root = game.get_root()
    where, why = "its header", "a value out of range"  # what was read, and the likely cause of a bare ValueError
    try:  # sgfmill reads each property when asked, and says only ValueError if one is bad
        if root.has_property("GM") and root.get("GM") != 1:
            raise RecordError(f"not a Go game (GM[{root.get('GM')}])")
        size = game.get_size()
        record = SgfRecord(size=size, komi=game.get_komi(),
                           black=game.get_player_name("b") or "", white=game.get_player_name("w") or "",
                           result=root.get("RE") if root.has_property("RE") else "")

        def point(rc: tuple[int, int]) -> Point:
            return Point(rc[0] + 1, rc[1] + 1)  # sgfmill counts rows from the bottom, from 0

        where, why = "its handicap (HA)", "HA must be 0 or a number of stones from 2"
        handicap = game.get_handicap() or 0
        where, why = "its setup stones", "a point off the board"
        black, white, _ = root.get_setup_stones()
        record.setup[Player.black] = sorted(point(rc) for rc in black)
        record.setup[Player.white] = sorted(point(rc) for rc in white)
        if handicap and handicap != len(black):  # FF[4]: a handicap's stones are set up with AB
            raise RecordError(f"not a readable SGF game: its handicap (HA): HA[{handicap}] says {handicap} stones, "
                              f"but AB places {len(black)} black stones")
        for number, node in enumerate(game.get_main_sequence()[1:], start=1):
            where, why = f"node {number}", "a move off the board"
            colour, rc = node.get_move()
            if colour is None:
                continue
            player = Player.black if colour == "b" else Player.white
            record.moves.append((player, Move.pass_turn() if rc is None else Move.play(point(rc))))
    except RecordError:
        raise
    except ValueError as err:
        raise RecordError(f"not a readable SGF game: {where}: {str(err) or why}") from None
    return record


#: the largest SGF file read: a game record is a few kilobytes, and a reader must never
#: be handed a device or a pipe that does not end
MAX_SGF_BYTES = 2_000_000


def read_sgf_file(path: str | Path) -> SgfRecord:
    """The game in the SGF file ``path``: a regular file of at most
    :data:`MAX_SGF_BYTES` (never a device, a pipe or a folder, which could block
    or never end); :class:`RecordError` otherwise, ``OSError`` if it cannot be read."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise RecordError(f"{path} is not a regular file")
    if info.st_size > MAX_SGF_BYTES:
        raise RecordError(f"{path} has {info.st_size:,} bytes; an SGF game is read up to {MAX_SGF_BYTES:,}")
    with open(path, "rb") as handle:
        return read_sgf(handle.read(MAX_SGF_BYTES + 1))


def sgf_to_state(record: SgfRecord) -> GoState:
    """The final position of ``record`` (:class:`RecordError` at an illegal move).
    Set-up stones are placed on the first position's board, so the history
    holds only the game's moves (a pass is put between two of one colour)."""
    board = Board(record.size, record.size)
    for player, points in record.setup.items():
        for point in points:
            board.place_stone(player, point)
    first = record.moves[0][0] if record.moves else (
        Player.white if record.setup[Player.black] and not record.setup[Player.white] else Player.black)
    state = GoState.from_board(board, first, komi=record.komi)
    for ply, (player, move) in enumerate(record.moves):
        try:
            if player != state.next_player:
                state = state.apply_move(Move.pass_turn())
            state = state.apply_move(move)
        except ValueError as err:
            raise RecordError(f"move {ply + 1}: {err}") from None
    return state
