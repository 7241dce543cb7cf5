"""The bot ``dlgo bot new GAME FILE`` writes: a short, typed, commented Python file that
plays legal moves from the start (it wins at once where it can, else plays a seeded random
sensible move) and says, as it goes, what a bot of one's own must do."""
from __future__ import annotations

import re
from pathlib import Path

from dlgo.games import get_game

TEMPLATE = '''\
"""{title}: a bot of my own for {game_words}.

A bot is a class that subclasses dlgo.core.agent.Agent and answers one question,
choose(state): which move to play in this position, as Decision(move, work). The
suite imports this file in a process of its own and plays the class wherever it
takes an engine (a bot that raises, hangs, or plays an illegal move loses the game).
Try it:

    dlgo bot check {file} --game {game}
        does it keep the contract? (legal moves, in time, the state left as it was)
    dlgo engines {file}
        its description (the class docstring) and its parameters
    dlgo play --game {game} --black human --white {file}
    dlgo tournament --game {game} --engines random {file} --out reports/{stem}
    dlgo league --game {game} --bots {folder} --out league/

A spec sets the constructor's parameters: {file}:seed=7 (each typed by its annotation).
"""
from __future__ import annotations

import random
import time

from dlgo.core.agent import Agent, Decision
from dlgo.core.game import State
from dlgo.core.types import Move


class {cls}(Agent):
    """Wins at once where it can, else plays a random sensible move (on Go: never into
    its own eye, and a pass only when nothing else is left)."""

    # the name the suite's reports give this bot
    name = "{name}"
    # what `work` counts in Decision(move, work): reports show the work a move took
    unit = "positions"

    def __init__(self, seed: int | None = None) -> None:
        # Each parameter here is a spec parameter: `{file}:seed=7`. Give every one a type
        # and a default. A parameter named `seed` is special: a tournament hands each game
        # its own seed, so that every game it plays can be replayed: draw every random
        # choice from self.rng, never from the module `random` itself.
        super().__init__()
        self.rng = random.Random(seed)

    def choose(self, state: State) -> Decision:
        """The move to play in `state`, and the work it took (here: the positions looked at)."""
        # `state` is the game so far (state.previous_state, state.last_move). Never change
        # it in place: state.apply_move(move) returns a new state and leaves this one as it was.
        me = state.next_player
        # sensible_moves(): the legal moves worth playing (legal_moves(): all of them)
        moves: list[Move] = state.sensible_moves()
        # A move has a time limit (10 s unless --move-seconds says otherwise): past it the
        # bot loses the game. self.deadline() is the time.perf_counter() value it ends at.
        deadline = self.deadline()
        looked = 0
        for move in moves:
            if time.perf_counter() > deadline - 0.05:  # out of time: stop looking
                break
            after = state.apply_move(move)
            looked += 1
            if after.is_over() and after.winner() == me:
                return Decision(move, looked)
        return Decision(self.rng.choice(moves), looked)
'''


def class_name(path: Path) -> str:
    """``AliceBot`` for ``alice.py``, ``MyGoBot`` for ``my_go_bot.py``."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", path.stem) if w]
    name = "".join(w[:1].upper() + w[1:] for w in words) or "My"
    if not name.lower().endswith("bot"):
        name += "Bot"
    return name if name[0].isalpha() else "Bot" + name


def bot_source(game: str, path: Path) -> str:
    """The Python source of a new bot for the game spec ``game``, to be written to ``path``
    (a :class:`~dlgo.core.errors.SpecError` for a spec that names no game)."""
    folder = path.parent.as_posix()
    return TEMPLATE.format(title=class_name(path), game_words=get_game(game).describe(), game=game.strip(),
                           file=path.as_posix(), stem=re.sub(r"[^0-9A-Za-z_-]+", "-", path.stem),
                           folder=("." if folder == "." else folder) + "/", cls=class_name(path),
                           name=re.sub(r"[^0-9a-z_-]+", "-", path.stem.lower()) or "mybot")
