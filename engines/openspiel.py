"""OpenSpiel's own bots playing our games: ``openspiel:bot=mcts,simulations=300``.

The engine plays the same game in OpenSpiel (``state.game.openspiel_game()``:
``tic_tac_toe``, ``connect_four``, ``go(board_size=N,komi=K)``), replays our
moves there, asks OpenSpiel's bot, and plays its answer in ours. So our
tournaments rate our engines and OpenSpiel's on one scale. The bots:

* ``mcts``: OpenSpiel's ``MCTSBot`` (UCT with ``c``, random rollouts, ``solve``
  as MCTS-Solver), ``simulations`` per move;
* ``random``: a uniformly random legal move (Go: every legal point, eyes too);
* ``alphabeta``: OpenSpiel's ``alpha_beta_search`` to ``depth`` plies (0: to
  the end; only tic-tac-toe is small enough for that).

Needs the ``openspiel`` extra (``pip install open_spiel``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dlgo.core.agent import NO_REPORT, Agent, Decision, SearchReport
from dlgo.core.errors import DlgoError, SpecError
from dlgo.core.game import Game, OpenSpielGame, State
from dlgo.core.specs import require

try:  # the openspiel extra
    import pyspiel
    from open_spiel.python.algorithms import mcts as os_mcts
    from open_spiel.python.algorithms import minimax as os_minimax
except ImportError:  # the engine says so when it is built
    pyspiel = os_mcts = os_minimax = None

BOTS = ("mcts", "random", "alphabeta")


class OpenSpielAgent(Agent):
    """One of OpenSpiel's bots (mcts, random, alphabeta) on the same game in OpenSpiel."""

    name = "openspiel"
    unit = "simulations"
    units = ("simulations", "moves with bot=random", "searches with bot=alphabeta")

    def __init__(self, bot: str = "mcts", simulations: int = 300, c: float = 2.0, rollouts: int = 1,
                 depth: int = 0, solve: bool = True, seed: int | None = None):
        """``bot``: mcts, random or alphabeta; ``simulations``: MCTS simulations per
        move; ``c``: UCT exploration; ``rollouts``: random rollouts per leaf;
        ``depth``: alpha-beta's depth (0 = to the end); ``solve``: MCTS-Solver."""
        super().__init__()
        if pyspiel is None:
            raise DlgoError("the openspiel engine needs OpenSpiel: pip install open_spiel (the openspiel extra)")
        require(bot in BOTS, f"openspiel: bot is one of {', '.join(BOTS)}, got {bot!r}")
        require(simulations >= 1, f"openspiel: simulations must be at least 1, got {simulations}")
        require(0 < c < float("inf"), f"openspiel: c must be a finite number above 0, got {c}")
        require(rollouts >= 1, f"openspiel: rollouts must be at least 1, got {rollouts}")
        require(depth >= 0, f"openspiel: depth must be at least 0 (0 = to the end), got {depth}")
        self.bot_name, self.simulations, self.c, self.rollouts = bot, simulations, c, rollouts
        self.depth, self.solve = depth, solve
        self.random_state = np.random.RandomState(seed)
        self.unit = {"mcts": "simulations", "random": "moves", "alphabeta": "searches"}[bot]
        self._game: Game | None = None
        self._counterpart: OpenSpielGame | None = None
        self._os_game: Any = None   # a pyspiel.Game
        self._bot: Any = None       # OpenSpiel's MCTSBot

    def check_game(self, state: State) -> None:
        if state.game.openspiel_game() is None:
            raise SpecError(f"openspiel: OpenSpiel has no game with the rules of {state.game.spec}")

    def _prepare(self, game: Game) -> OpenSpielGame:
        """OpenSpiel's game (and the MCTS bot) for ``game``, made once."""
        if self._game != game:
            counterpart = game.openspiel_game()
            if counterpart is None:
                raise SpecError(f"openspiel: OpenSpiel has no game with the rules of {game.spec}")
            self._game, self._counterpart = game, counterpart
            self._os_game = pyspiel.load_game(counterpart.name)
            self._bot = None
            if self.bot_name == "mcts":
                evaluator = os_mcts.RandomRolloutEvaluator(self.rollouts, self.random_state)
                self._bot = os_mcts.MCTSBot(self._os_game, self.c, self.simulations, evaluator, solve=self.solve,
                                            random_state=self.random_state)
        assert self._counterpart is not None
        return self._counterpart

    def openspiel_state(self, state: State) -> Any:
        """``state``'s position in OpenSpiel (a ``pyspiel.State``): our moves replayed there."""
        counterpart = self._prepare(state.game)
        os_state = self._os_game.new_initial_state()
        history = list(state.history())
        for before, after in zip(history, history[1:]):
            assert after.last_move is not None
            os_state.apply_action(counterpart.actions[before.move_to_index(after.last_move)])
        return os_state

    def choose(self, state: State) -> Decision:
        counterpart = self._prepare(state.game)
        os_state = self.openspiel_state(state)
        ours = {os_action: action for action, os_action in enumerate(counterpart.actions)}
        if self.bot_name == "random":
            os_action = int(self.random_state.choice(os_state.legal_actions()))
            work, report = 1, NO_REPORT
        elif self.bot_name == "alphabeta":
            value, os_action = os_minimax.alpha_beta_search(
                self._os_game, os_state, maximum_depth=self.depth or 10 ** 6,
                maximizing_player_id=os_state.current_player())
            work, report = 1, SearchReport(value=float(value), proven=self.depth == 0)
        else:
            root = self._bot.mcts_search(os_state)
            best = root.best_child()
            os_action = best.action
            visits, q = np.zeros(state.num_actions), np.zeros(state.num_actions)
            for child in root.children:
                action = ours[child.action]
                visits[action] = child.explore_count
                q[action] = child.total_reward / child.explore_count if child.explore_count else 0.0
            value = best.total_reward / best.explore_count if best.explore_count else None
            proven = best.outcome is not None
            if proven:
                value = float(best.outcome[os_state.current_player()])
            report = SearchReport(value=value, proven=proven, visits=visits, q=q,
                                  principal_variation=(ours[os_action],))
            work = int(root.explore_count)
        return Decision(state.index_to_move(ours[int(os_action)]), work, report)
