// A Darjeeling game played to its result through the SDK, following the turn from events alone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { client, pick } from "./support.mjs";

test("a Darjeeling game is played to its result, the turn followed from events alone", { timeout: 240_000 }, async () => {
  const api = client();
  const created = await api.createGame({
    game_type: "darjeeling",
    players: [{ name: "Asha" }, { name: "Bot", bot: "random" }],
    seed: 5,
  });
  const me = created.seats.get(0);
  assert.ok(me, "seat 0 has a token");
  let playedAt = -1;
  let moves = 0;
  const ids = [];
  for await (const event of me.events()) {
    ids.push(`${event.version}:${event.index}`);
    // Several events share a version: play once per version, when the events say it is our turn.
    if (me.yourTurn && me.version > playedAt) {
      playedAt = me.version;
      const legal = await me.legalMoves();
      assert.equal(legal.version, me.version, "the events are as new as the legal moves");
      await me.play(pick(legal));
      moves += 1;
    }
  }
  const game = await me.view();
  assert.equal(game.status, "finished");
  assert.ok(game.result, "a finished game has its result");
  assert.equal(me.status, "finished");
  assert.equal(me.yourTurn, false);
  assert.ok(moves > 10, `played ${moves} moves`);
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
