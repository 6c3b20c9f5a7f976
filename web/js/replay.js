// The replay viewer: step through a finished game move by move.  Each position comes from the
// API (GET /v1/games/{id}/versions/{v}, rebuilt by the rules service from the log) and is drawn
// by the game's own table with no legal moves; the log shows every sentence up to that move.
// With one of this browser's seats the positions are that seat's views, else a spectator's.
import { html, render } from "../vendor/htm-preact-standalone.js";
import { call, gameTypes, words } from "./api.js";
import { T } from "./i18n.js";
import { seatsIn } from "./mygames.js";
import { tableModule, termsOf } from "./table.js";

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
      <header class="table-head"><a href="#/">${T("lobby")}</a> <span id="game-title">${T("replay")} · ${gameId}</span></header>
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

  function showLog() {
    const lines = events.filter((e) => e.version <= version);
    render(
      html`${lines.map(
        (e) => html`<li data-event-id=${`${e.version}:${e.index}`} class=${e.version === version ? "current" : ""}>${e.text || e.kind}</li>`,
      )}`,
      $("log"),
    );
    const log = $("log");
    log.scrollTop = log.scrollHeight;
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
    showLog();
  }

  (async () => {
    try {
      game = await call("GET", `/v1/games/${gameId}`, { token });
      if (game.status !== "finished" && game.status !== "aborted") {
        $("notice").textContent = T("replay_after_end");
        return;
      }
      events = await call("GET", `/v1/games/${gameId}/events`, { token });
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
