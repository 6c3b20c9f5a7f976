// The browser's player: a guest of the server's own issuer, made on the first visit and kept in
// localStorage, so this browser's games (and any other browser given the same token) follow the
// player across reloads.  The token is refreshed when it is within six hours of expiring (guest
// tokens last a day by default); an expired
// or refused one is replaced by a new guest (a new identity: its games stay reachable only with
// the seat tokens this browser remembers).  The player's name is their identity's: a new name
// typed in the lobby makes a new guest.
import { call } from "./api.js";

const KEY = "chaiwala.player";
const RENEW_MS = 6 * 3600 * 1000;

/** The kept player `{player_id, token, expires_at, name}`, or null. */
export function player() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) || "null");
    return kept && kept.token ? kept : null;
  } catch {
    return null;
  }
}

/** The player token, or null before `ensurePlayer()` has made one. */
export function playerToken() {
  const kept = player();
  return kept ? kept.token : null;
}

function keep(session, name) {
  const kept = { player_id: session.player_id, token: session.token, expires_at: session.expires_at, name };
  localStorage.setItem(KEY, JSON.stringify(kept));
  return kept;
}

async function fresh(name) {
  const session = await call("POST", "/v1/sessions", { body: name ? { name } : {} });
  const me = await call("GET", "/v1/me", { token: session.token });
  // The name chosen, not the one shown (a guest's carries its guest mark, "Asha (guest 3kq_)"),
  // so the same name typed again is recognised as this player's.
  return keep(session, name || me.name);
}

async function settle(name) {
  const kept = player();
  if (!kept || (name && name !== kept.name)) return fresh(name);
  if (Date.parse(kept.expires_at) - Date.now() > RENEW_MS) return kept;
  try {
    return keep(await call("POST", "/v1/sessions/refresh", { token: kept.token }), kept.name);
  } catch {
    return fresh(name || kept.name);
  }
}

// One at a time: the page asks from several places at load (the shell, the lobby), and two calls
// racing on a first visit would each make a guest, the later one replacing the earlier.
let queue = Promise.resolve();

/** The browser's player, made (or renewed) as needed; `name`, when given and not theirs, makes a new guest. */
export function ensurePlayer(name = "") {
  const next = queue.then(() => settle(name));
  queue = next.catch(() => {});
  return next;
}

/** The player's games on the server (any browser's): `[{game_id, game_type, seat, status, your_turn, ...}]`. */
export async function serverGames() {
  const token = playerToken();
  if (!token) return [];
  const answer = await call("GET", "/v1/me/games?page_size=100", { token });
  return answer.games || [];
}
