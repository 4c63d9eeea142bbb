// The page: a game per tab (its session id lives in sessionStorage), moves
// by clicks or typed, the engine as opponent, live analysis, PDN import,
// export and replay, and the tournament watch panel. API: docs/web.md.
import { Board } from "/board.js";

const $ = (id) => document.getElementById(id);

const app = {
  session: sessionStorage.getItem("bushka-session"),
  state: null,       // the last GameState from the server
  view: 0,           // the ply shown on the board
  flip: false,
  selection: null,   // { from, clicked: [] }
  engineBusy: false,
  engineAgain: false, // a change came while the engine thought: ask again
  analysing: false,
  source: null,      // the analysis EventSource
  lastInfo: null,
  openWatched: null,
  engineRetries: 0,  // engine requests in a row ended by another search
  autoRebuilt: false, // a game set up again without a user's action, not yet used
  updates: 0,        // counts the states received (the tests wait on it)
};
window.app = app;   // read by the end-to-end tests

const board = new Board($("board"), onSquare);

// Tabs of this page tell each other which session they hold: a tab opened
// as a copy of another (its session id copied with its sessionStorage)
// takes a game of its own.
const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel("bushka-tabs") : null;
if (tabs) {
  tabs.addEventListener("message", (e) => {
    if (e.data && e.data.ask && e.data.ask === app.session && document.body.dataset.ready) {
      tabs.postMessage({ own: e.data.ask });
    }
  });
}

// Whether another open tab holds session `id` (asked, 500 ms for an answer).
function heldElsewhere(id) {
  if (!tabs) return Promise.resolve(false);
  return new Promise((resolve) => {
    const heard = (e) => {
      if (e.data && e.data.own === id) finish(true);
    };
    const timer = setTimeout(() => finish(false), 500);
    function finish(held) {
      clearTimeout(timer);
      tabs.removeEventListener("message", heard);
      resolve(held);
    }
    tabs.addEventListener("message", heard);
    tabs.postMessage({ ask: id });
  });
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  const reply = await fetch(path, init);
  let data;
  try { data = await reply.json(); } catch (_) { data = { error: reply.statusText }; }
  if (!reply.ok) {
    const e = new Error(data.error || reply.statusText);
    e.status = reply.status;
    throw e;
  }
  return data;
}

function showError(e) {
  const box = $("error");
  box.textContent = e ? String(e.message || e) : "";
  box.hidden = !e;
}

async function run(task) {
  app.autoRebuilt = false;
  try {
    showError(null);
    await task();
  } catch (e) {
    if (gone(e)) {
      // The server ended this tab's game (idle too long, or restarted):
      // the page still has it, so it is set up again; the action is not.
      try {
        await setState(await rebuild(app.state));
        showError("the server had ended this game; it was set up again, so try once more");
      } catch (e2) {
        showError(e2);
      }
      return;
    }
    showError(e);
  }
}

// Whether a request failed because the server no longer has this tab's game.
function gone(e) {
  return e && e.status === 404 && app.state !== null && String(e.message).startsWith("unknown session");
}

// Sets the game up again without a user's action (the engine's turn, the
// keep-alive): once, until the engine moves or the user acts; then the
// page says so and stops.
async function rebuildAlone() {
  if (app.autoRebuilt) {
    showError("the server ended this game again (it keeps 64 at most): start a new game, or import it");
    return;
  }
  app.autoRebuilt = true;
  try {
    await setState(await rebuild(app.state));
  } catch (e) {
    showError(e);
  }
}

// A new session holding the game of `state` (its start and moves).
async function rebuild(state) {
  let reply = await api("/api/new", { game: state.game, position: state.start });
  for (const m of state.moves) {
    reply = await api("/api/move", { session: reply.session, move: m.text });
  }
  return reply;
}

function live() { return app.state && app.view === app.state.ply; }

function over() { return !app.state || app.state.result !== null; }

function engineSide(side) {
  const mode = $("mode").value;
  if (mode === "auto") return true;
  if (mode === "human") return false;
  return side !== $("side").value;
}

// A new state from the server: show it at its last ply.
async function setState(reply) {
  app.session = reply.session;
  sessionStorage.setItem("bushka-session", reply.session);
  app.state = reply;
  app.updates += 1;
  app.view = reply.ply;
  app.selection = null;
  app.engineRetries = 0;
  $("chooser").hidden = true;
  $("game").value = reply.game;
  await draw();
  afterChange();
}

async function draw() {
  const s = app.state;
  const url = `/api/svg?session=${app.session}&ply=${app.view}&flip=${app.flip}`;
  await board.load(url);
  highlight();
  drawMoves();
  drawStatus();
}

function drawStatus() {
  const s = app.state;
  let text;
  if (s.result !== null) text = `Game over: ${s.result} (${s.reason})`;
  else text = `${s.side === "white" ? "White" : "Black"} to move`;
  if (!live()) text = `Replay: ply ${app.view} of ${s.ply}. ` + text;
  if (app.engineBusy) text += " — engine thinking…";
  $("status").textContent = text;
  $("from-here").disabled = live();
}

function drawMoves() {
  const list = $("moves");
  list.innerHTML = "";
  const s = app.state;
  const blackFirst = s.start.startsWith("B");
  let li = null;
  s.moves.forEach((m, i) => {
    const ply = i + (blackFirst ? 1 : 0);
    if (ply % 2 === 0 || li === null) {
      li = document.createElement("li");
      li.value = Math.floor(ply / 2) + 1;
      if (ply % 2 === 1) li.append("… ");
      list.append(li);
    }
    const span = document.createElement("span");
    span.textContent = m.text;
    span.dataset.ply = i + 1;
    if (i + 1 === app.view) span.className = "now";
    span.addEventListener("click", () => goTo(i + 1));
    li.append(span, " ");
  });
  const now = list.querySelector(".now");
  if (now) now.scrollIntoView({ block: "nearest" });
}

// Moves still possible after the clicks made so far.
function candidates(sel) {
  const c = sel.clicked;
  return app.state.legal.filter((m) => {
    if (m.from !== sel.from) return false;
    if (c.length === 0) return true;
    const prefix = c.every((sq, i) => m.path[i] === sq);
    const jumped = c.slice(0, -1).every((sq, i) => m.path[i] === sq) && m.to === c[c.length - 1];
    return prefix || jumped;
  });
}

function highlight() {
  if (!live() || !app.selection) {
    board.highlight([], []);
    return;
  }
  const sel = app.selection;
  const next = new Set();
  for (const m of candidates(sel)) {
    if (m.path[sel.clicked.length]) next.add(m.path[sel.clicked.length]);
    next.add(m.to);
  }
  board.highlight([sel.from, ...sel.clicked], [...next]);
}

function humanTurn() {
  return live() && !over() && !app.engineBusy && !engineSide(app.state.side);
}

function onSquare(sq) {
  if (!humanTurn()) return;
  const legal = app.state.legal;
  const sel = app.selection;
  if (!sel) {
    if (legal.some((m) => m.from === sq)) app.selection = { from: sq, clicked: [] };
    highlight();
    return;
  }
  const tried = { from: sel.from, clicked: [...sel.clicked, sq] };
  const matches = candidates(tried);
  if (matches.length === 0) {
    app.selection = legal.some((m) => m.from === sq) && sq !== sel.from ? { from: sq, clicked: [] } : null;
    highlight();
    return;
  }
  const complete = matches.filter((m) => m.to === sq);
  if (matches.length === 1) {
    play(matches[0].text);
  } else if (complete.length > 0) {
    choose(matches);
  } else {
    app.selection = tried;
    highlight();
  }
}

function choose(moves) {
  const box = $("choices");
  box.innerHTML = "";
  for (const m of moves) {
    const b = document.createElement("button");
    b.textContent = m.text;
    b.addEventListener("click", () => { $("chooser").hidden = true; play(m.text); });
    box.append(b);
  }
  $("chooser").hidden = false;
}

function play(text) {
  app.selection = null;
  return run(async () => setState(await api("/api/move", { session: app.session, move: text })));
}

function strength() {
  const [kind, value] = $("strength").value.split(":");
  return { [kind]: Number(value) };
}

// After every change: the engine's turn, or the analysis of the new position.
function afterChange() {
  stopAnalysis();
  if (live() && !over() && engineSide(app.state.side)) {
    engineMove();
  } else if (app.analysing) {
    startAnalysis();
  }
}

// One engine request at a time; a change while it runs (a new game, an
// undo) asks again once it has ended, for the position then on the board.
async function engineMove() {
  if (app.engineBusy) {
    app.engineAgain = true;
    return;
  }
  app.engineBusy = true;
  app.engineAgain = false;
  drawStatus();
  const session = app.session;
  try {
    const reply = await api("/api/engine", { session, ...strength() });
    app.engineBusy = false;
    if (reply.search && reply.search.info) showInfo(reply.search.info, reply.search);
    // The server's game after the move: setting it looks again whose turn it is.
    app.engineAgain = false;
    app.engineRetries = 0;
    app.autoRebuilt = false;
    if (app.session === session) await setState(reply);
  } catch (e) {
    app.engineBusy = false;
    drawStatus();
    if (gone(e) && app.session === session) {
      // The game is set up again, and setting it asks the engine again;
      // once only until the engine moves or the user acts (the server,
      // keeping 64 games, may be ending them as fast as they are made).
      await rebuildAlone();
      return;
    }
    // 409: the game changed under the search (the change asked again), or
    // another search began: still the engine's turn, it is asked again (a
    // few times in a row at most: another tab of the same game may be
    // searching too).
    if (e.status !== 409) showError(e);
    if (app.engineAgain) {
      app.engineAgain = false;
      afterChange();
    } else if (e.status === 409 && app.session === session && live() && !over() && engineSide(app.state.side)) {
      app.engineRetries += 1;
      if (app.engineRetries <= 3) afterChange();
      else showError("the engine's search was ended by another search three times; choose the mode again to ask it once more");
    }
  }
}

function showInfo(info) {
  app.lastInfo = info;
  const sc = info.score;
  const score = sc.kind === "cp" ? (sc.value / 100).toFixed(2) : `${sc.kind} in ${sc.value}`;
  $("analysis-line").textContent =
    `depth ${info.depth}  score ${score}  nodes ${info.nodes}  ${Math.round(info.nps / 1000)} kn/s`;
  $("pv").textContent = info.pv.join(" ");
  const white = 50 + 50 * Math.tanh(info.white_cp / 400);
  $("evalfill").style.height = `${white}%`;
}

// Analyses the position shown, unless the engine is thinking or about to
// (a search of the session would end the engine's) or the game is over there.
function startAnalysis() {
  stopAnalysis();
  if (!app.state || app.engineBusy) return;
  if (live() && (over() || engineSide(app.state.side))) return;
  const es = new EventSource(`/api/analyse?session=${app.session}&ply=${app.view}`);
  app.source = es;
  es.addEventListener("info", (e) => showInfo(JSON.parse(e.data)));
  es.addEventListener("done", () => { es.close(); if (app.source === es) app.source = null; });
  es.onerror = () => { es.close(); if (app.source === es) app.source = null; };
}

function stopAnalysis() {
  if (app.source) {
    app.source.close();
    app.source = null;
  }
}

async function goTo(ply) {
  if (!app.state) return;
  const view = Math.max(0, Math.min(app.state.ply, ply));
  const moved = view !== app.view;
  app.view = view;
  app.selection = null;
  $("chooser").hidden = true;
  await run(draw);
  // The analysis follows the position shown.
  if (moved && app.analysing) startAnalysis();
}

async function newGame(e) {
  e.preventDefault();
  $("pdn-games").hidden = true;
  await run(async () => setState(await api("/api/new", {
    session: app.session || undefined,
    game: $("game").value,
    position: $("position").value.trim() || undefined,
  })));
}

async function importPdn() {
  const file = $("pdn-file").files[0];
  if (!file) return;
  const text = await file.text();
  $("pdn-file").value = "";
  await run(async () => {
    const reply = await api("/api/pdn", { session: app.session || undefined, pdn: text });
    $("mode").value = "human";
    showGames(reply.games, reply.errors, reply.opened);
    await setState(reply);
    await goTo(0);
  });
}

function showGames(games, errors, opened) {
  const body = $("pdn-games").querySelector("tbody");
  body.innerHTML = "";
  games.forEach((g, i) => {
    const tr = document.createElement("tr");
    tr.dataset.index = g.index;
    if (i === (opened || 0)) tr.className = "open";
    for (const t of [g.index + 1, g.white, g.black, g.result, `${g.plies} plies`]) {
      const td = document.createElement("td");
      td.textContent = t;
      tr.append(td);
    }
    tr.addEventListener("click", () => run(async () => {
      for (const r of body.children) r.classList.toggle("open", r === tr);
      await setState(await api("/api/pdn/open", { session: app.session, index: g.index }));
      await goTo(0);
    }));
    body.append(tr);
  });
  $("pdn-games").hidden = games.length < 2;
  if (errors && errors.length) showError(`${errors.length} game(s) could not be read or replayed: ${errors[0]}`);
}

async function exportPdn() {
  await run(async () => {
    const reply = await api(`/api/pdn?session=${app.session}`);
    const url = URL.createObjectURL(new Blob([reply.pdn], { type: "text/plain" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${app.state.game}.pdn`;
    a.click();
    URL.revokeObjectURL(url);
  });
}

// A figure of the summary; an infinite Elo comes as "inf" or "-inf".
function fmt(x, digits) {
  if (x === "inf") return "+∞";
  if (x === "-inf") return "−∞";
  return typeof x === "number" ? x.toFixed(digits) : "?";
}

async function pollWatch() {
  try {
    const w = await api("/api/watch");
    $("watch-file").textContent = `${w.file}: ${w.games} games${w.reading ? " so far (reading the file)" : ""}`;
    const sprt = w.summary && w.summary.sprt;
    $("sprt").textContent = sprt
      ? `SPRT: LLR ${fmt(sprt.llr, 2)} [${fmt(sprt.lower, 2)}, ${fmt(sprt.upper, 2)}] ${sprt.status}`
      : (w.summary ? "" : (w.summary_error || "no summary yet"));
    const pairs = (w.summary && w.summary.pairings) || [];
    $("pairings").textContent = pairs.map((p) =>
      `${p.first} v ${p.second}: +${p.wdl[0]} =${p.wdl[1]} -${p.wdl[2]}, pairs ${p.pentanomial.join(" ")}, ` +
      `Elo ${fmt(p.elo[0], 1)} [${fmt(p.elo[1], 1)}, ${fmt(p.elo[2], 1)}], nElo ${fmt(p.nelo[0], 1)}`).join("\n");
    const st = $("standings").querySelector("tbody");
    st.innerHTML = "";
    for (const e of w.standings) {
      const tr = document.createElement("tr");
      const elo = e.elo[1] === e.elo[2] ? fmt(e.elo[0], 1) : `${fmt(e.elo[0], 1)} [${fmt(e.elo[1], 1)}, ${fmt(e.elo[2], 1)}]`;
      for (const t of [e.name, e.games, e.wdl.join(" "), `${(100 * e.score).toFixed(1)}%`, elo]) {
        const td = document.createElement("td");
        td.textContent = t;
        tr.append(td);
      }
      st.append(tr);
    }
    const lt = $("latest").querySelector("tbody");
    lt.innerHTML = "";
    for (const g of w.latest) {
      const tr = document.createElement("tr");
      tr.dataset.index = g.index;
      if (g.index === app.openWatched) tr.className = "open";
      for (const t of [`#${g.index + 1}`, g.white, g.black, g.result, `${g.plies} plies`]) {
        const td = document.createElement("td");
        td.textContent = t;
        tr.append(td);
      }
      tr.addEventListener("click", () => run(async () => {
        app.openWatched = g.index;
        $("mode").value = "human";
        await setState(await api("/api/watch/open", { session: app.session, index: g.index }));
        await goTo(0);
      }));
      lt.append(tr);
    }
  } catch (e) {
    $("watch-file").textContent = String(e.message || e);
  }
}

function keys(e) {
  if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (e.key in moves) goTo(app.view + moves[e.key]);
  else if (e.key === "Home") goTo(0);
  else if (e.key === "End") goTo(app.state.ply);
  else return;
  e.preventDefault();
}

async function start() {
  $("new-form").addEventListener("submit", newGame);
  $("move-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("move-text").value.trim();
    if (!text || !app.state) return;
    if (!humanTurn()) {
      showError(!live() ? `the board shows ply ${app.view} of ${app.state.ply}: go to the last ply (End) or play from here first`
        : over() ? "the game is over: no move can be played"
        : "it is the engine's turn: wait for its move, or change the mode");
      return;
    }
    play(text).then(() => { if (!$("error").textContent) $("move-text").value = ""; });
  });
  $("undo").addEventListener("click", () => run(async () => {
    // Against the engine, take back its reply too.
    const back = $("mode").value === "engine" && app.state.ply >= 2 && !engineSide(app.state.side) ? 2 : 1;
    setState(await api("/api/undo", { session: app.session, to_ply: Math.max(0, app.state.ply - back) }));
  }));
  $("flip").addEventListener("click", () => {
    app.flip = !app.flip;
    $("evalbar").classList.toggle("flipped", app.flip);
    run(draw);
  });
  $("analyse").addEventListener("click", () => {
    app.analysing = !app.analysing;
    $("analyse").setAttribute("aria-pressed", String(app.analysing));
    if (app.analysing) startAnalysis(); else stopAnalysis();
  });
  $("stop").addEventListener("click", () => run(async () => {
    stopAnalysis();
    if ($("mode").value === "auto") $("mode").value = "human";
    await api("/api/stop", { session: app.session });
  }));
  $("mode").addEventListener("change", () => { app.engineRetries = 0; if (app.state) afterChange(); });
  $("side").addEventListener("change", () => { app.engineRetries = 0; if (app.state) afterChange(); });
  $("first").addEventListener("click", () => goTo(0));
  $("prev").addEventListener("click", () => goTo(app.view - 1));
  $("next").addEventListener("click", () => goTo(app.view + 1));
  $("last").addEventListener("click", () => goTo(app.state.ply));
  $("from-here").addEventListener("click", () => run(async () =>
    setState(await api("/api/undo", { session: app.session, to_ply: app.view }))));
  $("choose-cancel").addEventListener("click", () => { $("chooser").hidden = true; app.selection = null; highlight(); });
  $("pdn-file").addEventListener("change", importPdn);
  $("export").addEventListener("click", exportPdn);
  document.addEventListener("keydown", keys);
  // A tab that goes away stops its search (an engine move still thinking;
  // an analysis also stops when its event stream closes).
  // (A request kept alive past the page, with its body declared JSON as
  // the server requires; a beacon's string body would be text/plain.)
  window.addEventListener("pagehide", () => {
    if (app.session) {
      fetch("/api/stop", {
        method: "POST",
        keepalive: true,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ session: app.session }),
      }).catch(() => {});
    }
  });
  const config = await api("/api/config");
  if (config.watch) {
    $("watch").hidden = false;
    $("mode").value = "human";
    pollWatch();
    setInterval(pollWatch, 2000);
  }
  await run(async () => {
    let reply = null;
    if (app.session) {
      try { reply = await api(`/api/state?session=${app.session}`); } catch (_) { reply = null; }
      // A copy of another tab: the same game, in a session of its own.
      if (reply && await heldElsewhere(app.session)) reply = await rebuild(reply);
    }
    if (!reply) reply = await api("/api/new", { game: $("game").value });
    await setState(reply);
  });
  // An open tab keeps its session from ending idle (the server ends one
  // unused for 30 minutes; a game lost anyway is set up again by run()).
  setInterval(() => {
    const session = app.session;
    if (!session) return;
    api(`/api/state?session=${session}`).catch((e) => {
      if (gone(e) && app.session === session && !app.engineBusy) rebuildAlone();
    });
  }, 10 * 60 * 1000);
  document.body.dataset.ready = "true";
}

start();
