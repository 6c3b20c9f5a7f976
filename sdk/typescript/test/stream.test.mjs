// A live stream cut three times mid-game neither loses nor repeats an event.
import assert from "node:assert/strict";
import { test } from "node:test";
import { client, cuttingProxy, gameAgainstABot, pick } from "./support.mjs";

test("a stream cut three times neither loses nor repeats an event", { timeout: 120_000 }, async () => {
  const proxy = await cuttingProxy();
  try {
    const direct = client();
    const created = await gameAgainstABot(direct, 11);
    const player = created.seats.get(0);
    // The stream goes through the proxy; moves go straight to the gateway, so a cut hits only the stream.
    const watched = client({ baseUrl: proxy.url }).game(created.gameId, player.token, 0);
    const ids = [];
    let cuts = 0;
    let playedAt = -1;
    let moves = 0;
    await watched.view(); // the game may start on our turn, before any event
    if (watched.yourTurn) {
      playedAt = watched.version;
      await player.play(pick(await player.legalMoves()), { expectedVersion: watched.version });
      moves += 1;
    }
    const signal = AbortSignal.timeout(100_000); // a stuck stream fails the test instead of hanging it
    for await (const event of watched.events({ signal, backoff: { first: 50, max: 500 } })) {
      ids.push(`${event.version}:${event.index}`);
      if (ids.length % 12 === 0 && cuts < 3) {
        assert.ok(proxy.cut() >= 2, "a connection was open to cut");
        cuts += 1;
      }
      if (watched.yourTurn && watched.version > playedAt) {
        playedAt = watched.version;
        if (cuts === 3 && moves >= 40) {
          await direct.call("POST", `/v1/games/${created.gameId}/resign`, { token: player.token });
          continue; // the stream ends with the game
        }
        await player.play(pick(await player.legalMoves()), { expectedVersion: watched.version });
        moves += 1;
      }
    }
    assert.equal(cuts, 3);
    const listed = await direct.call("GET", `/v1/games/${created.gameId}/events`, { token: player.token });
    assert.deepEqual(ids, listed.map((event) => `${event.version}:${event.index}`), "in order, none lost, none twice");
    const resumed = proxy.heads.filter((head) => /^last-event-id:/im.test(head));
    assert.ok(resumed.length >= 3, "each cut was resumed with Last-Event-ID");
    const tickets = proxy.streamTickets();
    assert.ok(tickets.length >= 4 && new Set(tickets).size === 1, "a ticket far from its expiry is used again");
  } finally {
    await proxy.close();
  }
});

test("a ticket close to its expiry is renewed before the stream is reopened", { timeout: 60_000 }, async () => {
  const proxy = await cuttingProxy();
  try {
    const direct = client();
    const created = await direct.createGame({ game_type: "darjeeling", players: [{ name: "Asha" }, { name: "Bilal" }] });
    let version = 0;
    const move = async () => {
      const seat = created.seats.get((await created.seats.get(0).view()).to_act[0]);
      version = (await seat.play(pick(await seat.legalMoves()))).version;
    };
    await move();
    // The server's tickets last about a minute: say this one expires in 5 s, within the SDK's margin.
    const soon = async (url, init) => {
      const response = await fetch(url, init);
      if (!String(url).includes("/stream-tickets")) return response;
      const ticket = { ...(await response.json()), expires_at: new Date(Date.now() + 5_000).toISOString() };
      return new Response(JSON.stringify(ticket), { status: response.status, headers: response.headers });
    };
    const watched = client({ baseUrl: proxy.url, fetch: soon }).game(created.gameId, created.seats.get(0).token, 0);
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(30_000)]);
    let cutAt = -1;
    let cuts = 0;
    for await (const event of watched.events({ signal, backoff: { first: 50, max: 200 } })) {
      if (event.version <= cutAt) continue; // what the cut connection had already delivered
      if (cuts === 2) {
        stop.abort(); // a third connection delivered the last move's events
        continue;
      }
      cutAt = version;
      proxy.cut();
      cuts += 1;
      await move(); // its events come over the next connection
    }
    assert.equal(cuts, 2);
    const tickets = proxy.streamTickets();
    assert.ok(new Set(tickets).size >= 3, `a new ticket for each connection: ${tickets}`);
  } finally {
    await proxy.close();
  }
});
