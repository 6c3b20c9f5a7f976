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
//
// A move is one request, and its answer is what is drawn next (tablesync.js); the stream's
// events fill the log and say when the game must be read again.  The side panel is drawn by
// tableparts.js, the board's clicks, taps and keys are heard by boardinput.js.
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
import { names, showClocks, showMoves, showResult, showTurn } from "./tableparts.js";
import { listenToBoard } from "./boardinput.js";
import { GameSync } from "./tablesync.js";


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

/** A game type's `terms` as plain maps: group -> code -> word. */
export function termsOf(described) {
  const terms = (described && described.terms) || {};
  return Object.fromEntries(Object.entries(terms).map(([group, t]) => [group, t.words || {}]));
}

/** One game's table page: the board, the side panel, the log, kept live (see the top of this file). */
class TablePage {
  constructor(root, gameId, { spectator, seatWanted }) {
    this.el = skeleton(root, gameId, spectator);
    const held = seatsIn(gameId);
    const chosen = spectator ? null : held.find(([s]) => seatWanted === null || s === seatWanted) || null;
    this.gameId = gameId;
    this.module = null; // the game's table module (web/tables/)
    this.title = null; // GET /v1/game-types: the game's name and its words for codes ("terms")
    this.acted = null; // the legal list a move was posted for
    this.disposed = false;
    this.stream = null;
    this.momentTimer = null;
    this.moments = createMoments(); // the moves seen on the stream; the latest is highlighted
    this.sync = new GameSync(gameId, chosen ? chosen[1] : null, {
      show: () => this.show().catch((error) => this.failed(error, () => {})),
      failed: (error, retry) => this.failed(error, retry),
    });
    this.board = this.el("board");
    this.choose = listenToBoard(this.board, { legal: () => this.sync.legal, act: (i) => this.act(i), el: this.el });
    this.barWatch = keepAboveBar(this.el("actions"));
    this.startStream();
    this.sync.refresh();
    this.ticker = setInterval(() => this.tick(), 1000);
    // A waiting table hears its game's start on the player stream (see tick()).
    const started = () => this.sync.game?.status === "waiting" && this.sync.refresh();
    this.others = followOtherTurns(this.el("other-turns"), gameId, spectator, started);
  }

  notice(text) {
    this.el("notice").textContent = text || "";
  }

  /** Play legal move `index` of the list drawn now (once per list; nothing once the table is gone);
   * `more` (a table's path of segments) follows it in the same request, atomically. */
  act(index, more = []) {
    const list = this.sync.legal;
    // A table that is gone plays nothing, whoever still holds its act() (issue #42, item 1).
    if (this.disposed || !list || this.acted === list || !(index >= 0 && index < list.moves.length)) return;
    const first = list.moves[index];
    const body = more.length ? { moves: [first, ...more], expected_version: list.version } : { move: first, expected_version: list.version };
    return this.play(list, body);
  }

  /** Post `body` (a `move`, or several `moves` at once) for the legal-move list `list`: one request, its answer drawn. */
  async play(list, body) {
    this.acted = list;
    this.el("moves").classList.add("busy");
    try {
      await this.sync.post(body, crypto.randomUUID());
      this.notice("");
    } catch (error) {
      // A race lost to a clock or a resignation is normal: the board is simply redrawn.
      this.notice(error instanceof ApiError && error.status === 409 ? T("state_moved_on") : String(error.message || error));
    } finally {
      this.el("moves").classList.remove("busy");
    }
  }

  /** Draw what the sync holds now (its first drawing loads the game's table module and words). */
  async show() {
    const game = this.sync.game;
    if (!this.module) this.module = await tableModule(game.game_type);
    if (!this.title) this.title = await gameTypes().catch(() => []);
    if (this.disposed || game !== this.sync.game) return; // a newer answer came meanwhile: it draws
    const seat = this.sync.token ? (game.viewer_seat ?? null) : null;
    const described = (this.title || []).find((t) => t.id === game.game_type);
    this.drawSide(game, seat, described);
    this.choose(-1); // a new position: nothing chosen on the old one stands
    const placed = this.drawBoard(game, seat, described);
    showMoves(this.el("moves"), this.sync.legal, placed, (i) => this.act(i));
    this.showMoment();
  }

  drawSide(game, seat, described) {
    const el = this.el;
    document.body.dataset.version = String(game.version);
    document.body.dataset.status = game.status;
    document.body.dataset.seat = seat === null ? "" : String(seat); // the seat this page plays (tests read it)
    showGameTitle(el("game-title"), described, { ...game, game_id: this.gameId });
    if (!el("rules-button")) rulesButton(el("rules-slot"), game.game_type);
    el("replay-link").hidden = game.status !== "finished";
    showTurn(el("turn"), game, seat);
    showClocks(el("clocks"), game, this.sync.readAt);
    showTimeControl(el("time-control"), game); // the clock and timeout policy chosen (web/js/timecontrol.js)
    showResult(el("result"), game, this.module);
    showWaiting(el("waiting"), { ...game, game_id: this.gameId }, {
      onJoin: (name) => this.join(name),
      onStart: () => this.start(),
      host: Boolean(hostTokenOf(this.gameId)),
      seated: Boolean(this.sync.token),
    });
  }

  /** The game's own table on `#board`; the legal moves it placed there. */
  drawBoard(game, seat, described) {
    this.board.replaceChildren();
    if (!game.state) return new Set();
    const drawn = this.module.drawTable(this.board, {
      gameType: game.game_type,
      view: game.state,
      seat,
      players: names(game),
      legal: this.sync.legal,
      act: (i, more) => this.act(i, more),
      words: words(),
      terms: termsOf(described),
    });
    return (drawn && drawn.placed) || new Set();
  }

  /** The latest move: its line, its places on the board (again after every drawing), its log lines. */
  showMoment() {
    const game = this.sync.game;
    if (!game || !this.module) return;
    const seat = this.sync.token ? (game.viewer_seat ?? null) : null;
    const moment = this.moments.latest();
    showLastMove(this.el("last-move"), moment, names(game), seat, words());
    if (game.state) markBoard(this.board, this.module, moment, game.state);
    markLog(this.el("log"), moment, this.moments.recentSince(seat));
  }

  failed(error, retry) {
    this.notice(String(error.message || error));
    // A refusal of the API is shown; anything else is a bug of the page or its table.
    if (isNetworkError(error)) setTimeout(retry, 1000); // read again once the network is back
    else if (!(error instanceof ApiError)) console.error(error);
  }

  async join(name) {
    try {
      localStorage.setItem("chaiwala.name", name); // kept: the next invitation offers it
      const me = await ensurePlayer(name); // the seat carries the browser's player (web/js/player.js)
      const joined = await call("POST", `/v1/games/${this.gameId}/join`, { token: me.token, body: {} });
      remember(this.gameId, this.sync.game.game_type, joined.seat, joined.token, { name });
      this.sync.token = joined.token;
      this.startStream();
      this.sync.refresh();
    } catch (error) {
      this.notice(String(error.message || error));
    }
  }

  async start() {
    try {
      await call("POST", `/v1/games/${this.gameId}/start`, { token: hostTokenOf(this.gameId) });
    } catch (error) {
      this.notice(String(error.message || error));
    }
    this.sync.refresh();
  }

  /** One event of the stream: a log line; a read when it tells of a version not drawn, else the last move redrawn. */
  onEvent(id, event) {
    const log = this.el("log");
    log.append(logLine(log.children.length + 1, id, event));
    this.moments.note(id, event);
    log.scrollTop = log.scrollHeight;
    if (this.sync.heard(event) || this.momentTimer !== null) return; // the read (or the move's answer) draws it
    this.momentTimer = setTimeout(() => ((this.momentTimer = null), this.showMoment()), 30);
  }

  startStream() {
    if (this.stream) this.stream.close();
    this.el("log").replaceChildren();
    this.moments.clear();
    this.stream = followEvents(this.gameId, this.sync.token, (id, event) => this.onEvent(id, event), {
      onState: (state) => (this.el("stream-state").dataset.state = state),
      onEnd: () => this.sync.refresh(),
    });
  }

  // While the game waits, its seats are read again every 5 s, not every second (issue #42, item 7).
  // Decision, after reading what each stream carries: the game's event stream tells a waiting
  // table nothing (a join that leaves seats open writes no log entry, services/rules/lobby_rpcs.py
  // JoinGame; the start's entry is version 0, which a watch from version 0 never sends,
  // services/streaming/watch.py). The player stream tells every seated player `game_started`, and
  // the table already follows it (followOtherTurns): the start is heard there at once. Only joins
  // that leave seats open reach no stream, so a slow read shows those (and the start to a page
  // without a player token); a hidden tab reads nothing.
  tick() {
    const game = this.sync.game;
    if (game && game.clock && game.status === "active") showClocks(this.el("clocks"), game, this.sync.readAt);
    this.waited = (this.waited || 0) + 1;
    if (game && game.status === "waiting" && !document.hidden && this.waited % WAITING_POLL_TICKS === 0) this.sync.refresh();
  }

  dispose() {
    if (this.others) this.others.stop();
    this.disposed = true;
    this.sync.stop();
    this.barWatch.disconnect(); // legibility (issue #34)
    document.documentElement.style.scrollPaddingBottom = "";
    markYourTurn(false);
    clearInterval(this.ticker);
    clearTimeout(this.momentTimer);
    if (this.stream) this.stream.close();
  }
}

/**
 * Legibility (issue #34): on a phone `#actions` sticks to the bottom of the screen; scrolling to
 * an element (a keyboard's focus, a tap's target) keeps it above the bar, not under it.
 */
function keepAboveBar(bar) {
  const watch = new ResizeObserver(() => {
    const sticky = getComputedStyle(bar).position === "sticky";
    document.documentElement.style.scrollPaddingBottom = sticky ? `${bar.offsetHeight}px` : "";
  });
  watch.observe(bar);
  return watch;
}

/** Show one game at `root`; `seatWanted` picks among this browser's seats, `spectator` uses none. */
export function showTable(root, gameId, { spectator = false, seatWanted = null } = {}) {
  const page = new TablePage(root, gameId, { spectator, seatWanted });
  return () => page.dispose();
}
