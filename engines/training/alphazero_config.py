"""AlphaZero's settings, in a module without TensorFlow (the CLI reads them to
build its options)."""
from __future__ import annotations

import math
from pathlib import Path
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from dlgo.core.arguments import check_types, setting
from dlgo.core.errors import ModelFileError, SpecError
from dlgo.data.solved import shipped_sets
from dlgo.encoders import get_encoder_by_name
from dlgo.formats.records import GameRecord, read_games
from dlgo.games import get_game, new_game
from engines.checkpoints import resolve_model_path
from engines.neural.loading import kind_has_heads, load_network, metadata_only
from engines.neural.precision import check_precision
from engines.registry import check_engine
from engines.training.auxiliary import auxiliary_targets
from engines.training.references import check_reference_file
from engines.training.paired_match import match_openings
from engines.training.selfplay import MatchSettings, SelfPlaySettings

#: the least value of each count (every other number: finite, and >= 0 unless listed in POSITIVE)
AT_LEAST_ONE = ("blocks", "filters", "policy_filters", "value_filters", "games", "parallel", "simulations",
                "buffer_games", "batch_size", "train_steps",
                "eval_simulations", "baseline_every", "reference_every", "gate_pairs", "gate_every")
POSITIVE = ("learning_rate", "learning_rate_drop", "c", "dirichlet_alpha")
FRACTIONS = ("full_fraction", "search_value_weight", "dirichlet_epsilon", "window_alpha", "temperature_floor")
PUBLISH = ("latest", "best", "gate")
#: counts whose -1 means "scaled to the board" (:meth:`AlphaZeroConfig.temperature_schedule`)
SCALED = ("temperature_moves", "temperature_decay_moves")

#: The defaults before the recipe ablation (``experiments/headline/recipe_ablation.py``)
#: made its recipe the default: AlphaGo Zero's narrow heads, every occurrence of a position
#: an example, 4 moves sampled and then the most visited, the last network published. The
#: experiments whose reports were made with them keep them (:func:`pre_recipe_config`), and a
#: run recorded before a setting existed ran at these values.
PRE_RECIPE: dict[str, Any] = {"policy_filters": 2, "value_filters": 1, "merge_positions": False,
                              "temperature_moves": 4, "temperature_floor": 0.0, "temperature_decay_moves": 0,
                              "publish": "latest", "publish_margin": 0.0}


@dataclass
class AlphaZeroConfig:
    """Everything a run depends on; a resumed run must use the same values.

    The defaults are the recipe the ablation picked on the boards the solver knows
    (docs/alphazero.md, "The recipe"): heads of 32 filters, repeated positions merged,
    AlphaZero.jl's temperature schedule with its floor, the best network on fixed
    references published."""

    #: what a run recorded before a setting existed ran at (see :func:`dlgo.storage.folders.read_settings`)
    FORMER_DEFAULTS: ClassVar[dict[str, Any]] = PRE_RECIPE

    game: str = setting("tictactoe", "game spec to learn, e.g. tictactoe, connect4, go:size=9")
    blocks: int = setting(2, "residual blocks of the network", counts="units")
    filters: int = setting(32, "convolution filters of each layer", counts="units")
    policy_filters: int = setting(32, "1x1 convolution filters of the policy head (AlphaGo Zero: 2; "
                                      "AlphaZero.jl: 32 for tic-tac-toe, 4 for Connect Four; Oracle's Connect "
                                      "Four: 32)", counts="units")
    value_filters: int = setting(32, "1x1 convolution filters of the value head (AlphaGo Zero: 1; AlphaZero.jl "
                                     "and Oracle's Connect Four: 32)", counts="units")
    l2: float = setting(1e-4, "L2 weight decay")
    learning_rate: float = setting(1e-3, "Adam learning rate")
    learning_rate_drops: list[int] = setting([], "iterations at which the learning rate drops "
                                                 "(times --learning-rate-drop)", item=int, counts="steps")
    learning_rate_drop: float = setting(0.1, "factor applied at each iteration in --learning-rate-drops")
    games: int = setting(64, "self-play games per iteration", counts="games")
    parallel: int = setting(64, "self-play games advancing together (one network call for all)", counts="games")
    simulations: int = setting(50, "PUCT simulations per self-play move", counts="simulations")
    fast_simulations: int = setting(0, "playout-cap randomisation: above 0, most moves search this many "
                                       "simulations and are not learnt from", counts="simulations")
    full_fraction: float = setting(0.25, "with --fast-simulations: the share of moves given the full search "
                                         "(and learnt from)")
    search_value_weight: float = setting(0.0, "value target: (1 - w) * the game's result + w * the root's "
                                              "search value")
    gumbel: int = setting(0, "search as Gumbel AlphaZero does, considering this many root moves, and learn its "
                             "improved policy (0: PUCT with Dirichlet noise, learning the visit counts)",
                             counts="simulations")
    forced_playouts: float = setting(0.0, "PUCT: KataGo's forced playouts and policy target pruning with this k "
                                          "(2 in KataGo; 0: off)")
    c: float = setting(1.5, "PUCT exploration constant")
    dirichlet_alpha: float = setting(0.5, "alpha of the Dirichlet noise added to the root's priors")
    dirichlet_epsilon: float = setting(0.25, "share of the root's priors given to the Dirichlet noise")
    temperature_moves: int = setting(-1, "moves at the start of each self-play game sampled by visit counts "
                                         "(later ones: the most visited, or the falling temperature of "
                                         "--temperature-floor; PUCT only, Gumbel's noise explores every move; -1: "
                                         "20/42 of the board's points, AlphaZero.jl's 20 plies of Connect Four "
                                         "scaled)", counts="plies")
    temperature_floor: float = setting(0.3, "after --temperature-moves, the temperature falls linearly to this floor "
                                            "over --temperature-decay-moves moves and stays there (AlphaZero.jl for "
                                            "Connect Four: 0.3; 0: the most visited move). With Gumbel search "
                                            "and a floor above 0, moves are sampled from its improved policy on "
                                            "this schedule (without one, Gumbel plays its own choice)")
    temperature_decay_moves: int = setting(-1, "moves over which the temperature falls from 1 to "
                                               "--temperature-floor (-1: 10/42 of the board's points)", counts="plies")
    opening_moves: int = setting(0, "each self-play game opens with a uniformly drawn number from 0 to this many "
                                    "uniformly random moves, neither searched nor learnt from, so its positions "
                                    "include those after moves no search would play (KataGo's varied openings; 0: "
                                    "every game from the empty board)", counts="plies")
    buffer_games: int = setting(1000, "replay buffer: the positions of this many latest games", counts="games")
    teacher_games: str = setting("", "a games file (games.csv or .csv.gz) whose first games fill the replay "
                                     "buffer's places that self-play has not filled yet, each move a player chose "
                                     "an example (the move as the policy, the result as the value), leaving as "
                                     "self-play's games arrive (for a run started from a teacher's network; "
                                     "default: none)")
    teacher_keep: int = setting(0, "places of the replay buffer the teacher_games keep however many games "
                                   "self-play has played, so every batch holds some of the teacher's moves and "
                                   "results (AlphaGo's value net trained on games apart from its own; 0: they all "
                                   "leave as self-play's arrive; nothing without teacher_games)", counts="games")
    auxiliary: list[str] = setting([], "KataGo's auxiliary targets to learn too (names, or all: the game's): "
                                       "moves_left (the plies to the end); on games scored by area ownership "
                                       "(each point's final owner) and score (the final margin)")
    auxiliary_weight: float = setting(0.15, "the weight of each auxiliary target's loss (the policy's and the "
                                            "value's are 1)")
    window_alpha: float = setting(0.0, "KataGo's growing replay window: once more than --buffer-games games are "
                                       "played, the buffer holds buffer_games * (1 + 0.4 * ((played / buffer_games)"
                                       " ** alpha - 1) / alpha) games (KataGo: alpha 0.75; 0: a fixed window)")
    sample_reuse: float = setting(0.0, "above 0: train ceil(reuse * the iteration's new positions / --batch-size) "
                                       "batches, so each new position is drawn about this many times, instead of "
                                       "--train-steps")
    greedy_return: bool = setting(False, "value target: the game's result cut at its exploratory moves (a move "
                                         "not the search's choice), the root value of the first one's search in its "
                                         "place (Watkins' Q(lambda) cut; off: the result as played)")
    merge_positions: bool = setting(True, "train on each distinct position of the buffer once, its policy and "
                                           "value targets the mean of its occurrences' (AlphaZero.jl's and Oracle's "
                                           "position averaging; off: every occurrence is an example)")
    batch_size: int = setting(128, "training batch size", counts="positions")
    train_steps: int = setting(100, "training batches per iteration", counts="steps")
    eval_games: int = setting(10, "evaluation games against each baseline", counts="games")
    previous_games: int = setting(20, "games against the previous iteration's network (its Elo step; 0: none, "
                                      "the score and Elo columns left empty)", counts="games")
    eval_simulations: int = setting(50, "PUCT simulations per move in evaluation games", counts="simulations")
    baselines: list[str] = setting(["random"], "engine specs the network is measured against")
    baseline_every: int = setting(1, "play the baselines every k iterations (and at the last)", counts="steps")
    precision: str = setting("float32", "the networks' arithmetic in self-play: float32, or bfloat16 / float16 "
                                        "(mixed precision: faster on CPUs with AVX512-BF16 and on GPUs; training "
                                        "and the weights stay float32)")
    reference_positions: int = setting(0, "each iteration, measure the network on this many critical positions of "
                                          "each early-game solved set (raw and at --eval-simulations; 0: none; "
                                          "games with solved sets: Connect Four, or --reference-file's)",
                                          counts="positions")
    reference_every: int = setting(1, "measure the references every k iterations (and at the last and the "
                                      "first): fewer measurements, a coarser choice of the best network",
                                      counts="steps")
    reference_file: str = setting("", "the solved positions (dlgo positions' positions.csv) --reference-positions "
                                      "takes its critical ones from, every set of it (default: the suite's early-game "
                                      "sets of the game)")
    publish: str = setting("best", "the network checkpoint.keras holds: latest; best by the fixed references "
                                   "(fewest mistakes on the solved positions where measured, else the best score "
                                   "against the first baseline; the starting network counts; a run with neither "
                                   "publishes the latest); or gate: the latest network a sequential test says "
                                   "beats the published one (colour-swapped pairs, SPRT), the start until one does")
    gate_pairs: int = setting(100, "with --publish gate: the colour-swapped pairs a gate plays at most before "
                                   "its network stays unpublished", counts="games")
    gate_elo1: float = setting(20.0, "with --publish gate: the gate's H1, Elo the new network gains over the "
                                     "published one (H0: none; alpha and beta 0.05)")
    gate_every: int = setting(1, "with --publish gate: the iterations between two gates (and one at the last)",
                              counts="steps")
    gate_opening_plies: int = setting(4, "with --publish gate: the random plies of each pair's opening, where the "
                                         "game ships no balanced openings", counts="plies")
    publish_margin: float = setting(1.0, "with --publish best: the latest network within this many standard "
                                         "errors of the best measurement is published (the one-standard-error rule: "
                                         "a few hundred references cannot tell close networks apart, and the "
                                         "fewest mistakes alone picks the luckiest; 0: the best itself)")
    seed: int = setting(0, "seed of the network's weights and of the games")
    init: str = setting("", "start from this policy-value network (a file from train-supervised --target both "
                            "or a run, or a shipped network's name) instead of a fresh one")

    def __post_init__(self) -> None:
        """Every setting checked here, before a run folder records them, rather
        than at the first self-play or the first evaluation."""
        check_types(self)
        get_game(self.game)
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if not math.isfinite(value):
                    raise SpecError(f"{f.name} must be a finite number, got {value}")
                least = 1 if f.name in AT_LEAST_ONE else -1 if f.name in SCALED else 0
                if value < least or (f.name in POSITIVE and value <= 0):
                    raise SpecError(f"{f.name} must be {'above 0' if f.name in POSITIVE else f'at least {least}'}, "
                                    f"got {value}")
        for name in FRACTIONS:
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise SpecError(f"{name} must lie in [0, 1], got {getattr(self, name)}")
        if any(not isinstance(k, int) or k < 1 for k in self.learning_rate_drops):
            raise SpecError(f"learning_rate_drops are iterations (1 or more), got {self.learning_rate_drops}")
        for spec in self.baselines:  # in full (ranges, files, the game): a bad one stops the run before it starts
            check_engine(spec, new_game(self.game))
        if self.fast_simulations >= self.simulations:
            raise SpecError(f"fast_simulations ({self.fast_simulations}) must be fewer than simulations "
                            f"({self.simulations}): the fast searches are the cheap ones (0: none)")
        if self.gumbel and self.forced_playouts:
            raise SpecError("forced_playouts is PUCT's (Gumbel search plans its root visits itself): use one")
        check_precision(self.precision)
        if self.publish not in PUBLISH:
            raise SpecError(f"publish must be one of {', '.join(PUBLISH)}, got {self.publish!r}")
        if self.publish == "gate":
            if self.gate_elo1 <= 0:
                raise SpecError(f"gate_elo1 must be above 0 (the test's H0 is 0 Elo), got {self.gate_elo1:g}")
            match_openings(self.game, self.gate_pairs, self.gate_opening_plies, self.seed)
        if self.reference_file:
            check_reference_file(self.reference_file, self.game)
        elif self.reference_positions and shipped_sets(self.game) is None:
            raise SpecError(f"--reference-positions: the suite has no solved position sets for {self.game} "
                            "(Connect Four only); use 0 and a baseline as the reference")
        offered = auxiliary_targets(get_game(self.game))
        unknown = [t for t in self.auxiliary if t not in (*offered, "all")]
        if unknown:
            raise SpecError(f"{self.game} has no auxiliary target {', '.join(unknown)}; its targets: "
                            f"{', '.join(offered)} (or all)")
        if self.init:
            self._check_start()
        if self.teacher_keep > self.buffer_games:
            raise SpecError(f"teacher_keep {self.teacher_keep} is more places than the buffer's {self.buffer_games}")
        if self.teacher_games:
            self.teacher_records()

    def teacher_records(self) -> list[GameRecord]:
        """The ``teacher_games`` that fill the buffer: the file's first ``buffer_games`` games (a
        :class:`SpecError` if it holds none, or games of another game than the run's)."""
        path = Path(self.teacher_games)
        if not path.is_file():
            raise SpecError(f"--teacher-games {path}: no such games file")
        records = read_games(path)[: self.buffer_games]
        if not records:
            raise SpecError(f"--teacher-games {path}: it holds no games")
        spec = get_game(self.game).spec
        other = next((r.game for r in records if get_game(r.game).spec != spec), None)
        if other is not None:
            raise SpecError(f"--teacher-games {path}: it holds games of {other}, the run learns {self.game}")
        return records

    def _check_start(self) -> None:
        """A :class:`SpecError` (or :class:`ModelFileError`) unless ``init`` is a
        policy-value network that reads this game's planes; from its metadata
        alone, before a run folder records the settings."""
        try:
            resolve_model_path(self.init)
        except ModelFileError:
            raise SpecError(f"--init {self.init}: no such network file, nor a shipped network's name") from None
        with metadata_only():
            start = load_network(self.init)
        encoder, kind = get_encoder_by_name(None, self.game), str(start.metadata.get("kind", ""))
        if not kind_has_heads(kind, ("policy", "value")) or \
                (start.encoder.name, start.encoder.shape) != (encoder.name, encoder.shape):
            raise ModelFileError(f"--init {self.init}: a network for {encoder.game_spec} with the {encoder.name} "
                                 f"encoder, a policy and a value is needed; this one is for "
                                 f"{start.encoder.game_spec} with the {start.encoder.name} encoder (its kind: "
                                 f"{kind or 'not recorded'})")
        model = str(start.metadata.get("model", ""))
        heads = (start.metadata.get("config") or {}).get("auxiliary") or []
        if heads:
            raise ModelFileError(f"--init {self.init}: it has auxiliary heads already ({', '.join(heads)}); a run "
                                 "starts from a policy and a value alone, its own auxiliary heads added fresh")
        if self.auxiliary and kind != "alphazero" and not model.startswith("resnet"):
            raise ModelFileError(f"--init {self.init}: --auxiliary adds its heads to AlphaZero's ResNet "
                                 f"(train-supervised --model resnet, or a train-alphazero network); this one is "
                                 f"a {model or kind or 'network of unrecorded kind'}")

    def learning_rate_at(self, iteration: int) -> float:
        """The step schedule: ``learning_rate`` times ``learning_rate_drop`` once
        per entry of ``learning_rate_drops`` at or before ``iteration``."""
        drops = sum(1 for start in self.learning_rate_drops if iteration >= start)
        return self.learning_rate * self.learning_rate_drop ** drops

    def auxiliary_targets(self) -> tuple[str, ...]:
        """The auxiliary targets this run learns, in the network's order (``all``: its game's,
        :func:`~engines.training.auxiliary.auxiliary_targets`)."""
        offered = auxiliary_targets(get_game(self.game))
        return offered if "all" in self.auxiliary else tuple(t for t in offered if t in self.auxiliary)

    def window_games(self, played: int) -> int:
        """The replay window after ``played`` self-play games (Wu 2019, appendix C: a window that
        grows sublinearly, so early, weak games leave the buffer sooner): ``buffer_games`` while
        ``window_alpha`` is 0 or fewer games were played."""
        c, alpha = self.buffer_games, self.window_alpha
        if alpha <= 0 or played <= c:
            return c
        return int(c * (1 + 0.4 * ((played / c) ** alpha - 1) / alpha))

    def training_batches(self, new_positions: int) -> int:
        """Batches an iteration trains: ``train_steps``, or with ``sample_reuse`` as many as
        draw each of its ``new_positions`` about ``sample_reuse`` times (at least one)."""
        if not self.sample_reuse:
            return self.train_steps
        return max(1, math.ceil(self.sample_reuse * new_positions / self.batch_size))

    @property
    def chooses_best(self) -> bool:
        """Does the run publish its best network, with something fixed to choose by
        (solved reference positions or a baseline)? Without either, ``best`` is the latest."""
        return self.publish == "best" and bool(self.reference_positions or self.baselines)

    def temperature_schedule(self) -> tuple[int, int]:
        """(``temperature_moves``, ``temperature_decay_moves``), each -1 scaled to the
        board: AlphaZero.jl's Connect Four schedule (temperature 1 for 20 of its 42
        points, falling to the floor over 10 more) on this game's points."""
        game = get_game(self.game)
        scaled_moves, scaled_decay = scaled_temperature_schedule(game.num_rows * game.num_cols)
        moves, decay = self.temperature_moves, self.temperature_decay_moves
        return (scaled_moves if moves < 0 else moves, scaled_decay if decay < 0 else decay)

    def self_play_settings(self) -> SelfPlaySettings:
        """How this run's self-play searches and chooses its moves."""
        gumbel_choice = self.gumbel and not self.temperature_floor  # Gumbel's noise explores: its choice is played
        temperature_moves, decay_moves = self.temperature_schedule()
        return SelfPlaySettings(parallel=self.parallel, simulations=self.simulations, c=self.c,
                                temperature_moves=0 if gumbel_choice else temperature_moves,
                                temperature_floor=0.0 if gumbel_choice else self.temperature_floor,
                                temperature_decay_moves=decay_moves,
                                dirichlet_alpha=self.dirichlet_alpha, dirichlet_epsilon=self.dirichlet_epsilon,
                                fast_simulations=self.fast_simulations, full_fraction=self.full_fraction,
                                search_value_weight=self.search_value_weight,
                                greedy_return=self.greedy_return, gumbel=self.gumbel,
                                forced_playouts=self.forced_playouts, opening_moves=self.opening_moves,
                                auxiliary=self.auxiliary_targets(),
                                precision=self.precision)

    def engine_spec(self, checkpoint: str | Path, simulations: int) -> str:
        """A network of this run as an engine, with the search it learnt with: ``gumbel`` (its
        considered root moves) for a Gumbel run, PUCT's ``alphazero`` otherwise."""
        if self.gumbel:
            return f"gumbel:checkpoint={checkpoint},considered={self.gumbel},simulations={simulations}"
        return f"alphazero:checkpoint={checkpoint},simulations={simulations}"

    def match_settings(self) -> MatchSettings:
        """How each new network plays the one before it (its Elo step)."""
        return MatchSettings(parallel=max(1, min(self.parallel, self.previous_games)),
                             simulations=self.eval_simulations,
                             c=self.c, gumbel=self.gumbel)


def scaled_temperature_schedule(points: int) -> tuple[int, int]:
    """AlphaZero.jl's Connect Four schedule (temperature 1 for 20 of its 42 points, then
    falling to the floor over 10 more) on a board of ``points``: (moves, decay moves)."""
    return round(points * 20 / 42), round(points * 10 / 42)


def pre_recipe_config(**settings: Any) -> AlphaZeroConfig:
    """An :class:`AlphaZeroConfig` with the defaults from before the recipe
    (:data:`PRE_RECIPE`), ``settings`` over them: the settings of the runs whose
    reports were made then."""
    return AlphaZeroConfig(**{**PRE_RECIPE, **settings})
