"""matplotlib without a display, figures saved atomically, and the learning curve.

matplotlib is imported on first use, so importing this module costs nothing.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping

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
                        baselines: Mapping[str, float] | None = None) -> None:
    """Loss (left) and accuracy (right) per epoch, training and validation, from
    a Keras history table (columns ``epoch``, ``loss``, ``val_loss``, ``accuracy``,
    ...); ``baselines`` are drawn as labelled horizontal lines on the accuracy panel."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    epochs = history["epoch"]
    for column, style in (("loss", "-"), ("val_loss", "--")):
        if column in history:
            left.plot(epochs, history[column], style, marker="o", label=column.replace("_", " "))
    left.set(xlabel="epoch", ylabel="cross-entropy loss", title="loss")
    left.legend()
    for column, style in (("accuracy", "-"), ("val_accuracy", "--"), ("top5", "-"), ("val_top5", "--")):
        if column in history:
            right.plot(epochs, history[column], style, marker="o", label=column.replace("_", " "))
    for k, (name, value) in enumerate((baselines or {}).items()):
        right.axhline(value, color=f"C{k + 5}", linestyle=":", label=name)
    right.set(xlabel="epoch", ylabel="accuracy", title="accuracy", ylim=(0, None))
    right.legend(fontsize="small")
    if title:
        fig.suptitle(title)
    save_figure(fig, path)
