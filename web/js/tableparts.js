// The table page's side panel, drawn from the game as the API answers it: whose turn it is
// (`#turn`), the clocks (`#clocks`), the result with how each score adds up (`#result`), and the
// legal moves the board did not place, one button each (`#moves`).  Pure drawing: table.js owns
// the page and calls these after every change.
import { html, render } from "../vendor/htm-preact-standalone.js";
import { words } from "./api.js";
import { T } from "./i18n.js";
import { markYourTurn } from "./yourturn.js";
import { breakdownOf } from "../tables/breakdowns.js";
import { verdictOf } from "../tables/verdicts.js";

/** The players' names by seat (an open seat by its number). */
export function names(game) {
  return game.seats.map((s) => s.name || `${T("seat")} ${s.seat + 1}`);
}

/** `#turn`: whose turn it is, in words (the tab's title marks the player's turn). */
export function showTurn(el, game, seat) {
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
export function showClocks(el, game, readAt) {
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
function breakdownCell(game, seat, module) {
  const made = game.state ? breakdownOf(module, game.state, seat, words()) : null;
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
export function showResult(el, game, module) {
  if (game.status !== "finished" && game.status !== "aborted") {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  const who = names(game);
  const result = game.result || { scores: [], ranking: [], winners: [] };
  const winners = result.winners || [];
  el.dataset.winners = winners.join(",");
  const breakdowns = game.seats.map((s) => (game.status === "finished" ? breakdownCell(game, s.seat, module) : null));
  const order = game.seats.map((s) => s.seat).sort((a, b) => (result.ranking[a] ?? 99) - (result.ranking[b] ?? 99));
  let heading = T("aborted");
  if (game.status === "finished") {
    heading =
      winners.length > 1
        ? `${T("winners")}: ${winners.map((s) => who[s]).join(` ${T("and")} `)}`
        : `${T("winner")}: ${winners.map((s) => who[s]).join("")}`;
  }
  // Why they won, in the game's terms (web/tables/verdicts.js): a total alone can mislead.
  const verdict = game.status === "finished" ? verdictOf(module, game.state, who, words()) : null;
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

/** What a move costs in short ("−3 points"), from its `costs` (the sentence says it in full). */
export function priceOf(move) {
  return (move.costs || []).map((c) => `${c.what}:${c.amount}`).join(" ");
}

/** `#moves`: the legal moves the board did not place, one button each (text = the move's sentence, price included). */
export function showMoves(el, legal, placed, act) {
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
