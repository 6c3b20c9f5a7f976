// Quick play through the SDK against the real stack (its matchmaker runs with short waits).
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../dist/index.js";
import { client } from "./support.mjs";

// A time control of its own, so these tickets are alone in their pool.
const POOL = { game_type: "darjeeling", player_counts: [2], time_control: { per_turn_s: 7001 + (process.pid % 500) } };

test("two players' quickPlay resolve to the two seats of one game", { timeout: 60_000 }, async () => {
  const asha = client();
  const asha_session = await asha.guestSession({ name: "Asha" });
  const bilal = client();
  const bilal_session = await bilal.guestSession({ name: "Bilal" });
  const seen = [];
  const [a, b] = await Promise.all([
    asha.quickPlay(POOL, { onTicket: (ticket) => seen.push(ticket.status) }),
    bilal.quickPlay(POOL),
  ]);
  assert.equal(seen[0], "searching");
  assert.equal(a.gameId, b.gameId);
  assert.deepEqual([a.seat, b.seat].sort(), [0, 1]);
  const view = await a.view(); // the player's token acts on their seat
  assert.equal(view.viewer_seat, a.seat);
  assert.equal(view.seats[a.seat].external_id, asha_session.player_id);
  assert.equal(view.seats[b.seat].external_id, bilal_session.player_id);
  const mine = await asha.myTickets();
  assert.equal(mine.tickets[0].status, "matched");
  assert.equal(mine.tickets[0].game_id, a.gameId);
});

test("quickPlay is cancelled by its signal, and the ticket with it", { timeout: 30_000 }, async () => {
  const carol = client();
  await carol.guestSession({ name: "Carol" });
  const stop = new AbortController();
  let ticketId = "";
  const search = carol.quickPlay({ ...POOL, player_counts: [4] }, {
    signal: stop.signal,
    onTicket: (ticket) => {
      ticketId = ticket.ticket_id;
      stop.abort();
    },
  });
  await assert.rejects(search, (error) => error.name === "AbortError");
  assert.equal((await carol.ticket(ticketId)).status, "cancelled");
});

test("a guest asking for a rated pool is refused", async () => {
  const dev = client();
  await dev.guestSession({ name: "Dev" });
  await assert.rejects(dev.quickPlay({ ...POOL, rated: true }), (error) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 403);
    assert.equal(error.code, "identity_not_rated");
    return true;
  });
});
