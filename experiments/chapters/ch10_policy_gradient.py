"""Chapter 10: policy gradients. Can a network learn Connect Four by playing itself, and improve a supervised one?

    python experiments/chapters/ch10_policy_gradient.py             # about 20 minutes, after ch06_07
    python experiments/chapters/ch10_policy_gradient.py --generations 400   # continues the run
    python experiments/chapters/ch10_policy_gradient.py --game go:size=9 --predictor none
    python experiments/chapters/ch10_policy_gradient.py --quick

A ``pg`` policy network starts from random weights. Each generation it plays
games against itself, sampling its softmax; then it learns by REINFORCE: the
log-probability of each move it played rises in proportion to its advantage,
the result that followed (discounted by ``discount`` per later move) minus the
generation's mean, with an entropy bonus that keeps it exploring. After every
generation the new network plays the one before (the book's binomial test) and
the baselines; at the end the last network plays ``random``,
``mcts:rounds=100`` and its starting network, --final-games games each.

Then the same training, with smaller steps, starts from chapter 6-7's
supervised predictor (--predictor; ``none`` skips it) for
--finetune-generations generations, and the fine-tuned network plays the
predictor it came from. Writes
``history.csv``, ``learning_curve.png``, ``final.csv``, ``finetune.csv``, a game
and ``summary.md`` to --out; the runs (resumable) to --work.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import argparse
import sys
from pathlib import Path
from typing import Any

from dlgo.core.arguments import count
from dlgo.storage.atomic import atomic_write
from engines.training.rl_config import RLConfig
from experiments.shared import chapters, rl, supervised

facts = rl.facts  # the report's headline facts: facts.json (scripts/refresh_facts.py)

SETTINGS: dict[str, Any] = {"learning_rate": 1e-4, "discount": 0.95, "entropy": 0.1}
#: fine-tuning takes smaller steps: the predictor already plays, and a policy pushed hard grows certain of its
#: moves, after which policy gradients can no longer move it (the gradient of log p vanishes as p nears 1)
FINETUNE_SETTINGS: dict[str, Any] = {"learning_rate": 5e-5, "discount": 0.95, "entropy": 0.05}

CHAPTER = rl.RLChapter(
    script=__file__, title="Chapter 10: policy gradients", method="pg", generations=481,
    settings=SETTINGS,
    about="The `pg` network is a policy: a softmax over the moves, like chapter 6-7's predictor, but nobody "
          "tells it the right move. It plays itself, sampling its policy, and learns by REINFORCE: each move's "
          "log-probability is pushed up by its advantage, the result that followed (discounted per later move) "
          "minus the generation's mean result, so moves of won games become likelier and moves of lost games "
          "rarer. An entropy bonus keeps it from growing certain before it has learnt anything.",
    look_for="""\
Wins against `random` come from completing four, and every won game pushes
those moves up, so that curve is the first to move. Against the generation
before, expect scores near 50% with wide intervals: one generation changes the
policy a little, and few steps are significant by the book's binomial test.
Policy gradients learn slowly because each game's result is shared by all its
moves (chapter 9's credit assignment problem); the fine-tuning run shows the
other use of the method: starting from a network that already plays, the
same updates sharpen it against itself. Predict, then measure: with
`--entropy 0` the policy grows certain quickly; does it grow stronger?""")

FINETUNE_GENERATIONS = 100


def finetune(args: argparse.Namespace, out: Path) -> list[str]:
    """Chapter 10 on a supervised start: REINFORCE from the predictor, then the
    fine-tuned network against the predictor. Returns the summary's section."""
    from engines.training.rl import plot_rl_history, train_rl  # loads TensorFlow

    if args.predictor == "none":
        return []
    predictor = Path(args.predictor)
    settings = dict(FINETUNE_SETTINGS)
    if args.quick:
        settings = {k: v for k, v in rl.rl_quick_settings().items() if k != "model"}
    config = RLConfig(**settings, method="pg", game=args.game, init=str(predictor), seed=args.seed)
    generations = 2 if args.quick else args.finetune_generations
    run = Path(args.work) / "finetune"
    print(f"3. fine-tune: {generations} generations from {predictor} -> {run}", flush=True)
    history = train_rl(run, config, generations)
    plot_rl_history(history, out / "finetune_curve.png", f"pg from the predictor on {args.game}",
                    config.baseline_games)
    tuned = config.player(run / "current.keras", exploring=False)
    original = f"predictor:model={predictor}"
    table, _ = rl.final_scores(tuned, [original], args.game, args.final_games, Path(args.work) / "finetune-final",
                                   seed=args.seed)
    with atomic_write(out / "finetune.csv") as handle:
        table.to_csv(handle, index=False)
    row = table.iloc[0]
    return ["## Fine-tuning the supervised predictor", "",
            f"The same training from chapter 6-7's predictor (`{predictor}`), with smaller steps "
            f"(`{rl.settings_text(config)}`): {len(history)} generations of {config.games} games, "
            f"{history['seconds'].sum() / 60:.0f} minutes. The fine-tuned network, greedy, "
            f"against the predictor it started from (greedy too), {int(row['games'])} games: "
            f"**{row['score']:.1%}** (95% interval {row['low']:.0%} to {row['high']:.0%}).", "",
            "![fine-tuning](finetune_curve.png)", ""]


@chapters.script
def main(argv: list[str] | None = None) -> int:
    default = supervised.predictor_model_path()
    p = rl.rl_parser(CHAPTER, __doc__)
    p.add_argument("--predictor", default=None,
                   help=f"the supervised predictor to fine-tune (default {default}, or chapters 6-7's --quick "
                        "network with --quick; none: skip)")
    p.add_argument("--finetune-generations", type=count("steps"), default=FINETUNE_GENERATIONS,
                   help=f"generations of fine-tuning (default {FINETUNE_GENERATIONS})")
    args = p.parse_args(argv)
    args.predictor = args.predictor or str(supervised.predictor_model_path(args.quick))
    if args.predictor != "none" and not Path(args.predictor).exists():
        p.error(f"no predictor at {args.predictor}: run `python experiments/chapters/ch06_07_train_predictor.py` "
                "first, or pass --predictor PATH (or none)")
    return rl.run_rl_chapter(CHAPTER, args, argv, extra=finetune)


if __name__ == "__main__":
    sys.exit(main())
