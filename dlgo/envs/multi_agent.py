"""Any game of the registry as a PettingZoo AEC environment (two agents taking turns).

    from dlgo.envs import DlgoAECEnv
    env = DlgoAECEnv("connect4")
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"]
        action = None if termination or truncation else int(mask.nonzero()[0][0])
        env.step(action)

The agents are ``"black_0"`` (moves first) and ``"white_0"``, as in PettingZoo's Go. An observation is a
dict: ``"observation"``, the game's default encoder's planes of the current
position (``channels_last``, the encoder's view: the player to move and who
that is are in the planes), and ``"action_mask"``, 1 for the legal actions of
the agent to move and all 0 for the other. Actions are the game's int actions
(Go: every point, then pass). Rewards: +1 to the winner and -1 to the loser at
the end, 0 for both in a draw. A game longer than ``max_moves`` is truncated.
An illegal action raises :class:`~dlgo.core.errors.IllegalMoveError`, as
PettingZoo's classic games do.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from dlgo.core.errors import IllegalMoveError
from dlgo.core.game import State
from dlgo.core.types import Player
from dlgo.encoders import get_encoder_by_name
from dlgo.games import new_game

AGENTS = {Player.black: "black_0", Player.white: "white_0"}  # PettingZoo names agents <descriptor>_<number>


class DlgoAECEnv(AECEnv):
    """A game of the registry (``game``: its spec, e.g. ``"go:size=9"``) for PettingZoo."""

    RENDER_MODES = ("human", "ansi")
    metadata = {"render_modes": list(RENDER_MODES), "name": "dlgo_v0", "is_parallelizable": False}

    def __init__(self, game: str = "connect4", *, encoder: str | None = None, max_moves: int | None = None,
                 render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(self.RENDER_MODES)}, got {render_mode!r}")
        self.game_spec = game
        self.state: State = new_game(game)
        self.encoder = get_encoder_by_name(encoder, self.state.game)
        self.max_moves = max_moves or 4 * self.state.game.num_rows * self.state.game.num_cols
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS.values())
        actions = self.state.num_actions
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(-1.0, 1.0, self.encoder.shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), dtype=np.int8)}) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game (the game itself is deterministic: ``seed`` seeds the action spaces' sampling)."""
        if seed is not None:
            for number, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + number)
        self.state = new_game(self.game_spec)
        self.moves = 0
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = AGENTS[self.state.next_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.zeros(self.state.num_actions, dtype=np.int8)
        if not self.state.is_over() and agent == AGENTS[self.state.next_player]:
            mask[self.state.legal_actions()] = 1
        return {"observation": self.encoder.encode(self.state), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not self.state.legal_action_mask()[int(action)]:
            raise IllegalMoveError(f"{agent} cannot play action {action} here; the legal actions are "
                                   f"{self.state.legal_actions()}")
        self._cumulative_rewards[agent] = 0.0
        self.state = self.state.apply_action(int(action))
        self.moves += 1
        self.rewards = {a: 0.0 for a in self.agents}
        if self.state.is_over():
            outcome = self.state.outcome()
            assert outcome is not None
            for player, name in AGENTS.items():
                self.rewards[name] = outcome.value_for(player)
                self.infos[name] = {"result": outcome.text}
            self.terminations = {a: True for a in self.agents}
        elif self.moves >= self.max_moves:
            self.truncations = {a: True for a in self.agents}
        self.agent_selection = AGENTS[self.state.next_player]  # after the end: the other agent, for its last step
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        text = self.state.render()
        if self.render_mode == "human":
            print(text)  # noqa: T201 (PettingZoo's human mode prints the board)
            return None
        return text

    def close(self) -> None:
        pass
