"""Reinforcement learning by generations (the book's chapters 10-12): play, learn
from the results, check the new network against the old.

Each generation:

1. **self-play**: the current network plays ``games`` games against itself,
   all at once with one network call per step (:func:`~dlgo.arena.match.play_matches`),
   exploring (``pg`` and ``ac`` sample their policy with ``temperature``, ``q``
   plays a random action with probability ``epsilon``); the moves become
   experience (:mod:`dlgo.data.experience`): position, legal moves, action, and
   the mover's reward, the result (+1 a win, -1 a loss, 0 a draw) times
   ``discount`` for each later move of the game;
2. **learning**, by the method:

   * ``pg``, REINFORCE with a baseline: raise the log-probability of each move,
     among the legal moves, in proportion to its advantage, the reward minus
     the generation's mean reward, with an entropy bonus (:class:`PolicyGradientLoss`);
   * ``q``, Q-learning on outcomes: move the value of the action played towards
     the reward (squared error on that action only);
   * ``ac``, actor-critic: the value head learns the reward (squared error), and
     the policy learns as in ``pg`` with the advantage ``reward - value``, the
     value being what the network thought of the position before this
     generation's learning;
3. **checking**: the new network against the one it came from (greedy play,
   two random opening plies per game), with the book's significance test, the
   chance of winning at least that many games if the two were equal (a
   one-sided binomial test; the new network is *significantly* better below
   ``0.05``), and against fixed baselines (``random``, ``mcts:rounds=100``).

``out/`` holds ``config.json``, ``checkpoints/gen-NNN.keras`` (``gen-000`` is
the start: a fresh network, or a copy of ``--init``), ``experience/gen-NNN/``
(each generation's games and experience), ``history.csv``, ``learning_curve.png``
and ``current.keras``, the latest network. ``history.csv`` is written after the
generation's network, and ``current.keras`` after it (and put right on resume),
so a killed run resumes at its last finished generation. The network and its
optimizer's state stay in memory from one generation to the next, and every
checkpoint keeps both, so a resumed run goes on as if it had not stopped.
"""
from __future__ import annotations

import json
import logging
import shutil
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from dlgo.arena.match import Task, play_matches
from dlgo.arena.ratings import binomial_p_value, wilson_interval
from dlgo.core.errors import SettingsMismatchError, SpecError
from dlgo.core.symmetry import Symmetry
from dlgo.data.experience import Experience, collect_experience, discounted_rewards, load_experience, moves_to_end
from dlgo.encoders import get_encoder_by_name
from dlgo.storage.atomic import atomic_write
from dlgo.storage.folders import hold_folder, read_settings
from dlgo.display.plotting import new_figure, save_figure
from dlgo.display.progress import fit_verbosity
from engines.checkpoints import publish_copy
from engines.neural.backend import compiled_call, keras, load_model, save_model
from engines.neural.models import build_model
from engines.training.rl_config import HEADS, RLConfig
from engines.registry import ENGINES

log = logging.getLogger(__name__)

def training_targets(method: str, experience: Experience, call: Callable[[np.ndarray], list[np.ndarray]],
                     num_moves: int, discount: float = 1.0, bootstrap: float = 0.0, alternating: bool = True,
                     clip: float = 0.0) -> tuple[np.ndarray, list[np.ndarray] | np.ndarray, dict[str, float]]:
    """(inputs, targets, facts) that make ``method``'s loss: for ``pg`` and
    ``ac``, :class:`PolicyGradientLoss` against ``one_hot(action) * advantage``
    (and the legal moves), minus the advantage times the log-probability of the
    action among the legal moves (REINFORCE);
    ``call`` is the network before this generation's learning (its compiled call);
    each move's return is the game's result discounted by ``discount`` per later
    move, mixed by ``bootstrap`` with the one-step target (:func:`one_step_targets`;
    ``alternating``: the recorded moves of a game alternate between the players).
    With ``clip`` (``pg``), the targets also carry each played move's probability
    under ``call``, for :class:`PolicyGradientLoss`'s clipped ratio."""
    x = experience.states.astype(np.float32)
    returns = discounted_rewards(experience, discount)
    one_hot = np.eye(num_moves, dtype=np.float32)[experience.actions]
    legal = experience.legal.astype(np.float32)
    if method == "pg" and not clip:
        baseline = float(returns.mean())
        return x, np.hstack([one_hot * (returns - baseline)[:, None], legal]), {"baseline": baseline}
    predictions = [np.concatenate(parts) for parts in zip(*(call(x[k:k + 1024]) for k in range(0, len(x), 1024)))]
    if method == "pg":  # PPO's clipped surrogate: the moves' probabilities before this generation learns
        baseline = float(returns.mean())
        policy = np.asarray(predictions[0], np.float32) * legal
        played = (policy * one_hot).sum(axis=1) / np.maximum(policy.sum(axis=1), 1e-7)
        return x, np.hstack([one_hot * (returns - baseline)[:, None], legal,
                             one_hot * np.maximum(played, 1e-7)[:, None]]), {"baseline": baseline}
    if method == "q":
        q = np.asarray(predictions[0], np.float32)
        best = np.where(experience.legal, q, -np.inf).max(axis=1)  # Q-learning's max over the next legal actions
        if bootstrap:
            returns = (1 - bootstrap) * returns + bootstrap * one_step_targets(experience, best, discount, alternating)
        targets = np.where(one_hot > 0, returns[:, None], q)  # only the action played moves
        return x, targets, {"mean_q_played": float((q * one_hot).sum(axis=1).mean())}
    values = np.asarray(predictions[1], np.float32).reshape(-1)
    if bootstrap:
        returns = (1 - bootstrap) * returns + bootstrap * one_step_targets(experience, values, discount, alternating)
    advantages = returns - values
    return x, [np.hstack([one_hot * advantages[:, None], legal]), returns[:, None]], \
        {"mean_abs_advantage": float(np.abs(advantages).mean())}


def one_step_targets(experience: Experience, values: np.ndarray, discount: float, alternating: bool) -> np.ndarray:
    """Temporal-difference targets: each move's target is the value of the
    game's next recorded position (``values``, one per row: ``max Q`` for
    Q-learning, the value head's estimate for actor-critic) times ``discount``,
    seen from the mover's side: negated when that position is the opponent's
    (``alternating``, self-play records both players), as it is when it is the
    mover's again (only one player recorded, against a sparring engine). A
    game's last move has its result. Values learnt this way spread back one
    move per generation from the results, and a move that lets the opponent
    win at once is marked at once, whoever the opponent is."""
    later = moves_to_end(experience.games) > 0
    following = np.append(values[1:], 0.0).astype(np.float32)
    sign = -1.0 if alternating else 1.0
    return np.where(later, sign * discount * following, experience.rewards).astype(np.float32)


@keras.saving.register_keras_serializable(package="dlgo")
class PolicyGradientLoss(keras.losses.Loss):
    """REINFORCE's loss with an entropy bonus, over the legal moves only:
    ``-sum(advantages * log q) - entropy * H(q)``, where ``q`` is the network's
    policy renormalised over the legal moves (the policy the engine plays from).

    The targets are ``[one_hot(action) * advantage, legal mask]`` side by side
    (twice the policy's width); without the mask every move counts as legal.
    The mask matters: pushed away from a losing move, an unmasked policy can
    shift its probability onto illegal moves, where no game ever corrects it,
    until the legal moves it must still play have probabilities near zero and
    their log-probabilities (and the loss) run off. The entropy bonus keeps a
    policy from growing certain before it has learnt anything.

    With ``clip`` > 0 the loss is PPO's clipped surrogate instead of REINFORCE's:
    ``-min(r * A, clip(r, 1 - clip, 1 + clip) * A)``, ``r`` the played move's
    probability now over its probability when the games were played (a third
    block of the targets). REINFORCE's loss has no floor: it can always go lower
    by pushing a losing move's probability further towards zero, and on 9x9 Go a
    policy did that until it lost every game as white; the clipped surrogate
    stops gaining once a move's probability has moved by ``clip``."""

    def __init__(self, entropy: float = 0.01, clip: float = 0.0, name: str = "policy_gradient", **kwargs: Any):
        super().__init__(name=name, **kwargs)
        self.entropy = entropy
        self.clip = clip

    def call(self, y_true: Any, y_pred: Any) -> Any:
        ops = keras.ops
        moves = y_pred.shape[-1]
        width = y_true.shape[-1]
        advantages = y_true[..., :moves] if width in (2 * moves, 3 * moves) else y_true
        legal = y_true[..., moves:2 * moves] if width in (2 * moves, 3 * moves) else ops.ones_like(y_pred)
        q = ops.clip(y_pred * legal, 1e-7, 1.0) * legal
        q = q / ops.sum(q, axis=-1, keepdims=True)
        log_q = ops.log(ops.clip(q, 1e-7, 1.0))
        bonus = self.entropy * ops.sum(q * log_q, axis=-1)
        if width == 3 * moves and self.clip > 0:
            before = y_true[..., 2 * moves:]
            played = ops.cast(before > 0, q.dtype)
            ratio = ops.sum(q * played, axis=-1) / ops.clip(ops.sum(before, axis=-1), 1e-7, 1.0)
            advantage = ops.sum(advantages, axis=-1)
            surrogate = ops.minimum(ratio * advantage, ops.clip(ratio, 1 - self.clip, 1 + self.clip) * advantage)
            return -surrogate + bonus
        return -ops.sum(advantages * log_q, axis=-1) + bonus

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "entropy": self.entropy, "clip": self.clip}


def compile_for(method: str, model: "keras.Model", learning_rate: float, entropy: float = 0.01,
                clip: float = 0.0) -> None:
    """The optimizer and the losses of ``method`` (see :func:`training_targets`)."""
    optimizer = keras.optimizers.Adam(learning_rate=learning_rate, clipnorm=1.0)  # as the book: clipped steps
    if method == "pg":
        model.compile(optimizer=optimizer, loss=PolicyGradientLoss(entropy, clip))
    elif method == "q":
        model.compile(optimizer=optimizer, loss=keras.losses.MeanSquaredError())
    else:
        model.compile(optimizer=optimizer, loss=[PolicyGradientLoss(entropy), keras.losses.MeanSquaredError()])


def score_against(spec: str, opponent: str, game: str, games: int, seed: int) -> tuple[float, int]:
    """(score of ``spec`` against ``opponent`` over ``games`` games, colours
    alternating, two seeded random opening plies each; wins). The games advance
    together, the networks called once for all of them at each step."""
    tasks = [Task(f"#{k}", *((spec, opponent) if k % 2 == 0 else (opponent, spec)), seed + k) for k in range(games)]
    points = [record.score_for(spec) for record in play_matches(ENGINES, game, tasks, opening_plies=2)]
    return sum(points) / max(1, games), sum(p == 1.0 for p in points)


def saved_config(out: str | Path) -> RLConfig:
    """The settings of the run in ``out`` (to resume it without repeating them)."""
    return read_settings(out, RLConfig, "reinforcement-learning")


def train_rl(out: str | Path, config: RLConfig, generations: int, *, progress: bool = True,
             ray: str | None = None) -> pd.DataFrame:
    """Run (or continue) until ``generations`` generations are done; returns the
    history, one row per generation. The folder is held by this run alone. With
    ``ray``, each generation's games are shared among that Ray cluster's CPUs
    (the same games: each keeps its seed)."""
    if generations < 1:
        raise SpecError(f"generations must be at least 1, got {generations}")
    with hold_folder(out, "train-rl", method=config.method, game=config.game):
        return _train_rl(Path(out), config, generations, progress, ray)


def _start(out: Path, config: RLConfig) -> None:
    """Record the settings and the starting network (generation 0), or check them."""
    config_file = out / "config.json"
    if config_file.exists():
        old = json.loads(config_file.read_text())
        default = asdict(RLConfig())  # a setting added since the run started has its default there
        changed = {k: (old.get(k, default[k]), v) for k, v in asdict(config).items() if old.get(k, default[k]) != v}
        if changed:
            raise SettingsMismatchError(f"{out} holds a run with other settings {changed}")
        return
    encoder = get_encoder_by_name(None, config.game)
    metadata = {"kind": config.method, "encoder": encoder.config(), "config": asdict(config), "generation": 0}
    if config.init:
        model, source = load_model(config.init, compile=False)
        if source.get("encoder", {}).get("game") != encoder.game_spec:
            raise SpecError(f"--init {config.init} plays {source.get('encoder', {}).get('game')}, not {config.game}")
        heads = len(model.outputs)
        if (heads == 2) != (config.method == "ac") or (config.method == "q" and source.get("kind") != "q"):
            raise SpecError(f"--init {config.init} has the wrong heads for {config.method} "
                            f"({heads} output{'s' if heads > 1 else ''}, a {source.get('kind')} network)")
        metadata["encoder"] = source["encoder"]
    else:
        keras.utils.set_random_seed(config.seed)
        model = build_model(config.model, encoder.shape, encoder.num_moves, head=HEADS[config.method])
    save_model(model, out / "checkpoints" / "gen-000.keras", metadata)
    with atomic_write(config_file) as handle:  # last: a run exists once its start network does
        json.dump(asdict(config), handle, indent=2)


def _publish(out: Path, generation: int) -> None:
    """``current.keras``: a copy of the last finished generation's network (put right if a kill left it behind)."""
    publish_copy(out / "checkpoints" / f"gen-{generation:03d}.keras", out / "current.keras", "generation", generation)


def _resume_model(out: Path, config: RLConfig, generation: int) -> tuple["keras.Model", dict[str, Any]]:
    """The network of ``generation``, compiled for ``config.method``: a trained
    generation's checkpoint keeps its optimizer's state (Adam's moments), so a
    resumed run goes on exactly as if it had not stopped."""
    path = out / "checkpoints" / f"gen-{generation:03d}.keras"
    if generation > 0:
        return load_model(path, compile=True)
    model, metadata = load_model(path, compile=False)  # the start: a fresh network or another run's (--init)
    compile_for(config.method, model, config.learning_rate, config.entropy, config.clip)
    return model, metadata


def _train_rl(out: Path, config: RLConfig, generations: int, progress: bool, ray: str | None) -> pd.DataFrame:
    _start(out, config)
    history_file = out / "history.csv"
    history = pd.read_csv(history_file) if history_file.exists() else pd.DataFrame()
    done = 0 if history.empty else int(history["generation"].iloc[-1])
    _publish(out, done)
    if done >= generations:
        return history
    model, metadata = _resume_model(out, config, done)
    call = compiled_call(model)  # one trace for the whole run: it reads the weights as they change
    for generation in range(done + 1, generations + 1):
        started = time.perf_counter()
        previous = out / "checkpoints" / f"gen-{generation - 1:03d}.keras"
        explorer = config.player(previous, exploring=True)
        experiences = _play_generation(out, config, generation, explorer, progress, ray)
        x, targets, facts = _learning_batch(config, experiences, call)
        _build_loss(model, x, targets)
        keras.utils.set_random_seed(config.seed * 1_000_003 + generation)  # the same shuffle, resumed or not
        fitted = model.fit(x, targets, batch_size=config.batch_size, epochs=config.epochs, shuffle=True,
                           verbose=fit_verbosity(progress))
        checkpoint = out / "checkpoints" / f"gen-{generation:03d}.keras"
        save_model(model, checkpoint, {**metadata, "generation": generation})
        new, old = config.player(checkpoint, exploring=False), config.player(previous, exploring=False)
        score, wins = score_against(new, old, config.game, config.eval_games, seed=config.seed * 7919 + generation)
        row: dict[str, float] = {"generation": generation, "examples": len(x),  # symmetric copies included
                                 "mean_reward": float(experiences[0].rewards.mean()),
                                 "loss": float(fitted.history["loss"][-1]), **facts,
                                 "score_vs_previous": score, "games_vs_previous": config.eval_games,
                                 "p_value": binomial_p_value(wins, config.eval_games)}
        for baseline in config.baselines:
            row[f"score_vs_{baseline}"] = score_against(new, baseline, config.game, config.baseline_games,
                                                        seed=config.seed * 104_729 + generation)[0]
        row["seconds"] = time.perf_counter() - started
        history = pd.concat([history, pd.DataFrame([row])], ignore_index=True)
        with atomic_write(history_file) as handle:  # the generation is done
            history.to_csv(handle, index=False)
        _publish(out, generation)
        plot_rl_history(history, out / "learning_curve.png", f"{config.method} on {config.game}",
                        config.baseline_games)
        log.info("generation %d: %s", generation, row)
    return history


def _build_loss(model: "keras.Model", x: np.ndarray, targets: list[np.ndarray] | np.ndarray) -> None:
    """Build the model's compiled loss and metrics on one example (its weights untouched)
    before a fit's seed is set: on JAX, Keras' first fit of a model draws one shuffle more
    to build them, so a resumed run (a model just loaded) would shuffle unlike an unbroken one."""
    model.evaluate(x[:1], [t[:1] for t in targets] if isinstance(targets, list) else targets[:1], verbose=0)


def _play_generation(out: Path, config: RLConfig, generation: int, explorer: str, progress: bool,
                     ray: str | None = None) -> list[Experience]:
    """A generation's experience: its self-play games, then its games against
    each sparring engine (``experience/gen-NNN`` and ``gen-NNN-sparring-K``,
    the network's own moves only), each played in one batch."""
    stem = out / "experience" / f"gen-{generation:03d}"
    for folder in stem.parent.glob(f"{stem.name}*"):  # a killed generation: played again, the same seeds
        shutil.rmtree(folder)  # making the same games
    seed = config.seed * 1_000_003 + generation
    collect_experience(ENGINES, stem, config.game, explorer, explorer, config.games, seed=seed,
                       progress=progress, batch=config.games, ray=ray)
    folders = [stem]
    for k, opponent in enumerate(config.sparring, start=1):
        folder = stem.with_name(f"{stem.name}-sparring-{k}")
        collect_experience(ENGINES, folder, config.game, explorer, opponent, config.sparring_games,
                           learners=[explorer], seed=seed + 500_000 * k, progress=progress,
                           batch=config.sparring_games, ray=ray)
        folders.append(folder)
    return [load_experience(folder) for folder in folders]


def _learning_batch(config: RLConfig, experiences: list[Experience], call: Callable[[np.ndarray], list[np.ndarray]]
                    ) -> tuple[np.ndarray, list[np.ndarray] | np.ndarray, dict[str, float]]:
    """:func:`training_targets` of each opponent's games (so ``pg``'s baseline
    is the mean result against that opponent), stacked; the facts are averaged
    over the moves."""
    parts = [training_targets(config.method, experience, call, int(experience.legal.shape[1]), config.discount,
                              config.bootstrap, alternating=k == 0, clip=config.clip)  # self-play, then sparring
             for k, experience in enumerate(experiences)]
    x = np.concatenate([part[0] for part in parts])
    first = parts[0][1]
    targets: list[np.ndarray] | np.ndarray = \
        [np.concatenate(column) for column in zip(*(part[1] for part in parts))] if isinstance(first, list) \
        else np.concatenate([part[1] for part in parts])
    sizes = np.array([len(part[0]) for part in parts], float)
    facts = {name: float(np.dot(sizes, [part[2][name] for part in parts]) / sizes.sum()) for name in parts[0][2]}
    if config.symmetries:
        x, targets = with_symmetries(x, targets, get_encoder_by_name(None, config.game).game.symmetries())
    return x, targets, facts


def with_symmetries(x: np.ndarray, targets: list[np.ndarray] | np.ndarray, symmetries: list[Symmetry]
                    ) -> tuple[np.ndarray, list[np.ndarray] | np.ndarray]:
    """Every example once more under each symmetry of the board (identity
    first, as ``Game.symmetries`` lists them): the planes transformed and every
    per-action column of the targets moved along (a policy target's advantages
    and legal mask alike); a value target stays as it is."""
    num_moves = len(symmetries[0].actions)

    def moved(columns: np.ndarray, symmetry: Symmetry) -> np.ndarray:
        if columns.shape[1] % num_moves or columns.shape[1] == 1:
            return columns  # a value
        out = np.empty_like(columns)
        for start in range(0, columns.shape[1], num_moves):  # action i goes to symmetry.actions[i]
            out[:, start + symmetry.actions] = columns[:, start:start + num_moves]
        return out

    xs = [x] + [symmetry.planes(x) for symmetry in symmetries[1:]]
    if isinstance(targets, list):
        stacked: list[np.ndarray] | np.ndarray = [
            np.concatenate([column] + [moved(column, symmetry) for symmetry in symmetries[1:]]) for column in targets]
    else:
        stacked = np.concatenate([targets] + [moved(targets, symmetry) for symmetry in symmetries[1:]])
    return np.concatenate(xs), stacked


def plot_rl_history(history: pd.DataFrame, path: str | Path, title: str, baseline_games: int) -> None:
    """Win rates per generation with their 95% intervals: against the previous
    generation (left) and the baselines (right)."""
    fig, (left, right) = new_figure((11, 4), 1, 2)
    generations = history["generation"]
    baselines = [c for c in history.columns if c.startswith("score_vs_") and c != "score_vs_previous"]
    for axis, columns in ((left, ["score_vs_previous"]), (right, baselines)):
        for column in columns:
            games = history["games_vs_previous"] if column == "score_vs_previous" else \
                pd.Series([baseline_games] * len(history))
            low, high = zip(*(wilson_interval(s, int(n)) for s, n in zip(history[column], games)))
            axis.errorbar(generations, history[column],
                          yerr=[history[column] - np.array(low), np.array(high) - history[column]],
                          marker="o", capsize=3, label=column.removeprefix("score_vs_"))
        axis.axhline(0.5, color="grey", linestyle=":")
        axis.set(xlabel="generation", ylabel="score", ylim=(-0.05, 1.05))
        if axis.get_legend_handles_labels()[0]:  # a run without baselines draws none on the right
            axis.legend(fontsize="small")
        axis.grid(alpha=0.3)
    left.set_title("against the generation before")
    right.set_title("against the baselines")
    fig.suptitle(title)
    save_figure(fig, path)
