// A game's live events as an async iterator: the shared stream machinery (follow.ts: tickets
// renewed before they expire, resume after a cut with Last-Event-ID, back-off, a clean stop) on
// `GET /v1/games/{id}/events`, ending with the game's stream.
import { type StreamOptions, follow } from "./follow.js";
import type { Transport } from "./http.js";
import type { GameEvent } from "./types.js";

/** Options of `events()`: resume `after` an event id (`"<version>:<index>"`), default the game's first. */
export type EventOptions = StreamOptions;

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

/**
 * Every event of a game from `after` on, each once and in order, across cuts and restarts, until
 * the game's stream ends (or `signal` aborts, or the loop is left).  A refusal that waiting cannot
 * mend (403, 404, a 400) is thrown as an `ApiError`.
 */
export function followEvents(
  transport: Transport,
  gameId: string,
  token: string | null,
  options: EventOptions = {},
): AsyncGenerator<GameEvent, void, undefined> {
  const game = `/v1/games/${encodeURIComponent(gameId)}`;
  return follow<GameEvent>(
    transport,
    {
      eventsPath: `${game}/events`,
      ticketPath: `${game}/stream-tickets`,
      token,
      item: (message) => (message.event === "game_event" ? (JSON.parse(message.data) as GameEvent) : undefined),
      isAfter,
    },
    options,
  );
}
