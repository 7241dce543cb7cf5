"""GTP's wire format: commands in, responses out, vertices and colours.

A command line is ``[id] name [arguments...]``. Before parsing, control
characters other than tab and newline are removed, tabs become spaces and
everything after ``#`` is a comment (spec, section 2.2). A response is
``=id text`` or ``?id message``, ended by an empty line, with no control
characters in it.
"""
from __future__ import annotations

import unicodedata
from typing import NamedTuple

from dlgo.core.errors import DlgoError
from dlgo.core.types import PASS, Move, Player
from dlgo.core.grid import go_column_label, parse_go_point

MAX_SIZE = 25  # the letters A..Z without I
MAX_ID_DIGITS = 9  # a command id: ASCII digits, at most this many


class GtpError(DlgoError):
    """A command that cannot be carried out; its message becomes the ``?`` response."""


class Command(NamedTuple):
    """One parsed command line: ``id`` is None when the line had none."""

    id: int | None
    name: str
    args: list[str]


def clean_line(line: str) -> str:
    """The line with comments and control characters removed, tabs as spaces."""
    return printable(line.split("#", 1)[0].replace("\t", " ")).strip()


def printable(text: str) -> str:
    """``text`` without control characters (newlines kept) and with ``?`` for lone
    surrogates (undecodable bytes): what may go on the wire."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    return "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch) != "Cc")


def parse_command(line: str) -> Command | None:
    """The command on ``line``, or None for an empty or comment-only line.
    A line with an id but no command name raises :class:`GtpError`."""
    words = clean_line(line).split()
    if not words:
        return None
    command_id = None
    if words[0].isdigit():  # meant as an id (str.isdigit also takes other scripts' digits)
        if not (words[0].isascii() and len(words[0]) <= MAX_ID_DIGITS):
            raise GtpError(f"malformed command id: ids are up to {MAX_ID_DIGITS} digits 0-9")
        command_id = int(words[0])
        words = words[1:]
        if not words:
            raise GtpError("missing command")
    return Command(command_id, words[0], words[1:])


def format_response(command_id: int | None, text: str = "", ok: bool = True) -> str:
    """``=id text`` or ``?id message``, with the empty line that ends a response.
    Empty lines inside ``text`` would end it early, so they are dropped; a
    ``text`` that starts with a newline (a board) starts on the next line."""
    text = printable(text)
    body = "\n".join(line for line in text.strip("\n").split("\n") if line.strip())
    head = ("=" if ok else "?") + ("" if command_id is None else str(command_id))
    if not body:
        return f"{head}\n\n"
    return f"{head}\n{body}\n\n" if text.startswith("\n") else f"{head} {body}\n\n"


def parse_color(text: str) -> Player:
    """``b``/``black`` or ``w``/``white`` in any case."""
    word = text.lower()
    if word in ("b", "black"):
        return Player.black
    if word in ("w", "white"):
        return Player.white
    raise GtpError(f"invalid color {text!r}")


def parse_vertex(text: str, size: int) -> Move:
    """``D4`` (column letters without I, rows from 1 at the bottom) or ``pass``."""
    if text.lower() == "pass":
        return PASS
    try:
        return Move.play(parse_go_point(text, size, size))
    except DlgoError:
        raise GtpError(f"invalid coordinate {text!r}") from None


def format_vertex(move: Move) -> str:
    """A move as GTP writes it: ``D4``, ``pass`` or ``resign``."""
    if move.is_pass:
        return "pass"
    if move.is_resign or move.point is None:
        return "resign"
    return f"{go_column_label(move.point.col)}{move.point.row}"
