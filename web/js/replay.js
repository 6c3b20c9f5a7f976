// The replay viewer: step through a finished game move by move.  Each position comes from the
// API (GET /v1/games/{id}/versions/{v}, rebuilt by the rules service from the log) and is drawn
// by the game's own table with no legal moves; the log shows every sentence up to that move.
// With one of this browser's seats the positions are that seat's views, else a spectator's.
import { html, render } from "../vendor/htm-preact-standalone.js";
import { call, gameTypes, words } from "./api.js";
import { T } from "./i18n.js";
import { seatsIn } from "./mygames.js";
import { showGameTitle, tableModule, termsOf } from "./table.js";
import { eventBody, logLine, markBoard, markLog } from "./moments.js";

function skeleton(root) {
  render(
    html`<section id="replay-page">
      <header class="table-head"><a href="#/">${T("lobby")}</a> <span id="game-title">${T("replay")}</span></header>
      <div class="replay-controls" id="replay-controls"></div>
      <div class="table-layout">
        <div id="board" class="board"></div>
        <aside class="side"><div id="turn"></div><div id="notice" role="status"></div><ol id="log" tabindex="0" aria-label=${T("log")}></ol></aside>
      </div>
    </section>`,
    root,
  );
  return (id) => root.querySelector(`#${id}`);
}

/** One finished game, step by step: its positions (read once each), its log, its controls. */
class ReplayPage {
  constructor(root, gameId) {
    const held = seatsIn(gameId);
    this.gameId = gameId;
    this.token = held.length ? held[0][1] : null;
    this.cache = new Map();
    this.game = null;
    this.events = [];
    this.module = null;
    this.version = 0;
    this.last = 0;
    this.disposed = false;
    this.$ = skeleton(root);
  }

  /** Read the game and its events, then show its first position (a game not over has no replay). */
  async open() {
    const { gameId, token, $ } = this;
    try {
      this.game = await call("GET", `/v1/games/${gameId}`, { token });
      if (this.game.status !== "finished" && this.game.status !== "aborted") {
        $("notice").textContent = T("replay_after_end");
        return;
      }
      this.events = await call("GET", `/v1/games/${gameId}/events`, { token });
      const described = (await gameTypes().catch(() => [])).find((t) => t.id === this.game.game_type);
      showGameTitle($("game-title"), described, { ...this.game, game_id: gameId }, `${T("replay")} · `);
      this.module = await tableModule(this.game.game_type);
      this.last = this.game.version;
      await this.show(0);
    } catch (error) {
      $("notice").textContent = String(error.message || error);
    }
  }

  controls() {
    const { version, last } = this;
    const go = (v) => this.show(Math.max(0, Math.min(last, v)));
    render(
      html`<button type="button" id="replay-first" onClick=${() => go(0)}>${T("first")}</button>
        <button type="button" id="replay-back" onClick=${() => go(version - 1)}>${T("step_back")}</button>
        <input type="range" id="replay-step" aria-label=${T("version")} min="0" max=${last} value=${version} onInput=${(e) => go(Number(e.target.value))} />
        <button type="button" id="replay-forward" onClick=${() => go(version + 1)}>${T("step_forward")}</button>
        <button type="button" id="replay-last" onClick=${() => go(last)}>${T("last")}</button>
        <span id="replay-version" data-version=${version}>${T("version")} ${version} / ${last}</span>`,
      this.$("replay-controls"),
    );
  }

  /** The log up to this step, numbered; the step's own lines are `current` (and `latest`). */
  showLog(moment) {
    const log = this.$("log");
    log.replaceChildren(
      ...this.events.filter((e) => e.version <= this.version).map((e, i) => {
        const line = logLine(i + 1, `${e.version}:${e.index}`, e);
        if (e.version === this.version) line.classList.add("current");
        return line;
      }),
    );
    markLog(log, moment);
    log.scrollTop = log.scrollHeight;
  }

  /** The move that made this step: its events, outlined on the board as at the table (no pulse). */
  momentAt(v) {
    const own = this.events.filter((e) => e.version === v);
    if (!v || !own.length) return null;
    return { version: v, seat: own[0].seat ?? null, lines: own.filter((e) => e.text).map((e) => ({ text: e.text })),
      events: own.map(eventBody).filter(Boolean), at: 0 };
  }

  async position(v) {
    if (!this.cache.has(v)) this.cache.set(v, await call("GET", `/v1/games/${this.gameId}/versions/${v}`, { token: this.token }));
    return this.cache.get(v);
  }

  /** Step `v`: its position drawn by the game's table, whose turn it was, the log up to it. */
  async show(v) {
    this.version = v;
    this.controls();
    const at = await this.position(v);
    const described = (await gameTypes().catch(() => [])).find((t) => t.id === this.game.game_type);
    if (this.disposed || this.version !== v) return; // another step was asked for meanwhile
    document.body.dataset.version = String(v);
    const who = this.game.seats.map((s) => s.name);
    this.$("turn").textContent = at.to_act && at.to_act.length ? `${T("waiting_for")} ${at.to_act.map((s) => who[s]).join(", ")}` : T("game_over");
    const board = this.$("board");
    board.replaceChildren();
    const table = { gameType: this.game.game_type, view: at.state, seat: at.viewer_seat ?? null, players: who, legal: null,
      act: () => {}, words: words(), terms: termsOf(described) };
    this.module.drawTable(board, table);
    const moment = this.momentAt(v);
    markBoard(board, this.module, moment, at.state);
    this.showLog(moment);
  }
}

/** Show the replay of one game at `root`. */
export function showReplay(root, gameId) {
  const page = new ReplayPage(root, gameId);
  page.open();
  return () => {
    page.disposed = true;
  };
}
