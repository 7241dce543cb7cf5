"""Pictures of positions and games, drawn with matplotlib.

:func:`draw_position` draws any game's position on a matplotlib axis: Go as
stones on the lines of a wooden board (star points, coordinates A..T without
I), Connect-N as discs in a blue frame, tic-tac-toe and other m,n,k games as
X and O in a grid. The last move is marked, and an optional heat map (a
policy, visit counts: one value per action) is laid under the empty points or,
in Connect-N, over the columns, with its values written in. On top of it:

* :func:`render_position` writes one position to a PNG file;
* :func:`render_game` writes a whole game to an animated GIF, one frame a move.

The drawing style is the game's (``game.board_style``), so a new game is drawn
without changes here. Files are written atomically.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import matplotlib
import numpy as np
from matplotlib.animation import FuncAnimation, PillowWriter
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import ScaledTranslation
from matplotlib.patches import Circle, Rectangle

from dlgo.core.errors import DlgoError
from dlgo.core.game import Game, State
from dlgo.core.types import Move, Player, Point
from dlgo.storage.atomic import temporary_path
from dlgo.display.plotting import new_figure, save_figure

WOOD = "#dcb35c"
DISC_COLOURS = {Player.black: "#d62728", Player.white: "#f5d000"}  # Connect-N: red moves first, then yellow
HEAT_CMAP = "viridis"


def column_labels(state: State) -> list[str]:
    """The board's column labels as a player reads them: ``A``..``T`` without ``I``
    in Go, ``1``..``7`` in Connect Four, ``a``..``c`` in tic-tac-toe."""
    cols = state.game.num_cols
    if state.game.board_style == "columns":
        return [str(c) for c in range(1, cols + 1)]
    return [state.format_move(Move.play(Point(1, c))).rstrip("0123456789") for c in range(1, cols + 1)]


def star_points(size: int) -> list[tuple[int, int]]:
    """The ``(row, col)`` star points of a ``size`` x ``size`` Go board, as Go
    boards mark them: the four corner points (3-3 below 13x13, 4-4 from 13x13 on)
    and, on odd boards, tengen (five on 9x9 and 13x13); from 15x15 on the four
    side points too (nine on 19x19). None below 7x7, nor on small even boards."""
    if size < 7 or size % 2 == 0 and size < 12:
        return []
    edge = 4 if size >= 13 else 3
    corners = [(r, c) for r in (edge, size + 1 - edge) for c in (edge, size + 1 - edge)]
    if size % 2 == 0:
        return corners
    middle = (size + 1) // 2
    sides = [(middle, edge), (middle, size + 1 - edge), (edge, middle), (size + 1 - edge, middle)] if size >= 15 else []
    return sorted(corners + sides + [(middle, middle)])


def draw_position(ax: Axes, state: State, heatmap: Sequence[float] | np.ndarray | None = None, *,
                  heat_label: str = "probability", mark_last: bool = True, title: str | None = None,
                  players: Mapping[Player, str] | None = None) -> None:
    """Draw ``state`` on ``ax``, with the result once the game is over and a key
    to the colours under the board (naming ``players``, who played each colour,
    when given); ``heatmap`` has one value per action (``state.num_actions``; in
    Go the last one, pass, goes in the title)."""
    kind = state.game.board_style
    heat = _heat_values(state, heatmap)
    stones = state.stone_array()
    _set_up_axes(ax, state, room_above=kind == "columns" and heat is not None)
    _draw_board(ax, kind, state.game.num_rows, state.game.num_cols)
    if heat is not None:
        _draw_heat(ax, kind, heat, stones)
    last = state.last_move.point if mark_last and state.last_move is not None else None
    _draw_stones(ax, kind, stones, last)
    ax.set_title(_title(state, heat, heat_label, title), fontsize=9)
    _colour_key(ax, state.game, players or {})


def _heat_values(state: State, heatmap: Sequence[float] | np.ndarray | None) -> np.ndarray | None:
    """The heat map as floats, one per action; :class:`DlgoError` if the count is wrong."""
    if heatmap is None:
        return None
    heat = np.asarray(heatmap, dtype=float)
    if len(heat) != state.num_actions:
        raise DlgoError(f"the heat map has {len(heat)} values; {state.game.name} has {state.num_actions} actions")
    return heat


def _set_up_axes(ax: Axes, state: State, room_above: bool) -> None:
    """Coordinates on the axes, no frame; ``room_above`` the board for Connect-N's heat row."""
    rows, cols = state.game.num_rows, state.game.num_cols
    ax.set_aspect("equal")
    ax.set_xticks(range(1, cols + 1), column_labels(state))
    ax.set_yticks(range(1, rows + 1), [str(r) for r in range(1, rows + 1)])
    ax.tick_params(length=0, labelsize=8)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xlim(0.5, cols + 0.5)
    ax.set_ylim(0.5, rows + (1.2 if room_above else 0.5))


def _draw_board(ax: Axes, kind: str, rows: int, cols: int) -> None:
    """The empty board: wood, lines and star points (Go), a blue frame (Connect-N) or a grid."""
    if kind == "go":
        ax.add_patch(Rectangle((0.5, 0.5), cols, rows, color=WOOD, zorder=0))
        for r in range(1, rows + 1):
            ax.plot([1, cols], [r, r], color="black", linewidth=0.8, zorder=1)
        for c in range(1, cols + 1):
            ax.plot([c, c], [1, rows], color="black", linewidth=0.8, zorder=1)
        if rows == cols:
            for r, c in star_points(rows):
                ax.add_patch(Circle((c, r), 0.08, color="black", zorder=1))
    elif kind == "columns":
        ax.add_patch(Rectangle((0.5, 0.5), cols, rows, color="#1f4fb4", zorder=0))
    else:
        ax.add_patch(Rectangle((0.5, 0.5), cols, rows, color="#f4f1e8", zorder=0))
        for r in range(1, rows):
            ax.plot([0.5, cols + 0.5], [r + 0.5, r + 0.5], color="#444444", linewidth=1.5, zorder=1)
        for c in range(1, cols):
            ax.plot([c + 0.5, c + 0.5], [0.5, rows + 0.5], color="#444444", linewidth=1.5, zorder=1)


def _draw_heat(ax: Axes, kind: str, heat: np.ndarray, stones: np.ndarray) -> None:
    """The heat map with its values written in: under the empty points, or in
    Connect-N a row of cells over the columns."""
    rows, cols = stones.shape
    scale = max(heat.max(), 1e-9)
    counts = _are_counts(heat)
    cmap = matplotlib.colormaps[HEAT_CMAP]
    if kind == "columns":
        for c in range(1, cols + 1):
            value = heat[c - 1]
            ax.add_patch(Rectangle((c - 0.45, rows + 0.6), 0.9, 0.55, zorder=2, color=cmap(value / scale)))
            ax.text(c, rows + 0.875, _short(value, counts), ha="center", va="center", zorder=3, fontsize=7,
                    color="white" if value / scale < 0.6 else "black")
        return
    grid = heat[: rows * cols].reshape(rows, cols)
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            value = grid[r - 1, c - 1]
            if not stones[r - 1, c - 1] and value >= 0.005 * scale:
                ax.add_patch(Rectangle((c - 0.45, r - 0.45), 0.9, 0.9, zorder=2,
                                       alpha=0.35 + 0.6 * value / scale, color=cmap(value / scale)))
                if value >= 0.01 * scale:
                    ax.text(c, r, _short(value, counts), ha="center", va="center", zorder=3, fontsize=6,
                            color="white" if value / scale < 0.6 else "black")


def _draw_stones(ax: Axes, kind: str, stones: np.ndarray, last: Point | None) -> None:
    """The stones (Go), discs (Connect-N, empty holes too) or letters, and a mark on ``last``."""
    rows, cols = stones.shape
    for r in range(1, rows + 1):
        for c in range(1, cols + 1):
            owner = Player(int(stones[r - 1, c - 1])) if stones[r - 1, c - 1] else None
            if kind == "go":
                if owner is not None:
                    ax.add_patch(Circle((c, r), 0.46, zorder=4, facecolor="black" if owner == Player.black
                                        else "white", edgecolor="black", linewidth=0.8))
            elif kind == "columns":
                ax.add_patch(Circle((c, r), 0.4, zorder=4, edgecolor="#163a85", linewidth=1.0,
                                    facecolor="white" if owner is None else DISC_COLOURS[owner]))
            elif owner is not None:
                ax.text(c, r, "X" if owner == Player.black else "O", ha="center", va="center", zorder=4,
                        fontsize=max(8, 140 // max(rows, cols)), fontweight="bold",
                        color="#222222" if owner == Player.black else "#c0392b")
            if last is not None and (r, c) == (last.row, last.col):
                marker = "#c0392b" if kind == "grid" or owner == Player.white else "white"
                ax.add_patch(Circle((c, r), 0.15 if kind != "grid" else 0.42, zorder=5, fill=kind != "grid",
                                    color=marker, linewidth=1.5))


def _title(state: State, heat: np.ndarray | None, heat_label: str, title: str | None) -> str:
    """The title line: ``title``, who is to move or the result, and the heat map's pass and label."""
    words = [title] if title else []
    outcome = state.outcome()
    game = state.game
    words.append(f"{game.side_name(state.next_player)} to move" if outcome is None
                 else f"result: {outcome.describe(game.side_names)}")
    if heat is not None:
        cells = state.game.num_rows * state.game.num_cols
        if len(heat) > cells and state.game.board_style != "columns":
            words.append(f"pass {_short(heat[cells:].sum(), _are_counts(heat))}")
        words.append(f"shading: {heat_label}")
    return "   ".join(words)


def _are_counts(heat: np.ndarray) -> bool:
    """Visit counts, not probabilities: some value is over 1."""
    return bool(heat.max() > 1.0)


def _colour_key(ax: Axes, game: Game, players: Mapping[Player, str]) -> None:
    """A legend under the board: each side's stone (or disc, or letter), its name
    in the game (:attr:`~dlgo.core.game.Game.side_names`) and its player."""
    kind = game.board_style
    handles = []
    for player in (Player.black, Player.white):
        if kind == "go":
            marker, face, edge = "o", player.name, "black"
        elif kind == "columns":
            marker, face, edge = "o", DISC_COLOURS[player], "#163a85"
        else:
            letter, face = ("X", "#222222") if player == Player.black else ("O", "#c0392b")
            marker, edge = f"${letter}$", face
        label = game.side_name(player) + (f": {players[player]}" if player in players else "")
        handles.append(Line2D([], [], linestyle="", marker=marker, markersize=9, markerfacecolor=face,
                              markeredgecolor=edge, label=label))
    below_labels = ax.transAxes + ScaledTranslation(0, -16 / 72, ax.figure.dpi_scale_trans)  # 16 points down
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below_labels, ncol=2,
              frameon=False, fontsize=8, handletextpad=0.3, columnspacing=1.5)


def _short(value: float, counts: bool) -> str:
    """A heat value in a few characters: 37%, 0.4%, or 1234 for counts."""
    if counts:
        return f"{value:.0f}"
    return f"{value:.0%}" if value >= 0.095 else f"{value:.1%}"


def _figure(state: State) -> tuple[Figure, Axes]:
    rows, cols = state.game.num_rows, state.game.num_cols
    size = min(9.0, max(3.2, 0.42 * max(rows, cols) + 1.2))
    return new_figure(figsize=(size, size * (rows + 1) / (cols + 1)))


def render_position(state: State, path: str | Path, heatmap: Sequence[float] | np.ndarray | None = None, *,
                    heat_label: str = "probability", title: str | None = None,
                    players: Mapping[Player, str] | None = None) -> None:
    """``state`` as a PNG file (with an optional heat map, see :func:`draw_position`)."""
    fig, ax = _figure(state)
    draw_position(ax, state, heatmap, heat_label=heat_label, title=title, players=players)
    save_figure(fig, path)


def render_game(states: Sequence[State], path: str | Path, *, seconds_per_move: float = 0.7,
                title: str = "", players: Mapping[Player, str] | None = None) -> None:
    """A whole game (its states, first to last) as an animated GIF, one frame a
    move; the last frame, with the result, stays up three times as long."""
    if not states:
        raise DlgoError("no positions to draw")
    fig, ax = _figure(states[-1])
    frames = list(range(len(states))) + [len(states) - 1] * 2

    def frame(i: int) -> list[Any]:
        ax.clear()
        move = f"move {i}" if i else "start"
        draw_position(ax, states[i], title=f"{title}  {move}".strip(), players=players)
        return []

    animation = FuncAnimation(fig, frame, frames=frames, blit=False)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = temporary_path(path).with_suffix(".tmp.gif")  # Pillow reads the format from the suffix
    try:
        writer = PillowWriter(fps=1.0 / seconds_per_move)  # type: ignore[arg-type]  # a float fps works
        animation.save(temp, writer=writer, dpi=80)
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
