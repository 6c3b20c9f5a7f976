// "Play now" (`#quick-play`): quick play through the matchmaker.  The player picks a game, the table
// sizes they accept, a time control, rated (only a player who may be rated: not the browser's guest)
// and whether bots may fill the table after a minute; the SDK's `quickPlay` makes the ticket and
// waits.  The waiting view (`#quick-wait`) shows the time waited and how many search in the pool,
// with a cancel button; once matched the page goes straight to the table, the player's token being
// their credential at that seat.
import { html, useEffect, useRef, useState } from "../vendor/htm-preact-standalone.js";
import { quickPlay } from "../sdk/index.js";
import { client } from "./api.js";
import { remember } from "./mygames.js";
import { ensurePlayer } from "./player.js";
import { GameTypeField } from "./gametypefield.js";
import { T } from "./i18n.js";
import { TimeControlFields, defaultTimeControl, timeControlBody } from "./timecontrol.js";

const BOTS_AFTER_S = 60;

/** The ticket's request body from the form's choices. */
export function ticketBody(type, counts, clock, rated, bots) {
  const body = { game_type: type.id, player_counts: counts, rated };
  const { clock: timeControl } = timeControlBody(clock);
  if (timeControl) body.time_control = timeControl;
  if (bots) Object.assign(body, { bots_after_seconds: BOTS_AFTER_S, bot: type.bots.includes("heuristic") ? "heuristic" : type.bots[0] });
  return body;
}

function seconds(ms) {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The waiting view: time waited (ticking), searching in the pool, cancel. */
function Waiting({ ticket, since, onCancel }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, []);
  return html`<div id="quick-wait" data-ticket-id=${ticket ? ticket.ticket_id : ""} role="status">
    <p><strong>${T("searching")}</strong></p>
    <p>${T("waited")}: <span id="quick-waited">${seconds(now - since)}</span></p>
    <p>${T("in_pool")}: <span id="quick-pool">${ticket ? ticket.pool_searching ?? 1 : 1}</span></p>
    <button type="button" id="quick-cancel" onClick=${onCancel}>${T("cancel")}</button>
  </div>`;
}

export function QuickPlay({ types }) {
  const [typeId, setTypeId] = useState(types[0].id);
  const type = types.find((t) => t.id === typeId);
  const sizes = [];
  for (let n = type.min_players; n <= type.max_players; n += 1) sizes.push(n);
  const [counts, setCounts] = useState([type.min_players]);
  const [clock, setClock] = useState(defaultTimeControl());
  const [rated, setRated] = useState(false);
  const [bots, setBots] = useState(true);
  const [mayRate, setMayRate] = useState(false);
  const [wait, setWait] = useState(null); // {ticket, since} while searching
  const [error, setError] = useState("");
  const stop = useRef(null);
  useEffect(() => {
    // The server's own guests play casual; a platform's player may play rated.
    ensurePlayer().then((me) => setMayRate(!String(me.player_id).startsWith("guest:"))).catch(() => {});
    return () => stop.current && stop.current.abort();
  }, []);

  function pick(id) {
    const next = types.find((t) => t.id === id);
    setTypeId(id);
    setCounts([next.min_players]);
  }
  function toggle(n) {
    const next = counts.includes(n) ? counts.filter((c) => c !== n) : [...counts, n].sort();
    if (next.length) setCounts(next);
  }
  async function play(event) {
    event.preventDefault();
    setError("");
    const controller = new AbortController();
    stop.current = controller;
    try {
      const me = await ensurePlayer(localStorage.getItem("chaiwala.name") || "");
      const since = Date.now();
      setWait({ ticket: null, since });
      const body = ticketBody(type, counts, clock, mayRate && rated, bots);
      const handle = await quickPlay(client, me.token, body, {
        signal: controller.signal, pollMs: 1000, onTicket: (ticket) => setWait({ ticket, since }),
      });
      remember(handle.gameId, type.id, handle.seat, me.token, { name: me.name });
      location.hash = `#/game/${handle.gameId}/${handle.seat}`;
    } catch (failure) {
      if (failure.name !== "AbortError") setError(String(failure.message || failure));
      setWait(null);
    }
  }

  if (wait) return html`<section id="quick-play"><h2>${T("play_now")}</h2>
    <${Waiting} ticket=${wait.ticket} since=${wait.since} onCancel=${() => stop.current && stop.current.abort()} /></section>`;
  return html`<form id="quick-play" onSubmit=${play}>
    <h2>${T("play_now")}</h2>
    <${GameTypeField} id="quick-game-type" types=${types} value=${typeId} onPick=${pick} />
    <fieldset id="quick-counts"><legend>${T("players")}</legend>
      ${sizes.map((n) => html`<label class="count"><input type="checkbox" name="count" value=${n}
        checked=${counts.includes(n)} onChange=${() => toggle(n)} /> ${n}</label>`)}
    </fieldset>
    <${TimeControlFields} choice=${clock} onChange=${setClock} idPrefix="quick-" policy=${false} />
    ${mayRate ? html`<label><input type="checkbox" id="quick-rated" checked=${rated} onChange=${(e) => setRated(e.target.checked)} /> ${T("rated")}</label>` : null}
    <label><input type="checkbox" id="quick-bots" checked=${bots} onChange=${(e) => setBots(e.target.checked)} /> ${T("bots_after").replace("{s}", String(BOTS_AFTER_S))}</label>
    <button type="submit" id="play-now">${T("play_now")}</button>
    <p class="error" id="quick-error">${error}</p>
  </form>`;
}
