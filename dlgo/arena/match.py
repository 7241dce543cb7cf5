"""One game between two engine specs, and its record.

A record holds everything a report needs: who played which colour, the result,
the moves (so the game can be replayed), and per side the mean wall seconds and
compute units per move. An optional number of random opening plies (seeded)
keeps deterministic engines from replaying one game over and over.
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass, fields

from dlgo.game import result_text
from dlgo.games import new_game
from dlgo.gotypes import Player


@dataclass
class GameRecord:
    """One finished game, as one row of ``games.csv``."""

    experiment: str
    game_id: str
    game: str
    black: str
    white: str
    result: str          # "B+3.5", "W+R" (resignation), "B+F" (forfeit), "1-0", "0-1", "1/2-1/2"
    winner: str          # "black", "white" or "draw"
    plies: int
    black_seconds: float  # mean wall seconds per move
    white_seconds: float
    black_compute: float  # mean compute units per move (nodes, rounds, ...)
    white_compute: float
    black_unit: str
    white_unit: str
    seed: int
    opening_plies: int
    moves: str           # the moves as typed by humans, space separated
    note: str = ""       # why a game ended early: "white forfeits: gnugo exited (exit code 1)"

    @classmethod
    def columns(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    def as_row(self) -> dict:
        return asdict(self)

    def engine_moves(self) -> tuple[int, int]:
        """(black's, white's) moves chosen by the engines, after the random opening."""
        n = self.plies - self.opening_plies
        first, second = (n + 1) // 2, n // 2
        return (first, second) if self.opening_plies % 2 == 0 else (second, first)

    def score_for(self, spec: str) -> float:
        """Points ``spec`` scored in this game (1, 0.5 or 0)."""
        if self.winner == "draw":
            return 0.5
        return 1.0 if (self.black if self.winner == "black" else self.white) == spec else 0.0


def play_match(game: str, black: str, white: str, seed: int, opening_plies: int = 0,
               experiment: str = "", game_id: str = "") -> GameRecord:
    """Play one game of ``game`` between engine specs ``black`` and ``white``.

    ``seed`` fixes the random opening and seeds both engines (black ``seed``,
    white ``seed + 1``, unless their specs set a seed), so a game is reproducible."""
    import engines  # the arena reaches engines through the registry only

    rng = random.Random(seed)
    state = new_game(game)
    moves: list[str] = []
    for _ in range(opening_plies):
        if state.is_over():
            break
        move = state.random_move(rng)
        moves.append(state.format_move(move))
        state = state.apply_move(move)
    agents = {Player.black: engines.create_seeded(black, seed)}
    try:
        agents[Player.white] = engines.create_seeded(white, seed + 1)
        spent = {p: [0.0, 0.0, 0] for p in Player}  # seconds, compute, moves
        note = ""
        while not state.is_over():
            player = state.next_player
            agent = agents[player]
            try:
                move = agent.select_move(state)
            except engines.EngineError as err:  # the side that failed loses by forfeit
                note = f"{player.name} forfeits: {err}"
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
    if note:
        survivor = state.next_player.other
        result = f"{survivor}+F" if state.game_name == "go" else ("1-0" if survivor == Player.black else "0-1")
        winner = survivor.name
    else:
        result, winner = result_text(state)

    def mean(player: Player, i: int) -> float:
        return spent[player][i] / spent[player][2] if spent[player][2] else 0.0

    return GameRecord(
        experiment=experiment, game_id=game_id, game=game, black=black, white=white,
        result=result, winner=winner, plies=len(moves),
        black_seconds=mean(Player.black, 0), white_seconds=mean(Player.white, 0),
        black_compute=mean(Player.black, 1), white_compute=mean(Player.white, 1),
        black_unit=agents[Player.black].unit, white_unit=agents[Player.white].unit,
        seed=seed, opening_plies=opening_plies, moves=" ".join(moves), note=note,
    )


def replay(record_game: str, moves: str):
    """The states of a recorded game, from the start to the end."""
    state = new_game(record_game)
    states = [state]
    for text in moves.split():
        state = state.apply_move(state.parse_move(text))
        states.append(state)
    return states
