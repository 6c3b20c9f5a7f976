// The player's stream (`GET /v1/me/events`): everything that concerns one player across all their
// games, as an async iterator on the shared stream machinery (follow.ts) with the player's own
// tickets (`POST /v1/me/stream-tickets`).
import { type StreamOptions, follow } from "./follow.js";
import type { Transport } from "./http.js";
import type { PlayerEvent, PlayerEventKind } from "./types.js";

/**
 * Options of `myEvents()`: resume `after` an id the stream sent (a `PlayerEvent`'s `id`), default
 * the start of the player's feed (the server keeps about its last thousand notices).
 */
export type PlayerEventOptions = StreamOptions;

/** The kinds of notice the player stream sends, as the AsyncAPI document names its messages. */
export const PLAYER_EVENT_KINDS: readonly PlayerEventKind[] = [
  "game_started",
  "your_turn",
  "game_finished",
  "invited",
  "match_found",
];
const KINDS = new Set<string>(PLAYER_EVENT_KINDS);
const CURSOR = /^(\d+)-(\d+)$/;

/** Whether player stream id `a` (`"<ms>-<seq>"`) comes after `b` (as pairs of whole numbers). */
export function isAfterCursor(a: string, b: string | undefined): boolean {
  const later = CURSOR.exec(a);
  const earlier = b ? CURSOR.exec(b) : null;
  if (!later || !earlier) return true; // nothing seen yet (or an id of another shape: never dropped)
  const [am, as, bm, bs] = [later[1], later[2], earlier[1], earlier[2]].map(BigInt); // 20 digits outgrow a double
  return am !== bm ? am > bm : as > bs;
}

/**
 * The notices of `token`'s player from `options.after` on, each once and in order, across cuts.
 * It ends (state `ended`) when the server closes the stream because the token behind it expired:
 * refresh the token and follow again `after` the last id seen.  A refusal (a bad or missing
 * token, a malformed `after`) is thrown as an `ApiError`.
 */
export function followPlayerEvents(
  transport: Transport,
  token: string | null,
  options: PlayerEventOptions = {},
): AsyncGenerator<PlayerEvent, void, undefined> {
  return follow<PlayerEvent>(
    transport,
    {
      eventsPath: "/v1/me/events",
      ticketPath: "/v1/me/stream-tickets",
      token,
      item: (message) =>
        KINDS.has(message.event)
          ? ({ id: message.id, kind: message.event, data: JSON.parse(message.data) } as PlayerEvent)
          : undefined,
      isAfter: isAfterCursor,
    },
    options,
  );
}
