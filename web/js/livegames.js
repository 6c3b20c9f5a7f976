// "My games" kept live: read once (the player's games from GET /v1/me/games, and the games this
// browser holds seat tokens for), then changed by the player stream (GET /v1/me/events through
// the SDK: one connection for all the player's games) — a game where it becomes the player's turn
// moves to the top, marked; a finished one moves to the ended group; a game the list does not
// know yet (a started or invited one) makes the list be read once more.  While the stream is
// down, the lobby's refresh reads the list again instead, as it did before the stream existed.
import { call, followPlayer } from "./api.js";
import { applyNotice, fromGame, fromServer, myGames, remember, sortListed } from "./mygames.js";
import { ensurePlayer, playerToken, serverGames } from "./player.js";

// Games only this browser knows (seat tokens without the player's id) are read one by one: the newest few.
const LOCAL_READS = 20;
// Read once per page: games that are over (their status no longer changes) and games that could
// not be read (gone, or refused: a stale token retried every refresh would count as failed
// authentications against this address and end in 429s).
const settled = new Map();
const unreadable = new Set();
// Where the player stream was left (per player): a later visit resumes there instead of replaying
// the whole feed.  Replayed notices are harmless all the same (applyNotice ignores old news).
const CURSOR_KEY = "chaiwala.feed";

async function readKept(kept) {
  if (settled.has(kept.gameId)) return settled.get(kept.gameId);
  if (unreadable.has(kept.gameId)) return null;
  const [, token] = Object.entries(kept.seats)[0];
  for (const bearer of [null, token]) {  // as a spectator first (no credential to fail), then as the seat
    try {
      const row = fromGame(kept, await call("GET", `/v1/games/${kept.gameId}`, { token: bearer }));
      if (row.status === "finished" || row.status === "aborted") settled.set(kept.gameId, row);
      return row;
    } catch {
      // private (the seat may read it), gone (retention) or a stale token: left out
    }
  }
  unreadable.add(kept.gameId);
  return null;
}

/** This browser's games that the player's list does not hold (`known`: the ids it holds). */
async function localRows(known) {
  const others = myGames().filter((g) => Object.keys(g.seats).length && !known.has(g.gameId)).slice(0, LOCAL_READS);
  return (await Promise.all(others.map(readKept))).filter(Boolean);
}

/**
 * The player's games (GET /v1/me/games, any browser's; marked `server`) and, unless `local` is
 * false, this browser's others, in listing order.
 */
export async function listedGames(local = true) {
  const found = await serverGames().catch(() => []);
  const token = playerToken();
  found.forEach((g) => remember(g.game_id, g.game_type, g.seat, token, {}));  // the player token acts for their seat
  const server = found.map((g) => ({ ...fromServer(g), server: true }));
  const others = local ? await localRows(new Set(found.map((g) => g.game_id))) : [];
  return sortListed([...server, ...others]);
}

function keptCursor(playerId) {
  try {
    const kept = JSON.parse(localStorage.getItem(CURSOR_KEY) || "null");
    return kept && kept.player_id === playerId ? kept.after : undefined;
  } catch {
    return undefined;
  }
}

/**
 * "My games" of the lobby (and the player's other games, seen from a table): `onRows(rows)` hears
 * the list each time it changes, `onReading(bool)` whether the whole list is being read; `stop()`
 * closes the stream.  `local: false` leaves out the games only this browser's seat tokens know
 * (the player stream never tells of those).
 */
export class LiveGames {
  constructor(onRows, { local = true, onReading = () => {} } = {}) {
    this.onRows = onRows;
    this.onReading = onReading;
    this.local = local;
    this.rows = null;
    this.live = false; // the player stream is open: the list follows it, not the lobby's refresh
    this.stream = null;
    this.stopped = false;
    this.reading = null; // a read of the whole list under way
    this.again = false; // another read is due when it ends
    this.pending = null; // notices heard while it is under way: applied again on top of its answer
    this.asked = new Set(); // games a read was made for
    this.ignored = new Set(); // games a read did not find (gone, or past the list's first page): not asked again
    this.invitations = new Map(); // game id -> the host's name, from `invited` notices: marked while waiting
  }

  /** Read the list, then follow the player stream (resumed where this player's last visit left it). */
  async start() {
    const me = await ensurePlayer();
    if (this.stopped) return;
    await this.reread();
    if (this.stopped) return;
    const onState = (state) => {
      this.live = state === "live";
    };
    this.stream = followPlayer(me.token, (notice) => this.notice(me.player_id, notice), {
      after: keptCursor(me.player_id),
      onState,
    });
  }

  /** The lobby's periodic refresh: the whole list while the stream is down, else only this browser's other games. */
  async tick() {
    if (!this.rows || this.stopped) return;
    if (!this.live) {
      await this.reread();
      return;
    }
    const server = () => this.rows.filter((row) => row.server);
    const local = await localRows(new Set(server().map((row) => row.gameId)));
    if (!this.stopped) this.show(sortListed([...server(), ...local]));
  }

  stop() {
    this.stopped = true;
    if (this.stream) this.stream.close();
  }

  show(rows) {
    this.rows = rows;
    const invited = (row) => this.invitations.has(row.gameId) && row.status === "waiting";
    this.onRows(rows.map((row) => (invited(row) ? { ...row, invitedBy: this.invitations.get(row.gameId) } : row)));
  }

  notice(playerId, notice) {
    localStorage.setItem(CURSOR_KEY, JSON.stringify({ player_id: playerId, after: notice.id }));
    const gameId = notice.data.game_id;
    if (notice.kind === "invited") this.invitations.set(gameId, notice.data.host || "");
    if (this.pending) this.pending.push(notice);
    if (!this.rows) return;
    const { rows, unknown } = applyNotice(this.rows, notice);
    if (rows !== this.rows) this.show(rows);
    if (unknown && !this.ignored.has(gameId)) {
      this.asked.add(gameId);
      this.reread();
    }
  }

  /** Read the whole list again (one read at a time; notices heard meanwhile are applied on top). */
  reread() {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.onReading(true);
    this.reading = (async () => {
      do {
        this.again = false;
        this.pending = [];
        const asked = [...this.asked];
        let rows = await listedGames(this.local);
        for (const notice of this.pending) rows = applyNotice(rows, notice).rows;
        this.pending = null;
        if (this.stopped) return;
        for (const gameId of asked) {
          this.asked.delete(gameId);
          if (!rows.some((row) => row.gameId === gameId)) this.ignored.add(gameId);
        }
        this.show(rows);
      } while (this.again);
    })().finally(() => {
      this.reading = null;
      this.pending = null;
      this.onReading(false);
    });
    return this.reading;
  }
}
