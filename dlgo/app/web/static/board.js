// Drawing a position in SVG, in the game's own style (view.game.style):
//   "go"      stones on the lines of a wooden board, coordinates, star points;
//   "columns" discs in a frame, one click target per column (Connect Four);
//   "grid"    X and O in cells (tic-tac-toe, gomoku, m,n,k).
// A heat map (one value per action: visits, policy or Q) is laid under the empty
// points, or above the columns. The last move is marked as OGS and lichess do (a
// ring on the stone, a tinted cell), and a hint with a dashed ring; a finished game
// shows its winning line, or in Go the count: small squares on each side's
// territory (dead stones faded under them), as OGS draws it.

const SVG = "http://www.w3.org/2000/svg";
const S = 40; // one point or cell, in SVG units

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function text(content, attrs, parent) {
  const node = el("text", attrs, parent);
  node.textContent = content;
  return node;
}

// viridis, five stops: a value in [0, 1] to a colour
const STOPS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
export function heatColour(t) {
  const x = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const c = STOPS[i].map((v, k) => Math.round(v + f * (STOPS[i + 1][k] - v)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// the heat map's value as a short label
function heatLabel(value, kind) {
  if (kind === "visits") return value >= 1000 ? `${(value / 1000).toFixed(1)}k` : String(Math.round(value));
  if (kind === "q") return (value >= 0 ? "+" : "") + value.toFixed(2);
  return value >= 0.995 ? "99%" : `${Math.round(value * 100)}%`;
}

// the geometry of each style: where a point's centre is, and the drawing's size
function layout(view) {
  const { rows, cols, style } = view.game;
  const margin = style === "go" ? 1.25 * S : 0.8 * S; // Go: room for the coordinates beside the edge stones
  const top = style === "columns" ? margin + 0.8 * S : margin; // room above the columns for a heat map
  if (style === "go") {
    return {
      width: (cols - 1) * S + 2 * margin, height: (rows - 1) * S + margin + top,
      x: (c) => margin + (c - 1) * S, y: (r) => top + (rows - r) * S, margin, top,
    };
  }
  return {
    width: cols * S + 2 * margin, height: rows * S + margin + top,
    x: (c) => margin + (c - 0.5) * S, y: (r) => top + (rows - r + 0.5) * S, margin, top,
  };
}

function drawGoBoard(svg, view, g) {
  const { rows, cols } = view.game;
  el("rect", { x: 0, y: 0, width: g.width, height: g.height, fill: "#dcb35c", rx: 6 }, svg);
  for (let r = 1; r <= rows; r++) {
    el("line", { x1: g.x(1), y1: g.y(r), x2: g.x(cols), y2: g.y(r), stroke: "#333", "stroke-width": 1 }, svg);
  }
  for (let c = 1; c <= cols; c++) {
    el("line", { x1: g.x(c), y1: g.y(1), x2: g.x(c), y2: g.y(rows), stroke: "#333", "stroke-width": 1 }, svg);
  }
  for (const [r, c] of view.game.star_points) {
    el("circle", { cx: g.x(c), cy: g.y(r), r: 3.5, fill: "#333", class: "star" }, svg);
  }
  // the coordinates clear of the stones on the edge lines (a stone's radius is 0.47 S)
  view.game.column_labels.forEach((label, i) => {
    for (const y of [g.top - 0.6 * S, g.y(1) + 0.85 * S]) {
      text(label, { x: g.x(i + 1), y, "text-anchor": "middle", class: "coord" }, svg);
    }
  });
  for (let r = 1; r <= rows; r++) {
    text(String(r), { x: g.x(1) - 0.55 * S, y: g.y(r) + 4, "text-anchor": "end", class: "coord" }, svg);
    text(String(r), { x: g.x(cols) + 0.55 * S, y: g.y(r) + 4, "text-anchor": "start", class: "coord" }, svg);
  }
}

function drawCells(svg, view, g) {
  const { rows, cols, style } = view.game;
  const frame = style === "columns" ? "#1f4fb5" : "#fff";
  el("rect", { x: g.margin, y: g.top, width: cols * S, height: rows * S, fill: frame, stroke: "#333", rx: 4 }, svg);
  if (style === "grid") {
    for (let r = 1; r < rows; r++) {
      const y = g.top + r * S;
      el("line", { x1: g.margin, y1: y, x2: g.margin + cols * S, y2: y, stroke: "#333" }, svg);
    }
    for (let c = 1; c < cols; c++) {
      const x = g.margin + c * S;
      el("line", { x1: x, y1: g.top, x2: x, y2: g.top + rows * S, stroke: "#333" }, svg);
    }
  } else {
    for (let r = 1; r <= rows; r++) {
      for (let c = 1; c <= cols; c++) el("circle", { cx: g.x(c), cy: g.y(r), r: 0.4 * S, fill: "#fff" }, svg);
    }
  }
  view.game.column_labels.forEach((label, i) => {
    text(label, { x: g.x(i + 1), y: g.top + rows * S + 0.55 * S, "text-anchor": "middle", class: "coord" }, svg);
  });
  if (style === "grid") {
    for (let r = 1; r <= rows; r++) {
      text(String(r), { x: g.margin - 0.4 * S, y: g.y(r) + 4, "text-anchor": "middle", class: "coord" }, svg);
    }
  }
}

function drawStone(svg, view, g, r, c, colour, extra) {
  const style = view.game.style;
  const x = g.x(c), y = g.y(r);
  if (style === "go") {
    return el("circle", { cx: x, cy: y, r: 0.47 * S, fill: colour === 1 ? "#111" : "#f4f4f4",
      stroke: "#000", "stroke-width": 1, class: `stone ${colour === 1 ? "black" : "white"}`, ...extra }, svg);
  }
  if (style === "columns") {
    return el("circle", { cx: x, cy: y, r: 0.4 * S, fill: colour === 1 ? "#d62728" : "#f5d000",
      class: `stone disc ${colour === 1 ? "black" : "white"}`, ...extra }, svg);
  }
  const d = 0.3 * S;
  const group = el("g", { class: `stone ${colour === 1 ? "black" : "white"}`, ...extra }, svg);
  if (colour === 1) {
    el("line", { x1: x - d, y1: y - d, x2: x + d, y2: y + d, class: "mark-x" }, group);
    el("line", { x1: x - d, y1: y + d, x2: x + d, y2: y - d, class: "mark-x" }, group);
  } else {
    el("circle", { cx: x, cy: y, r: d, class: "mark-o" }, group);
  }
  return group;
}

// one side's stone (or disc, or letter) on its own, for the legend and the move list
export function sideIcon(style, colour) {
  const svg = el("svg", { viewBox: `0 0 ${S} ${S}`, class: `side-icon ${colour === 1 ? "black" : "white"}` });
  if (style === "columns") el("rect", { x: 0, y: 0, width: S, height: S, rx: 8, fill: "#1f4fb5" }, svg);
  const centre = { x: () => S / 2, y: () => S / 2 };
  drawStone(svg, { game: { style } }, centre, 1, 1, colour, {});
  return svg;
}

// the last move: a ring on a stone or disc, in the colour that stands out on it (as
// OGS marks it); in a grid of letters the cell is tinted (as lichess tints squares)
function drawLastMove(svg, view, g, last, under) {
  const style = view.game.style;
  if ((style === "grid") !== under) return;
  const x = g.x(last.col), y = g.y(last.row);
  if (style === "grid") {
    el("rect", { x: x - S / 2, y: y - S / 2, width: S, height: S, class: "last" }, svg);
    return;
  }
  const colour = view.board[last.row - 1][last.col - 1];
  const contrast = style === "go" ? (colour === 1 ? "#fff" : "#111") : (colour === 1 ? "#fff" : "#8a6d00");
  el("circle", { cx: x, cy: y, r: style === "go" ? 0.24 * S : 0.18 * S, class: "last", stroke: contrast }, svg);
}

// the cells of the line (or lines) that won
function drawWinningLine(svg, view, g) {
  for (const [r, c] of view.winning_line) {
    const x = g.x(c), y = g.y(r);
    if (view.game.style === "grid") {
      el("rect", { x: x - 0.44 * S, y: y - 0.44 * S, width: 0.88 * S, height: 0.88 * S, rx: 6, class: "win",
        "data-row": r, "data-col": c }, svg);
    } else {
      el("circle", { cx: x, cy: y, r: 0.45 * S, class: "win", "data-row": r, "data-col": c }, svg);
    }
  }
}

// Go's count: a small square of the owner's colour on every point of territory,
// dead stones included (drawn faded by drawBoard)
function drawTerritory(svg, view, g) {
  const size = 0.3 * S;
  view.count.owners.forEach((row, i) => row.forEach((owner, j) => {
    if (!owner || view.board[i][j] === owner) return;
    const r = i + 1, c = j + 1;
    el("rect", { x: g.x(c) - size / 2, y: g.y(r) - size / 2, width: size, height: size,
      class: `territory ${owner === 1 ? "black" : "white"}`, "data-row": r, "data-col": c }, svg);
  }));
}

function drawHeat(svg, view, g, heat, kind) {
  const values = heat.filter((v, a) => view.points[a]);
  if (!values.length) return;
  const low = kind === "q" ? Math.min(...values) : 0;
  const high = Math.max(...values);
  const span = high - low || 1;
  const columns = view.game.style === "columns";
  // labels on the few best only, so that a flat search does not bury the board in numbers
  const labelled = new Set(heat.map((v, a) => [v, a]).filter(([v, a]) => view.points[a] && v !== 0)
    .sort((p, q) => q[0] - p[0]).slice(0, 8).map(([, a]) => a));
  heat.forEach((value, action) => {
    const point = view.points[action];
    if (!point || (kind !== "q" && value <= 0) || (kind === "q" && value === 0)) return;
    const [r, c] = point;
    if (!columns && view.board[r - 1][c - 1] !== 0) return;
    const t = (value - low) / span;
    const x = g.x(c), y = columns ? g.top - 0.45 * S : g.y(r);
    const size = columns ? 0.8 * S : 0.8 * S;
    el("rect", { x: x - size / 2, y: y - size / 2, width: size, height: size, rx: 4,
      fill: heatColour(t), opacity: 0.15 + 0.75 * t * t, class: "heat", "data-action": action }, svg);
    if (labelled.has(action)) {
      text(heatLabel(value, kind), { x, y: y + 4, "text-anchor": "middle", class: "heat-label" }, svg);
    }
  });
}

function drawTargets(svg, view, g, onPoint) {
  const { rows, cols, style } = view.game;
  if (style === "columns") {
    for (let c = 1; c <= cols; c++) {
      el("rect", { x: g.x(c) - S / 2, y: g.top - 0.9 * S, width: S, height: rows * S + 0.9 * S,
        class: "target", "data-col": c }, svg).addEventListener("click", () => onPoint(null, c));
    }
    return;
  }
  for (let r = 1; r <= rows; r++) {
    for (let c = 1; c <= cols; c++) {
      el("rect", { x: g.x(c) - S / 2, y: g.y(r) - S / 2, width: S, height: S, class: "target",
        "data-row": r, "data-col": c }, svg).addEventListener("click", () => onPoint(r, c));
    }
  }
}

// Draw `view` into `svg`. options: heat (values per action, or null), heatKind,
// hint (an action to mark), onPoint(row, col) (col only for columns), animate (drop the last disc)
export function drawBoard(svg, view, options = {}) {
  const g = layout(view);
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${g.width} ${g.height}`);
  svg.style.maxWidth = `${Math.max(300, 1.5 * g.width)}px`; // small boards stay small
  svg.dataset.style = view.game.style;
  if (view.game.style === "go") drawGoBoard(svg, view, g); else drawCells(svg, view, g);
  if (options.heat) drawHeat(svg, view, g, options.heat, options.heatKind);
  const last = view.last_move && view.last_move.row ? view.last_move : null;
  if (last) drawLastMove(svg, view, g, last, true);
  const dead = new Set((view.count ? view.count.dead : []).map(([r, c]) => `${r},${c}`));
  view.board.forEach((row, i) => row.forEach((colour, j) => {
    if (!colour) return;
    const r = i + 1, c = j + 1;
    const isLast = last && last.row === r && last.col === c;
    const extra = { "data-row": r, "data-col": c };
    const stone = drawStone(svg, view, g, r, c, colour, extra);
    if (dead.has(`${r},${c}`)) stone.classList.add("dead");
    if (isLast && options.animate && view.game.style === "columns") {
      stone.classList.add("dropping");
      stone.style.setProperty("--drop-from", `${-(g.y(r) - g.top + 0.5 * S)}px`);
    }
  }));
  if (last) drawLastMove(svg, view, g, last, false);
  if (view.winning_line.length) drawWinningLine(svg, view, g);
  if (view.count) drawTerritory(svg, view, g);
  if (options.hint !== null && options.hint !== undefined && view.points[options.hint]) {
    const [r, c] = view.points[options.hint];
    el("circle", { cx: g.x(c), cy: g.y(r), r: 0.42 * S, class: "hint-mark", "data-row": r, "data-col": c }, svg);
  }
  if (options.onPoint) drawTargets(svg, view, g, options.onPoint);
}
