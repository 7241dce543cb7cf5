"""Figures without a display, saved atomically, histograms of counts, points
labelled without overlaps, and the learning curve.

Figures are built with matplotlib's object API (:class:`~matplotlib.figure.Figure`,
no ``pyplot``): no window, no global state, nothing to close.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import Bbox

from dlgo.storage.atomic import atomic_write


def new_figure(figsize: tuple[float, float] = (6.4, 4.8), rows: int = 1, cols: int = 1) -> tuple[Figure, Any]:
    """A figure and its axes (one ``Axes``, or an array of them for a grid)."""
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(rows, cols)


def save_figure(fig: Figure, path: str | Path) -> None:
    """Write ``fig`` as a PNG atomically."""
    with atomic_write(Path(path), "wb") as handle:
        fig.savefig(handle, format="png", dpi=120, bbox_inches="tight")


def count_histogram(ax: Axes, values: Sequence[float], bins: int, **style: Any) -> None:
    """A histogram of ``values`` in ``bins`` bins, its count axis ticked in whole
    numbers: a bin holds 1 or 2 games, never 1.5."""
    ax.hist(values, bins=bins, **style)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def label_points(ax: Axes, points: Sequence[tuple[float, float]], labels: Sequence[str], fontsize: float = 7,
                 gap: float = 4) -> None:
    """Write each label beside its point (data coordinates) where it covers no
    point, no label written before it and not the legend: to the upper right,
    ``gap`` points off, if that is free, else the nearest free place above or
    below the point (to its right, centred on it or to its left), between the
    axes' top and bottom and right of their left edge where it can be (past
    the right edge is fine: saved figures grow to hold it); a label moved from
    the upper right gets a thin line to its point. Call it once the axes'
    scales, limits and legend are set."""
    fig = ax.figure if isinstance(ax.figure, Figure) else ax.figure.figure  # a subfigure's: its figure's
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    pixels = fig.dpi / 72  # pixels in a point
    spot = gap * pixels
    at = [tuple(ax.transData.transform(point)) for point in points]
    mark = 3 * pixels  # a marker's radius (matplotlib's default is 6 points across)
    taken = [Bbox.from_bounds(x - mark, y - mark, 2 * mark, 2 * mark) for x, y in at]
    legend = ax.get_legend()
    if legend is not None:
        taken.append(legend.get_window_extent(renderer))
    frame = ax.get_window_extent(renderer)
    for (x, y), (px, py), label in sorted(zip(points, at, labels), key=lambda item: item[1]):
        probe = ax.text(0, 0, label, fontsize=fontsize)
        size = probe.get_window_extent(renderer)
        probe.remove()
        width, height = size.width, size.height
        offsets = [(left, up) for step in range(12) for up in (spot + step * height, -spot - (step + 1) * height)
                   for left in (spot, -width / 2, -spot - width)]  # nearest first: right of it, centred, left
        boxes = [Bbox.from_bounds(px + dx, py + dy, width, height) for dx, dy in offsets]
        free = [i for i, box in enumerate(boxes) if not any(box.overlaps(other) for other in taken)]
        inside = [i for i in free if boxes[i].x0 >= frame.x0 and frame.y0 <= boxes[i].y0 <= boxes[i].y1 <= frame.y1]
        best = (inside or free or [0])[0]
        line = {"arrowstyle": "-", "color": "0.6", "linewidth": 0.5} if best else None
        ax.annotate(label, (x, y), xytext=(offsets[best][0] / pixels, offsets[best][1] / pixels),
                    textcoords="offset points", fontsize=fontsize, ha="left", va="bottom", arrowprops=line)
        taken.append(boxes[best])


def plot_learning_curve(history: pd.DataFrame, path: str | Path, title: str = "",
                        baselines: Mapping[str, float] | None = None, *, x: str = "epoch",
                        losses: Sequence[str] = ("loss", "val_loss"),
                        scores: Sequence[str] = ("accuracy", "val_accuracy", "top5", "val_top5"),
                        score_label: str = "accuracy", elo: str | None = None,
                        mistakes: Sequence[str] = (), published: str | None = None) -> None:
    """Loss columns (left) and score columns (middle) of a training history, one
    point per ``x`` (epoch, iteration); columns the history lacks are skipped.
    ``baselines`` are drawn as labelled horizontal lines on the score panel; an
    ``elo`` column gets a panel of its own, and so do ``mistakes`` columns
    (shares of solved positions lost, lower is better). A ``published`` column
    (the step whose model is the one to use), where it is not always the latest,
    is marked on every panel by a dotted vertical line at its last value."""
    shown = [c for c in mistakes if c in history]
    panels = 2 + bool(elo) + bool(shown)
    fig, axes = new_figure((5 * panels, 4), 1, panels)
    left, right = axes[0], axes[1]
    steps = history[x]
    for panel, columns in [(left, losses), (right, scores)] + ([(axes[-1], shown)] if shown else []):
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
        start = [] if len(steps) and steps.iloc[0] == 0 else [0]  # the untrained network is 0 (its own row, or none)
        axes[2].plot([*start, *steps], [0.0] * len(start) + list(history[elo]), marker="o", color="C3")
        axes[2].set(xlabel=x, ylabel="Elo", title="Elo over the untrained network")
        axes[2].grid(alpha=0.3)
    if shown:
        axes[-1].set(xlabel=x, ylabel="share of critical positions lost", ylim=(0, None),
                     title="mistakes on solved positions")
        axes[-1].legend(fontsize="small")
        axes[-1].grid(alpha=0.3)
    if published and published in history and (history[published].notna() & (history[published] != history[x])).any():
        chosen = history[published].dropna().iloc[-1]
        for axis in axes:
            axis.axvline(chosen, color="0.5", linestyle=":", linewidth=1)
        axes[-1].annotate(f"published: {x} {chosen:g}", (chosen, 0), xytext=(3, 3), textcoords="offset points",
                          fontsize="small", color="0.4")
    if title:
        fig.suptitle(title)
    save_figure(fig, path)
