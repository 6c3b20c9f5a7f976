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

/** Show the replay of one game at `root`. */
export function showReplay(root, gameId) {
  const held = seatsIn(gameId);
  const token = held.length ? held[0][1] : null;
  const cache = new Map();
  let game = null;
  let events = [];
  let module = null;
  let version = 0;
  let last = 0;
  let disposed = false;

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
  const $ = (id) => root.querySelector(`#${id}`);

  function controls() {
    const go = (v) => show(Math.max(0, Math.min(last, v)));
    render(
      html`<button type="button" id="replay-first" onClick=${() => go(0)}>${T("first")}</button>
        <button type="button" id="replay-back" onClick=${() => go(version - 1)}>${T("step_back")}</button>
        <input type="range" id="replay-step" aria-label=${T("version")} min="0" max=${last} value=${version} onInput=${(e) => go(Number(e.target.value))} />
        <button type="button" id="replay-forward" onClick=${() => go(version + 1)}>${T("step_forward")}</button>
        <button type="button" id="replay-last" onClick=${() => go(last)}>${T("last")}</button>
        <span id="replay-version" data-version=${version}>${T("version")} ${version} / ${last}</span>`,
      $("replay-controls"),
    );
  }

  /** The log up to this step, numbered; the step's own lines are `current` (and `latest`). */
  function showLog(moment) {
    const log = $("log");
    log.replaceChildren(
      ...events.filter((e) => e.version <= version).map((e, i) => {
        const line = logLine(i + 1, `${e.version}:${e.index}`, e);
        if (e.version === version) line.classList.add("current");
        return line;
      }),
    );
    markLog(log, moment);
    log.scrollTop = log.scrollHeight;
  }

  /** The move that made this step: its events, outlined on the board as at the table (no pulse). */
  function momentAt(v) {
    const own = events.filter((e) => e.version === v);
    if (!v || !own.length) return null;
    return { version: v, seat: own[0].seat ?? null, lines: own.filter((e) => e.text).map((e) => ({ text: e.text })),
      events: own.map(eventBody).filter(Boolean), at: 0 };
  }

  async function position(v) {
    if (!cache.has(v)) cache.set(v, await call("GET", `/v1/games/${gameId}/versions/${v}`, { token }));
    return cache.get(v);
  }

  async function show(v) {
    version = v;
    controls();
    const at = await position(v);
    if (disposed || version !== v) return;
    document.body.dataset.version = String(v);
    const who = game.seats.map((s) => s.name);
    $("turn").textContent = at.to_act && at.to_act.length ? `${T("waiting_for")} ${at.to_act.map((s) => who[s]).join(", ")}` : T("game_over");
    const described = (await gameTypes().catch(() => [])).find((t) => t.id === game.game_type);
    if (disposed || version !== v) return;
    const board = $("board");
    board.replaceChildren();
    module.drawTable(board, { gameType: game.game_type, view: at.state, seat: at.viewer_seat ?? null, players: who, legal: null, act: () => {}, words: words(), terms: termsOf(described) });
    const moment = momentAt(v);
    markBoard(board, module, moment, at.state);
    showLog(moment);
  }

  (async () => {
    try {
      game = await call("GET", `/v1/games/${gameId}`, { token });
      if (game.status !== "finished" && game.status !== "aborted") {
        $("notice").textContent = T("replay_after_end");
        return;
      }
      events = await call("GET", `/v1/games/${gameId}/events`, { token });
      const described = (await gameTypes().catch(() => [])).find((t) => t.id === game.game_type);
      showGameTitle($("game-title"), described, { ...game, game_id: gameId }, `${T("replay")} · `);
      module = await tableModule(game.game_type);
      last = game.version;
      await show(0);
    } catch (error) {
      $("notice").textContent = String(error.message || error);
    }
  })();
  return () => {
    disposed = true;
  };
}
