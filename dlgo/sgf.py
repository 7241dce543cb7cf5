"""Writing Go games as SGF (FF[4]), the format every Go program and GUI reads.

SGF points are two letters, column then row, counted from the top-left corner
(``aa``); a pass is an empty value (``B[]``).
"""
from __future__ import annotations

from dlgo.goboard import GameState, Move


def sgf_point(move: Move, num_rows: int) -> str:
    if not move.is_play:
        return ""
    return chr(ord("a") + move.point.col - 1) + chr(ord("a") + num_rows - move.point.row)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def game_to_sgf(state: GameState, black: str = "", white: str = "", result: str = "") -> str:
    """The game that led to ``state`` as an SGF string (area rules; a
    resignation ends the record with ``RE[B+R]``/``RE[W+R]``)."""
    rows, cols = state.board.num_rows, state.board.num_cols
    size = str(rows) if rows == cols else f"{cols}:{rows}"
    header = (f"(;FF[4]GM[1]CA[UTF-8]AP[dlgo]SZ[{size}]KM[{state.komi:g}]RU[Chinese]"
              f"PB[{_escape(black)}]PW[{_escape(white)}]" + (f"RE[{_escape(result)}]" if result else ""))
    nodes = []
    for s in state.history():
        move = s.last_move
        if move is None or move.is_resign:
            continue
        colour = "W" if s.next_player.name == "black" else "B"  # the player who just moved
        nodes.append(f";{colour}[{sgf_point(move, rows)}]")
    return header + "".join(nodes) + ")\n"
