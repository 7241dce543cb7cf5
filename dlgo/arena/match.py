"""One game between two engine specs, and its record.

The arena never imports the engines: it is handed an :class:`AgentFactory`
(``engines.ENGINES`` in the suite) that builds agents from spec strings. An
optional number of random opening plies (seeded) keeps deterministic engines
from replaying one game over and over.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Protocol

from dlgo.core.agent import Agent
from dlgo.core.errors import EngineError
from dlgo.core.game import Ending, Outcome
from dlgo.core.types import Player
from dlgo.formats.records import GameRecord
from dlgo.games import new_game


class AgentFactory(Protocol):
    """Builds engines from spec strings (``mcts:rounds=800``). It must be
    picklable (a module-level object): worker processes receive it."""

    def create(self, spec: str, seed: int | None = None) -> Agent:
        """The engine ``spec``, seeded with ``seed`` unless the spec sets its own."""
        ...

    def network_files(self, spec: str) -> list[Path]:
        """The network files the engine ``spec`` plays with (none for classic engines)."""
        ...


def play_match(factory: AgentFactory, game: str, black: str, white: str, seed: int, opening_plies: int = 0,
               experiment: str = "", game_id: str = "") -> GameRecord:
    """Play one game of ``game`` between engine specs ``black`` and ``white``.

    ``seed`` fixes the random opening and seeds both engines (black ``seed``,
    white ``seed + 1``, unless their specs set a seed), so a game is reproducible."""
    rng = random.Random(seed)
    state = new_game(game)
    moves: list[str] = []
    for _ in range(opening_plies):
        if state.is_over():
            break
        move = state.random_move(rng)
        moves.append(state.format_move(move))
        state = state.apply_move(move)
    agents = {Player.black: factory.create(black, seed)}
    spent = {p: [0.0, 0.0, 0] for p in Player}  # seconds, compute, moves
    outcome: Outcome | None = None
    note = ""
    try:
        agents[Player.white] = factory.create(white, seed + 1)
        while not state.is_over():
            player = state.next_player
            agent = agents[player]
            try:
                move = agent.select_move(state)
            except EngineError as err:  # the side that failed loses by forfeit
                note = f"{player.name} forfeits: {err}"
                outcome = state.game.outcome(player.other, Ending.FORFEIT)
                break
            compute = agent.last_compute
            spent[player][0] += compute.seconds
            spent[player][1] += compute.amount
            spent[player][2] += 1
            moves.append(state.format_move(move))
            state = state.apply_move(move)
    finally:
        for agent in agents.values():
            agent.close()
    outcome = outcome or state.outcome()
    assert outcome is not None

    def mean(player: Player, i: int) -> float:
        return spent[player][i] / spent[player][2] if spent[player][2] else 0.0

    return GameRecord(
        experiment=experiment, game_id=game_id, game=game, black=black, white=white,
        result=outcome.text, winner=outcome.winner_name, plies=len(moves),
        black_seconds=mean(Player.black, 0), white_seconds=mean(Player.white, 0),
        black_compute=mean(Player.black, 1), white_compute=mean(Player.white, 1),
        black_unit=agents[Player.black].unit, white_unit=agents[Player.white].unit,
        seed=seed, opening_plies=opening_plies, moves=" ".join(moves), note=note,
    )
