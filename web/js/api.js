// The Chaiwala REST + SSE API as the page uses it.
//
// The API base is the page's own origin (served under /play/ by the gateway), or the `api`
// query parameter (`?api=http://127.0.0.1:8000`) when the page is served from another origin:
// the API is browser-ready (CORS, stream tickets), so nothing here depends on where it lives.

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

/** An API refusal (problem+json): status, stable code and detail. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(`${status} ${problem.code || "error"}: ${problem.detail || ""}`);
    this.status = status;
    this.code = problem.code || "";
    this.problem = problem;
  }
}

/**
 * One API call. `token` is a seat or host token (sent as a bearer), `body` a JSON object,
 * `idempotent` adds an Idempotency-Key (or `key` gives one) so a retried submission is applied once.
 */
export async function call(method, path, { token = null, body = undefined, idempotent = false, key = null } = {}) {
  const headers = { "Accept-Language": words() };
  if (token) headers.Authorization = `Bearer ${token}`;
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  if (idempotent || key) headers["Idempotency-Key"] = key || crypto.randomUUID();
  const response = await fetch(API + path, init);
  const text = await response.text();
  const answer = text ? JSON.parse(text) : {};
  if (!response.ok) throw new ApiError(response.status, answer);
  return answer;
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
 * Follow a game's events over SSE; `onEvent(id, event)` gets each event once, in order.
 *
 * With a seat token the stream is opened with a stream ticket (an EventSource cannot send
 * Authorization).  A dropped connection is resumed by the browser itself with Last-Event-ID
 * (the ticket is reusable for about a minute); when that fails (the ticket expired, the
 * gateway restarted) a new ticket is fetched and the stream reopened from the last version
 * seen, skipping ids already delivered, so no line is lost or repeated.
 */
export function followEvents(gameId, token, onEvent, { onEnd = () => {}, onState = () => {} } = {}) {
  const seen = new Set();
  let lastVersion = -1;
  let source = null;
  let stopped = false;
  let retry = 500;

  async function open() {
    if (stopped) return;
    const query = new URLSearchParams();
    if (lastVersion > 0) query.set("after", String(lastVersion - 1));
    query.set("lang", words());
    if (token) {
      try {
        const issued = await call("POST", `/v1/games/${gameId}/stream-tickets`, { token });
        query.set("ticket", issued.ticket);
      } catch (error) {
        onState("retrying");
        setTimeout(open, Math.min((retry *= 2), 8000));
        return;
      }
    }
    if (stopped) return;
    source = new EventSource(`${API}/v1/games/${gameId}/events?${query}`);
    source.onopen = () => {
      retry = 500;
      onState("live");
    };
    source.addEventListener("game_event", (message) => {
      if (seen.has(message.lastEventId)) return;
      seen.add(message.lastEventId);
      const event = JSON.parse(message.data);
      lastVersion = Math.max(lastVersion, event.version);
      onEvent(message.lastEventId, event);
    });
    let failed = false; // the server reported a failure (event "error") before ending the stream
    source.addEventListener("end", () => {
      source.close();
      if (failed && !stopped) {
        // e.g. the rules service restarted: the game goes on, so follow it again.
        onState("retrying");
        setTimeout(open, Math.min((retry *= 2), 8000));
        return;
      }
      onState("ended");
      onEnd();
    });
    source.onerror = (event) => {
      if (event instanceof MessageEvent) {
        failed = true; // an `event: error` from the server; its `end` follows
        return;
      }
      if (source.readyState === EventSource.CLOSED && !stopped) {
        // The browser gave up (e.g. 401 for an expired ticket): reopen with a fresh ticket.
        onState("retrying");
        setTimeout(open, Math.min((retry *= 2), 8000));
      } else {
        onState("reconnecting");
      }
    };
  }

  open();
  return {
    close() {
      stopped = true;
      if (source) source.close();
    },
    get source() {
      return source;
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
