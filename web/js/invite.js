// Invitations (issue #42, item 7): a game is created open (listed in the lobby, anyone may join)
// or private (unlisted; every open seat carries one invite code, so one link fits every seat), the
// host shares its link (`#/join/<game>/<code>`) or its code from the waiting table, and whoever
// opens the link is asked their name (the one they set before is kept) and joins with the code.
//
// The server keeps only a hash of an invite code (services/lobby/seats.py), so the code a browser
// made is kept in its localStorage ("chaiwala.invites") to be shown again after a reload.
// Seats, bots and time controls are shown in words here for the lobby's lists and the table.
import { html, render, useEffect, useState } from "../vendor/htm-preact-standalone.js";
import { call, gameTypes, words } from "./api.js";
import { T, readable } from "./i18n.js";
import { remember, seatsIn } from "./mygames.js";
import { ensurePlayer } from "./player.js";
import { timeControlText } from "./timecontrol.js";

const TEXT = {
  en: {
    visibility: "Who may join", public: "Anyone: listed in the lobby", private: "Only people I invite (a link or a code)",
    invite: "Invite someone", invite_link: "Invitation link", invite_code: "Invitation code", copy: "Copy link",
    copied: "Copied", invite_hint: "Send the link (or the code) to the people you want to play with.",
    join_title: "Join a game of {game}", join_with: "Players", join_as: "Join as", join_code: "Invitation code",
    not_waiting: "This game has already started or ended.", watch_it: "Watch it", name_hint: "The name the other players see.",
  },
  es: {
    visibility: "Quién puede unirse", public: "Cualquiera: aparece en la sala", private: "Solo quien yo invite (un enlace o un código)",
    invite: "Invitar a alguien", invite_link: "Enlace de invitación", invite_code: "Código de invitación", copy: "Copiar enlace",
    copied: "Copiado", invite_hint: "Envía el enlace (o el código) a quienes quieras invitar.",
    join_title: "Unirse a una partida de {game}", join_with: "Jugadores", join_as: "Unirse como", join_code: "Código de invitación",
    not_waiting: "Esta partida ya empezó o terminó.", watch_it: "Mirarla", name_hint: "El nombre que ven los demás jugadores.",
  },
};

function W(key) {
  return (TEXT[words()] || TEXT.en)[key] ?? TEXT.en[key];
}

const CODES = "chaiwala.invites";
// No look-alikes (0/O, 1/l/I): a code read aloud or typed from a phone still works.
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** A fresh invite code: 10 random characters (about 49 bits), from the browser's CSPRNG. */
export function newInviteCode() {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
}

function codes() {
  try {
    const kept = JSON.parse(localStorage.getItem(CODES) || "{}");
    return kept && typeof kept === "object" ? kept : {};
  } catch {
    return {};
  }
}

/** Keep a game's invite code (the server keeps only its hash). */
export function keepInvite(gameId, code) {
  const kept = codes();
  kept[gameId] = code;
  const recent = Object.entries(kept).slice(-100); // bounded: an old game's code is of no use
  localStorage.setItem(CODES, JSON.stringify(Object.fromEntries(recent)));
}

/** The invite code this browser made for `gameId`, or "" (a public game's seats need none). */
export function inviteOf(gameId) {
  return codes()[gameId] || "";
}

/** The page's link that joins `gameId` (with `code` for a private game's reserved seats). */
export function inviteLink(gameId, code) {
  const tail = code ? `/${encodeURIComponent(code)}` : "";
  return `${location.origin}${location.pathname}${location.search}#/join/${encodeURIComponent(gameId)}${tail}`;
}

/** The name this browser's person set before ("chaiwala.name"), or "". */
export function keptName() {
  return localStorage.getItem("chaiwala.name") || "";
}

/** A bot's kind in words ("thinker, easy"), never its id. */
export function botWords(bot) {
  const said = T(`bot:${bot}`);
  return said === `bot:${bot}` ? readable(bot) : said;
}

/** One seat in words: its player's name, a bot's kind, or "open seat". */
export function seatWords(seat) {
  if (seat.open) return `(${T("open_seat")})`;
  return seat.bot ? `${seat.name} (${botWords(seat.bot)})` : seat.name;
}

/** What `createBody` sends, made private when asked: `visibility` and one `code` on every open seat. */
export function withVisibility(body, visibility, code) {
  if (visibility !== "private") return body;
  const players = body.players.map((p) => (p.open ? { ...p, invite: code } : p));
  return { ...body, players, visibility: "private" };
}

/** The create form's choice (`#visibility`): open to anyone, or private with an invitation. */
export function VisibilityField({ value, onChange }) {
  return html`<label id="visibility-choice">${W("visibility")}
    <select id="visibility" value=${value} onChange=${(e) => onChange(e.target.value)}>
      <option value="public">${W("public")}</option>
      <option value="private">${W("private")}</option>
    </select>
  </label>`;
}

/** The host's invitation on a waiting table: the link to copy and, for a private game, its code. */
export function InvitePanel({ gameId }) {
  const code = inviteOf(gameId);
  const link = inviteLink(gameId, code);
  const [copied, setCopied] = useState(false);
  async function copy(event) {
    const field = event.target.closest("#invite").querySelector("#invite-link");
    field.select();
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      document.execCommand("copy"); // an insecure origin has no clipboard API; the selection is copied
    }
    setCopied(true);
  }
  return html`<section id="invite" aria-labelledby="invite-title">
    <h3 id="invite-title">${W("invite")}</h3>
    <p class="hint">${W("invite_hint")}</p>
    <label>${W("invite_link")}
      <input id="invite-link" readonly value=${link} onFocus=${(e) => e.target.select()} />
    </label>
    <button type="button" id="copy-invite" onClick=${copy}>${copied ? W("copied") : W("copy")}</button>
    ${code ? html`<p>${W("invite_code")}: <code id="invite-code">${code}</code></p>` : null}
  </section>`;
}

function JoinPage({ gameId, code }) {
  const [game, setGame] = useState(null);
  const [title, setTitle] = useState("");
  const [name, setName] = useState(keptName());
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    // A browser that already holds a seat here goes straight to its table.
    if (seatsIn(gameId).length) return location.replace(`#/game/${gameId}`);
    call("GET", `/v1/games/${gameId}`)
      .then(async (found) => {
        const types = await gameTypes().catch(() => []);
        const type = types.find((t) => t.id === found.game_type);
        setTitle(type ? type.title || type.name : readable(found.game_type));
        setGame(found);
      })
      .catch((failure) => setError(String(failure.message || failure)));
    return undefined;
  }, []);

  async function join(event) {
    event.preventDefault();
    setBusy(true);
    try {
      localStorage.setItem("chaiwala.name", name);
      const me = await ensurePlayer(name); // a new name makes a guest of that name (web/js/player.js)
      const body = { name, ...(code ? { invite: code } : {}) };
      const joined = await call("POST", `/v1/games/${gameId}/join`, { token: me.token, body });
      remember(gameId, game.game_type, joined.seat, joined.token, { name });
      location.hash = `#/game/${gameId}`;
    } catch (failure) {
      setError(String(failure.message || failure));
      setBusy(false);
    }
  }
  if (!game) return html`<section id="join-page"><p class="error" id="join-error">${error || "…"}</p></section>`;
  const waiting = game.status === "waiting";
  return html`<section id="join-page" data-status=${game.status}>
    <h2>${W("join_title").replace("{game}", title)}</h2>
    <p>${W("join_with")}: <span class="seats">${game.seats.map(seatWords).join(", ")}</span></p>
    <p class="time-control">${timeControlText(game.time_control)}</p>
    ${waiting
      ? html`<form id="join-invite" onSubmit=${join}>
          <label>${W("join_as")} <input id="join-name" required maxlength="64" value=${name}
            autocomplete="nickname" onInput=${(e) => setName(e.target.value)} /></label>
          <small>${W("name_hint")}</small>
          ${code ? html`<p>${W("join_code")}: <code>${code}</code></p>` : null}
          <button type="submit" id="join-game" disabled=${busy}>${T("join")}</button>
        </form>`
      : html`<p>${W("not_waiting")} <a href=${`#/watch/${gameId}`}>${W("watch_it")}</a></p>`}
    <p class="error" id="join-error">${error}</p>
    <p><a href="#/">${T("lobby")}</a></p>
  </section>`;
}

/**
 * `#waiting`: a waiting game's seats (bots in words), a join form for open seats (the name set
 * before offered, as a default: a redraw keeps what is typed) unless this page holds a seat, and
 * for the host the invitation to share and start.
 */
export function showWaiting(el, game, { onJoin, onStart, host, seated }) {
  if (game.status !== "waiting") {
    render(null, el);
    return;
  }
  const open = game.seats.filter((s) => s.open);
  render(
    html`<ul class="seats">
        ${game.seats.map(
          (s) => html`<li data-seat=${s.seat} class=${s.open ? "open" : ""}>
            ${s.open ? T("open_seat") : seatWords(s)}
          </li>`,
        )}
      </ul>
      ${open.length && !seated
        ? html`<form id="join-form" onSubmit=${(e) => (e.preventDefault(), onJoin(e.target.elements.name.value))}>
            <input name="name" required maxlength="64" placeholder=${T("your_name")} aria-label=${T("your_name")}
              defaultValue=${keptName()} />
            <button type="submit" id="join-seat">${T("join")}</button>
          </form>`
        : null}
      ${host && open.length ? html`<${InvitePanel} gameId=${game.game_id} />` : null}
      ${host ? html`<button type="button" id="start-game" onClick=${onStart}>${T("start_now")}</button>` : null}`,
    el,
  );
}

/** The join page (`#/join/<game>[/<code>]`): the game in words, a name, and the join. */
export function showJoin(root, gameId, code) {
  render(html`<${JoinPage} gameId=${gameId} code=${code} />`, root);
  return () => render(null, root);
}
