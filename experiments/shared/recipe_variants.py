"""The recipe ablation's variants (``experiments/headline/recipe_ablation.py``): each a change
to the scaling lab's baseline, its source and its settings, and the ablation's ceilings (the
runs' network trained on the solver's truth, :mod:`engines.training.solver_supervised`)."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from engines.checkpoints import SHIPPED
from experiments.shared.connectn import RECIPE_LENGTH, Net, anneal, floor_schedule, recipe_settings, shipped_name

REFERENCE_PER_SET = 100  # the best-network choice's positions a set (their seed is the script's)
LEARN_SEED = 3           # the ceilings' positions to learn from: neither the measured nor the references
LEARN_CANDIDATES = 60_000
CEILING_EPOCHS = 30
CEILING = "ceiling"      # the variants' names of the supervised ceilings begin so
RECIPE = "openings"      # the variant that is the recipe (``--preset recipe`` of the AlphaZero scripts)
RECIPE_CEILING = "ceiling-4x64-heads32"  # the recipe network's supervised ceiling


class Variant(NamedTuple):
    """One change to the baseline: what it is, where it comes from, its settings
    (a function of the board's cells and the run's iterations), the run's length (a
    multiple of the board's iterations: more compute is a change too) and the network it
    continues, if any (:func:`start_network`)."""

    about: str
    source: str
    settings: Callable[[int, int], dict[str, Any]]
    length: float = 1.0
    continues: str = ""  # "lab" or "continued": the network the run starts from (:func:`start_network`); "": none


BIG_NET = {"blocks": 4, "filters": 64, "policy_filters": 32, "value_filters": 32}


def drops(board_cells: int, iterations: int) -> dict[str, Any]:
    """The learning rate divided by 10 at half and at three quarters of the run."""
    return {"learning_rate_drops": [iterations // 2 + 1, 3 * iterations // 4 + 1]}


def best_network(board_cells: int, iterations: int) -> dict[str, Any]:
    """Publish the network with the fewest mistakes on fixed references (positions of their own seed)."""
    return {"publish": "best", "reference_positions": REFERENCE_PER_SET}


VARIANTS: dict[str, Variant] = {
    "baseline": Variant("the scaling lab's recipe", "experiments/headline/scaling.py", lambda c, i: {}),
    "temperature": Variant("temperature 1, then falling to a floor of 0.3 (never greedy)",
                           "AlphaZero.jl's Connect Four parameters", floor_schedule),
    "merge": Variant("repeated positions merged, their targets averaged", "AlphaZero.jl; Oracle, part 4",
                     lambda c, i: {"merge_positions": True}),
    "wide-heads": Variant("policy and value heads of 32 filters", "AlphaZero.jl; Oracle, part 2",
                          lambda c, i: {"policy_filters": 32, "value_filters": 32}),
    "recipe": Variant("temperature floor, merged positions, wide heads, learning-rate drops, best network",
                      "the changes together",
                      lambda c, i: {**floor_schedule(c, i), "merge_positions": True, "policy_filters": 32,
                                    "value_filters": 32, **drops(c, i), **best_network(c, i)}),
    "result-value": Variant("the value target is the game's result alone (no root value)", "AlphaGo Zero",
                            lambda c, i: {"search_value_weight": 0.0}),
    "best-network": Variant("the published network is the best on fixed solved positions", "AlphaGo Zero's gating",
                            best_network),
    "lr-drops": Variant("learning rate / 10 at half and three quarters of the run", "AlphaGo Zero's step schedule",
                        drops),
    "big-net": Variant("a 4x64 network with heads of 32 filters", "the ceilings: 4x64 with wide heads learns the truth",
                       lambda c, i: BIG_NET),
    "recipe-4x64": Variant("temperature floor, merged positions, a 4x64 network with heads of 32, best network",
                           "the changes that gained, on the network that can hold the truth",
                           lambda c, i: {**floor_schedule(c, i), "merge_positions": True, **BIG_NET,
                                         **best_network(c, i)}),
    "gumbel": Variant("recipe-4x64 with Gumbel search's improved-policy targets (16 considered moves, all on "
                      "these boards), its choice played (no temperature)",
                      "Gumbel AlphaZero (Danihelka et al. 2022): right targets from few simulations",
                      lambda c, i: {**VARIANTS["recipe-4x64"].settings(c, i), "gumbel": 16, "temperature_floor": 0.0}),
    "gumbel-explore": Variant("recipe-4x64 with Gumbel's targets, its moves sampled from the improved policy on the "
                              "temperature floor's schedule", "AlphaZero.jl's exploration with Gumbel's targets",
                              lambda c, i: {**VARIANTS["recipe-4x64"].settings(c, i), "gumbel": 16}),
    "pruned": Variant("recipe-4x64 with forced playouts and policy target pruning (k = 2)",
                      "KataGo (Wu 2019, 3.1): exploration's visits kept out of the policy target",
                      lambda c, i: {**VARIANTS["recipe-4x64"].settings(c, i), "forced_playouts": 2.0}),
    "deep-search": Variant("recipe-4x64 searching 64 simulations a move (not 16) in half as many games",
                           "AlphaZero.jl (600) and Oracle (800): targets from deeper searches",
                           lambda c, i: {**VARIANTS["recipe-4x64"].settings(c, i), "simulations": 64, "games": 64,
                                         "parallel": 64}),
    "playout-cap": Variant("recipe-4x64 with playout-cap randomisation: a quarter of the moves searched 64 "
                           "simulations and learnt from, the rest 16",
                           "KataGo (Wu 2019, 3.1): deep targets at a fraction of the cost",
                           lambda c, i: {**VARIANTS["recipe-4x64"].settings(c, i), "simulations": 64,
                                         "fast_simulations": 16, "full_fraction": 0.25}),
    "greedy-value": Variant("recipe-4x64 with the value target cut at exploratory moves: the result of the game "
                            "its sampled moves did not spoil (their root values in their place), no root-value mix",
                            "Watkins' Q(lambda): a return cut where the behaviour left the greedy policy",
                            lambda c, i: {**VARIANTS["recipe-4x64"].settings(c, i), "greedy_return": True,
                                          "search_value_weight": 0.0}),
    "recipe-4x64-drops": Variant("recipe-4x64 with the learning rate / 10 at half and three quarters of the run",
                                 "a probe: recipe-4x64 continued from its plateau at a tenth of the rate",
                                 lambda c, i: {**VARIANTS["recipe-4x64"].settings(c, i), **drops(c, i)}),
    "anneal": Variant("recipe-4x64 run half as long again, the learning rate / 10 for its last third; no match "
                      "against the previous network, the references measured every 4 iterations (compute for "
                      "learning, not for watching)",
                      "a probe: recipe-4x64 continued from its plateau at a tenth of the rate fell from 2.9% to 1.8%",
                      lambda c, i: {**VARIANTS["recipe-4x64"].settings(c, i), **anneal(c, i)}, length=1.5),
    "openings": Variant("anneal with random openings: each self-play game starts after 0 to half the board's "
                        "cells of uniformly random moves; the latest network within one standard error of the "
                        "references' best published",
                        "KataGo's varied openings: the solved sets' positions come from random play, which "
                        "self-play's own lines seldom reach; the one-standard-error rule (Hastie et al., ESL 7.10)",
                        lambda c, i: {**BIG_NET, **best_network(c, i), **recipe_settings(c, i)},
                        length=RECIPE_LENGTH),
    "openings-greedy": Variant("openings with greedy-value's value target: the result its sampled moves did not spoil, "
                               "no root-value mix",
                               "the two changes that gained on recipe-4x64, together",
                               lambda c, i: {**VARIANTS["openings"].settings(c, i), "greedy_return": True,
                                             "search_value_weight": 0.0}, length=1.5),
    "openings-full": Variant("openings of up to all the board's cells (not half)",
                             "a probe: the solved sets sample every stage of random play",
                             lambda c, i: {**VARIANTS["openings"].settings(c, i), "opening_moves": c}, length=1.5),
    "openings-argmax": Variant("openings-greedy with every move after the opening the search's choice (no "
                               "temperature): the random openings alone explore",
                               "a probe: a game played greedily from a random opening ends in the result of the "
                               "network's best play there, a cleaner value target than a sampled game's",
                               lambda c, i: {**VARIANTS["openings-greedy"].settings(c, i), "temperature_moves": 0,
                                             "temperature_floor": 0.0, "temperature_decay_moves": 0}, length=1.5),
    "continued-deep": Variant("the scaling lab's network for the board trained on with the recipe's openings and "
                              "searches of 64 simulations a move (not 16) in 64 games an iteration, at the learning "
                              "rate its run ended at (1e-4, / 10 for the last third)",
                              "a probe: the lab's networks err most on early positions, whose values a search of "
                              "16 simulations seldom gets right (AlphaZero.jl searches 600)",
                              lambda c, i: {**VARIANTS["openings"].settings(c, i), "simulations": 64, "games": 64,
                                            "parallel": 64, "learning_rate": 1e-4}, continues="lab"),
    "continued-twice": Variant("continued-deep's network trained on as continued-deep trains the lab's, for as "
                               "many iterations again",
                               "a second continuation: did the first one's gain come from the iterations or stop "
                               "where it ended?",
                               lambda c, i: VARIANTS["continued-deep"].settings(c, i), continues="continued"),
    "small-buffer": Variant("a replay buffer of 500 games (not 2000)", "a shorter window: fresher targets",
                            lambda c, i: {"buffer_games": 500}),
    "large-buffer": Variant("a replay buffer of 8000 games", "a longer window: more positions",
                            lambda c, i: {"buffer_games": 8000}),
}


def start_network(board: str, continues: str) -> str:
    """The shipped name of the network a run that ``continues`` starts from (a run's settings
    then travel between clones): the scaling lab's (``lab``) or continued-deep's (``continued``).
    Each is ``connect-CxR-lab`` or ``connect-CxR-continued`` where a network trained on from it has
    taken the board's shipped name ``connect-CxR`` since, and that name until then."""
    if continues not in ("lab", "continued"):
        raise ValueError(f"a variant continues 'lab' or 'continued', not {continues!r}")
    name = shipped_name(board)
    return f"{name}-{continues}" if (SHIPPED / f"{name}-{continues}.keras").exists() else name




def ceiling_nets(net: Net, quick: bool) -> list[tuple[Net, int, int]]:
    """The networks trained on the solver's truth beside the runs: (size, policy filters, value
    filters): the runs' network with the baseline's heads and with wide ones, and 4x64 with wide heads."""
    if quick:
        return [(net, 2, 1)]
    return [(net, 2, 1), (net, 32, 32)] + ([] if net == Net(4, 64) else [(Net(4, 64), 32, 32)])


def ceiling_name(net: Net, policy_filters: int, value_filters: int) -> str:
    """``ceiling-2x32``, or ``ceiling-2x32-heads32`` with wide heads."""
    heads = "" if (policy_filters, value_filters) == (2, 1) else f"-heads{policy_filters}"
    return f"{CEILING}-{net.name}{heads}"
