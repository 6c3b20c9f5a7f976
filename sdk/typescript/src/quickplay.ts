// Quick play: a matchmaking ticket followed until the server seats the player, then the game's handle.
// The player stream (`match_found`) says it at once; the ticket is also read now and then, because the
// stream never says a ticket expired.
import { GameHandle } from "./game.js";
import { ApiError, type Transport, call } from "./http.js";
import { followPlayerEvents } from "./player.js";
import type { CreateTicketBody, Ticket } from "./types.js";

/** Options of `quickPlay()`. */
export interface QuickPlayOptions {
  /** Cancels the search: the ticket is cancelled and the promise rejects with an `AbortError`. */
  signal?: AbortSignal;
  /** Told the ticket as it stands: once made, then at every read (`waited_ms`, `pool_searching`). */
  onTicket?: (ticket: Ticket) => void;
  /** How often the ticket is read, in ms (default 2000). */
  pollMs?: number;
}

function ticketPath(ticketId: string): string {
  return `/v1/matchmaking/tickets/${encodeURIComponent(ticketId)}`;
}

function aborted(): Error {
  const error = new Error("quick play was cancelled");
  error.name = "AbortError";
  return error;
}

/** Resolves when the ticket is matched (its game id and seat), rejects when it ended otherwise. */
function settled(ticket: Ticket): { gameId: string; seat: number } | null {
  if (ticket.status === "matched") return { gameId: ticket.game_id ?? "", seat: ticket.seat ?? 0 };
  if (ticket.status === "cancelled" || ticket.status === "expired") {
    throw new ApiError(409, { code: `ticket_${ticket.status}`, detail: `the ticket was ${ticket.status}` });
  }
  return null;
}

/** Wait `ms`, or less when `signal` aborts (its listener removed either way: no pile of listeners). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

async function watchStream(transport: Transport, token: string | null, ticketId: string, signal: AbortSignal) {
  for await (const notice of followPlayerEvents(transport, token, { signal })) {
    if (notice.kind === "match_found" && notice.data.ticket_id === ticketId) {
      return { gameId: notice.data.game_id, seat: notice.data.seat };
    }
  }
  return null; // stopped (another watcher won, or the search was cancelled)
}

async function watchTicket(transport: Transport, token: string | null, ticketId: string, signal: AbortSignal,
                           options: QuickPlayOptions) {
  while (!signal.aborted) {
    await pause(options.pollMs ?? 2000, signal);
    if (signal.aborted) break;
    const ticket = await call<Ticket>(transport, "GET", ticketPath(ticketId), { token });
    options.onTicket?.(ticket);
    const found = settled(ticket);
    if (found) return found;
  }
  return null;
}

/**
 * Ask for a game (`POST /v1/matchmaking/tickets` with `token`, a player token) and wait until the
 * matchmaker seats the player: the handle of that seat in the new game.  Aborting `signal` cancels the
 * ticket; when the ticket was matched before the cancellation reached the server, the game wins and
 * the promise resolves with it.  A ticket that expires rejects with an `ApiError` `ticket_expired`.
 */
export async function quickPlay(transport: Transport, token: string | null, body: CreateTicketBody,
                                options: QuickPlayOptions = {}): Promise<GameHandle> {
  const ticket = await call<Ticket>(transport, "POST", "/v1/matchmaking/tickets", { body, token });
  const ticketId = ticket.ticket_id ?? "";
  options.onTicket?.(ticket);
  const stop = new AbortController();
  const cancelled = new Promise<null>((resolve) => {
    if (options.signal?.aborted) resolve(null);
    options.signal?.addEventListener("abort", () => resolve(null), { once: true });
  });
  try {
    const found = await Promise.race([
      watchStream(transport, token, ticketId, stop.signal),
      watchTicket(transport, token, ticketId, stop.signal, options),
      cancelled,
    ]);
    if (found) return new GameHandle(transport, found.gameId, token, found.seat);
    return await cancel(transport, token, ticketId);
  } finally {
    stop.abort();
  }
}

/** Cancel the ticket; a ticket matched meanwhile gives its game instead. */
async function cancel(transport: Transport, token: string | null, ticketId: string): Promise<GameHandle> {
  try {
    await call<Ticket>(transport, "DELETE", ticketPath(ticketId), { token });
  } catch (error) {
    if (!(error instanceof ApiError && error.code === "ticket_not_searching")) throw error;
    const ticket = await call<Ticket>(transport, "GET", ticketPath(ticketId), { token });
    const found = settled(ticket);
    if (found) return new GameHandle(transport, found.gameId, token, found.seat);
  }
  throw aborted();
}
