// The lobby (`#lobby`): "Play now" (quick play, quickplay.js), create a game with bots, open seats and a time control, join an open
// seat, watch a running game, and "my games" (the player's games on the server and those this
// browser holds seat tokens for), each with its status, the player's turn first, kept live by the
// player stream (livegames.js).
import { html, render, useEffect, useRef, useState } from "../vendor/htm-preact-standalone.js";
import { call, gameTypes } from "./api.js";
import { LiveGames } from "./livegames.js";
import { remember } from "./mygames.js";
import { showRules } from "./rules.js";
import { QuickPlay } from "./quickplay.js";
import { GameTypeField } from "./gametypefield.js";
import { ensurePlayer } from "./player.js";
import { T, readable } from "./i18n.js";
import { TimeControlFields, defaultTimeControl, timeControlBody, timeControlText } from "./timecontrol.js";
import { VisibilityField, keepInvite, newInviteCode, seatWords, withVisibility } from "./invite.js";

// An option's value back in its JSON type, from a <select> of the API's value words.
function typed(value, sample) {
  if (typeof sample === "number") return Number(value);
  if (typeof sample === "boolean") return value === "true";
  return value;
}

/** The input of one option: a list of the API's value words when it has them, else by type. */
function optionInput(key, value, said, onChange) {
  if (said && said.values && said.values.length) {
    return html`<select name=${key} value=${String(value)} onChange=${(e) => onChange(key, typed(e.target.value, value))}>
      ${said.values.map((v) => html`<option value=${v.value}>${v.title}</option>`)}
    </select>`;
  }
  if (typeof value === "boolean") {
    return html`<input type="checkbox" name=${key} checked=${value} onChange=${(e) => onChange(key, e.target.checked)} />`;
  }
  if (typeof value === "number") {
    return html`<input type="number" name=${key} value=${value} onInput=${(e) => onChange(key, Number(e.target.value))} />`;
  }
  if (typeof value === "string") {
    return html`<input type="text" name=${key} value=${value} onInput=${(e) => onChange(key, e.target.value)} />`;
  }
  return html`<span class="option-value">${readable(JSON.stringify(value))}</span>`;
}

/** One option as the lobby shows it: its title and description from the API (GET /v1/game-types). */
function OptionField({ type, name, value, onChange }) {
  const said = (type.option_words || []).find((o) => o.option === name);
  return html`<label class="option" title=${said ? said.description : ""}>
    <span class="option-title">${said ? said.title : readable(name)}</span>
    ${optionInput(name, value, said, onChange)}
    ${said && said.description ? html`<small class="option-description">${said.description}</small>` : null}
  </label>`;
}

/** A game type's name in the chosen language (the API's `title`), its id when unknown. */
export function gameTitle(types, id) {
  const found = (types || []).find((t) => t.id === id);
  return found ? found.title || found.name : id;
}

/** The request body of a new game: every seat is `me`, `open` or `bot:<name>`; `clock` the time control chosen. */
function createBody(type, seats, options, clock) {
  const players = seats.map((kind, i) => {
    if (kind === "me") return { me: true };  // the browser's player (a guest identity, web/js/player.js)
    if (kind === "open") return { open: true };
    const bot = kind.slice(4);
    return { name: `${T("bot")} ${i + 1}`, bot };
  });
  const changed = Object.fromEntries(
    Object.entries(options).filter(([key, value]) => key !== "@type" && value !== type.options[key]),
  );
  return { game_type: type.id, players, ...(Object.keys(changed).length ? { options: changed } : {}), ...timeControlBody(clock) };
}

/** A game type's options in the API's order (option_words), any option it has no words for last. */
function optionKeysOf(type) {
  const said = (type.option_words || []).map((o) => o.option).filter((k) => k in type.options);
  return [...said, ...Object.keys(type.options).filter((k) => k !== "@type" && !said.includes(k))];
}

/** A new game's seats: how many, and who takes each (you, an open seat, a bot). */
function SeatFields({ type, seats, setSeats }) {
  const kinds = [["me", T("you")], ["open", T("open")], ...type.bots.map((b) => [`bot:${b}`, `${T("bot")}: ${T(`bot:${b}`)}`])];
  const counts = [];
  for (let n = type.min_players; n <= type.max_players; n += 1) counts.push(n);
  const count = (n) => setSeats(Array.from({ length: n }, (_, i) => seats[i] || `bot:${type.bots[0]}`));
  return html`<label>${T("players")}
      <select id="player-count" value=${seats.length} onChange=${(e) => count(Number(e.target.value))}>
        ${counts.map((n) => html`<option value=${n}>${n}</option>`)}
      </select>
    </label>
    <ol id="seats">
      ${seats.map(
        (kind, i) => html`<li>
          <select class="seat-kind" data-seat=${i} value=${kind} aria-label=${`${T("seat")} ${i + 1}`}
            onChange=${(e) => setSeats(seats.map((k, j) => (j === i ? e.target.value : k)))}>
            ${kinds.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
          </select>
        </li>`,
      )}
    </ol>`;
}

function CreateForm({ types }) {
  const [typeId, setTypeId] = useState(types[0].id);
  const type = types.find((t) => t.id === typeId);
  const defaultSeats = (t) => Array.from({ length: t.min_players }, (_, i) => (i === 0 ? "me" : `bot:${t.bots[0]}`));
  const [seats, setSeats] = useState(defaultSeats(type));
  const [options, setOptions] = useState({ ...type.options });
  const [name, setName] = useState(localStorage.getItem("chaiwala.name") || "");
  const [error, setError] = useState("");
  const [clock, setClock] = useState(defaultTimeControl());
  const [visibility, setVisibility] = useState("public"); // open to anyone, or by invitation (invite.js)

  function pick(id) {
    const next = types.find((t) => t.id === id);
    setTypeId(id);
    setSeats(defaultSeats(next));
    setOptions({ ...next.options });
  }
  async function submit(event) {
    event.preventDefault();
    localStorage.setItem("chaiwala.name", name);
    try {
      const me = await ensurePlayer(name);
      const code = visibility === "private" ? newInviteCode() : "";
      const body = withVisibility(createBody(type, seats, options, clock), visibility, code);
      const created = await call("POST", "/v1/games", { token: me.token, body });
      if (code) keepInvite(created.game_id, code); // the server keeps only its hash: the table shows it from here
      seats.forEach((kind, i) => {
        if (kind === "me") remember(created.game_id, type.id, i, created.seats[i].token, { name });
      });
      remember(created.game_id, type.id, null, null, { hostToken: created.host_token, name });
      location.hash = `#/game/${created.game_id}`;
    } catch (failure) {
      setError(String(failure.message || failure));
    }
  }
  const optionKeys = optionKeysOf(type);
  return html`<form id="create" onSubmit=${submit}>
    <h2>${T("new_game")}</h2>
    <${GameTypeField} id="game-type" types=${types} value=${typeId} onPick=${pick} />
    <button type="button" id="lobby-rules" aria-label=${`${T("rules")}: ${type.title || type.name}`} onClick=${() => showRules(typeId)}>${T("rules")}</button>
    <label>${T("your_name")} <input id="player-name" value=${name} maxlength="64" onInput=${(e) => setName(e.target.value)} /></label>
    <${SeatFields} type=${type} seats=${seats} setSeats=${setSeats} />
    ${optionKeys.length
      ? html`<fieldset id="options"><legend>${T("options")}</legend>
          ${optionKeys.map(
            (key) => html`<${OptionField} type=${type} name=${key} value=${options[key]}
              onChange=${(k, v) => setOptions({ ...options, [k]: v })} />`,
          )}
        </fieldset>`
      : null}
    <${TimeControlFields} choice=${clock} onChange=${setClock} />
    <${VisibilityField} value=${visibility} onChange=${setVisibility} />
    <button type="submit" id="create-game">${T("create")}</button>
    <p class="error" id="create-error">${error}</p>
  </form>`;
}

function seatNames(game) {
  return game.seats.map(seatWords).join(", "); // bots by their kind in words, never an id
}

function Listing({ id, title, games, join, types }) {
  return html`<section id=${id}>
    <h2>${title}</h2>
    ${games.length === 0 ? html`<p class="empty">${T("none")}</p>` : null}
    <ul>
      ${games.map(
        (g) => html`<li data-game-id=${g.game_id}>
          <span class="type">${gameTitle(types, g.game_type)}</span> <span class="seats">${seatNames(g)}</span> <span class="time-control">${timeControlText(g.time_control)}</span>
          ${join ? html` <button type="button" class="join" onClick=${() => join(g)}>${T("join")}</button>` : null} <a class="watch" href=${`#/watch/${g.game_id}`}>${T("watch")}</a>
        </li>`,
      )}
    </ul>
  </section>`;
}

/** "My games": read once, then kept live by the player stream (livegames.js), closed when the lobby goes. */
/** An instant of the API (RFC 3339) as the page's language writes a date and a 24-hour time (no "AM"). */
function when(iso) {
  const style = { dateStyle: "short", timeStyle: "short", hourCycle: "h23" };
  return new Date(iso).toLocaleString(document.documentElement.lang || undefined, style);
}

function MyGames({ types, tick }) {
  const [games, setGames] = useState(null);
  const [reading, setReading] = useState(false);
  const kept = useRef(null);
  useEffect(() => {
    const live = new LiveGames(setGames, { onReading: setReading });
    kept.current = live;
    live.start().catch(() => {});  // no player yet (offline): the lobby's refresh reads the list
    return () => live.stop();
  }, []);
  useEffect(() => {
    if (kept.current) kept.current.tick().catch(() => {});
  }, [tick]);
  // data-reading: the whole list is being read again (a game the stream told of is not listed yet).
  return html`<section id="my-games" data-reading=${String(reading)}>
    <h2>${T("my_games")}</h2>
    ${games === null ? html`<p>…</p>` : null}
    ${games && games.length === 0 ? html`<p class="empty">${T("none")}</p>` : null}
    <ul>
      ${(games || []).map(
        (g) => html`<li data-game-id=${g.gameId} data-status=${g.status} data-your-turn=${String(g.yourTurn)}
          class=${g.yourTurn ? "your-turn" : ""}>
          ${g.yourTurn ? html`<strong class="your-turn-mark">${T("your_turn_mark")}</strong> ` : null}${g.invitedBy === undefined ? null : html`<strong class="invited-mark">${g.invitedBy ? T("invited_by").replace("{host}", g.invitedBy) : T("invited_mark")}</strong> `}<span class="type">${gameTitle(types, g.gameType)}</span> <span class="seats">${g.names.map((n) => n || `(${T("open_seat")})`).join(", ")}</span> <span class="status">${T(`status:${g.status}`)}</span> <a class="play" href=${`#/game/${g.gameId}`}>${T("open_table")}</a>
          ${g.status === "active" && !g.yourTurn && g.lastActivity ? html` <span class="last-activity">${T("last_activity").replace("{time}", when(g.lastActivity))}</span>` : null}
          ${g.yourTurn && g.deadline ? html` <span class="deadline">${T("due_by").replace("{time}", when(g.deadline))}</span>` : null}
          ${g.status === "finished" && g.place ? html` <span class="place">${g.won ? T("you_won") : T("your_place").replace("{n}", g.place)}</span>` : null}
          ${g.status === "finished" ? html` <a class="replay" href=${`#/replay/${g.gameId}`}>${T("replay")}</a>` : null}
        </li>`,
      )}
    </ul>
  </section>`;
}

function Lobby() {
  const [types, setTypes] = useState(null);
  const [open, setOpen] = useState([]);
  const [running, setRunning] = useState([]);
  const [error, setError] = useState("");
  const [round, setRound] = useState(0);  // one more per refresh: "my games" reads its statuses again

  async function load() {
    try {
      const [found, waiting, active] = await Promise.all([
        gameTypes(), // read once per visit and language (this timer's closure never sees `types` change)
        call("GET", "/v1/games?status=waiting&open_seats=true&page_size=20"),
        call("GET", "/v1/games?status=active&page_size=20"),
      ]);
      setTypes(found);
      setOpen(waiting.games || []);
      setRunning(active.games || []);
      setRound((n) => n + 1);
    } catch (failure) {
      setError(String(failure.message || failure));
    }
  }
  useEffect(() => {
    ensurePlayer().catch((failure) => setError(String(failure.message || failure)));  // a guest, on the first visit
    load();
    const timer = setInterval(load, 5000);
    return () => clearInterval(timer);
  }, []);

  // Joining asks the joiner's name first (the one set before is offered): the join page, invite.js.
  function join(game) {
    location.hash = `#/join/${game.game_id}`;
  }

  // Nothing is listed before the game types are read: a list shows games by their names, never by id.
  return html`<div class="lobby-grid">
    ${types ? html`<div class="forms"><${QuickPlay} types=${types} /><${CreateForm} types=${types} /></div>` : html`<p>…</p>`}
    <div class="lists">
      <p class="error">${error}</p>
      ${types
        ? html`<${Listing} id="open-games" title=${T("open_games")} games=${open} join=${join} types=${types} />
            <${Listing} id="running-games" title=${T("running_games")} games=${running} types=${types} />
            <${MyGames} types=${types} tick=${round} />`
        : null}
    </div>
  </div>`;
}

/** Show the lobby at `root` (an element with id `lobby`). */
export function showLobby(root) {
  render(html`<section id="lobby"><${Lobby} /></section>`, root);
  return () => render(null, root);
}
