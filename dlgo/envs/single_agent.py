"""Any game of the registry as a Gymnasium environment: you against an engine.

    import gymnasium
    from dlgo.envs import DlgoGymEnv
    env = DlgoGymEnv("connect4", opponent="mcts:rounds=100", colour="alternate")
    observation, info = env.reset(seed=1)
    action = int(observation["action_mask"].nonzero()[0][0])
    observation, reward, terminated, truncated, info = env.step(action)

The opponent is any engine spec (``dlgo engines``). You play ``colour``:
``"black"``, ``"white"``, ``"random"`` (drawn at each reset from the seeded
generator) or ``"alternate"`` (black, white, black, ... by episode, from the
last seeded reset). Observations
are those of :class:`~dlgo.envs.multi_agent.DlgoAECEnv` (the encoder's planes and
the action mask). The reward is +1, -1 or 0 at the end of the game and 0
before; a game longer than ``max_moves`` is truncated. An illegal action ends
the episode as a loss (reward -1, ``info["illegal"]`` set), so random actions
(Gymnasium's checker, a first policy) never crash a run.
"""
from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

import engines
from dlgo.core.agent import Agent
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.encoders import get_encoder_by_name
from dlgo.games import new_game

COLOURS = ("black", "white", "random", "alternate")


class DlgoGymEnv(gymnasium.Env):
    """One side of a game of the registry; ``opponent`` (an engine spec) plays the other."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str = "connect4", opponent: str = "random", *, colour: str = "black",
                 encoder: str | None = None, max_moves: int | None = None, render_mode: str | None = None):
        super().__init__()
        if colour not in COLOURS:
            raise ValueError(f"colour must be one of {', '.join(COLOURS)}, got {colour!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.game_spec, self.opponent_spec, self.colour = game, opponent, colour
        self.render_mode = render_mode
        self.state: State = new_game(game)
        engines.registry.check_spec(opponent)
        self.encoder = get_encoder_by_name(encoder, self.state.game)
        self.max_moves = max_moves or 4 * self.state.game.num_rows * self.state.game.num_cols
        actions = self.state.num_actions
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(-1.0, 1.0, self.encoder.shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), dtype=np.int8)})
        self.action_space = spaces.Discrete(actions)
        self.rng = random.Random()
        self.episodes = 0
        self.opponent: Agent | None = None
        self.me = Player.black
        self.done = True  # until reset()

    def _observation(self) -> dict[str, np.ndarray]:
        mask = np.zeros(self.state.num_actions, dtype=np.int8)
        if not self.state.is_over():
            mask[self.state.legal_actions()] = 1
        return {"observation": self.encoder.encode(self.state), "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game: the opponent is built (again, with a seed from ``seed``) and moves first if it is black."""
        super().reset(seed=seed)
        if seed is not None:  # a seeded reset starts the sequence of games again
            self.rng.seed(seed)
            self.action_space.seed(seed)
            self.episodes = 0
        if self.opponent is None or seed is not None:
            if self.opponent is not None:
                self.opponent.close()
            self.opponent = engines.create_seeded(self.opponent_spec, self.rng.randrange(2 ** 31))
        self.opponent.new_game()
        self.me = {"black": Player.black, "white": Player.white,
                   "random": self.rng.choice((Player.black, Player.white)),
                   "alternate": Player.black if self.episodes % 2 == 0 else Player.white}[self.colour]
        self.episodes += 1
        self.state = new_game(self.game_spec)
        self.moves = 0
        self._opponent_moves()
        self.done = self.state.is_over()
        return self._observation(), {"colour": self.me.name}

    def _opponent_moves(self) -> None:
        assert self.opponent is not None
        while not self.state.is_over() and self.state.next_player != self.me and self.moves < self.max_moves:
            self.state = self.state.apply_move(self.opponent.select_move(self.state))
            self.moves += 1

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self.done:
            raise RuntimeError("the episode is over: call reset()")
        info: dict[str, Any] = {"colour": self.me.name}
        if not 0 <= int(action) < self.state.num_actions or not self.state.legal_action_mask()[int(action)]:
            info["illegal"] = f"action {action} is not legal here"
            self.done = True
            return self._observation(), -1.0, True, False, info
        self.state = self.state.apply_action(int(action))
        self.moves += 1
        self._opponent_moves()
        reward, terminated = 0.0, self.state.is_over()
        if terminated:
            outcome = self.state.outcome()
            assert outcome is not None
            reward = outcome.value_for(self.me)
            info["result"] = outcome.text
        truncated = not terminated and self.moves >= self.max_moves
        self.done = terminated or truncated
        return self._observation(), reward, terminated, truncated, info

    def render(self) -> Any:
        """The board as text (``render_mode="ansi"``)."""
        return self.state.render() if self.render_mode == "ansi" else None

    def close(self) -> None:
        if self.opponent is not None:
            self.opponent.close()
            self.opponent = None
