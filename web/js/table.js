// The table page: one game, as one seat (or a spectator) sees it, live.
//
// The shell owns everything around the board: the log in words (`#log`, from the SSE stream),
// whose turn it is (`#turn`), the clocks (`#clocks`), the moves the board did not place
// (`#moves`, one button per legal move), the result (`#result`, with how each score adds up),
// the last move in words and outlined on the board (`#last-move`, see moments.js).  The board
// (`#board`) is drawn by the game's table module, `web/tables/<game_type>.js`:
//
//   export function drawTable(host, table) -> { placed: Set<number> }
//
// `table` is `{gameType, view, seat, players, legal, act, words}` (see web/README.md).  Every
// element with `data-move-index` inside the board is clickable: the shell posts that legal move
// (with expected_version and an Idempotency-Key); a table may also call `act(i)` itself, e.g.
// at the end of a small form, or `act(i, more)` to post further moves after it in the same
// request (India Rails' path of segments).  Only one request is posted per legal-move list.
import { html, render } from "../vendor/htm-preact-standalone.js";
import { ApiError, call, followEvents, gameTypes, isNetworkError, words } from "./api.js";
import { hostTokenOf, remember, seatsIn } from "./mygames.js";
import { LiveGames } from "./livegames.js";
import { ensurePlayer, playerToken } from "./player.js";
import { T } from "./i18n.js";
import { rulesButton } from "./rules.js";
import { showTimeControl } from "./timecontrol.js"; // time control in words (lobby branch, issue #34 item 6)
import { showWaiting } from "./invite.js"; // a waiting game's seats, join form and invitation
import { markYourTurn } from "./yourturn.js";
import { createMoments, logLine, markBoard, markLog, showLastMove } from "./moments.js";
import { breakdownOf } from "../tables/breakdowns.js";
import { verdictOf } from "../tables/verdicts.js";

const modules = new Map();

/** The name of a game type's table module, as its registration declares it (GET /v1/game-types,
 * `table`; empty or unknown: none; null when the API could not say). Only a plain name is taken:
 * it becomes a path. */
async function tableName(gameType) {
  const types = await gameTypes().catch(() => null);
  if (!types) return null;
  const table = types.find((t) => t.id === gameType)?.table || "";
  return /^[a-z0-9_]+$/.test(table) ? table : "";
}

/** The table module of a game type (the generic one when it has none). */
export async function tableModule(gameType) {
  if (!modules.has(gameType)) {
    let loaded = null;
    const table = await tableName(gameType);
    if (table) {
      try {
        loaded = await import(`../tables/${table}.js`);
      } catch (error) {
        console.warn(`no table ${table} for ${gameType}, using the generic one`, error);
      }
    }
    const module = loaded || (await import("../tables/generic.js"));
    if (table === null) return module; // the API did not answer: ask again next time, keep nothing
    modules.set(gameType, module);
  }
  return modules.get(gameType);
}

function names(game) {
  return game.seats.map((s) => s.name || `${T("seat")} ${s.seat + 1}`);
}

/** A game's heading: its game's name and its players, in words (the id, a code, only on hover). */
export function showGameTitle(node, described, game, prefix = "") {
  const name = described ? described.title || described.name : T("game_type");
  node.textContent = `${prefix}${name} · ${names(game).join(", ")}`;
  node.title = game.game_id || "";
  node.dataset.gameId = game.game_id || "";
}

function skeleton(root, gameId, spectator) {
  render(
    html`<section id="table-page" class=${spectator ? "spectator" : "player"}>
      <header class="table-head">
        <a href="#/" class="back">${T("lobby")}</a>
        <span id="game-title"></span>
        <span id="stream-state"></span>
        <a id="other-turns" href="#/" hidden></a>
        <span id="rules-slot"></span>
        <a id="replay-link" href=${`#/replay/${gameId}`} hidden>${T("replay")}</a>
      </header>
      <div class="table-layout">
        <div id="board" class="board"></div>
        <aside class="side">
          <!-- Legibility (issue #34): #actions is the turn and its moves together; on a phone it
               sticks to the bottom of the screen (style.css). #log scrolls, so it takes focus. -->
          <div id="actions">
            <div id="turn"></div>
            <div id="notice" role="status"></div>
            <div id="hover" role="status" aria-live="polite"></div>
            <div id="confirm" hidden></div>
            <div id="moves"></div>
          </div>
          <div id="clocks"></div>
          <div id="time-control"></div>
          <div id="last-move" hidden></div>
          <div id="waiting"></div>
          <div id="result" hidden></div>
          <ol id="log" aria-live="polite" tabindex="0" aria-label=${T("log")}></ol>
        </aside>
      </div>
    </section>`,
    root,
  );
  return (id) => root.querySelector(`#${id}`);
}

/**
 * `#other-turns`: a link to the lobby while it is the player's turn in other games, kept by the
 * player stream (livegames.js) for a seated player who has a player token; none for a spectator.
 */
function followOtherTurns(link, gameId, spectator, onStarted) {
  if (spectator || !playerToken()) return null;
  const others = new LiveGames(
    (rows) => {
      if (rows.some((row) => row.gameId === gameId && row.status !== "waiting")) onStarted(); // game_started
      const n = rows.filter((row) => row.yourTurn && row.gameId !== gameId).length;
      link.hidden = n === 0;
      link.dataset.count = String(n);
      link.textContent = n === 1 ? T("other_turn") : T("other_turns").replace("{n}", String(n));
    },
    { local: false },
  );
  others.start().catch(() => {}); // no stream, no link: the table itself does not depend on it
  return others;
}

const WAITING_POLL_TICKS = 5; // seconds between two reads of a waiting game (see the ticker below)

/** `#turn`: whose turn it is, in words (the tab's title marks the player's turn). */
function showTurn(el, game, seat) {
  const who = names(game);
  el.dataset.toAct = (game.to_act || []).join(",");
  if (game.status === "finished") el.textContent = T("game_over");
  else if (game.status === "aborted") el.textContent = T("aborted");
  else if (game.status === "waiting") el.textContent = T("waiting_players");
  else if (seat !== null && game.to_act.includes(seat)) el.textContent = T("your_turn");
  else el.textContent = `${T("waiting_for")} ${game.to_act.map((s) => who[s]).join(", ")}`;
  const mine = seat !== null && game.status === "active" && game.to_act.includes(seat);
  el.classList.toggle("mine", mine);
  markYourTurn(mine); // the tab's title and icon say it too, for a player on another tab (issue #42, item 7)
}

function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h ? 2 : 1, "0");
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** `#clocks`: each clocked seat's remaining time; the seats to act count down between refreshes. */
function showClocks(el, game, readAt) {
  const who = names(game);
  if (!game.clock) {
    render(html`<span class="no-clock">${T("no_clock")}</span>`, el);
    return;
  }
  const remaining = game.clock.remaining_s || {};
  const running = new Set(game.status === "active" ? game.to_act : []);
  const elapsed = (Date.now() - readAt) / 1000;
  render(
    html`<ul>
      ${game.seats.filter((s) => String(s.seat) in remaining).map((s) => {
        const left = (remaining[String(s.seat)] ?? 0) - (running.has(s.seat) ? elapsed : 0);
        return html`<li data-seat=${s.seat} class=${running.has(s.seat) ? "running" : ""}>
          <span class="who">${who[s.seat]}</span> <span class="time">${clockText(left)}</span>
        </li>`;
      })}
    </ul>`,
    el,
  );
}

/** One player's score as its parts (`.part`, `data-value`) and their total (`data-total`), or null. */
function breakdownCell(game, seat) {
  const made = game.state ? breakdownOf(modules.get(game.game_type), game.state, seat, words()) : null;
  if (!made) return null;
  const sign = (v, first) => (first ? String(v) : v < 0 ? `− ${-v}` : `+ ${v}`);
  const counted = made.parts.filter((p) => !p.aside);
  return html`<td class="breakdown" colspan="3" data-total=${made.total}>
    ${counted.map((p, i) => html`<span class="part" data-value=${p.value}>${sign(p.value, i === 0)}${p.unit || ""} ${p.label}</span> `)}
    ${counted.length > 1 ? html`<span class="equals">= ${made.total}</span>` : null}
    ${made.parts.filter((p) => p.aside).map((p) => html` <span class="part aside" data-value=${p.value}>(${p.label}: ${p.value}${p.unit || ""})</span>`)}
  </td>`;
}

/** `#result`: a row per player with rank, score and how the score is made up; `data-winners` lists the winner seats. */
function showResult(el, game) {
  if (game.status !== "finished" && game.status !== "aborted") {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  const who = names(game);
  const result = game.result || { scores: [], ranking: [], winners: [] };
  const winners = result.winners || [];
  el.dataset.winners = winners.join(",");
  const breakdowns = game.seats.map((s) => (game.status === "finished" ? breakdownCell(game, s.seat) : null));
  const order = game.seats.map((s) => s.seat).sort((a, b) => (result.ranking[a] ?? 99) - (result.ranking[b] ?? 99));
  let heading = T("aborted");
  if (game.status === "finished") {
    heading =
      winners.length > 1
        ? `${T("winners")}: ${winners.map((s) => who[s]).join(` ${T("and")} `)}`
        : `${T("winner")}: ${winners.map((s) => who[s]).join("")}`;
  }
  // Why they won, in the game's terms (web/tables/verdicts.js): a total alone can mislead.
  const verdict = game.status === "finished" ? verdictOf(modules.get(game.game_type), game.state, who, words()) : null;
  render(
    html`<h2 class=${winners.length > 1 ? "shared-win" : ""}>${heading}</h2>
      ${verdict ? html`<p class="verdict" id="verdict">${verdict}</p>` : null}
      <table class="result-table">
        <thead><tr><th>${T("rank")}</th><th>${T("player")}</th><th>${T("score")}</th></tr></thead>
        <tbody>
          ${order.map(
            (s) => html`<tr data-seat=${s} class=${winners.includes(s) ? "winner" : ""}>
              <td class="rank">${result.ranking[s] ?? "–"}</td>
              <td class="name">${who[s]}</td>
              <td class="score">${result.scores[s] ?? "–"}</td>
            </tr>
            ${breakdowns[s] ? html`<tr class=${winners.includes(s) ? "breakdown-row winner" : "breakdown-row"} data-breakdown-seat=${s}
              aria-label=${`${who[s]}: ${BREAKDOWN[words()] || BREAKDOWN.en}`}>${breakdowns[s]}</tr>` : null}`,
          )}
        </tbody>
      </table>
      <p><a href=${`#/replay/${game.game_id}`}>${T("watch_replay")}</a> · <a href="#/">${T("lobby")}</a></p>`,
    el,
  );
}

const BREAKDOWN = { en: "how the score adds up", es: "cómo se suma la puntuación" };

/** A game type's `terms` as plain maps: group -> code -> word. */
export function termsOf(described) {
  const terms = (described && described.terms) || {};
  return Object.fromEntries(Object.entries(terms).map(([group, t]) => [group, t.words || {}]));
}

/** What a move costs in short ("−3 points"), from its `costs` (the sentence says it in full). */
function priceOf(move) {
  return (move.costs || []).map((c) => `${c.what}:${c.amount}`).join(" ");
}

/** `#moves`: the legal moves the board did not place, one button each (text = the move's sentence, price included). */
function showMoves(el, legal, placed, act) {
  if (!legal) {
    render(null, el);
    return;
  }
  const rest = legal.moves.map((_, i) => i).filter((i) => !placed.has(i));
  render(
    html`${placed.size ? html`<p class="hint">${T("or_click_board")}</p>` : null}
      ${rest.map(
        (i) => html`<button type="button" class=${(legal.moves[i].costs || []).length ? "move costly" : "move"}
          data-move-index=${i} data-costs=${priceOf(legal.moves[i])} onClick=${() => act(i)}>
          ${legal.texts[i] || `#${i}`}
        </button>`,
      )}`,
    el,
  );
}

/** Show one game at `root`; `seatWanted` picks among this browser's seats, `spectator` uses none. */
export function showTable(root, gameId, { spectator = false, seatWanted = null } = {}) {
  const el = skeleton(root, gameId, spectator);
  const held = seatsIn(gameId);
  const chosen = spectator ? null : held.find(([s]) => seatWanted === null || s === seatWanted) || null;
  let token = chosen ? chosen[1] : null;
  let game = null;
  let legal = null;
  let readAt = Date.now();
  let acted = null; // the legal list a move was posted for
  let busy = false;
  let again = false;
  let stream = null;
  let module = null;
  let disposed = false;
  const moments = createMoments(); // the moves seen on the stream; the latest is highlighted

  // Legibility (issue #34): on a phone #actions sticks to the bottom of the screen; scrolling to
  // an element (a keyboard's focus, a tap's target) keeps it above the bar, not under it.
  const bar = el("actions");
  const barWatch = new ResizeObserver(() => {
    const sticky = getComputedStyle(bar).position === "sticky";
    document.documentElement.style.scrollPaddingBottom = sticky ? `${bar.offsetHeight}px` : "";
  });
  barWatch.observe(bar);

  const board = el("board");
  board.addEventListener("pointerdown", (event) => (pointer = event.pointerType));
  board.addEventListener("click", (event) => {
    const target = event.target.closest("[data-move-index]");
    if (!target || !board.contains(target)) return;
    const index = Number(target.dataset.moveIndex);
    // A touch has no hover: a move with a price or a warning is shown first and played on a
    // second tap or the confirm button (issue #42, item 2). A mouse or the keyboard plays at once.
    const touched = (event.pointerType || pointer) === "touch";
    if (touched && index !== picked && (legal?.moves[index]?.costs || []).length) choose(index);
    else act(index);
  });
  // Every move on the board plays from the keyboard too: Enter or Space on a focused one.
  board.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const target = event.target.closest("[data-move-index]");
    if (!target || !board.contains(target) || target.matches("button, a, input, select, textarea")) return;
    event.preventDefault(); // Space would scroll the page
    act(Number(target.dataset.moveIndex));
  });
  // Hovering (or focusing) a move on the board says it, price included, before the click.
  const sayHovered = (event) => {
    const target = event.target.closest("[data-move-index]");
    const index = target && board.contains(target) ? Number(target.dataset.moveIndex) : -1;
    const move = legal && legal.moves[index];
    const hover = el("hover");
    hover.textContent = move ? legal.texts[index] : "";
    hover.dataset.hoveredMove = move ? String(index) : ""; // not data-move-index: the line is no move to click
    hover.dataset.costs = move ? priceOf(move) : "";
  };
  board.addEventListener("mouseover", sayHovered);
  board.addEventListener("focusin", sayHovered);
  let title = null; // GET /v1/game-types: the game's name and its words for codes ("terms")
  let pointer = ""; // the kind of pointer that last pressed on the board ("touch", "mouse", "pen")
  let picked = -1; // a costly move tapped once: shown with its price in #confirm, not yet played

  /** `#confirm`: the chosen move's sentence (its price included), with play and cancel. */
  function choose(index) {
    picked = index;
    const box = el("confirm");
    box.hidden = index < 0;
    board.querySelectorAll(".chosen").forEach((node) => node.classList.remove("chosen"));
    if (index < 0) return render(null, box);
    board.querySelector(`[data-move-index="${index}"]`)?.classList.add("chosen");
    render(
      html`<p class="sentence" data-costs=${priceOf(legal.moves[index])}>${legal.texts[index]}</p>
        <p class="hint">${T("confirm_hint")}</p>
        <button type="button" id="confirm-move" onClick=${() => act(index)}>${T("confirm_move")}</button>
        <button type="button" id="cancel-move" onClick=${() => choose(-1)}>${T("cancel_move")}</button>`,
      box,
    );
  }

  function notice(text) {
    el("notice").textContent = text || "";
  }

  /** Play legal move `index`; `more` (a table's path of segments) follows it in the same request, atomically. */
  async function act(index, more = []) {
    const list = legal;
    // A table that is gone plays nothing, whoever still holds its act() (issue #42, item 1).
    if (disposed || !list || acted === list || !(index >= 0 && index < list.moves.length)) return;
    acted = list;
    el("moves").classList.add("busy");
    const first = list.moves[index];
    const body = more.length ? { moves: [first, ...more], expected_version: list.version } : { move: first, expected_version: list.version };
    const key = crypto.randomUUID();
    try {
      try {
        await call("POST", `/v1/games/${gameId}/moves`, { token, body, key });
      } catch (error) {
        if (!isNetworkError(error)) throw error;
        // No answer: the same key again gets the first answer, so the move is applied once.
        await call("POST", `/v1/games/${gameId}/moves`, { token, body, key });
      }
      notice("");
    } catch (error) {
      // A race lost to a clock or a resignation is normal: the board is simply redrawn.
      notice(error instanceof ApiError && error.status === 409 ? T("state_moved_on") : String(error.message || error));
    } finally {
      el("moves").classList.remove("busy");
      refresh();
    }
  }

  function draw() {
    const seat = token ? (game.viewer_seat ?? null) : null;
    document.body.dataset.version = String(game.version);
    document.body.dataset.status = game.status;
    document.body.dataset.seat = seat === null ? "" : String(seat); // the seat this page plays (tests read it)
    const described = (title || []).find((t) => t.id === game.game_type);
    showGameTitle(el("game-title"), described, { ...game, game_id: gameId });
    if (!el("rules-button")) rulesButton(el("rules-slot"), game.game_type);
    el("replay-link").hidden = game.status !== "finished";
    showTurn(el("turn"), game, seat);
    showClocks(el("clocks"), game, readAt);
    showTimeControl(el("time-control"), game); // the clock and timeout policy chosen (web/js/timecontrol.js)
    showResult(el("result"), game);
    showWaiting(el("waiting"), { ...game, game_id: gameId }, {
      onJoin: join, onStart: start, host: Boolean(hostTokenOf(gameId)), seated: Boolean(token),
    });
    let placed = new Set();
    choose(-1); // a new position: nothing chosen on the old one stands
    board.replaceChildren();
    if (game.state) {
      const drawn = module.drawTable(board, {
        gameType: game.game_type,
        view: game.state,
        seat,
        players: names(game),
        legal,
        act,
        words: words(),
        terms: termsOf(described),
      });
      placed = (drawn && drawn.placed) || new Set();
    }
    showMoves(el("moves"), legal, placed, act);
    showMoment(seat);
  }

  /** The latest move: its line, its places on the board (again after every drawing), its log lines. */
  function showMoment(seat) {
    const moment = moments.latest();
    showLastMove(el("last-move"), moment, names(game), seat, words());
    if (game.state) markBoard(board, module, moment, game.state);
    markLog(el("log"), moment, moments.recentSince(seat));
  }

  async function load() {
    const current = await call("GET", `/v1/games/${gameId}`, { token });
    let moves = null;
    const seat = current.viewer_seat ?? null;
    if (token && current.status === "active" && seat !== null && current.to_act.includes(seat)) {
      moves = await call("GET", `/v1/games/${gameId}/legal-moves`, { token });
      moves.moves = moves.moves || [];
      moves.texts = moves.moves.map((move) => move.text || ""); // REST puts each sentence in its move
      if (moves.version !== current.version) {
        again = true; // a move landed in between: read both again
        return;
      }
    }
    if (!module) module = await tableModule(current.game_type);
    if (!title) title = await gameTypes().catch(() => []);
    game = current;
    legal = moves;
    readAt = Date.now();
    if (!disposed) draw();
  }

  async function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        await load();
      } while (again && !disposed);
    } catch (error) {
      notice(String(error.message || error));
      // A refusal of the API is shown; anything else is a bug of the page or its table.
      if (isNetworkError(error)) setTimeout(refresh, 1000); // read again once the network is back
      else if (!(error instanceof ApiError)) console.error(error);
    } finally {
      busy = false;
    }
  }

  async function join(name) {
    try {
      localStorage.setItem("chaiwala.name", name); // kept: the next invitation offers it
      const me = await ensurePlayer(name); // the seat carries the browser's player (web/js/player.js)
      const joined = await call("POST", `/v1/games/${gameId}/join`, { token: me.token, body: {} });
      remember(gameId, game.game_type, joined.seat, joined.token, { name });
      token = joined.token;
      startStream();
      refresh();
    } catch (error) {
      notice(String(error.message || error));
    }
  }

  async function start() {
    try {
      await call("POST", `/v1/games/${gameId}/start`, { token: hostTokenOf(gameId) });
    } catch (error) {
      notice(String(error.message || error));
    }
    refresh();
  }

  let pending = null;
  function onEvent(id, event) {
    const log = el("log");
    log.append(logLine(log.children.length + 1, id, event));
    moments.note(id, event);
    log.scrollTop = log.scrollHeight;
    // Many events arrive together (a move and the bots' replies): redraw once for them.
    if (pending === null) pending = setTimeout(() => ((pending = null), refresh()), 30);
  }

  function startStream() {
    if (stream) stream.close();
    el("log").replaceChildren();
    moments.clear();
    stream = followEvents(gameId, token, onEvent, {
      onState: (state) => (el("stream-state").dataset.state = state),
      onEnd: refresh,
    });
  }

  // While the game waits, its seats are read again every 5 s, not every second (issue #42, item 7).
  // Decision, after reading what each stream carries: the game's event stream tells a waiting
  // table nothing (a join that leaves seats open writes no log entry, services/rules/lobby_rpcs.py
  // JoinGame; the start's entry is version 0, which a watch from version 0 never sends,
  // services/streaming/watch.py). The player stream tells every seated player `game_started`, and
  // the table already follows it (followOtherTurns): the start is heard there at once. Only joins
  // that leave seats open reach no stream, so a slow read shows those (and the start to a page
  // without a player token).
  let waitedTicks = 0;
  const ticker = setInterval(() => {
    if (game && game.clock && game.status === "active") showClocks(el("clocks"), game, readAt);
    if (game && game.status === "waiting" && ++waitedTicks % WAITING_POLL_TICKS === 0) refresh();
  }, 1000);

  startStream();
  refresh();
  // A waiting table hears its game's start on the player stream (see the ticker above).
  const others = followOtherTurns(el("other-turns"), gameId, spectator, () => game?.status === "waiting" && refresh());
  return () => {
    if (others) others.stop();
    disposed = true;
    barWatch.disconnect(); // legibility (issue #34)
    document.documentElement.style.scrollPaddingBottom = "";
    markYourTurn(false);
    clearInterval(ticker);
    if (stream) stream.close();
  };
}
