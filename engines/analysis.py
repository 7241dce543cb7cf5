"""A network's view of one position: its policy, its value and, for a
policy-value network, where a PUCT search spends its simulations (read from
the search's report). ``dlgo analyze`` prints it; :func:`render_analysis`
draws it on the board."""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from dlgo.core.game import State
from dlgo.display.pictures import render_position
from engines.alphazero import NetworkEvaluator
from engines.neural.loading import LoadedModel
from engines.puct import PUCTSearch, select_action


class Analysis(NamedTuple):
    policy: np.ndarray          # the network's probabilities over the action space
    value: float | None         # for the player to move (+1 a sure win); None: a policy-only network
    visits: np.ndarray | None   # per action, after the search (None: no search)
    q: np.ndarray | None        # per action: the search's mean value for the player to move


def analyze(loaded: LoadedModel, state: State, simulations: int = 0, c: float = 1.5) -> Analysis:
    """The network's policy and value for ``state`` (one compiled call) and, with
    ``simulations`` > 0 and a value head, a PUCT search's visits and values."""
    loaded.check(state)
    outputs = loaded.call(loaded.encoder.encode(state)[np.newaxis])
    policy = np.asarray(outputs[0][0])
    value = float(outputs[1][0][0]) if len(outputs) > 1 else None
    if not simulations or value is None or state.is_over():
        return Analysis(policy, value, None, None)
    root = PUCTSearch(NetworkEvaluator(loaded), c=c).run(state, simulations)
    report = root.report(select_action(root, 0.0, np.random.default_rng(0)))
    return Analysis(policy, value, report.visits, report.q)


def render_analysis(state: State, analysis: Analysis, path: str | Path, title: str = "") -> None:
    """The position with the search's visits (or, without a search, the policy)
    as a heat map; the value goes in the title."""
    if analysis.visits is not None:
        heat, label = analysis.visits, f"visits of {int(analysis.visits.sum())} simulations"
    else:
        heat, label = analysis.policy, "policy"
    if analysis.value is not None:
        title = f"{title}  value {analysis.value:+.2f}".strip()
    render_position(state, path, heat, heat_label=label, title=title)
