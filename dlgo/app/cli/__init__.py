"""The ``dlgo`` command line.

    dlgo games                                   the games and their options
    dlgo engines                                 the engines, their parameters and defaults
    dlgo play --game connect4 --black human --white mcts:rounds=2000
    dlgo demo                                    bot-vs-bot games of each game

One module per group of commands, each with a ``register(subparsers)`` that
adds its commands, their options and their handlers (``func``); what several
groups share (``--ray``, a run's settings as options, players, records) is in
:mod:`dlgo.app.cli.shared`.
"""
from __future__ import annotations

import argparse
import errno
import os
import sys
from typing import Sequence

from dlgo import __version__
from dlgo.app.cli import analysis, arena, bots, data, exercise, league, listing, play, showcase, solving, training
from dlgo.core.errors import DlgoError

#: the command groups, in the order ``dlgo --help`` lists their commands
GROUPS = (listing, play, arena, league, data, training, analysis, solving, showcase, exercise, bots)

#: operating-system errors a user causes (a path, a permission, a full disk): one line, like DlgoError
USER_OS_ERRORS = (PermissionError, FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError)
USER_ERRNOS = (errno.ENOSPC, errno.EROFS, errno.ENAMETOOLONG, errno.EDQUOT, errno.ELOOP)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dlgo", description="The dlgo game-AI comparison suite.")
    parser.add_argument("--version", action="version", version=f"dlgo {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in GROUPS:
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            return run(argv)
        finally:
            sys.stdout.flush()  # here, not at exit (argparse's --help too): a reader gone away is caught below
    except BrokenPipeError:  # `dlgo engines | head`: the reader has all it wants; end quietly
        _silence_stdout()
        return 141  # 128 + SIGPIPE, what a program the pipe had stopped would return


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's last flush at exit finds no closed pipe."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture): nothing will flush into a pipe
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run its command: a user's mistake is one line on stderr and a non-zero status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt as interrupt:  # Ctrl-C: quietly, saying what was kept
        print(f"\ninterrupted{': ' + str(interrupt) if str(interrupt) else ''}", file=sys.stderr)
        return 130
    except DlgoError as err:  # a user's mistake: one line; any other exception is a bug and keeps its traceback
        print(f"dlgo: error: {err or type(err).__name__}", file=sys.stderr)
        return 2
    except OSError as err:
        if not isinstance(err, USER_OS_ERRORS) and err.errno not in USER_ERRNOS:
            raise  # not the user's environment: a bug, with its traceback
        where = f": {err.filename}" if err.filename else ""
        print(f"dlgo: error: {err.strerror or err}{where}", file=sys.stderr)
        return 2
