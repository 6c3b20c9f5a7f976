// A live stream cut three times mid-game neither loses nor repeats an event.
import assert from "node:assert/strict";
import { test } from "node:test";
import { client, cuttingProxy, pick } from "./support.mjs";

test("a stream cut three times neither loses nor repeats an event", { timeout: 120_000 }, async () => {
  const proxy = await cuttingProxy();
  try {
    const direct = client();
    const created = await direct.createGame({
      game_type: "darjeeling",
      players: [{ name: "Asha" }, { name: "Bot", bot: "random" }],
      seed: 11,
    });
    const player = created.seats.get(0);
    // The stream goes through the proxy; moves go straight to the gateway, so a cut hits only the stream.
    const watched = client({ baseUrl: proxy.url }).game(created.gameId, player.token, 0);
    const ids = [];
    let cuts = 0;
    let playedAt = -1;
    let moves = 0;
    for await (const event of watched.events({ backoff: { first: 50, max: 500 } })) {
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
  } finally {
    await proxy.close();
  }
});
