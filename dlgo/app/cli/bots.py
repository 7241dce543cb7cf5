"""``dlgo bot new`` (write a bot of your own that plays legal moves from the start) and
``dlgo bot check`` (play a bot on positions of its game, in its own process, and say in one
line each how it breaks the contract a bot keeps)."""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from dlgo.app.bot_template import bot_source, class_name
from dlgo.app.cli.shared import add_bot_limit_options, bot_limits
from dlgo.arena import bot_host
from dlgo.arena.match import random_positions
from dlgo.core.arguments import count
from dlgo.core.errors import DlgoError
from dlgo.core.game import State
from dlgo.games import new_game
from engines.bots import (BotFault, BotLimits, BotProcess, acquire, answered_move, bind_parameters, describe, history,
                          release, split_bot_spec)

#: the positions ``dlgo bot check`` plays besides the initial one, where none are asked for
POSITIONS = 20
#: a check stops after this many moves that got no answer in time (each costs the limit)
MOST_TIMEOUTS = 2
#: ... and after this many positions in a row that broke the contract alike
MOST_IN_A_ROW = 3

#: what each fault is called in ``dlgo bot check``'s lines
HEADLINES = {**bot_host.FAULT_WORDS, bot_host.STARTUP: "stopped working"}
#: the headline of a move that drew from the ``random`` module's own generator (shared, unseeded)
SHARED_RANDOM = "drew from the random module itself"
#: the headline of a move that changed the state it was given
CHANGED = "changed the state it was given in place"
#: ... of a move that was answered, but after its time limit
LATE = "too slow"


def register(sub: argparse._SubParsersAction) -> None:
    """``dlgo bot new`` and ``dlgo bot check`` on the command line's subcommands."""
    p = sub.add_parser("bot", help="a bot of your own: write a new one, check that one keeps the contract")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    q = actions.add_parser("new", help="write a bot that plays legal moves, commented, to start from "
                                       "(never over a file)")
    q.add_argument("game", help="the game it is for (a game spec: connect4, tictactoe, go:size=9, ...)")
    q.add_argument("file", help="the new bot's file, FILE.py (it must not exist)")
    q.set_defaults(func=cmd_new)

    q = actions.add_parser("check", help="play a bot on positions of its game and say how it breaks the contract, "
                                         "if it does (exit 1)")
    q.add_argument("file", help="the bot: FILE.py, FILE.py:Class, FILE.py:key=value, or a package's engine")
    q.add_argument("--game", default="connect4",
                   help="the game to check it on: the one it is for, a game spec such as tictactoe or go:size=9 "
                        "(default connect4)")
    q.add_argument("--positions", type=count("positions", 0), default=POSITIONS, metavar="N",
                   help=f"play it on the initial position and N more that random play reaches (default {POSITIONS})")
    q.add_argument("--seed", type=int, default=0,
                   help="seed of the random play that reaches the positions, and the bot's (default 0)")
    add_bot_limit_options(q)
    q.set_defaults(func=cmd_check)


# ------------------------------------------------------------------ new
def cmd_new(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if path.suffix != ".py":
        raise DlgoError(f"a bot's file is Python, FILE.py; got {args.file!r}")
    source = bot_source(args.game, path)  # a SpecError for no game, before any file is made
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(source)
    except FileExistsError:
        raise DlgoError(f"{args.file} exists already: dlgo bot new writes only new files; give another name") from None
    print(f"wrote {args.file}: {class_name(path)}, a bot for {args.game} that plays legal moves. Next:")
    print(f"  dlgo bot check {args.file} --game {args.game}")
    print(f"  dlgo play --game {args.game} --black human --white {args.file}")
    return 0


# ------------------------------------------------------------------ check
class Problem(NamedTuple):
    """One way a bot broke the contract: what (one of :data:`HEADLINES`' values, or
    :data:`CHANGED`), where (``position 3 (moves: 4 4)``, or ``""``) and the details."""

    what: str
    where: str
    detail: str


@dataclass
class Checked:
    """What ``dlgo bot check`` found: the positions it played, the seconds of each answered
    move, the problems (in order) and, if the check ended early, why."""

    label: str
    game: str
    checked: int = 0
    seconds: list[float] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    stopped: str = ""
    printed: bool = False  # it wrote to stdout or stderr (no fault: the output goes nowhere)

    @property
    def kept(self) -> bool:
        """Did the bot keep the contract everywhere it was checked?"""
        return not self.problems

    def lines(self) -> list[str]:
        """One line per kind of problem (its first instance, and how many more), then a summary."""
        first: dict[str, Problem] = {}
        more: dict[str, int] = {}
        for problem in self.problems:
            if problem.what in first:
                more[problem.what] = more.get(problem.what, 0) + 1
            else:
                first[problem.what] = problem
        lines = []
        for what, problem in first.items():
            where = f" in {problem.where}" if problem.where else ""
            again = more.get(what, 0)
            lines.append(f"{what}{where}: {problem.detail}"
                         + (f" (and in {again} more position{'s' if again > 1 else ''})" if again else ""))
        if self.stopped:
            lines.append(f"the check stopped there: {self.stopped}")
        if self.printed:
            lines.append("note: it prints; a bot's output goes nowhere (stdout is GTP's channel): to see what it "
                         "does, call its choose in your own Python")
        if self.kept:
            lines.append(f"{self.label}: keeps the contract on {self.checked} {self.game} positions "
                         f"(mean {mean_time(self.seconds)} a move)")
        elif self.checked:
            bad = len({p.where for p in self.problems if p.where})
            lines.append(f"{self.label}: breaks the contract in {bad} of {self.checked} {self.game} positions")
        else:
            lines.append(f"{self.label}: breaks the contract: it {self.problems[0].what}")
        return lines


def mean_time(seconds: list[float]) -> str:
    """``1.2 ms``, ``0.35 s``: the mean of ``seconds``, in a unit that reads."""
    mean = sum(seconds) / len(seconds) if seconds else 0.0
    return f"{mean * 1000:.2g} ms" if mean < 0.1 else f"{mean:.2f} s"


def check_positions(game: str, others: int, seed: int) -> list[State]:
    """The initial position of ``game`` and ``others`` more (distinct, none over) that
    seeded random play reaches (:func:`~dlgo.arena.match.random_positions`), the start first."""
    return [new_game(game), *random_positions(game, others, seed)]


def moves_words(moves: list[str]) -> str:
    """``moves: 4 4 3``; the last few of a long game's."""
    if not moves:
        return "no moves: the start"
    if len(moves) <= 20:
        return "moves: " + " ".join(moves)
    return f"{len(moves)} moves, the last: ... " + " ".join(moves[-8:])


class Checker:
    """Plays a bot (a :class:`~engines.bots.BotSource` with parameters) on positions of
    one game, in a process of its own that is started afresh after each fault."""

    def __init__(self, spec: str, game: str, seed: int, limits: BotLimits):
        self.spec, self.game, self.seed, self.limits = spec, game, seed, limits
        self.source, self.params = split_bot_spec(spec)  # a SpecError for no such file: the user's mistake
        self.process: BotProcess | None = None
        self.timeouts = 0  # moves that got no answer in time
        self.result = Checked(spec, game)

    def run(self, positions: list[State]) -> Checked:
        """Check the bot on each of ``positions``, in order, until it has broken the contract too often."""
        try:
            describe(self.source, self.limits)
        except BotFault as fault:
            message = str(fault).removeprefix(f"{self.source.shown} does not load: ")
            self.result.problems.append(Problem("does not load", "", message))
            return self.result
        bind_parameters(self.source, self.params, self.limits)  # a SpecError for a parameter it does not take
        found: list[str] = []  # each position's problem ("" for none)
        try:
            for index, state in enumerate(positions):
                if not self._built():
                    break
                found.append(self.play(index, state))
                self.result.checked += 1
                last = index + 1 == len(positions)
                if self.timeouts >= MOST_TIMEOUTS and not last:
                    self.result.stopped = f"{self.timeouts} moves got no answer within the time limit (--move-seconds)"
                    break
                if len(found) >= MOST_IN_A_ROW and found[-1] and len(set(found[-MOST_IN_A_ROW:])) == 1 and not last:
                    self.result.stopped = f"{MOST_IN_A_ROW} positions in a row broke it alike"
                    break
        finally:
            if self.process is not None:
                release(self.process)
        return self.result

    def _built(self) -> bool:
        """A process with the bot built for the game (after a fault: a fresh one); False if none can be."""
        if self.process is not None and self.process.alive:
            return True
        try:
            self.process = acquire(self.source, self.limits)
            self.process.request({"op": "new", "params": self.params, "seed": self.seed, "game": self.game,
                                  "spec": self.spec}, self.limits.startup_seconds, bot_host.STARTUP)
        except BotFault as fault:
            self.process = None
            hint = " (is it for another game? name that with --game)" if str(fault).startswith("it refuses") else ""
            self.result.problems.append(Problem(f"cannot be built for {self.game}", "", str(fault) + hint))
            return False
        return True

    def play(self, index: int, state: State) -> str:
        """The bot's move in ``state`` (position ``index``), checked: the headline of the
        problem it has ("" if none)."""
        assert self.process is not None
        moves = history(state)
        where = f"position {index} ({moves_words(moves)})"
        limit = self.limits.move_seconds
        try:
            answer: dict[str, Any] = self.process.request(
                {"op": "move", "moves": moves, "limit": limit, "budget": None, "check": True}, limit)
        except BotFault as fault:  # the process is stopped
            self.process = None
            self.timeouts += fault.fault == bot_host.TIMEOUT
            return self.problem(HEADLINES.get(fault.fault, fault.fault), where, str(fault))
        try:
            answered_move(state, answer)
        except BotFault as fault:
            self.process.stop()
            self.process = None
            return self.problem(HEADLINES[bot_host.ILLEGAL], where, str(fault))
        seconds = float(answer.get("seconds", 0.0))
        self.result.seconds.append(seconds)
        self.result.printed = self.result.printed or bool(answer.get("printed"))
        if answer.get("shared_random"):
            return self.problem(SHARED_RANDOM, where, "its games cannot be replayed from their seed: draw from a "
                                                      "random.Random(seed) the bot makes in __init__")
        if answer.get("changed"):
            return self.problem(CHANGED, where, f"{answer['changed']} changed; state.apply_move(move) returns "
                                                "a new state and leaves the one it is given as it was")
        if seconds > limit:
            return self.problem(LATE, where, f"took {seconds:.3g} s, over the {limit:g} s limit")
        return ""

    def problem(self, what: str, where: str, detail: str) -> str:
        """Note a problem; its headline ``what``."""
        self.result.problems.append(Problem(what, where, detail))
        return what


def check_bot(spec: str, game: str, others: int = POSITIONS, seed: int = 0,
              limits: BotLimits | None = None) -> Checked:
    """Play the bot ``spec`` on the initial position of ``game`` and ``others`` random ones
    (seeded by ``seed``, as the bot is) and say how it breaks the contract, if it does."""
    positions = check_positions(game, others, seed)
    return Checker(spec, game, seed, limits or BotLimits()).run(positions)


def cmd_check(args: argparse.Namespace) -> int:
    result = check_bot(args.file, args.game, args.positions, args.seed, bot_limits(args))
    for line in result.lines():
        print(line)
    return 0 if result.kept else 1
