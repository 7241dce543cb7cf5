"""Games between engine specs, and their records: one at a time
(:func:`play_match`), or many advancing together so that network engines make
one call for all their positions at each step (:func:`play_matches`).

The arena never imports the engines: it is handed an :class:`AgentFactory`
(``engines.ENGINES`` in the suite) that builds agents from spec strings. An
optional number of random opening plies (seeded) keeps deterministic engines
from replaying one game over and over.

A move's seconds are the engine's own: before the first game of a spec in a
process, :func:`warm_up` pays that process's one-off costs (imports, compiled
kernels loading, a network's first call) with an untimed move of a throwaway
engine, each agent acquires what it holds outside Python (``Agent.start``,
an external program) before its clock runs, and Python's cyclic garbage
collector waits for the move to end (:func:`collector_paused`).
"""
from __future__ import annotations

import gc
import random
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, NamedTuple, Protocol, Sequence

from dlgo.core.agent import Agent
from dlgo.core.errors import EngineError, SpecError
from dlgo.core.game import Ending, Outcome, State
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


_warmed: set[tuple[str, str]] = set()  # (engine spec, game spec) this process has already run once


def warm_up(factory: AgentFactory, spec: str, state: State) -> None:
    """Warm this process for ``spec`` once per game (:meth:`Agent.warm_up`: an
    untimed, short move of a throwaway engine in ``state``), so that its imports,
    compiled kernels and networks load outside every timed move. The throwaway
    has its own seed: the engines that play afterwards draw exactly what they
    would have without it. An engine that fails here fails again, and is
    reported, at its first real move."""
    key = (spec, state.game.spec)
    if key in _warmed or state.is_over():
        return
    _warmed.add(key)
    agent = factory.create(spec, seed=0)
    try:
        agent.warm_up(state)
    except EngineError:
        pass
    finally:
        agent.close()


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused inside the block (a timed move),
    as it was after: a full collection scans every object of the process and
    takes a tenth of a second or more beside a big search tree, and it runs in
    whichever move happens to trip it, often a cheap engine's paying for its
    opponent's tree. Paused, it runs between moves, outside every clock;
    garbage without cycles is freed at once all the same."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def start_agent(agent: Agent) -> None:
    """Acquire what ``agent`` holds outside Python before its clock runs; a
    failure is left for its first move, where the game reports it (a forfeit)."""
    try:
        agent.start()
    except EngineError:
        pass


class Task(NamedTuple):
    """One game to play: its id, who has black and white, and its seed."""

    game_id: str
    black: str
    white: str
    seed: int


def random_opening(state: State, plies: int, rng: random.Random) -> tuple[State, list[str]]:
    """``state`` after ``plies`` uniformly random moves drawn with ``rng`` (fewer
    where the game ends first), and those moves as text."""
    moves: list[str] = []
    for _ in range(plies):
        if state.is_over():
            break
        move = state.random_move(rng)
        moves.append(state.format_move(move))
        state = state.apply_move(move)
    return state, moves


def random_positions(game: str, count: int, seed: int) -> list[State]:
    """``count`` distinct positions of ``game`` that seeded random play reaches, none over,
    each a random number of plies in (fewer on a board that has fewer), shortest first."""
    start = new_game(game)
    rng = random.Random(seed)
    cells = start.game.num_rows * start.game.num_cols
    positions: dict[str, State] = {}
    for _ in range(20 * count + 20):  # tries: a tiny board has fewer positions than asked
        if len(positions) >= count:
            break
        state, _ = random_opening(start, rng.randint(1, cells), rng)
        while state.is_over():  # back to the last position of the game that was not over
            assert state.previous_state is not None
            state = state.previous_state
        positions.setdefault(state.moves_text(), state)
    return sorted(positions.values(), key=lambda s: s.num_moves_played)


#: how many seeded random openings :func:`check_opening` plays
OPENINGS_TRIED = 16


def check_opening(game: str, plies: int) -> None:
    """A :class:`SpecError` if an opening of ``plies`` random plies leaves no game of
    ``game`` to play: each of :data:`OPENINGS_TRIED` seeded ones ends it (tic-tac-toe's
    board is full after 9 plies), so that every game would be played at random."""
    if plies == 0:
        return
    start, longest = new_game(game), 0
    for seed in range(OPENINGS_TRIED):
        state, moves = random_opening(start, plies, random.Random(seed))
        if not state.is_over():
            return
        longest = max(longest, len(moves))
    raise SpecError(f"{plies} random opening plies leave no {game} game to play: each of {OPENINGS_TRIED} "
                    f"openings tried ended the game, the longest after {longest} plies; give fewer")


class _Match:
    """One game under way: its state, its two agents, the moves so far and
    what each side spent."""

    def __init__(self, factory: AgentFactory, game: str, task: Task, opening_plies: int, experiment: str):
        self.task, self.game, self.opening_plies, self.experiment = task, game, opening_plies, experiment
        self.state, self.moves = random_opening(new_game(game), opening_plies, random.Random(task.seed))
        self.spent = {p: [0.0, 0.0, 0] for p in Player}  # seconds, compute, moves
        self.outcome: Outcome | None = None
        self.note = ""
        self.fault = ""  # the side that failed: how (games.csv's ``ending``)
        for spec in (task.black, task.white):
            warm_up(factory, spec, self.state)
        self.agents = {Player.black: factory.create(task.black, task.seed)}
        try:
            self.agents[Player.white] = factory.create(task.white, task.seed + 1)
        except BaseException:
            self.close()
            raise
        for agent in self.agents.values():
            start_agent(agent)

    @property
    def over(self) -> bool:
        return self.outcome is not None or self.state.is_over()

    @property
    def mover(self) -> Agent:
        """The agent to move."""
        return self.agents[self.state.next_player]

    def step(self, shared_seconds: float = 0.0) -> None:
        """The side to move plays one move (or forfeits, when its engine fails);
        ``shared_seconds``: its share of a batched call made for it beforehand."""
        player = self.state.next_player
        agent = self.agents[player]
        try:
            with collector_paused():
                move, _, report = agent.decide(self.state)
        except EngineError as err:  # the side that failed loses by forfeit
            self.note = f"{player.name} forfeits: {err}"
            self.fault = getattr(err, "fault", Ending.FORFEIT.value)  # a bot of a user's own says how it failed
            self.outcome = self.state.game.outcome(player.other, Ending.FORFEIT)
            return
        compute = report.compute
        self.spent[player][0] += compute.seconds + shared_seconds
        self.spent[player][1] += compute.amount
        self.spent[player][2] += 1
        self.moves.append(self.state.format_move(move))
        self.state = self.state.apply_move(move)

    def close(self) -> None:
        for agent in self.agents.values():
            agent.close()

    def record(self) -> GameRecord:
        outcome = self.outcome or self.state.outcome()
        assert outcome is not None

        def mean(player: Player, i: int) -> float:
            return self.spent[player][i] / self.spent[player][2] if self.spent[player][2] else 0.0

        task = self.task
        return GameRecord(
            experiment=self.experiment, game_id=task.game_id, game=self.game, black=task.black, white=task.white,
            result=outcome.text, winner=outcome.winner_name, plies=len(self.moves),
            black_seconds=mean(Player.black, 0), white_seconds=mean(Player.white, 0),
            black_compute=mean(Player.black, 1), white_compute=mean(Player.white, 1),
            black_unit=self.agents[Player.black].unit, white_unit=self.agents[Player.white].unit,
            seed=task.seed, opening_plies=self.opening_plies, moves=" ".join(self.moves), note=self.note,
            ending=self.fault or outcome.ending.value,
        )


def play_match(factory: AgentFactory, game: str, black: str, white: str, seed: int, opening_plies: int = 0,
               experiment: str = "", game_id: str = "") -> GameRecord:
    """Play one game of ``game`` between engine specs ``black`` and ``white``.

    ``seed`` fixes the random opening and seeds both engines (black ``seed``,
    white ``seed + 1``, unless their specs set a seed), so a game is reproducible."""
    return play_matches(factory, game, [Task(game_id, black, white, seed)], opening_plies, experiment)[0]


def play_matches(factory: AgentFactory, game: str, tasks: Sequence[Task], opening_plies: int = 0,
                 experiment: str = "", parallel: int = 256,
                 finished: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
    """Play the games of ``tasks`` in this process, up to ``parallel`` at a time,
    advancing them together: at each step the agents to move are handed all
    their positions at once (:meth:`~dlgo.core.agent.Agent.prepare_batch`), so
    network engines make one call for many games. Each game is the one
    :func:`play_match` would play with its task (the same seeds). Records come
    back in the order of ``tasks``; a move's seconds include its share of the
    batched call. ``finished`` is called with each record as its game ends."""
    records: dict[int, GameRecord] = {}
    waiting = list(enumerate(tasks))[::-1]
    active: list[tuple[int, _Match]] = []
    try:
        while waiting or active:
            while waiting and len(active) < parallel:
                index, task = waiting.pop()
                active.append((index, _Match(factory, game, task, opening_plies, experiment)))
            playing = [(i, m) for i, m in active if not m.over]
            by_kind: dict[type[Agent], list[_Match]] = {}
            for _, match in playing:
                by_kind.setdefault(type(match.mover), []).append(match)
            shared: dict[int, float] = {}  # each game's share of the batched calls' seconds
            for kind, matches in by_kind.items():
                if len(matches) > 1:
                    start = time.perf_counter()
                    with collector_paused():
                        kind.prepare_batch([m.mover for m in matches], [m.state for m in matches])
                    share = (time.perf_counter() - start) / len(matches)
                    shared.update((id(m), share) for m in matches)
            for _, match in playing:
                match.step(shared.get(id(match), 0.0))
            still = []
            for index, match in active:
                if match.over:
                    match.close()
                    records[index] = match.record()
                    if finished is not None:
                        finished(records[index])
                else:
                    still.append((index, match))
            active = still
    finally:
        for _, match in active:
            match.close()
    return [records[i] for i in range(len(tasks))]
