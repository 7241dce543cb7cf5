"""Playing in the terminal: humans and engines, any game.

A human types a move (``C3``, ``b2``, a column number...), or ``pass`` (in
games that have one), ``resign``, ``undo`` (take back your last move and the
reply), ``hint`` (ask an engine), ``help`` or ``quit``. Bad input gets a message
and the same prompt again: a typo never costs a turn, and a resignation, or a
pass that ends the game or lets the opponent end it by passing back (an engine
does whenever the count wins it), is played only after a ``y``, the score the
game would end with shown first. Each side goes by the game's names for it
(Go's black and white, Connect Four's red and yellow, tic-tac-toe's X and O).
"""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

from dlgo.core.agent import Agent, SearchReport
from dlgo.core.errors import DlgoError
from dlgo.core.game import State, pass_would_end_game
from dlgo.core.types import Move, Player
from dlgo.display.words import amount


class QuitGame(Exception):
    """The human typed quit (or closed the input)."""


def describe_result(state: State) -> str:
    """``B+3.5 (black wins)``, ``yellow wins``, ``draw``, ``black wins by resignation``: the
    sides by the game's names for them."""
    outcome = state.outcome()
    return "unfinished" if outcome is None else outcome.describe(state.game.side_names)


def describe_compute(report: SearchReport) -> str:
    """What an engine's move cost (its decision's report): ``0.09 s, 2,000 rounds``."""
    c = report.compute
    return f"{c.seconds:.2f} s, {amount(c.amount, c.unit)}"


def describe_search(report: SearchReport, state: State) -> str:
    """What an engine's move in ``state`` cost (its decision's report), and the value it saw
    when it has one, for the side to move there: ``0.09 s, 2,000 rounds, value +0.42 for red
    (+1 a sure win, -1 a sure loss)``."""
    text = describe_compute(report)
    if report.value is not None:
        side = state.game.side_name(state.next_player)
        proven = "proven " if report.proven else ""
        text += f", {proven}value {report.value:+.2f} for {side} (+1 a sure win, -1 a sure loss)"
    return text


def moves_played(state: State) -> int:
    """The moves of the game to ``state``: a resignation ends it, and is no move."""
    return sum(1 for move in state.move_history() if not move.is_resign)


class ConsoleGame:
    """One game in the terminal. ``players`` maps each colour to an engine, or to
    None for a human; ``hint`` is the engine that answers ``hint``."""

    def __init__(self, state: State, players: dict[Player, Agent | None], *, hint: Agent | None = None,
                 delay: float = 0.0, read: Callable[[str], str] = input, out: TextIO | None = None):
        self.state = state
        self.players = players
        self.hint = hint
        self.delay = delay
        self.read = read
        self.out = out or sys.stdout

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def label(self, player: Player) -> str:
        agent = self.players[player]
        return self.state.game.side_label(player, "human" if agent is None else agent.spec)

    def header(self) -> str:
        """What the game is, who plays each side and the hint engine, before the first board:
        ``game: go 9x9, komi 7.5 for white (go:size=9,komi=7.5)``, ``black (X): human``, ..."""
        game = self.state.game
        lines = [f"game: {game.describe()}"]
        for player in game.players:
            agent = self.players[player]
            lines.append(f"{game.side_label(player)}: {'human' if agent is None else agent.spec}")
        if self.hint is not None:
            lines.append(f"hint: {self.hint.spec} (type hint on your turn)")
        return "\n".join(lines)

    def run(self) -> State:
        """Play to the end (or until a human quits); returns the last state."""
        self.say(self.header())
        self.say(self.state.render())
        try:
            while not self.state.is_over():
                agent = self.players[self.state.next_player]
                if agent is None:
                    self.human_turn()
                else:
                    self.engine_turn(agent)
        except QuitGame:
            self.say("game abandoned")
            return self.state
        self.say(f"\nresult: {describe_result(self.state)} after {moves_played(self.state)} moves")
        return self.state

    def engine_turn(self, agent: Agent) -> None:
        move, _, report = agent.decide(self.state)
        self.play(move, describe_compute(report))
        if self.delay:
            time.sleep(self.delay)

    def play(self, move: Move, note: str = "") -> None:
        state = self.state
        self.state = state.apply_move(move)
        suffix = f"  [{note}]" if note else ""
        if move.is_resign:  # no move of the game: it ends it
            self.say(f"\n{self.label(state.next_player)} resigns{suffix}")
            return
        number = moves_played(self.state)
        self.say(f"\nmove {number}: {self.label(state.next_player)} {state.format_move(move)}{suffix}")
        self.say(self.state.render())

    def has_pass(self) -> bool:
        """Whether the game lets a player pass (Go does; Connect Four does not)."""
        return any(m.is_pass for m in self.state.legal_moves())

    def commands(self) -> str:
        """The prompt's list: ``a move such as C3, pass, resign, undo, hint, help or quit``."""
        passing = "pass, " if self.has_pass() else ""
        return f"a move such as {self.example_move()}, {passing}resign, undo, hint, help or quit"

    def help_text(self) -> str:
        """Every command, one line each, with an example move for this game."""
        hint = f"ask {self.hint.spec} for a move" if self.hint else "ask an engine for a move (start with --hint SPEC)"
        lines = [f"{self.example_move():<8}play a move: {self.state.move_help()}"]
        if self.has_pass():
            lines.append("pass    pass your turn (two passes in a row end the game)")
        lines += ["resign  give up the game (asks first)", "undo    take back your last move and the reply",
                  f"hint    {hint}", "help    this list", "quit    leave the game"]
        return "\n".join("  " + line for line in lines)

    def human_turn(self) -> None:
        """Prompt until the human makes a legal move (or undoes, or quits)."""
        state = self.state
        while True:
            text = self.ask(f"{self.label(state.next_player)} to move [{self.commands()}]: ")
            command = text.strip().lower()
            if command in ("quit", "exit", "q"):
                raise QuitGame
            if command in ("", "help", "?"):
                self.say(self.help_text())
                continue
            if command == "undo":
                if self.undo():
                    return
                continue
            if command == "hint":
                self.give_hint()
                continue
            try:
                move = state.parse_move(text)
                state.apply_move(move)  # check legality before announcing it
            except DlgoError as err:
                self.say(f"  {err}; try again")
                continue
            if not move.is_play and not self.confirmed(move):
                continue
            self.play(move)
            return

    def ask(self, prompt: str) -> str:
        """One line from the human (end of input quits the game)."""
        try:
            return self.read(prompt)
        except EOFError:
            raise QuitGame from None

    def confirmed(self, move: Move) -> bool:
        """Ask before a resignation, or a pass that ends the game or lets the
        opponent end it by passing back, saying how it would end; True on ``y``
        (and at once for a pass that cannot end the game)."""
        if move.is_resign:
            what = "resign and lose the game"
        else:
            ending = pass_would_end_game(self.state)
            if ending is None:
                return True
            how = ("your opponent passed too, so this ends the game" if ending.at_once
                   else "your opponent may pass back and end the game")
            what = f"pass: {how}, {ending.outcome.describe(self.state.game.side_names)}"
        answer = self.ask(f"  {what}. Sure? [y/N]: ").strip().lower()
        if answer in ("y", "yes"):
            return True
        self.say("  not played; your move")
        return False

    def example_move(self) -> str:
        legal = [m for m in self.state.legal_moves() if m.is_play]
        return self.state.format_move(legal[len(legal) // 2]) if legal else "pass"

    def undo(self) -> bool:
        """Go back to this player's previous turn (their last move and the reply)."""
        me = self.state.next_player
        target = self.state.previous_state
        while target is not None and target.next_player != me:
            target = target.previous_state
        if target is None:
            self.say("  nothing to undo yet")
            return False
        self.state = target
        self.say(f"\ntaken back; {self.state.game.side_name(me)} to move again")
        self.say(self.state.render())
        return True

    def give_hint(self) -> None:
        if self.hint is None:
            self.say("  no hint engine")
            return
        move, _, report = self.hint.decide(self.state)
        search = describe_search(report, self.state)
        self.say(f"  hint from {self.hint.spec}: {self.state.format_move(move)} ({search})")
