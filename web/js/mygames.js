// "My games": the games this browser created or joined, with their seat and host tokens,
// kept in localStorage (tokens are returned once by the API and never again).

const KEY = "chaiwala.games";

/** Every remembered game, newest first: `{gameId, gameType, seats: {seat: token}, hostToken, name, at}`. */
export function myGames() {
  try {
    const games = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(games) ? games : [];
  } catch {
    return [];
  }
}

function save(games) {
  localStorage.setItem(KEY, JSON.stringify(games.slice(0, 200)));
}

/** Remember a seat token (and the host token, if any) of one game. */
export function remember(gameId, gameType, seat, token, { hostToken = null, name = "" } = {}) {
  const games = myGames();
  let game = games.find((g) => g.gameId === gameId);
  if (!game) {
    game = { gameId, gameType, seats: {}, hostToken: null, name, at: new Date().toISOString() };
    games.unshift(game);
  }
  if (token) game.seats[String(seat)] = token;
  if (hostToken) game.hostToken = hostToken;
  save(games);
}

/** The seats this browser holds in a game, as `[[seat, token], ...]` ordered by seat. */
export function seatsIn(gameId) {
  const game = myGames().find((g) => g.gameId === gameId);
  if (!game) return [];
  return Object.entries(game.seats)
    .map(([seat, token]) => [Number(seat), token])
    .sort((a, b) => a[0] - b[0]);
}

export function hostTokenOf(gameId) {
  const game = myGames().find((g) => g.gameId === gameId);
  return game ? game.hostToken : null;
}

export function forget(gameId) {
  save(myGames().filter((g) => g.gameId !== gameId));
}

// ---- "My games" as listed: each game's status and whose turn, the player's turn first ----------

const GROUP = { active: 1, waiting: 2, finished: 3, aborted: 3 };

/** A listed game's group: 0 your turn, 1 other active, 2 waiting for players, 3 over (as GET /v1/me/games). */
export function groupOf(row) {
  return row.yourTurn ? 0 : (GROUP[row.status] ?? 1);
}

/**
 * A listed game from GET /v1/me/games: `{gameId, gameType, status, yourTurn, names, at, version}`, and
 * what the entry says beside: `deadline` (clocked and the player's turn), `lastActivity`, and the
 * player's `place` and whether they `won` once finished (one request for the whole list).
 */
export function fromServer(g) {
  const result = g.result || null;
  return {
    gameId: g.game_id, gameType: g.game_type, status: g.status, yourTurn: Boolean(g.your_turn), names: g.names || [],
    at: g.created_at || "", version: g.version ?? 0, deadline: g.deadline || "", lastActivity: g.last_activity_at || "",
    place: result ? (result.ranking || [])[g.seat] ?? null : null, won: result ? (result.winners || []).includes(g.seat) : false,
  };
}

/** A listed game from GET /v1/games/{id} read with one of this browser's seat tokens. */
export function fromGame(kept, game) {
  const held = Object.keys(kept.seats).map(Number);
  const yourTurn = game.status === "active" && (game.to_act || []).some((s) => held.includes(s));
  const names = (game.seats || []).map((s) => (s.open ? "" : s.name));
  return { gameId: kept.gameId, gameType: game.game_type, status: game.status, yourTurn, names, at: kept.at || "", version: game.version ?? 0 };
}

/**
 * Your turn first, then active, waiting and ended games; within a group the game the player
 * stream last changed first (`noticed`), then the newest.
 */
export function sortListed(rows) {
  return [...rows].sort(
    (a, b) => groupOf(a) - groupOf(b) || (b.noticed || 0) - (a.noticed || 0) || String(b.at).localeCompare(String(a.at)),
  );
}

const OVER = new Set(["finished", "aborted"]);
let noticedCount = 0;

/** One listed game after a notice of the player stream, or null when the notice changes nothing. */
function noticed(row, { kind, data }) {
  if (OVER.has(row.status)) return null; // an ended game stays ended, whatever arrives late
  if (kind === "your_turn") {
    // A notice no newer than what the list read is old news (a replay, or the player moved since).
    if (row.yourTurn || data.version <= (row.version ?? -1)) return null;
    return { ...row, status: "active", yourTurn: true, version: data.version, deadline: data.deadline || "" };
  }
  if (kind === "game_started") return row.status === "waiting" ? { ...row, status: "active" } : null;
  if (kind === "game_finished") {
    const result = data.result || null;  // the player's place from the notice, as GET /v1/me/games gives it
    const place = result ? (result.ranking || [])[data.seat] ?? null : null;
    return { ...row, status: data.status, yourTurn: false, deadline: "", place, won: Boolean(result && (result.winners || []).includes(data.seat)) };
  }
  return null; // invited: the game is listed already
}

/**
 * The listed games after one notice of the player stream (`{kind, data}`): `{rows, unknown}`,
 * `unknown` when the notice is about a game not listed (the list must be read again to show it).
 */
export function applyNotice(rows, notice) {
  const index = rows.findIndex((row) => row.gameId === notice.data.game_id);
  if (index < 0) return { rows, unknown: true };
  const changed = noticed(rows[index], notice);
  if (!changed) return { rows, unknown: false };
  noticedCount += 1;
  const next = rows.map((row, i) => (i === index ? { ...changed, noticed: noticedCount } : row));
  return { rows: sortListed(next), unknown: false };
}
