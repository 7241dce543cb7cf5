// The dlgo page: choose a game and its players, play by clicking, watch engines
// play each other, see their search; and read the reports. Everything comes from
// the server's JSON API (/api/...); nothing is fetched from elsewhere.
import { drawBoard, sideIcon } from "./board.js";
import { showReports } from "./reports.js";

const $ = (id) => document.getElementById(id);
const HUMAN = "human";
// the game the setup form offers first, and its empty board: drawn at once, before the catalogue answers
// (then the board of the game as set up comes with the catalogue's answer for it, catalog?game=SPEC)
const FIRST_GAME = "tictactoe";
let setupBoard = { rows: 3, cols: 3, style: "grid", column_labels: ["a", "b", "c"], star_points: [],
  sides: { black: "X", white: "O" } };

let catalog = null;     // games, engines and networks on offer
let view = null;        // the session as the server last sent it
let generation = 0;     // bumped by every new game: late answers about an old one are dropped
let thinking = false;   // waiting for an engine
let paused = false;     // engine-against-engine paused
let drawnPly = -1;      // the ply last drawn, to animate only a new disc
let pendingConfirm = null;

// ------------------------------------------------------------------ the API
async function api(path, options = {}) {
  const init = { method: options.method || "GET", headers: {} };
  if (options.body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(`/api${path}`, init);
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error((data && data.error) || `${response.status} ${response.statusText}`);
    error.status = response.status;
    error.data = data;
    throw error;
  }
  return data;
}

// the game's two sides as it names them, the first to move first: ["red", "yellow"]. The view names
// every side so (its players, the side to move, each move's, the winner, the captures, the count)
function sides() {
  return [view.game.sides.black, view.game.sides.white];
}

// a side's stones on the board: 1 for the first side's, 2 for the second's
function stoneOf(side) {
  return sides().indexOf(side) + 1;
}

function bothEngines() {
  return sides().every((side) => view.players[side] !== HUMAN);
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function say(text, kind = "error") {
  const box = $("message");
  box.textContent = text || "";
  box.className = kind === "note" ? "note" : "";
}

// ------------------------------------------------------------------ the setup form
function input(type, value, attrs = {}) {
  const node = document.createElement(type === "select" ? "select" : "input");
  if (type !== "select") node.type = type;
  Object.assign(node, attrs);
  if (type === "checkbox") node.checked = Boolean(value);
  else if (type !== "select" && value !== null && value !== undefined) node.value = value;
  return node;
}

function labelled(text, control) {
  const label = document.createElement("label");
  label.append(text, control);
  return label;
}

function optionControl(name, kind, value, files) {
  if (files) {
    const select = input("select");
    select.append(new Option(value ? value : "(none)", value || ""));
    for (const file of files) if (file !== value) select.append(new Option(file, file));
    return select;
  }
  if (kind === "bool") return input("checkbox", value);
  if (kind.includes("int") || kind.includes("float")) {
    return input("text", value === null ? "" : value, { placeholder: value === null ? "none" : "",
      inputMode: "decimal", size: 8 });
  }
  return input("text", value === null ? "" : value, { placeholder: "none" });
}

function readControl(control) {
  return control.type === "checkbox" ? String(control.checked) : control.value.trim();
}

// a spec as typed, read as the server reads it (dlgo.core.specs.split_spec): {name, params}, or null
function parseSpec(text) {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(":");
  const name = (colon < 0 ? trimmed : trimmed.slice(0, colon)).trim();
  const rest = colon < 0 ? "" : trimmed.slice(colon + 1);
  const params = {};
  if (!rest.trim()) return { name, params };
  const items = [];
  let current = "";
  let quote = null;
  for (const ch of rest) {
    if (quote) {
      if (ch === quote) quote = null; else current += ch;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ",") { items.push(current); current = ""; } else current += ch;
  }
  if (quote) return null;
  items.push(current);
  for (const item of items) {
    const eq = item.indexOf("=");
    if (eq < 1 || !item.slice(0, eq).trim()) return null;
    params[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return { name, params };
}

// set each field to the value a typed spec gives it (its default where it gives none)
function fillFields(fields, params) {
  for (const { key, control, initial } of fields) {
    const value = key in params ? params[key] : (initial === null || initial === undefined ? "" : String(initial));
    if (control.type === "checkbox") {
      control.checked = ["true", "1", "yes", "on"].includes(value.toLowerCase());
    } else if (control.tagName === "SELECT") {
      if (![...control.options].some((o) => o.value === value)) control.append(new Option(value, value));
      control.value = value;
    } else control.value = value;
  }
}

function specFrom(name, fields) {
  const parts = [];
  for (const { key, control, initial } of fields) {
    const value = readControl(control);
    const start = initial === null || initial === undefined ? "" : String(initial);
    if (value !== start) parts.push(`${key}=${/[,:\s]/.test(value) ? `"${value}"` : value}`);
  }
  return parts.length ? `${name}:${parts.join(",")}` : name;
}

// each player's box named as the game names its side: "Red (moves first)", "Yellow"
function nameSides(first, second) {
  $("player-black").querySelector("legend").textContent = `${capital(first)} (moves first)`;
  $("player-white").querySelector("legend").textContent = capital(second);
}

function buildGameOptions() {
  const game = catalog.games.find((g) => g.name === $("game-select").value);
  nameSides(...game.sides);
  const box = $("game-options");
  box.replaceChildren();
  const fields = [];
  for (const [key, initial] of Object.entries(game.options)) {
    const control = optionControl(key, typeof initial === "boolean" ? "bool" : typeof initial === "number"
      ? "float" : "str", initial);
    control.dataset.option = key;
    control.addEventListener("change", () => refreshNetworks());
    fields.push({ key, control, initial });
    box.append(labelled(key, control));
  }
  box.fields = fields;
}

function gameSpec() {
  return specFrom($("game-select").value, $("game-options").fields || []);
}

// The players' lists of networks offer only those that play the game as set up now, and their fields only
// the parameters that act on it (mcts's rave on Go alone); the empty board shown is that game's.
// While an answer is awaited the form says it is busy (aria-busy): its players' boxes are about to be rebuilt.
let refreshing = 0;
async function refreshNetworks() {
  refreshing += 1;
  $("setup-form").setAttribute("aria-busy", "true");
  try {
    const answer = await api(`/catalog?game=${encodeURIComponent(gameSpec())}`);
    catalog.engines = answer.engines;
    catalog.bots = answer.bots;
    setupBoard = answer.board;
    if (!view) render();
    // rebuilt after the answer comes: what was chosen or typed meanwhile stays
    for (const colour of ["black", "white"]) {
      buildPlayer($(`player-${colour}`), $(`${colour}-engine`).value, $(`${colour}-spec`).value);
    }
  } catch (error) {
    // options that make no game yet: the lists stay as they are
  } finally {
    refreshing -= 1;
    if (!refreshing) $("setup-form").removeAttribute("aria-busy");
  }
}

// the bots of your own (dlgo serve --bots), under a heading of their own: each by its name, one that does
// not load shown and disabled, its reason as its title
function appendBots(select) {
  const bots = catalog.bots || [];
  if (!bots.length) return;
  const group = document.createElement("optgroup");
  group.label = "your bots";
  for (const bot of bots) {
    const engine = catalog.engines.find((e) => e.bot && e.name === bot.name);
    const option = new Option(engine ? engine.label : `${bot.name} (does not load)`, bot.name);
    option.disabled = !engine;
    if (!engine) option.title = bot.reason;
    group.append(option);
  }
  select.append(group);
}

// a player's engine list, fields and spec; ``typedSpec``: a spec to keep if it names the chosen engine
function buildPlayer(fieldset, chosen, typedSpec = "") {
  const colour = fieldset.dataset.colour;
  const legend = fieldset.querySelector("legend");
  fieldset.replaceChildren(legend);
  const select = input("select", null, { id: `${colour}-engine` });
  select.append(new Option("human", HUMAN));
  for (const engine of catalog.engines) if (!engine.bot) select.append(new Option(engine.name, engine.name));
  appendBots(select);
  select.value = chosen;
  fieldset.append(select);
  const help = document.createElement("p");
  help.className = "param-help";
  const params = document.createElement("div");
  params.className = "options";
  const spec = input("text", "", { className: "spec", id: `${colour}-spec`, title: "the engine spec (editable)" });
  fieldset.append(help, params, labelled("spec ", spec));
  // the fields of the engine chosen; the spec written from them, unless it was typed (typed: its values)
  const refresh = (typed = null) => {
    const engine = catalog.engines.find((e) => e.name === select.value);
    params.replaceChildren();
    params.fields = [];
    help.textContent = engine ? engine.description : "You click the moves.";
    spec.parentElement.hidden = !engine;
    if (!typed) spec.value = select.value;
    if (!engine) return;
    for (const p of engine.parameters) {
      const control = optionControl(p.name, p.type, p.default, p.files);
      control.addEventListener("change", () => { spec.value = specFrom(engine.name, params.fields); });
      params.fields.push({ key: p.name, control, initial: p.default });
      params.append(labelled(p.name, control));
    }
    if (typed) fillFields(params.fields, typed.params); else spec.value = specFrom(engine.name, params.fields);
  };
  select.addEventListener("change", () => refresh());
  // a spec typed (or pasted) sets the engine and its fields; the text stays as typed
  spec.addEventListener("input", () => {
    const typed = parseSpec(spec.value);
    if (!typed || !catalog.engines.some((e) => e.name === typed.name)) return;
    if (select.value !== typed.name) {
      select.value = typed.name;
      refresh(typed);
    } else fillFields(params.fields, typed.params);
  });
  const kept = parseSpec(typedSpec);
  if (kept && kept.name === select.value && catalog.engines.some((e) => e.name === kept.name)) {
    refresh(kept);
    spec.value = typedSpec;
  } else refresh();
}

function playerSpec(colour) {
  const choice = $(`${colour}-engine`).value;
  return choice === HUMAN ? HUMAN : $(`${colour}-spec`).value.trim() || choice;
}

// ------------------------------------------------------------------ drawing the game
function heatFor(report) {
  if (!report) return { heat: null, kind: null };
  let kind = $("heat-select").value;
  if (kind === "off") return { heat: null, kind: null };
  if (kind === "auto") kind = report.visits && report.visits.some((v) => v > 0) ? "visits" : "policy";
  let heat = report[kind];
  if (kind === "q" && heat && report.visits) heat = heat.map((q, a) => (report.visits[a] > 0 ? q : 0));
  return { heat: heat || null, kind };
}

function describeCompute(c) {
  return `${c.seconds.toFixed(2)} s, ${c.amount.toLocaleString()} ${c.unit}`;
}

function showAnalysis(report) {
  const box = $("analysis");
  const valueBox = $("value");
  if (!report) {
    box.innerHTML = '<p class="muted">The engine\'s search appears here after its move, or a hint.</p>';
    valueBox.hidden = true;
    return;
  }
  box.replaceChildren();
  const head = document.createElement("p");
  head.textContent = `${report.engine} chose ${report.move} for ${report.player} (move ${report.ply}): ` +
    describeCompute(report.compute);
  box.append(head);
  if (report.principal_variation.length > 1) {
    const line = document.createElement("p");
    line.textContent = `expected line: ${report.principal_variation.join(" ")}`;
    box.append(line);
  }
  if (report.top && report.top.length) {
    // a column for each figure the search has: plain MCTS has no priors, a network alone no visits
    const columns = [["move", (row) => row.move]];
    if (report.visits) columns.push(["visits", (row) => row.visits ?? ""]);
    if (report.q) columns.push(["Q", (row) => (row.q === null ? "" : (row.q >= 0 ? "+" : "") + row.q.toFixed(3))]);
    if (report.policy) {
      columns.push(["prior", (row) => (row.policy === null ? "" : `${(row.policy * 100).toFixed(1)}%`)]);
    }
    const table = document.createElement("table");
    const head = table.insertRow();
    for (const [title] of columns) head.append(Object.assign(document.createElement("th"), { textContent: title }));
    for (const row of report.top) {
      const tr = table.insertRow();
      for (const [, cell] of columns) tr.insertCell().textContent = cell(row);
    }
    box.append(table);
  }
  if (report.value === null || report.value === undefined) {
    valueBox.hidden = true;
    return;
  }
  const forMover = (report.value + 1) / 2;
  const [first, second] = sides();
  const black = report.player === first ? forMover : 1 - forMover;  // the first side's share
  valueBox.hidden = false;
  $("value-black").style.width = `${(black * 100).toFixed(1)}%`;
  $("value-text").textContent = `${report.engine}'s estimate${report.proven ? " (proven)" : ""}: ` +
    `${first} ${(black * 100).toFixed(0)}%, ${second} ${((1 - black) * 100).toFixed(0)}%`;
}

// Go's captures: the stones each side took ("black 2, white 0")
function capturesText() {
  const [first, second] = sides();
  return `captures: ${first} ${view.captures[second]}, ${second} ${view.captures[first]}`;
}

function statusText() {
  if (!view) return "Choose a game and the players, then start.";
  if (view.over) return `Game over: ${view.result.describe}` + (view.game.style === "go" ? ` (${capturesText()})` : "");
  const who = view.players[view.next_player];
  const side = capital(view.next_player);
  const captures = view.game.style === "go" ? `; ${capturesText()}` : "";
  if (thinking) return `${side} (${who}) is thinking…${captures}`;
  return (who === HUMAN ? `${side} to move: your turn` : `${side} (${who}) to move`) + captures;
}

function render() {
  const status = $("status");
  status.textContent = statusText();
  status.className = view && view.over ? "over" : "";
  if (!view) {  // the empty board of the game set up: never a blank page
    drawBoard($("board"), { game: setupBoard, points: [], winning_line: [], count: null, last_move: null,
      board: Array.from({ length: setupBoard.rows }, () => Array(setupBoard.cols).fill(0)) });
    for (const id of ["sides", "moves"]) $(id).replaceChildren();
    for (const id of ["score", "value", "download", "autoplay", "speed-label", "swap", "notes"]) $(id).hidden = true;
    for (const id of ["pass", "resign", "undo", "hint"]) $(id).disabled = true;
    showAnalysis(null);
    return;
  }
  const report = view.hint || view.report;
  const { heat, kind } = heatFor(report);
  const ply = view.moves.length;
  const svg = $("board");
  drawBoard(svg, view, {
    heat, heatKind: kind, hint: view.hint ? view.hint.action : null,
    onPoint: clickPoint, animate: ply !== drawnPly && ply > 0,
  });
  svg.classList.toggle("waiting", thinking);
  drawnPly = ply;
  showAnalysis(report);
  const human = view.human_to_move && !thinking;
  $("pass").hidden = !view.game.has_pass;
  $("pass").disabled = !human;
  $("swap").hidden = view.swap_action === null;
  $("resign").disabled = !human;
  $("undo").disabled = thinking || view.moves.length === 0;
  $("hint").disabled = thinking || view.over;
  $("autoplay").hidden = !bothEngines() || view.over;
  $("speed-label").hidden = !bothEngines();
  $("notes").hidden = !view.notes.length;  // what the server changed of the engines chosen (a time cut)
  $("notes").textContent = view.notes.join("; ");
  $("autoplay").textContent = paused ? "Play" : "Pause";
  const download = $("download");
  download.hidden = view.moves.length === 0;
  download.href = `/api/sessions/${view.id}/record`;
  download.textContent = view.game.has_sgf ? "Download SGF" : "Download the moves";
  showSides();
  showScore();
  showMoves();
}

// the legend: each side's stone, its name and who plays it (the side to move in bold)
function showSides() {
  const box = $("sides");
  box.replaceChildren();
  sides().forEach((side, i) => {
    const item = document.createElement("span");
    item.className = `side ${["black", "white"][i]}` + (side === view.next_player ? " to-move" : "");
    const first = i === 0 ? " (moves first)" : "";
    item.append(sideIcon(view.game.style, i + 1), `${capital(side)}${first}: ${view.players[side]}`);
    box.append(item);
  });
}

// Go's count at the end, as OGS shows it: each side's stones, territory and komi
function showScore() {
  const box = $("score");
  box.hidden = !view.count;
  if (!view.count) return;
  box.replaceChildren();
  const table = document.createElement("table");
  table.innerHTML = "<tr><th></th><th>stones</th><th>territory</th><th>komi</th><th>total</th></tr>";
  sides().forEach((side, i) => {
    const score = view.count[side];
    const row = table.insertRow();
    const name = row.insertCell();
    name.append(sideIcon(view.game.style, i + 1), capital(side));
    for (const value of [score.stones, score.territory, score.komi, score.total]) row.insertCell().textContent = value;
  });
  const dead = view.count.dead.length;
  const note = document.createElement("p");
  note.textContent = `${view.result.text}: area scoring, stones + territory + komi` +
    (dead ? `; ${dead} dead stone${dead === 1 ? "" : "s"} taken off (faded)` : "; the board as it stands");
  box.append(table, note);
}

// every move, numbered, with its side's stone; the latest in bold and scrolled into view
function showMoves() {
  const list = $("moves");
  list.replaceChildren();
  view.moves.forEach((move, i) => {
    const item = document.createElement("li");
    item.append(sideIcon(view.game.style, stoneOf(move.player)), move.text);
    item.title = `${move.player}: ${move.text}`;
    if (i === view.moves.length - 1) item.className = "latest";
    list.append(item);
  });
  list.scrollTop = list.scrollHeight;
}

// ------------------------------------------------------------------ playing
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function update(promise, mine) {
  try {
    const next = await promise;
    if (mine !== generation) return false;
    view = next;
    if (view.message) say(view.message, "note"); else say("");
    return true;
  } catch (error) {
    if (mine !== generation) return false;
    if (error.status === 404) {  // the server has no such game: said as it says it, and the table cleared
      forget();
      say(error.message);
      render();
      return false;
    }
    if (error.data && error.data.session) view = error.data.session;
    say(error.message);
    return false;
  } finally {
    if (mine === generation) render();
  }
}

async function engineTurns() {
  // the engines play while it is an engine's turn (and, between two engines, until paused)
  const mine = generation;
  while (view && mine === generation && !view.over && !view.human_to_move && !thinking && !paused) {
    const watching = bothEngines();
    if (watching && view.moves.length) await sleep(Number($("speed").max) - Number($("speed").value));
    if (mine !== generation || paused || !view || view.over) break;
    thinking = true;
    render();
    let ok;
    try {
      ok = await update(api(`/sessions/${view.id}/engine`, { method: "POST" }), mine);
    } finally {
      if (mine === generation) thinking = false;
    }
    if (mine === generation) render();
    if (!ok) {
      paused = watching; // an engine failed: stop and let the user choose
      if (mine === generation) render();
      break;
    }
  }
}

async function sendMove(body) {
  const mine = generation;
  if (await update(api(`/sessions/${view.id}/move`, { method: "POST", body }), mine)) engineTurns();
}

function clickPoint(row, col) {
  if (!view || thinking) return;
  if (view.over) { say("The game is over: start a new one."); return; }
  if (!view.human_to_move) { say("Wait: it is the engine's turn."); return; }
  let action = null;
  if (view.game.style === "columns") {
    // the column's drop (a point on an empty cell); a full column has none, and the server says why
    const candidates = view.points.map((p, a) => [p, a]).filter(([p]) => p && p[1] === col);
    const drop = candidates.find(([p]) => view.board[p[0] - 1][p[1] - 1] === 0);
    action = drop ? drop[1] : col - 1;
  } else {
    action = view.points.findIndex((p) => p && p[0] === row && p[1] === col);
  }
  if (action < 0) { say("That is not a point of this board."); return; }
  sendMove({ action });
}

function confirmThen(text, action) {
  $("confirm-text").textContent = text;
  $("confirm").hidden = false;
  pendingConfirm = action;
}

function closeConfirm(accept) {
  $("confirm").hidden = true;
  const action = pendingConfirm;
  pendingConfirm = null;
  if (accept && action) action();
}

// no game on the table (the server does not have the one shown): the page as before a first game
function forget() {
  generation += 1;
  view = null;
  thinking = paused = false;
  history.replaceState(null, "", "#/play");
}

// the setup form as the game on the table was set up (a game opened by its link, or a reload): its game and
// options, and who plays each side; the engines' lists then follow that game (refreshNetworks)
function showSetupOf(shown) {
  const spec = parseSpec(shown.game.spec);
  const game = catalog.games.find((g) => g.spec === shown.game.spec) ||
    catalog.games.find((g) => spec && g.name === spec.name);
  if (game) {
    $("game-select").value = game.name;
    buildGameOptions();
    if (game.spec !== shown.game.spec) fillFields($("game-options").fields, spec.params);
  }
  nameSides(shown.game.sides.black, shown.game.sides.white);
  ["black", "white"].forEach((colour, i) => {
    const played = shown.players[sides()[i]];
    const engine = parseSpec(played);
    buildPlayer($(`player-${colour}`), played === HUMAN || !engine ? HUMAN : engine.name, played);
  });
  refreshNetworks();
}

// the game `id` as the server has it (after a reload, or a restart of the server), going on where it was
async function openGame(id) {
  generation += 1;
  const mine = generation;
  thinking = false;
  drawnPly = -1;
  say("");
  if (await update(api(`/sessions/${encodeURIComponent(id)}`), mine) && view) {
    paused = bothEngines();  // two engines wait for Play
    showSetupOf(view);
    render();
    engineTurns();
  }
}

async function startGame(event) {
  event.preventDefault();
  const sgf = $("sgf-text").value.trim();  // a game from a record: its board and komi come from it
  const body = sgf ? { sgf, black: playerSpec("black"), white: playerSpec("white") }
    : { game: gameSpec(), black: playerSpec("black"), white: playerSpec("white") };
  const seed = $("seed").value.trim();
  if (seed) body.seed = Number(seed);
  const hint = $("hint-spec").value.trim();
  if (hint) body.hint = hint;
  const previous = view;
  generation += 1;
  const mine = generation;
  thinking = false;
  paused = false;
  drawnPly = -1;
  say("");
  try {
    const next = await api(sgf ? "/sessions/sgf" : "/sessions", { method: "POST", body });
    if (mine !== generation) return;
    view = next;
    if (previous) api(`/sessions/${previous.id}`, { method: "DELETE" }).catch(() => {});
    history.replaceState(null, "", `#/play/${view.id}`);
    render();
    engineTurns();
  } catch (error) {
    say(error.message);
  }
}

function wireControls() {
  $("setup-form").addEventListener("submit", startGame);
  $("game-select").addEventListener("change", () => { buildGameOptions(); refreshNetworks(); });
  $("heat-select").addEventListener("change", render);
  $("confirm-yes").addEventListener("click", () => closeConfirm(true));
  $("confirm-no").addEventListener("click", () => closeConfirm(false));
  $("pass").addEventListener("click", async () => {
    // what the game would end with: the opponent may always pass back (and an engine does when that wins)
    const mine = generation;
    let ending;
    try {
      ending = await api(`/sessions/${view.id}/pass-ending`);
    } catch (error) {
      if (mine === generation) await update(Promise.reject(error), mine);
      return;
    }
    if (mine !== generation) return;
    if (!ending) { sendMove({ move: "pass" }); return; }
    const opponent = sides().find((side) => side !== view.next_player);
    confirmThen(ending.at_once
      ? `${capital(opponent)} passed: passing too ends the game, ${ending.describe}. Pass?`
      : `If you pass, ${opponent} can end the game by passing back: ${ending.describe}. Pass?`,
    () => sendMove({ move: "pass" }));
  });
  $("sgf-file").addEventListener("change", async () => {
    const file = $("sgf-file").files[0];
    if (file) $("sgf-text").value = await file.text();
  });
  $("swap").addEventListener("click", () => sendMove({ action: view.swap_action }));
  $("resign").addEventListener("click", () => confirmThen("Resign and lose this game?",
    () => sendMove({ move: "resign" })));
  $("undo").addEventListener("click", async () => {
    paused = bothEngines();
    await update(api(`/sessions/${view.id}/undo`, { method: "POST" }), generation);
  });
  $("hint").addEventListener("click", async () => {
    const mine = generation;
    thinking = true;
    render();
    say(`asking ${view.hint_engine}…`, "note");
    try {
      await update(api(`/sessions/${view.id}/hint`, { method: "POST", body: {} }), mine);
    } finally {
      if (mine === generation) { thinking = false; render(); }
    }
  });
  $("autoplay").addEventListener("click", () => {
    paused = !paused;
    render();
    if (!paused) engineTurns();
  });
}

// ------------------------------------------------------------------ pages
function route() {
  const hash = location.hash || "#/play";
  const reports = hash.startsWith("#/reports");
  $("play-view").hidden = reports;
  $("reports-view").hidden = !reports;
  $("nav-play").classList.toggle("active", !reports);
  $("nav-reports").classList.toggle("active", reports);
  if (reports) showReports(decodeURIComponent(hash.slice("#/reports".length).replace(/^\//, "")), api);
  const id = gameInAddress();
  if (id && catalog && (!view || view.id !== id)) openGame(id);
}

// the id of the game the page's address names (#/play/ID), if it names one
function gameInAddress() {
  const match = location.hash.match(/^#\/play\/([A-Za-z0-9_-]+)$/);
  return match ? match[1] : null;
}

async function main() {
  wireControls();
  window.addEventListener("hashchange", route);
  nameSides(setupBoard.sides.black, setupBoard.sides.white);
  route();
  render();  // the empty board at once: the first paint shows the table, not a blank page
  try {
    catalog = await api(`/catalog?game=${FIRST_GAME}`);  // its engines' lists and fields: those for the first game
  } catch (error) {
    say(`The server did not answer: ${error.message}`);
    return;
  }
  for (const game of catalog.games) $("game-select").append(new Option(`${game.name}: ${game.description}`, game.name));
  $("game-select").value = FIRST_GAME;
  setupBoard = catalog.board;
  buildGameOptions();
  buildPlayer($("player-black"), HUMAN);
  buildPlayer($("player-white"), "mcts");
  render();
  document.body.dataset.ready = "true";
  if (gameInAddress()) await openGame(gameInAddress());  // a reload, or a link to a game
}

main();
