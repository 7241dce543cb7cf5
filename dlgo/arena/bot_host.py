"""The process a bot of a user's own plays in: ``python -m dlgo.arena.bot_host``.

A bot from a file or another package (``alice.py``, ``alice.py:AliceBot``, an
engine an installed package registers) is code the suite did not write: it may
raise, hang, answer nonsense, eat memory or end the interpreter. So it plays in a
process of its own, this module, and the suite talks to it over two pipes, one JSON
object a line each way (never pickle: nothing the bot sends is run). Its parent
(:mod:`engines.bots`) kills it the moment it takes too long; here it runs under a
memory limit (``RLIMIT_AS``) set before the bot is imported, with its prints sent
nowhere (stdout and stderr are the parent's protocol in GTP), and it dies with its
parent.

The requests, each answered by one line (``{"ok": ...}``, or ``{"fault": KIND,
"message": ...}`` for what the bot did wrong, after which the process ends):

* ``load``: import the bot (a file, or a module) and find its class: the one
  :class:`~dlgo.core.agent.Agent` subclass it defines, or the one named. Answers
  its description: name, unit, first paragraph of its docstring, parameters.
* ``bind``: check parameters given as spec text against the constructor (a spec
  error is ``{"error": ...}``, not a fault: the process goes on).
* ``new``: build a bot for a game (its parameters, seed and game spec), which
  checks that it plays that game.
* ``move``: the moves of the game so far (text, from the start); the bot's move.
  With ``"check": true`` (``dlgo bot check``) the answer also says whether it drew from
  the ``random`` module's shared generator, whether it printed, and whether ``choose``
  changed the state it was given in place (``changed``: what changed, or ``""``),
  which only this process can see; the next move then starts from a fresh state.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import random
import resource
import signal
import sys
import time
import traceback
import typing
from pathlib import Path
from typing import IO, Any

from dlgo.arena.workers import die_with_parent, watch_parent
from dlgo.core.agent import Agent, Decision
from dlgo.core.errors import EngineError, SpecError
from dlgo.core.specs import bind, format_spec
from dlgo.core.types import Move
from dlgo.games import get_game

#: how a game a bot lost by fault ended (games.csv's ``ending`` column)
TIMEOUT = "timeout"            # no move within the move's time limit (killed)
EXCEPTION = "exception"        # the bot raised
ILLEGAL = "illegal-move"       # a move the rules forbid here
MALFORMED = "malformed-move"   # not a move at all (a wrong type, a point off the board)
CRASH = "crash"                # the process ended (a crash, os._exit, a signal)
MEMORY = "out-of-memory"       # past its memory limit
EXIT = "exit"                  # called sys.exit() or exit()
STARTUP = "start-up"           # did not load, build or check in time or at all

#: in a ``move`` request's moves: the turn handed to the other side without a move (``state.with_turn``)
TURN = "=turn"

#: every fault, in the order reports list them
FAULTS = (STARTUP, EXCEPTION, TIMEOUT, ILLEGAL, MALFORMED, MEMORY, EXIT, CRASH)


#: each fault in words, as a report or a check says what the bot did
FAULT_WORDS = {STARTUP: "did not start", EXCEPTION: "raised an exception", TIMEOUT: "too slow",
               ILLEGAL: "illegal move", MALFORMED: "malformed answer", MEMORY: "out of memory", EXIT: "exited",
               CRASH: "crashed"}


class BotFault(EngineError):
    """A bot of a user's own broke the contract: ``fault`` is how (one of :data:`FAULTS`),
    the message what it did, in one line. Raised in the bot's process and answered to the
    suite's, where it is raised again: an :class:`~dlgo.core.errors.EngineError`, which a
    match records as the bot's loss by forfeit."""

    #: the bot gave no answer in time (rather than a wrong one)
    timed_out: bool = False

    def __init__(self, fault: str, message: str):
        super().__init__(message)
        self.fault = fault


def where_raised(error: BaseException, files: tuple[str, ...] = ()) -> str:
    """``ValueError: no move (alice.py, line 12, in choose)``: an exception in one line,
    at the deepest frame in one of ``files`` (the bot's own code), or else the deepest."""
    if isinstance(error, SyntaxError):  # the frames are the importer's: the place is in the error
        return f"SyntaxError: {error.msg} ({Path(error.filename or '?').name}, line {error.lineno})"
    frames = traceback.extract_tb(error.__traceback__)
    mine = [f for f in frames if f.filename in files] or frames
    text = f"{type(error).__name__}: {error}".strip().rstrip(":")
    text = " ".join(text.split())
    if len(text) > 300:
        text = text[:297] + "..."
    if mine:
        frame = mine[-1]
        text += f" ({Path(frame.filename).name}, line {frame.lineno}, in {frame.name})"
    return text


def fault_of(error: BaseException, files: tuple[str, ...], memory_mb: int) -> BotFault:
    """The :class:`BotFault` an exception raised by the bot's code stands for."""
    if isinstance(error, BotFault):
        return error
    if isinstance(error, MemoryError):
        return BotFault(MEMORY, f"ran out of memory (its limit is {memory_mb:,} MB): {where_raised(error, files)}")
    if isinstance(error, SystemExit):
        return BotFault(EXIT, f"ended the interpreter (sys.exit({error.code!r}))")
    return BotFault(EXCEPTION, where_raised(error, files))


def load_module(source: dict[str, str]) -> Any:
    """The bot's module: ``{"file": path}`` imported from its file (its folder on the
    path, so that it may import modules beside it), or ``{"module": name}``."""
    if "module" in source:
        return importlib.import_module(source["module"])
    path = Path(source["file"])
    name = "dlgo_bot_" + "".join(c if c.isalnum() else "_" for c in path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotFault(STARTUP, f"{path.name} cannot be imported as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a class's module up
    sys.path.insert(0, str(path.parent))
    spec.loader.exec_module(module)
    return module


def find_class(module: Any, class_name: str | None, label: str) -> type:
    """The bot's class in ``module``: ``class_name``, or the one concrete
    :class:`~dlgo.core.agent.Agent` subclass the module defines (a class that keeps the
    book's ``select_move`` and defines no ``choose`` plays too: :func:`playable`)."""
    if class_name:
        cls = getattr(module, class_name, None)
        if not (inspect.isclass(cls) and issubclass(cls, Agent)):
            found = defined_agents(module)
            raise BotFault(STARTUP, f"{label} has no Agent subclass {class_name!r}"
                                    + (f" (it has: {', '.join(c.__name__ for c in found)})" if found else ""))
    else:
        found = defined_agents(module)
        concrete = [c for c in found if not inspect.isabstract(playable(c))]
        if len(concrete) > 1:
            names = ", ".join(c.__name__ for c in concrete)
            raise BotFault(STARTUP, f"{label} defines {len(concrete)} Agent subclasses ({names}): name one, "
                                    f"as {label}:{concrete[0].__name__}")
        if not found:
            raise BotFault(STARTUP, f"{label} defines no subclass of dlgo.core.agent.Agent: a bot is a class "
                                    "with a choose(state) method that returns Decision(move, work)")
        cls = (concrete or found)[0]
    cls = playable(cls)
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise BotFault(STARTUP, f"{cls.__name__} does not define {missing}: a bot's choose(state) returns "
                                "Decision(move, work) (is a method's name misspelt?)")
    return cls


def playable(cls: Any) -> Any:
    """``cls``, or for a class that keeps the book's ``select_move(state) -> Move`` and
    defines no ``choose``, a subclass whose ``choose`` is that move (its work counted as 1)."""
    if not (inspect.isabstract(cls) and set(cls.__abstractmethods__) == {"choose"}
            and cls.select_move is not Agent.select_move):
        return cls

    def choose(self: Any, state: Any) -> Decision:
        return Decision(cls.select_move(self, state), 1)

    return type(cls.__name__, (cls,), {"choose": choose, "__doc__": cls.__doc__, "__module__": cls.__module__})


def defined_agents(module: Any) -> list[type]:
    """The Agent subclasses ``module`` defines itself (not those it imports)."""
    return [value for value in vars(module).values()
            if inspect.isclass(value) and issubclass(value, Agent) and value.__module__ == module.__name__]


def describe(cls: Any) -> dict[str, Any]:
    """What ``dlgo engines FILE`` shows of a bot's class: its name, unit, docstring's
    first paragraph and its constructor's parameters (name, type, default as text)."""
    try:
        hints = typing.get_type_hints(cls.__init__)
    except Exception:  # an annotation that does not resolve: shown as written
        hints = {}
    parameters = []
    for p in inspect.signature(cls.__init__).parameters.values():
        if p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        kind = hints.get(p.name, p.annotation if p.annotation is not p.empty else str)
        kind_text = kind.__name__ if isinstance(kind, type) else str(kind).replace("typing.", "")
        default = "" if p.default is p.empty else repr(p.default)
        parameters.append([p.name, kind_text, default])
    return {"class": cls.__name__, "name": getattr(cls, "name", "agent"), "unit": getattr(cls, "unit", "moves"),
            "doc": cls.description() if vars(cls).get("__doc__") else "", "parameters": parameters,
            "takes_seed": "seed" in inspect.signature(cls.__init__).parameters}


class Host:
    """The bot's side of the pipes: one request at a time, answered in order."""

    def __init__(self, memory_mb: int):
        self.memory_mb = memory_mb
        self.cls: Any = None
        self.files: tuple[str, ...] = ()
        self.label = "the bot"
        self.bot: Any = None
        self.state: Any = None
        self.played: list[str] = []  # the moves self.state has had, as text
        self.limit: float | None = None
        self.budget: float | None = None

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "load":
            return self.load(request)
        if self.cls is None:
            raise BotFault(STARTUP, "no bot loaded")
        if op == "bind":
            return self.bind(request)
        if op == "new":
            return self.new(request)
        if op == "move":
            return self.move(request)
        raise ValueError(f"unknown request {op!r}")

    def load(self, request: dict[str, Any]) -> dict[str, Any]:
        source = request["source"]
        self.label = request.get("label") or source.get("file") or source.get("module", "the bot")
        try:
            module = load_module(source)
            self.cls = find_class(module, request.get("class"), self.label)
        except BaseException as error:
            fault = fault_of(error, (source.get("file", ""),), self.memory_mb)
            raise BotFault(STARTUP if fault.fault == EXCEPTION else fault.fault,
                        f"{self.label} does not load: {fault}" if fault.fault == EXCEPTION else str(fault)) from None
        self.files = tuple({inspect.getsourcefile(c) or "" for c in self.cls.__mro__ if c.__module__ == module.__name__}
                           | {source.get("file", "")})
        return {"ok": describe(self.cls)}

    def bound(self, params: dict[str, str]) -> dict[str, Any]:
        """``params`` (spec text) typed by the bot's constructor; a :class:`SpecError` for
        a name or value it does not take, or annotations that do not resolve."""
        try:
            return bind(self.cls.__init__, params, f"engine {self.label!r}")
        except SpecError:
            raise
        except Exception as error:  # annotations that do not resolve: no parameter can be typed
            raise SpecError(f"{self.label}: its constructor's parameters cannot be read ({where_raised(error)})") \
                from None

    def bind(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.cls is not None
        try:
            kwargs = self.bound(request["params"])
        except SpecError as error:
            return {"error": str(error)}
        defaults = {p.name: p.default for p in inspect.signature(self.cls.__init__).parameters.values()}
        changed = {k: v for k, v in defaults.items() if k in kwargs and kwargs[k] != v}
        return {"ok": {"given": format_spec("", kwargs).lstrip(":"),
                       "changed": format_spec("", {k: kwargs[k] for k in changed}).lstrip(":")}}

    def new(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.cls is not None
        try:
            kwargs = self.bound(request["params"])
        except SpecError as error:
            return {"error": str(error)}
        if request.get("seed") is not None and "seed" not in kwargs and describe(self.cls)["takes_seed"]:
            kwargs["seed"] = request["seed"]
        game = get_game(request["game"])
        needed = [p.name for p in inspect.signature(self.cls.__init__).parameters.values()
                  if p.name != "self" and p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                  and p.name not in kwargs]
        if needed:
            raise BotFault(STARTUP, f"its constructor needs {', '.join(needed)}: give each parameter a default "
                                    f"(def __init__(self, {needed[0]}: int = 3)), or set it in the spec "
                                    f"({self.label}:{needed[0]}=3)")
        try:
            self.bot = self.cls(**kwargs)
        except BaseException as error:
            raise self.start_fault(error, "its constructor raised") from None
        if not hasattr(self.bot, "last_report"):  # Agent.__init__ never ran
            raise BotFault(STARTUP, f"{self.cls.__name__}.__init__ does not call super().__init__(): make that "
                                    "its first line")
        self.bot.spec = request.get("spec", self.label)
        self.state = game.initial_state()
        try:
            self.bot.check_game(self.state)
        except BaseException as error:
            raise self.start_fault(error, f"it refuses {game.spec}:") from None
        self.played, self.limit, self.budget = [], None, None
        return {"ok": True}

    def start_fault(self, error: BaseException, what: str) -> BotFault:
        """The fault of a bot that raised while it was built: a ``start-up`` one, saying ``what``
        (out of memory and an exit are theirs)."""
        fault = fault_of(error, self.files, self.memory_mb)
        return BotFault(STARTUP, f"{what} {fault}") if fault.fault == EXCEPTION else fault

    def move(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.bot is None:
            raise BotFault(STARTUP, "no bot built")
        moves: list[str] = request["moves"]
        if moves[:len(self.played)] != self.played:  # another line of play: from the start
            self.state, self.played = self.bot_state_at_start(), []
        for text in moves[len(self.played):]:
            if text == TURN:  # the same side moves again (GTP): the turn handed over, as the suite's state does
                self.state = self.state.with_turn(self.state.next_player.other)
            else:
                self.state = self.state.apply_move(self.state.parse_move(text))
            self.played.append(text)
        if request.get("limit") != self.limit:
            self.limit = request.get("limit")
            self.bot.set_time_limit(self.limit)
        if request.get("budget") != self.budget:
            self.budget = request.get("budget")
            self.bot.set_time_budget(self.budget)
        state = self.state
        checking = bool(request.get("check"))
        before = snapshot(state) if checking else None
        shared, printed = random.getstate(), Printed()
        if checking:  # what it writes is counted (it goes nowhere all the same)
            sys.stdout = sys.stderr = printed
        start = time.perf_counter()
        try:
            if type(self.bot).select_move is not Agent.select_move:  # a bot that keeps the book's select_move
                move, work = self.bot.select_move(state), 1
            else:
                decision = self.bot.choose(state)
                if isinstance(decision, Move) or not isinstance(decision, Decision):
                    raise BotFault(MALFORMED, f"choose returned {describe_value(decision)}, not Decision(move, work)")
                move, work = decision.move, decision.work
        except BaseException as error:
            raise fault_of(error, self.files, self.memory_mb) from None
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        seconds = time.perf_counter() - start
        changed = "" if before is None else changes(before, state)
        if changed:  # judge the move on the position as it was, and replay the next from the start
            state = self.replayed(moves)
            self.state, self.played = self.bot_state_at_start(), []
        also = f" (and it changed {changed} of the state it was given, in place)" if changed else ""
        if not isinstance(move, Move):
            raise BotFault(MALFORMED, f"the move is {describe_value(move)}, not a Move"
                                   + (": wrap a point as Move.play(point)" if type(move).__name__ == "Point" else "")
                                   + also)
        answer: dict[str, Any] = {"move": judge(state, move, work, also), "work": work, "seconds": seconds}
        if checking:
            answer.update(changed=changed, shared_random=random.getstate() != shared, printed=printed.written > 0)
        return {"ok": answer}

    def bot_state_at_start(self) -> Any:
        return self.state.game.initial_state()

    def replayed(self, moves: list[str]) -> Any:
        """A fresh state after ``moves`` (as a ``move`` request gives them) from the start."""
        state = self.bot_state_at_start()
        for text in moves:
            state = (state.with_turn(state.next_player.other) if text == TURN
                     else state.apply_move(state.parse_move(text)))
        return state


def judge(state: Any, move: Any, work: Any, also: str = "") -> str:
    """The text of the bot's ``move`` (a Move) in ``state``, a :class:`BotFault` if it is no move
    there, an illegal one or ``work`` is no whole number (``also``: what to add to the fault's
    message). Legality is judged here, on the move itself, because its text can say less than
    the move did (Connect Four's ``1`` names a column, not the cell the bot asked for); the suite
    judges the text again on its own copy of the game (``engines.bots.answered_move``)."""
    if not isinstance(work, int) or isinstance(work, bool):
        raise BotFault(MALFORMED, f"the work is {describe_value(work)}, not a whole number{also}")
    try:
        text: str = state.format_move(move)
    except Exception as error:  # a point off the board, a pass in a game without one
        raise BotFault(MALFORMED, f"{move!r} is no move in {state.game.name}: {error}{also}") from None
    reason = state.illegal_reason(move)
    if reason is not None:
        raise BotFault(ILLEGAL, f"played {text}: {reason}{also}")
    return text


def snapshot(state: Any) -> dict[str, Any]:
    """What a bot could change of a state in place, each part as comparable text or bytes."""
    return {"the board": state.render() + "\n" + state.stone_array().tobytes().hex(),
            "the side to move": str(state.next_player),
            "the legal moves": state.legal_action_mask().tobytes(),
            "the moves played": [str(m) for m in state.move_history()],
            "the position's hash": state.zobrist_hash()}


def changes(before: dict[str, Any], state: Any) -> str:
    """``"the board, the side to move"``: the parts of ``state`` that differ from its
    :func:`snapshot` ``before`` (``""``: none)."""
    try:
        after = snapshot(state)
    except Exception as error:  # changed past reading
        return f"the state itself (reading it now raises {type(error).__name__}: {error})"
    return ", ".join(part for part, value in before.items() if after.get(part) != value)


class Printed:
    """Where a checked move's prints go: counted, then thrown away."""

    def __init__(self) -> None:
        self.written = 0

    def write(self, text: str) -> int:
        self.written += len(text)
        return len(text)

    def flush(self) -> None:
        pass


def describe_value(value: Any) -> str:
    """``int 3``, ``None``: a value a bot returned, in a few words."""
    if value is None:
        return "None"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def limit_memory(memory_mb: int) -> None:
    """Cap this process's address space at ``memory_mb`` (0: no cap): an allocation
    past it raises :class:`MemoryError` in the bot rather than starving the machine."""
    if memory_mb <= 0:
        return
    limit = memory_mb * 2**20
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def serve(requests: IO[bytes], answers: IO[bytes], memory_mb: int) -> None:
    """Answer requests until the parent closes its end or a fault ends the bot."""
    host = Host(memory_mb)
    for line in requests:
        try:
            answer = host.handle(json.loads(line))
        except BotFault as fault:
            answers.write(json.dumps({"fault": fault.fault, "message": str(fault)}).encode() + b"\n")
            answers.flush()
            return
        except BaseException as error:  # the host's own failure (a bad request): the parent reads it as a crash
            failure = fault_of(error, host.files, memory_mb)
            answers.write(json.dumps({"fault": failure.fault, "message": str(failure)}).encode() + b"\n")
            answers.flush()
            return
        answers.write(json.dumps(answer).encode() + b"\n")
        answers.flush()


def end_group() -> None:
    """End this process and every process the bot started (its process group: the host
    leads one of its own), as when its parent is gone."""
    os.killpg(0, signal.SIGKILL)


def main(argv: list[str]) -> None:
    """``bot_host REQUESTS_FD ANSWERS_FD PARENT_PID MEMORY_MB WITH_PARENT``."""
    requests_fd, answers_fd, parent, memory_mb, with_parent = (int(a) for a in argv[:5])
    limit_memory(memory_mb)
    signal.signal(signal.SIGTERM, lambda number, frame: end_group())
    if with_parent:
        die_with_parent(parent, signal.SIGTERM, end_group)
    else:  # started off the parent's main thread: the kernel's signal would follow that thread
        watch_parent(parent, end_group)
    try:
        with os.fdopen(requests_fd, "rb") as requests, os.fdopen(answers_fd, "wb") as answers:
            serve(requests, answers, memory_mb)
    finally:  # the parent closed its end, or gone: what the bot started ends with it
        end_group()


if __name__ == "__main__":
    main(sys.argv[1:])
