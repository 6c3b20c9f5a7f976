// The player stream through the SDK: one stream for all a guest's games, and a cut one resumed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../dist/index.js";
import { client, cuttingProxy } from "./support.mjs";

/** Two guests; `start(asha, bilal)` makes a Darjeeling game where Asha (seat 0) is to act once Bilal joins. */
async function guests() {
  const asha = client();
  await asha.guestSession({ name: "Asha" });
  const bilal = client();
  await bilal.guestSession({ name: "Bilal" });
  const start = async () => {
    const players = [{ me: true }, { open: true }];
    const { gameId } = await asha.createGame({ game_type: "darjeeling", players, options: { start_player: 0 } });
    await bilal.joinGame(gameId, {});
    return gameId;
  };
  return { asha, bilal, start };
}

test("one player stream tells a guest it is their turn in each of three games, and when one ends", { timeout: 60_000 }, async () => {
  const { asha, start } = await guests();
  const games = [await start(), await start(), await start()];
  const listed = await asha.myGames();
  assert.deepEqual(new Set(listed.games.filter((g) => g.your_turn).map((g) => g.game_id)), new Set(games));
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(45_000)]);
  const started = new Set();
  const turns = new Map();
  let finished = null;
  const states = [];
  for await (const notice of asha.myEvents({ signal, onState: (state) => states.push(state) })) {
    if (notice.kind === "game_started") started.add(notice.data.game_id);
    if (notice.kind === "your_turn") {
      assert.ok(started.has(notice.data.game_id), "a game's start comes before its first turn");
      turns.set(notice.data.game_id, notice.data);
      if (turns.size === games.length) {
        // Every turn told: Asha resigns one game, and the stream says it is over.
        await asha.call("POST", `/v1/games/${games[1]}/resign`);
      }
    }
    if (notice.kind === "game_finished") {
      finished = notice.data;
      stop.abort();
    }
  }
  assert.deepEqual([...turns.keys()].sort(), [...games].sort());
  for (const turn of turns.values()) {
    assert.equal(turn.seat, 0);
    assert.equal(turn.game_type, "darjeeling");
    assert.equal(turn.version, 0);
  }
  assert.equal(finished?.game_id, games[1]);
  assert.equal(finished?.status, "finished");
  assert.deepEqual(states, ["live"], "one connection, never cut");
});

test("a player stream cut three times neither loses nor repeats a notice", { timeout: 90_000 }, async () => {
  const proxy = await cuttingProxy();
  try {
    const { asha, start } = await guests();
    await start(); // its two notices are in the feed before the stream opens
    // The stream goes through the proxy; games are made straight at the gateway, so a cut hits only the stream.
    const watching = client({ baseUrl: proxy.url, token: asha.token });
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(75_000)]);
    const ids = [];
    let cuts = 0;
    for await (const notice of watching.myEvents({ signal, backoff: { first: 50, max: 500 } })) {
      ids.push(notice.id);
      if (notice.kind !== "your_turn") continue;
      if (cuts === 3) {
        stop.abort(); // the fourth game's turn came over the fourth connection
        continue;
      }
      assert.ok(proxy.cut() >= 2, "a connection was open to cut");
      cuts += 1;
      await start(); // its notices come over the next connection
    }
    assert.equal(cuts, 3);
    const feed = await asha.call("GET", "/v1/me/events"); // without text/event-stream: the feed as a JSON list
    assert.equal(feed.length, 8, "two notices for each of four games");
    assert.deepEqual(ids, feed.map((entry) => entry.id), "in order, none lost, none twice");
    const resumed = proxy.heads.filter((head) => /^GET \/v1\/me\/events/.test(head) && /^last-event-id: \d+-\d+/im.test(head));
    assert.equal(resumed.length, 3, "each cut was resumed with Last-Event-ID");
    const tickets = proxy.streamTickets();
    assert.ok(tickets.length === 4 && new Set(tickets).size === 1, `a ticket far from its expiry is used again: ${tickets}`);
  } finally {
    await proxy.close();
  }
});

test("the player stream refuses a caller without a player token", { timeout: 20_000 }, async () => {
  const nobody = client();
  await assert.rejects(
    async () => {
      for await (const notice of nobody.myEvents()) assert.fail(`nothing is told to nobody: ${notice.kind}`);
    },
    (error) => error instanceof ApiError && error.status === 401,
  );
  const asha = client();
  await asha.guestSession({ name: "Asha" });
  await assert.rejects(
    async () => {
      for await (const notice of asha.myEvents({ after: "not-an-id" })) assert.fail(`refused: ${notice.kind}`);
    },
    (error) => error instanceof ApiError && error.status === 400 && error.code === "bad_after",
  );
});
