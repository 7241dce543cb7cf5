"""Chapters 6-7: generate games, then train a network to predict the next move.

    python experiments/chapters/ch06_07_train_predictor.py                    # Connect Four, a few minutes
    python experiments/chapters/ch06_07_train_predictor.py --games 1000 --epochs 20
    python experiments/chapters/ch06_07_train_predictor.py --quick

A teacher (``mcts:rounds=300``) plays itself (chapter 6: the data); the games
are split whole into train, validation and test sets, encoded as planes (the
mover's discs, the opponent's) with the left-right mirror as augmentation, and
the chapter 7 "small" network learns to predict the teacher's move (chapter 7:
the training). Every step resumes where it stopped. Writes ``accuracy.csv``,
``learning_curve.png``, ``policy.png`` (the trained network's probabilities
in one test position) and ``summary.md`` to --out; the games and the model go
to --work, where ``ch08_play_predictor.py`` finds the model.
"""
from __future__ import annotations

if __spec__ is None:  # run as a file (python PATH): a Python without the suite stops here, saying which to use
    import which_python  # noqa: F401

import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from dlgo.formats.records import read_games, replay
from dlgo.storage.facts import update_facts
from experiments.shared import chapters, supervised
from experiments.shared.supervised import CHAPTER_PREDICTOR as PRESET


def policy_picture(model: Path, games_csv: Path, ply: int, path: Path) -> str:
    """The network's move probabilities after ``ply`` moves of the first recorded
    game, drawn on the board; returns the teacher's move there."""
    record = read_games(games_csv)[0]
    states = replay(record.game, record.moves)
    ply = min(ply, len(states) - 2)
    chapters.predictor_picture(model, states[ply], path, title=f"the predictor after {ply} moves")
    return record.moves.split()[ply]


def what_to_look_for(row: pd.Series, teacher: dict, history: pd.DataFrame) -> str:
    """The closing paragraph, with this run's accuracy, ceiling and learning curve in it."""
    pct = "{:.0%}".format
    text = f"The network's first choice is the teacher's move {pct(row['top1'])} of the time, against " \
           f"{pct(row['uniform_legal'])} for a uniform guess among the legal moves. "
    if teacher:
        text += (f"Compare it with the teacher asked again: MCTS does not always choose the same move in the same "
                 f"position (it agrees with itself {pct(teacher['teacher'])} of the time here), so even a perfect "
                 f"imitator cannot score 100%, and the network reaches {row['top1'] / teacher['teacher']:.0%} of "
                 "that ceiling. ")
    best, epochs = int(row["best_epoch"]), int(row["epochs"])
    last = history.iloc[-1]
    if best < epochs:
        text += (f"In the learning curve, validation loss was lowest at epoch {best} of {epochs} while training "
                 f"accuracy went on rising (to {pct(last['accuracy'])}, against {pct(last['val_accuracy'])} on "
                 "validation): the gap is over-fitting, and the network kept is the one of the best epoch. ")
    else:
        text += ("Validation loss was still falling at the last epoch"
                 + (f" of {epochs}" if epochs > 1 else "") + ": more epochs (`--epochs`) may help before "
                 "over-fitting sets in. ")
    text += ("The policy picture shows what the network has learnt in one position. Predict, then measure: twice "
             "the games (`--games 600`) or a stronger teacher (`--teacher mcts:rounds=1000`): which helps accuracy "
             "more?")
    return "\n".join(textwrap.wrap(text, 78, break_on_hyphens=False))


def facts(out: Path) -> dict[str, Any]:
    """The run's headline facts (:mod:`dlgo.storage.facts`): ``findings``, the closing paragraph,
    from its ``accuracy.csv`` and the network's training history."""
    row = pd.read_csv(out / "accuracy.csv").iloc[0]
    history = pd.read_csv(out / f"history-{row['model']}-{row['encoder']}.csv")
    teacher = {"teacher": row["teacher"]} if pd.notna(row["teacher"]) else {}
    return {"findings": what_to_look_for(row, teacher, history)}


@chapters.script
def main(argv: list[str] | None = None) -> int:
    args = supervised.supervised_args(PRESET, argv, __doc__, script=__file__)
    preset = replace(supervised.quick_preset(PRESET, args) if args.quick else PRESET, game=args.game)
    supervised.take_supervised_folders(preset.game, args)
    out, work = Path(args.out), Path(args.work)
    table, teacher = supervised.generate_and_train(preset, args, out, work)
    row = table.iloc[0]
    model = Path(row["path"])
    teacher_move = policy_picture(model, work / "games" / "games.csv", 8, out / "policy.png")
    pct = "{:.1%}".format
    body = [f"The teacher `{args.teacher}` played {args.games} games against itself (chapter 6). The "
            f"`{row['model']}` network on the `{row['encoder']}` encoder trained for {row['epochs']} epochs "
            f"(best: {row['best_epoch']}) on {row['train_positions']:,} positions (chapter 7).", "",
            "| on held-out test games | top-1 accuracy |", "|---|---:|",
            f"| the network | {pct(row['top1'])} (top-5: {pct(row['top5'])}) |",
            f"| guessing uniformly among the legal moves | {pct(row['uniform_legal'])} |"]
    if teacher:
        body.append(f"| the teacher again, with a new seed | {pct(teacher['teacher'])} |")
    body += ["", "![learning curve](learning_curve.png)", "",
             f"What the network expects in the first game after 8 moves (the teacher played {teacher_move}):", "",
             "![policy](policy.png)", "",
             f"The model: `{model}`. Play it in chapter 8: "
             f"`python experiments/chapters/ch08_play_predictor.py --model {model}`."]
    history = pd.read_csv(out / f"history-{row['model']}-{row['encoder']}.csv")
    look_for = what_to_look_for(row, teacher, history)
    summary = chapters.write_summary(out, "Chapters 6-7: games from a teacher, and a network that imitates it",
                                     chapters.command(__file__, argv), body, look_for)
    update_facts(out, facts(out))
    print(f"report: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
