// A Darjeeling game played to its result through the SDK, following the turn from events alone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { client, gameAgainstABot, pick } from "./support.mjs";

test("a Darjeeling game is played to its result, each turn announced by the events", { timeout: 240_000 }, async () => {
  const api = client();
  const created = await gameAgainstABot(api, 5);
  const me = created.seats.get(0);
  assert.ok(me, "seat 0 has a token");
  let moves = 0;
  let fromEvents = 0;
  const ids = [];
  let last = null;
  const onEvent = (event) => {
    ids.push(`${event.version}:${event.index}`);
    last = event;
  };
  // A stuck stream fails the test instead of hanging it.
  for await (const legal of me.turns({ onEvent, signal: AbortSignal.timeout(200_000) })) {
    if (last) {
      // Past the first view, each turn is announced by an event: the newest one says it is ours.
      assert.equal(last.your_turn, true);
      // (A bot acting at the same time, as in the opening, may have moved on since.)
      assert.ok(legal.version >= last.version, "the events are no newer than the game");
      fromEvents += 1;
    }
    await me.play(pick(legal));
    moves += 1;
  }
  const game = await me.view();
  assert.equal(game.status, "finished");
  assert.ok(game.result, "a finished game has its result");
  assert.equal(me.status, "finished");
  assert.equal(me.yourTurn, false);
  assert.ok(moves > 10 && fromEvents >= moves - 1, `played ${moves} moves, ${fromEvents} announced by events`);
  // The whole log, each event once: the same list the JSON listing gives.
  const listed = await api.call("GET", `/v1/games/${created.gameId}/events`, { token: me.token });
  assert.deepEqual(ids, listed.map((event) => `${event.version}:${event.index}`));
  // A finished game's stream after its last event is 204: the iterator ends at once.
  const after = [];
  for await (const event of me.events({ after: ids.at(-1) })) after.push(event);
  assert.deepEqual(after, []);
});

test("a move for an old version is refused, and a retried key is applied once", async () => {
  const api = client();
  const created = await api.createGame({ game_type: "darjeeling", players: [{ name: "Asha" }, { name: "Bilal" }] });
  const seat = (await created.seats.get(0).view()).to_act[0];
  const handle = created.seats.get(seat);
  const legal = await handle.legalMoves();
  const move = pick(legal);
  const first = await handle.play(move, { key: "k-1", expectedVersion: legal.version });
  const again = await handle.play(move, { key: "k-1", expectedVersion: legal.version });
  assert.equal(again.version, first.version, "the same key answers the first submission again");
  const other = created.seats.get(1 - seat);
  await assert.rejects(other.play(move, { expectedVersion: legal.version }), (error) => error.status === 409 || error.status === 400 || error.status === 403);
});

test("a guest session, its refresh and /v1/me", async () => {
  const api = client();
  const session = await api.guestSession({ name: "Chandra" });
  assert.ok(session.player_id && session.token && session.expires_at);
  const me = await api.me();
  assert.equal(me.player_id, session.player_id);
  const refreshed = await api.refreshSession();
  assert.equal(refreshed.player_id, session.player_id);
  assert.equal(api.token, refreshed.token);
  assert.equal((await api.me()).player_id, session.player_id);
});

test("turns() and play() take at most two requests per turn, one per step of a turn", { timeout: 120_000 }, async () => {
  const sent = [];
  const counting = (input, init) => {
    const url = new URL(typeof input === "string" ? input : input.url);
    if (!/\/(events|stream-tickets)$/.test(url.pathname)) sent.push(`${init?.method ?? "GET"} ${url.pathname}${url.search}`);
    return fetch(input, init);
  };
  const api = client({ fetch: counting });
  const created = await api.createGame({
    game_type: "darjeeling",
    players: [{ name: "Asha" }, { name: "Bot", bot: "random" }],
    seed_hex: "0000000000000000000000000000002b",
  });
  sent.length = 0; // from here on: the game's requests
  const me = created.seats.get(0);
  let turns = 0;
  let steps = 0;
  let before = 0;
  for await (const legal of me.turns({ signal: AbortSignal.timeout(100_000) })) {
    const asked = sent.slice(before);
    // Each yield is one request at most: the first view, or the legal moves after others moved
    // (none for the next step of the seat's own turn: the play() answer carried them).
    assert.ok(asked.length <= 1, JSON.stringify(asked));
    if (asked.length === 0) steps += 1;
    const answer = await me.play(pick(legal));
    assert.ok(answer.status !== "active" || answer.legal_moves, "an active game's answer carries the legal moves");
    turns += 1;
    before = sent.length; // the next yield's request, if any, is this turn's second
    assert.ok(sent.at(-1).startsWith("POST ") && sent.at(-1).includes("include=legal_moves"), sent.at(-1));
    if (turns >= 12 || answer.status !== "active") break;
  }
  assert.ok(sent[0].startsWith("GET ") && sent[0].includes("include=legal_moves"), sent[0]);
  assert.equal(sent.filter((r) => r.includes("/legal-moves")).length + 1, sent.filter((r) => r.startsWith("GET ")).length);
  assert.ok(sent.length <= 2 * turns + 1, `${sent.length} requests for ${turns} moves: ${JSON.stringify(sent)}`);
  assert.ok(steps > 0, "a step of a turn came from the play() answer alone");
});
