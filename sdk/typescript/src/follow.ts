// What every live stream of the API shares: stream tickets (renewed before they expire), resume
// after a cut with Last-Event-ID, back-off on failures, and a clean stop.  A game's events
// (events.ts) and the player's stream (player.ts) are this machinery with their own paths, their
// own message names and their own order of ids.
import { ApiError, type Transport, call, headersOf, urlOf } from "./http.js";
import { type SseMessage, readSse } from "./sse.js";
import type { StreamTicket } from "./types.js";

/** What a stream's state can become: `live`, `reconnecting`, `ended`. */
export type StreamState = "live" | "reconnecting" | "ended";

/** Options of a followed stream (`events()`, `myEvents()`). */
export interface StreamOptions {
  /** Resume after this event id; the default is the stream's first event. */
  after?: string;
  /** Stops the iteration (as does leaving a `for await` loop). */
  signal?: AbortSignal;
  /** Told when the stream's state changes: `live`, `reconnecting`, `ended`. */
  onState?: (state: StreamState) => void;
  /** First and longest wait between reconnections, in ms (default 250 and 8000). */
  backoff?: { first?: number; max?: number };
}

/** What makes one stream: where to read it, where its tickets come from, what its items are. */
export interface StreamSpec<T> {
  /** The stream's path, e.g. `/v1/games/{id}/events`. */
  eventsPath: string;
  /** Where a ticket for it is asked (`POST`), with `token` as the bearer. */
  ticketPath: string;
  /** The bearer behind the tickets; none opens the stream without a credential (a spectator). */
  token: string | null;
  /** The item a message carries, or undefined for a message that is none (`end`, `error` are handled here). */
  item(message: SseMessage): T | undefined;
  /** Whether id `a` comes after id `b` (undefined `b`: nothing seen yet). */
  isAfter(a: string, b: string | undefined): boolean;
}

// Renew a ticket this long before the server says it expires (clocks differ; a request takes time).
const TICKET_MARGIN_MS = 15_000;
// Answers that say "not now" rather than "never": retried after a wait.
const RETRIED = new Set([408, 425, 429, 500, 502, 503, 504]);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** What one connection ended with: the stream's end, a reason to reconnect, or the caller's stop. */
type Outcome = "done" | "retry" | "stopped";

class Follower<T> {
  private ticket: { value: string; renewAt: number } | null = null;
  private wait: number;
  last: string | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly spec: StreamSpec<T>,
    private readonly options: StreamOptions,
    private readonly signal: AbortSignal,
  ) {
    this.last = options.after;
    this.wait = options.backoff?.first ?? 250;
  }

  /** A ticket valid for a while yet, or none when there is no bearer to ask with. */
  private async streamTicket(): Promise<string | undefined> {
    const { token } = this.spec;
    if (!token) return undefined;
    if (!this.ticket || Date.now() >= this.ticket.renewAt) {
      const issued = await call<StreamTicket>(this.transport, "POST", this.spec.ticketPath, { token, signal: this.signal });
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

  /** One connection: its items, then whether to stop or reconnect. */
  async *connect(): AsyncGenerator<T, Outcome> {
    const language = typeof this.transport.language === "function" ? this.transport.language() : this.transport.language;
    const query = { ticket: await this.streamTicket(), lang: language };
    const headers = headersOf(this.transport, { headers: { Accept: "text/event-stream" } });
    if (this.last) headers["Last-Event-ID"] = this.last;
    const fetcher = this.transport.fetch ?? globalThis.fetch;
    const response = await fetcher(urlOf(this.transport, this.spec.eventsPath, query), { headers, signal: this.signal });
    if (response.status === 204) return "done"; // finished, and everything was seen
    if (!response.ok || !response.body) {
      const problem = await response.json().catch(() => ({}));
      if (response.status === 401 && this.spec.token) {
        this.ticket = null; // expired or unknown: ask for another
        return "retry";
      }
      if (RETRIED.has(response.status)) return "retry";
      throw new ApiError(response.status, problem);
    }
    this.options.onState?.("live");
    let failed = false; // the server reported a failure (event "error"): its "end" is not the stream's
    for await (const message of readSse(response.body)) {
      if (this.signal.aborted) return "stopped"; // messages already read are not delivered after a stop
      if (message.event === "error") {
        failed = true;
      } else if (message.event === "end") {
        return failed ? "retry" : "done";
      } else {
        const item = this.spec.item(message);
        if (item === undefined || !this.spec.isAfter(message.id, this.last)) continue; // seen before a cut
        this.last = message.id;
        this.wait = this.options.backoff?.first ?? 250;
        yield item;
      }
    }
    return "retry"; // cut without an end
  }
}

/**
 * Every item of a stream from `options.after` on, each once and in order, across cuts and
 * restarts, until the stream ends (or `signal` aborts, or the loop is left).  A refusal that
 * waiting cannot mend (401 without a bearer, 403, 404, a 400) is thrown as an `ApiError`.
 */
export async function* follow<T>(
  transport: Transport,
  spec: StreamSpec<T>,
  options: StreamOptions = {},
): AsyncGenerator<T, void, undefined> {
  const stop = new AbortController();
  const forward = () => stop.abort();
  options.signal?.addEventListener("abort", forward, { once: true });
  if (options.signal?.aborted) stop.abort();
  const follower = new Follower(transport, spec, options, stop.signal);
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
