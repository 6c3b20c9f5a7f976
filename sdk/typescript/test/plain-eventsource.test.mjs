// A plain EventSource, no SDK: the recipe of docs/guides/frontend.md ("A plain EventSource, without
// the SDK"), followed as written with the `eventsource` package (pinned in package.json), resumes
// the player stream past its ticket's lifetime (a minute by default: CHAIWALA_STREAM_TICKET_SECONDS).
//
// * Dropped after more than a ticket's lifetime open: the EventSource reconnects by itself with the
//   same URL (its ticket is older than its lifetime, but the open stream kept it) and hears the next
//   notice; no new ticket is asked for.
// * Away for more than a lifetime: its reconnect is refused (401), it closes, and the recipe asks for
//   a new ticket and follows again after the last notice shown: the next notice arrives, nothing is
//   told twice.
//
// The lifetime is the server's, read from a ticket's `expires_at`: tests/sdk runs this file against
// a gateway whose tickets live seconds (CHAIWALA_SHORT_TICKETS_URL; else CHAIWALA_URL's minute).
// This file imports nothing from the SDK (./proxy.mjs neither).
import assert from "node:assert/strict";
import { test } from "node:test";
import { EventSource } from "eventsource";
import { cuttingProxy } from "./proxy.mjs";

const BASE = process.env.CHAIWALA_SHORT_TICKETS_URL || process.env.CHAIWALA_URL;
if (!BASE) throw new Error("set CHAIWALA_URL to a running gateway (tests/sdk starts one)");
const MARGIN_MS = 2_000; // past the lifetime by this much (Redis expires a key within a millisecond of its TTL)

/** The proxy (./proxy.mjs, no SDK), with the player stream's requests picked out of what went through it. */
async function network() {
  const proxy = await cuttingProxy(BASE);
  proxy.events = () => proxy.heads.filter((head) => head.startsWith("GET /v1/me/events"));
  return proxy;
}

async function until(what, done, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function guest(name) {
  const answer = await fetch(`${BASE}/v1/sessions`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }),
  });
  assert.equal(answer.status, 201);
  return (await answer.json()).token;
}

/** A new game of the player's against a bot: its id (the stream then tells `game_started`). */
async function newGame(playerToken) {
  const body = { game_type: "darjeeling", players: [{ me: true }, { name: "Bot", bot: "random" }] };
  const answer = await fetch(`${BASE}/v1/games`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${playerToken}` },
    body: JSON.stringify(body),
  });
  assert.equal(answer.status, 201, await answer.clone().text());
  return (await answer.json()).game_id;
}

/** The guide's recipe, word for word but for `STREAM_BASE` (the proxy) and what `show` records. */
function recipe(STREAM_BASE, playerToken) {
  const seen = { notices: [], tickets: 0, source: null, stopped: false };
  const show = (kind, data) => seen.notices.push({ kind, data });

  let lastId = "";                      // the id of the last message shown
  let ended = false;
  function follow(ticket) {
    const after = lastId ? `&after=${encodeURIComponent(lastId)}` : "";
    const source = new EventSource(`${STREAM_BASE}/v1/me/events?ticket=${encodeURIComponent(ticket)}${after}`);
    seen.source = source; // (the harness: noted, and closed if the test is over)
    if (seen.stopped) source.close();
    for (const kind of ["game_started", "your_turn", "game_finished", "invited"]) {
      source.addEventListener(kind, (m) => { lastId = m.lastEventId; show(kind, JSON.parse(m.data)); });
    }
    source.addEventListener("end", () => { ended = true; source.close(); }); // over: do not reconnect
    source.onerror = async () => {
      if (source.readyState === EventSource.CLOSED && !ended) follow(await newTicket());
    };
  }
  const newTicket = async () => {
    seen.tickets += 1;
    return (await (await fetch(`${BASE}/v1/me/stream-tickets`,
      { method: "POST", headers: { Authorization: `Bearer ${playerToken}` } })).json()).ticket;
  };
  return { seen, start: async () => follow(await newTicket()) };
}

/** Follow a guest's stream, run `steps`, and always close the EventSource and the proxy. */
async function scenario(name, steps) {
  const token = await guest(name);
  const proxy = await network();
  const client = recipe(proxy.url, token);
  try {
    await client.start();
    await until(`${name}'s stream to open`, () => client.seen.source?.readyState === EventSource.OPEN);
    const first = await newGame(token);
    await until(`${name}'s first game_started`, () => started(client, first));
    await steps({ token, proxy, client, first });
  } finally {
    client.seen.stopped = true; // a late onerror's stream is closed at once
    client.seen.source?.close();
    await proxy.close();
  }
}

const started = (client, gameId) => client.seen.notices.some((n) => n.kind === "game_started" && n.data.game_id === gameId);
const told = (client, gameId) => client.seen.notices.filter((n) => n.kind === "game_started" && n.data.game_id === gameId);

/** How long the server's player tickets live (ms): a fresh ticket's `expires_at` from now, in whole seconds. */
async function ticketLifetimeMs(playerToken) {
  const answer = await fetch(`${BASE}/v1/me/stream-tickets`, { method: "POST", headers: { Authorization: `Bearer ${playerToken}` } });
  assert.equal(answer.status, 201);
  const { expires_at: expiresAt } = await answer.json();
  return Math.max(0, Date.parse(expiresAt) - Date.now()) + 1_000; // the server rounds its clock down
}

const droppedAfterItsLifetime = () => scenario("Asha", async ({ token, proxy, client, first }) => {
  const lifetime = await ticketLifetimeMs(token); // asked after the recipe's ticket: at least as long as its
  await new Promise((resolve) => setTimeout(resolve, lifetime + MARGIN_MS)); // the ticket's first lifetime is over
  const opened = proxy.events().length;
  proxy.cut();
  await until("the EventSource to reconnect by itself", () => proxy.events().length > opened);
  await until("the reconnected stream to open", () => client.seen.source.readyState === EventSource.OPEN);
  const second = await newGame(token);
  await until("the next game_started", () => started(client, second));
  assert.equal(client.seen.tickets, 1, "the reconnect got in with the first ticket");
  assert.match(proxy.events().at(-1).toLowerCase(), /\r\nlast-event-id: \d+-\d+\r\n/);
  assert.equal(proxy.events()[0].split(" ")[1], proxy.events().at(-1).split(" ")[1], "the same URL");
  assert.equal(told(client, first).length, 1);
});

const awayForMoreThanItsLifetime = () => scenario("Bilal", async ({ token, proxy, client, first }) => {
  const lifetime = await ticketLifetimeMs(token);
  proxy.away = true;
  proxy.cut();
  await new Promise((resolve) => setTimeout(resolve, lifetime + MARGIN_MS)); // no stream keeps the ticket now
  proxy.away = false;
  await until("a new ticket after the refused reconnect", () => client.seen.tickets === 2, 60_000);
  await until("the stream to open again", () => client.seen.source.readyState === EventSource.OPEN);
  const second = await newGame(token);
  await until("the next game_started", () => started(client, second));
  const ids = client.seen.notices.map((n) => `${n.kind}:${n.data.game_id}:${n.data.version ?? ""}`);
  assert.equal(new Set(ids).size, ids.length, `nothing told twice: ${ids}`);
  assert.equal(told(client, first).length, 1);
});

test("a plain EventSource following the guide resumes past its ticket's first lifetime", { timeout: 180_000 }, async () => {
  await Promise.all([droppedAfterItsLifetime(), awayForMoreThanItsLifetime()]);
});
