// A game's live events as an async iterator: stream tickets (renewed before they expire), resume
// after a cut with Last-Event-ID, back-off on failures, and a clean stop at the game's end.
import { ApiError, type Transport, call, headersOf, urlOf } from "./http.js";
import { readSse } from "./sse.js";
import type { GameEvent, StreamTicket } from "./types.js";

/** Options of `events()`. */
export interface EventOptions {
  /** Resume after this event id (`"<version>:<index>"`); the default is the game's first event. */
  after?: string;
  /** Stops the iteration (as does leaving a `for await` loop). */
  signal?: AbortSignal;
  /** Told when the stream's state changes: `live`, `reconnecting`, `ended`. */
  onState?: (state: "live" | "reconnecting" | "ended") => void;
  /** First and longest wait between reconnections, in ms (default 250 and 8000). */
  backoff?: { first?: number; max?: number };
}

// Renew a ticket this long before the server says it expires (clocks differ; a request takes time).
const TICKET_MARGIN_MS = 15_000;
// Answers that say "not now" rather than "never": retried after a wait.
const RETRIED = new Set([408, 425, 429, 500, 502, 503, 504]);

/** The id of an event as the stream writes it. */
export function eventId(event: Pick<GameEvent, "version" | "index">): string {
  return `${event.version ?? 0}:${event.index ?? 0}`;
}

/** Whether event id `a` comes after `b` (ids are `"<version>:<index>"`, compared as numbers). */
export function isAfter(a: string, b: string | undefined): boolean {
  if (!b) return true;
  const [av, ai] = a.split(":").map(Number);
  const [bv, bi] = b.split(":").map(Number);
  return av !== bv ? av > bv : ai > bi;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** What one connection ended with: the stream's end, a reason to reconnect, or the caller's stop. */
type Outcome = "done" | "retry" | "stopped";

class Follower {
  private ticket: { value: string; renewAt: number } | null = null;
  private wait: number;
  last: string | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly gameId: string,
    private readonly token: string | null,
    private readonly options: EventOptions,
    private readonly signal: AbortSignal,
  ) {
    this.last = options.after;
    this.wait = options.backoff?.first ?? 250;
  }

  /** A ticket valid for a while yet (a seat's stream), or none (a spectator's). */
  private async streamTicket(): Promise<string | undefined> {
    if (!this.token) return undefined;
    if (!this.ticket || Date.now() >= this.ticket.renewAt) {
      const path = `/v1/games/${encodeURIComponent(this.gameId)}/stream-tickets`;
      const issued = await call<StreamTicket>(this.transport, "POST", path, { token: this.token, signal: this.signal });
      const expires = Date.parse(issued.expires_at ?? "") || Date.now() + 60_000;
      this.ticket = { value: issued.ticket ?? "", renewAt: Math.max(Date.now(), expires - TICKET_MARGIN_MS) };
    }
    return this.ticket.value;
  }

  /** Wait before the next connection, longer each time until a connection delivers something. */
  async backOff(): Promise<void> {
    this.options.onState?.("reconnecting");
    await sleep(this.wait, this.signal);
    this.wait = Math.min(this.wait * 2, this.options.backoff?.max ?? 8000);
  }

  /** One connection: its events through `emit`, then whether to stop or reconnect. */
  async *connect(): AsyncGenerator<GameEvent, Outcome> {
    const language = typeof this.transport.language === "function" ? this.transport.language() : this.transport.language;
    const query = { ticket: await this.streamTicket(), lang: language };
    const headers = headersOf(this.transport, { headers: { Accept: "text/event-stream" } });
    if (this.last) headers["Last-Event-ID"] = this.last;
    const fetcher = this.transport.fetch ?? globalThis.fetch;
    const path = `/v1/games/${encodeURIComponent(this.gameId)}/events`;
    const response = await fetcher(urlOf(this.transport, path, query), { headers, signal: this.signal });
    if (response.status === 204) return "done"; // finished, and everything was seen
    if (!response.ok || !response.body) {
      const problem = await response.json().catch(() => ({}));
      if (response.status === 401 && this.token) {
        this.ticket = null; // expired or unknown: ask for another
        return "retry";
      }
      if (RETRIED.has(response.status)) return "retry";
      throw new ApiError(response.status, problem);
    }
    this.options.onState?.("live");
    let failed = false; // the server reported a failure (event "error"): its "end" is not the game's
    for await (const message of readSse(response.body)) {
      if (this.signal.aborted) return "stopped"; // messages already read are not delivered after a stop
      if (message.event === "game_event") {
        if (!isAfter(message.id, this.last)) continue; // already delivered before a cut
        this.last = message.id;
        this.wait = this.options.backoff?.first ?? 250;
        yield JSON.parse(message.data) as GameEvent;
      } else if (message.event === "error") {
        failed = true;
      } else if (message.event === "end") {
        return failed ? "retry" : "done";
      }
    }
    return "retry"; // cut without an end
  }
}

/**
 * Every event of a game from `after` on, each once and in order, across cuts and restarts, until
 * the game's stream ends (or `signal` aborts, or the loop is left).  A refusal that waiting cannot
 * mend (403, 404, a 400) is thrown as an `ApiError`.
 */
export async function* followEvents(
  transport: Transport,
  gameId: string,
  token: string | null,
  options: EventOptions = {},
): AsyncGenerator<GameEvent, void, undefined> {
  const stop = new AbortController();
  const forward = () => stop.abort();
  options.signal?.addEventListener("abort", forward, { once: true });
  if (options.signal?.aborted) stop.abort();
  const follower = new Follower(transport, gameId, token, options, stop.signal);
  try {
    while (!stop.signal.aborted) {
      let outcome: Outcome;
      try {
        outcome = yield* follower.connect();
      } catch (error) {
        if (stop.signal.aborted) return;
        if (error instanceof ApiError && !RETRIED.has(error.status)) throw error;
        outcome = "retry"; // the network failed, or the stream was cut mid-read
      }
      if (outcome === "stopped" || stop.signal.aborted) return;
      if (outcome === "done") {
        options.onState?.("ended");
        return;
      }
      await follower.backOff();
    }
  } finally {
    options.signal?.removeEventListener("abort", forward);
    stop.abort(); // leaving the loop closes the connection
  }
}
