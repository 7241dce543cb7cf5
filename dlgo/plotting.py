"""matplotlib without a display, figures saved atomically, and the learning curve.

matplotlib is imported on first use, so importing this module costs nothing.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

from dlgo.atomic import atomic_write

if TYPE_CHECKING:
    import pandas as pd


def pyplot():
    """``matplotlib.pyplot`` on the file-only Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: str | Path) -> None:
    """Write ``fig`` as a PNG atomically and close it."""
    with atomic_write(Path(path), "wb") as handle:
        fig.savefig(handle, format="png", dpi=120, bbox_inches="tight")
    pyplot().close(fig)


def plot_learning_curve(history: "pd.DataFrame", path: str | Path, title: str = "",
                        baselines: Mapping[str, float] | None = None, *, x: str = "epoch",
                        losses: Sequence[str] = ("loss", "val_loss"),
                        scores: Sequence[str] = ("accuracy", "val_accuracy", "top5", "val_top5"),
                        score_label: str = "accuracy", elo: str | None = None) -> None:
    """Loss columns (left) and score columns (middle) of a training history, one
    point per ``x`` (epoch, iteration); columns the history lacks are skipped.
    ``baselines`` are drawn as labelled horizontal lines on the score panel; an
    ``elo`` column gets a panel of its own (right)."""
    plt = pyplot()
    panels = 3 if elo else 2
    fig, axes = plt.subplots(1, panels, figsize=(5 * panels, 4))
    left, right = axes[0], axes[1]
    steps = history[x]
    for panel, columns in ((left, losses), (right, scores)):
        for column in columns:
            if column in history:  # iterations without a value (baselines not played) are skipped
                points = history[[x, column]].dropna()
                style = "--" if column.startswith("val_") else "-"
                panel.plot(points[x], points[column], style, marker="o", label=column.replace("_", " "))
    for k, (name, value) in enumerate((baselines or {}).items()):
        right.axhline(value, color=f"C{k + 5}", linestyle=":", label=name)
    left.set(xlabel=x, ylabel="loss", title="loss")
    left.legend()
    right.set(xlabel=x, ylabel=score_label, title=score_label, ylim=(0, None))
    right.legend(fontsize="small")
    if elo:
        axes[2].plot([0, *steps], [0.0, *history[elo]], marker="o", color="C3")
        axes[2].set(xlabel=x, ylabel="Elo", title="Elo over the untrained network")
        axes[2].grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    save_figure(fig, path)


def plot_policy(state, policy, path: str | Path, title: str = "", value: float | None = None) -> None:
    """A network's move probabilities for ``state``: a heatmap over the board when
    actions are points (Go, tic-tac-toe; pass in the title), bars per column in
    Connect-N. Stones are drawn as X (black) and O (white); ``value`` (for the
    player to move) goes in the title."""
    import numpy as np

    from dlgo.gotypes import Player, Point

    plt = pyplot()
    rows, cols = state.board.num_rows, state.board.num_cols
    policy = np.asarray(policy, dtype=float)
    extra = "" if value is None else f"  value for {state.next_player.name}: {value:+.2f}"
    if len(policy) >= rows * cols:  # one action per point (+ pass or swap)
        if len(policy) > rows * cols:
            extra += f"  other moves (pass, swap): {policy[rows * cols:].sum():.1%}"
        fig, ax = plt.subplots(figsize=(1.5 + 0.55 * cols, 1 + 0.55 * rows))
        image = ax.imshow(policy[: rows * cols].reshape(rows, cols), origin="lower", cmap="viridis")
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="probability")
        for r in range(rows):
            for c in range(cols):
                stone = state.board.get(Point(r + 1, c + 1))
                if stone is not None:
                    ax.text(c, r, "X" if stone == Player.black else "O", ha="center", va="center",
                            color="white", fontsize=12, fontweight="bold")
        from dlgo.goboard import Move

        labels = [state.format_move(Move.play(Point(1, c + 1))).rstrip("0123456789") for c in range(cols)]
        ax.set_xticks(range(cols), labels)
        ax.set_yticks(range(rows), [str(r + 1) for r in range(rows)])
    else:  # one action per column (Connect-N)
        fig, ax = plt.subplots(figsize=(1 + 0.7 * cols, 3.5))
        ax.bar([str(c + 1) for c in range(len(policy))], policy)
        ax.set(xlabel="column", ylabel="probability", ylim=(0, 1))
    ax.set_title((title + extra).strip(), fontsize=9)
    save_figure(fig, path)
