"""GTP from a GUI's side: a network engine starts on its own board, and bytes
that are not UTF-8 (or control characters) neither end the session nor come back."""
from __future__ import annotations

import io
import sys

import engines
from dlgo.app import cli
from dlgo.app.gtp_server import GtpFrontend
from dlgo.gtp.protocol import format_response


def gtp_session(monkeypatch, argv: list[str], commands: bytes) -> str:
    """What ``dlgo gtp ARGV`` answers to ``commands`` on its stdin (bytes)."""
    stdin = io.TextIOWrapper(io.BytesIO(commands), encoding="utf-8")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    assert cli.main(["gtp", *argv]) == 0
    return stdout.buffer.getvalue().decode("utf-8")


def test_the_shipped_go9_network_starts_on_its_own_board_and_refuses_another(monkeypatch):
    """`dlgo gtp --engine alphago:checkpoint=go9` with no --size: 9x9 and the
    network's komi, not a dead engine; `boardsize 19` gets GTP's "unacceptable size"."""
    answers = gtp_session(monkeypatch, ["--engine", "alphago:checkpoint=go9,simulations=2,seed=1"],
                          b"1 showboard\n2 boardsize 19\n3 boardsize 9\n4 genmove b\nquit\n").split("\n\n")
    assert answers[0].startswith("=1\n9 ") and "A B C D E F G H J\nkomi 7.5," in answers[0]
    assert answers[1].startswith("?2 unacceptable size: this model plays go:size=9")
    assert answers[2] == "=3" and answers[3].startswith("=4 ") and answers[4] == "="


def test_an_engine_that_plays_any_size_starts_on_19_and_the_options_still_win():
    assert (GtpFrontend(engines.create("random")).size, GtpFrontend(engines.create("random")).komi) == (19, 7.5)
    frontend = GtpFrontend(engines.create("random"), size=7, komi=0.5)
    assert (frontend.size, frontend.komi) == (7, 0.5)
    assert engines.create("mcts").native_game() is None


def test_a_line_that_is_not_utf8_gets_a_question_mark_and_the_session_goes_on(monkeypatch):
    answers = gtp_session(monkeypatch, ["--engine", "random", "--size", "9"],
                          b"1 name\n2 loadsgf \xff.sgf\n3 na\xffme\n# a comment \xfe\n4 name\nquit\n")
    assert answers == "=1 dlgo\n\n?2 not UTF-8 text\n\n?3 not UTF-8 text\n\n=4 dlgo\n\n=\n\n"


def test_no_control_character_or_undecodable_byte_is_echoed(tmp_path):
    frontend = GtpFrontend(engines.create("random"), size=9)
    answer = frontend.handle(f"1 loadsgf {tmp_path}/\u00ff\x1b[31mred.sgf".encode())
    assert answer is not None and answer.startswith("?1 cannot load file")
    assert "\x1b" not in answer and "\u00ff[31mred.sgf" in answer  # the control character dropped, not the rest
    assert format_response(2, "bad \udcff byte\x07\x9b here", ok=False) == "?2 bad ? byte here\n\n"
