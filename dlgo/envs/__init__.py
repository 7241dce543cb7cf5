"""The suite's games for reinforcement-learning libraries (the ``envs`` extra:
PettingZoo and Gymnasium).

* :class:`DlgoAECEnv`: any game of the registry as a PettingZoo AEC environment,
  two agents taking turns (``dlgo.envs.multi_agent``);
* :class:`DlgoGymEnv`: one side of a game as a Gymnasium environment, any engine
  spec playing the other (``dlgo.envs.single_agent``).
"""
from dlgo.envs.multi_agent import DlgoAECEnv
from dlgo.envs.single_agent import DlgoGymEnv

__all__ = ["DlgoAECEnv", "DlgoGymEnv"]
