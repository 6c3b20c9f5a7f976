// The Chaiwala API as the page uses it: the SDK (@chaiwala/client, built by `make sdk` into
// web/sdk/ as plain ES modules) does the calls and the live events; what is left here is the
// page's own: where the API lives, the language kept in localStorage, and the callbacks the
// table page wants.
//
// The API base is the page's own origin (served under /play/ by the gateway), or the `api`
// query parameter (`?api=http://127.0.0.1:8000`) when the page is served from another origin:
// the API is browser-ready (CORS, stream tickets), so nothing here depends on where it lives.
import { ApiError, ChaiwalaClient, eventId, followPlayerEvents, newKey } from "../sdk/index.js";

export { ApiError };

const params = new URLSearchParams(location.search);

/** The API's base URL, without a trailing slash. */
export const API = (params.get("api") || location.origin).replace(/\/+$/, "");

/** The language sentences come in: `en` or `es` (kept in localStorage). */
export function words() {
  const kept = localStorage.getItem("chaiwala.words");
  if (kept === "en" || kept === "es") return kept;
  return (navigator.language || "en").toLowerCase().startsWith("es") ? "es" : "en";
}

export function setWords(language) {
  localStorage.setItem("chaiwala.words", language === "es" ? "es" : "en");
}

/** The page's one client of the API; the language is asked on every call. */
export const client = new ChaiwalaClient({ baseUrl: API, language: words });

/**
 * One API call. `token` is a seat or host token (sent as a bearer), `body` a JSON object,
 * `idempotent` adds an Idempotency-Key (or `key` gives one) so a retried submission is applied once.
 */
export async function call(method, path, { token = null, body = undefined, idempotent = false, key = null } = {}) {
  const answer = await client.call(method, path, { token, body, key: key || (idempotent ? newKey() : undefined) });
  return answer ?? {};
}

/** Whether `error` is the network failing (no answer at all), not a refusal or a bug. */
export function isNetworkError(error) {
  return error instanceof TypeError && /fetch|network/i.test(error.message);
}

/** The bare game type name of a message's `@type` (`type.googleapis.com/chaiwala.x.v1.State` → `State`). */
export function messageName(message) {
  const url = (message && message["@type"]) || "";
  return url.slice(url.lastIndexOf(".") + 1);
}

/**
 * Follow a game's events; `onEvent(id, event)` gets each event once, in order, across dropped
 * connections (the SDK resumes with Last-Event-ID, renews stream tickets and backs off), and
 * `onEnd()` runs when the game's stream ends.  `onState` hears `live`, `reconnecting`, `ended`,
 * or `failed` (a refusal no wait mends, e.g. the game is gone).
 */
export function followEvents(gameId, token, onEvent, { onEnd = () => {}, onState = () => {} } = {}) {
  const events = (signal) => client.game(gameId, token).events({ signal, onState });
  return drain(events, (event) => onEvent(eventId(event), event), { onEnd, onState, what: "the game's events" });
}

/**
 * Follow the player stream of `token`'s player (`GET /v1/me/events`, one for all their games):
 * `onNotice({id, kind, data})` gets each notice once, in order, across dropped connections (the
 * SDK resumes after the last id, renews the player's stream tickets and backs off).  `onState`
 * hears `live`, `reconnecting`, `ended` (the token expired) or `failed` (a refusal).
 */
export function followPlayer(token, onNotice, { after = undefined, onState = () => {} } = {}) {
  const notices = (signal) => followPlayerEvents(client, token, { after, signal, onState });
  return drain(notices, onNotice, { onState, what: "the player stream" });
}

// The streams this page holds open.  A page left for another (a link, a new address, the back
// button) may be kept whole in the browser's back/forward cache, its streams still open; each holds
// one of the six connections a browser opens to one host over HTTP/1.1, so after a few tables the
// next page's requests waited, about a minute, for one to be let go.  So a page put in that cache
// closes its streams, and one shown from it again is read afresh (its streams with it).
const streams = new Set();
addEventListener("pagehide", (event) => {
  if (event.persisted) for (const stop of streams) stop.abort();
});
addEventListener("pageshow", (event) => {
  if (event.persisted) location.reload();
});

/**
 * Hand each item of the SDK stream `open(signal)` makes to `onItem` until it ends (then `onEnd()`)
 * or `close()` is called; a refusal is reported to `onState` as `failed`.
 */
function drain(open, onItem, { onEnd = () => {}, onState, what }) {
  const stop = new AbortController();
  streams.add(stop);
  (async () => {
    try {
      for await (const item of open(stop.signal)) onItem(item);
      if (!stop.signal.aborted) onEnd();
    } catch (error) {
      if (stop.signal.aborted) return;
      onState("failed");
      console.warn(`${what} stopped:`, error.message);
    } finally {
      streams.delete(stop);
    }
  })();
  return {
    close() {
      stop.abort();
    },
  };
}

const described = new Map();

/** `GET /v1/game-types` in the chosen language, read once per language (names, options in words). */
export function gameTypes() {
  const language = words();
  if (!described.has(language)) {
    described.set(language, call("GET", "/v1/game-types").catch((error) => (described.delete(language), Promise.reject(error))));
  }
  return described.get(language);
}
