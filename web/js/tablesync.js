// What a table shows of its game, kept current with as few requests as it takes (issue #43, item 5).
//
// A move is one request: `POST /v1/games/{id}/moves?include=legal_moves` answers with the state
// after the move, its status, the seats to act and the player's next legal moves (gateway.include),
// and that answer is drawn as it is.  The game's event stream fills the log and says when what is
// drawn is stale: an event of a newer version than the one drawn (a bot's reply, another player's
// move, a timeout).  Only then — or when an answer lacks something the table shows (a clock, a
// result) or a POST failed — is the game read again, with one `GET /v1/games/{id}?include=legal_moves`.
// The events of the player's own move, already drawn from the answer, read nothing; a burst of
// events (a move and the bots' replies) reads once.
import { call, isNetworkError } from "./api.js";

const BURST_MS = 30; // events that arrive together (one commit's versions) are read once
// While others play (bots reply in one or more commits), the read waits for a pause, so a chain
// of replies is read once; an event that gives the seat its turn, or ends the game, reads at once.
const OTHERS_MS = 300;
const MAX_WAIT_MS = 1000;
const MAX_READS = 3; // reads in a row while the game moves on under them; the next event reads again

/** A legal-move list as the table wants it: the REST answer, with each move's sentence in `texts`. */
export function listingOf(raw) {
  if (!raw) return null;
  const moves = raw.moves || [];
  return { ...raw, moves, texts: moves.map((move) => move.text || "") };
}

/** Whether `seat` is among the game's seats to act while it is active. */
function toAct(game, seat) {
  return seat !== null && game.status === "active" && (game.to_act || []).includes(seat);
}

export class GameSync {
  /**
   * `show()` draws `game` (a whole `Game` answer, with `state`) and `legal` (its legal moves, null
   * when it is not the seat's turn) each time they change; `failed(error, retry)` reports a read
   * that failed.  `readAt` is when the game's clock was read.
   */
  constructor(gameId, token, { show, failed }) {
    this.gameId = gameId;
    this.token = token;
    this.show = show;
    this.failed = failed;
    this.game = null;
    this.legal = null;
    this.readAt = Date.now();
    this.seen = -1; // the newest version the stream told of
    this.posting = 0; // moves in flight: their answers will say where the game is
    this.reading = false;
    this.again = false;
    this.timer = null;
    this.gone = false;
  }

  /** The version drawn (-1 before the first read). */
  get version() {
    return this.game ? this.game.version : -1;
  }

  /** One event of the stream: the drawn game is stale when it tells of a newer version. */
  heard(event) {
    this.seen = Math.max(this.seen, Number(event.version ?? 0));
    const stale = this.seen > this.version;
    if (stale && !this.posting) this.soon(event.your_turn === true || event.status !== "active" ? BURST_MS : OTHERS_MS);
    return stale;
  }

  /** POST one body to the game's moves (retried once, same key, when no answer came); the answer is drawn. */
  async post(body, key) {
    const path = `/v1/games/${this.gameId}/moves?include=legal_moves`;
    this.posting += 1;
    try {
      try {
        this.took(await call("POST", path, { token: this.token, body, key }));
      } catch (error) {
        if (!isNetworkError(error)) throw error;
        // No answer: the same key again gets the first answer, so the move is applied once.
        this.took(await call("POST", path, { token: this.token, body, key }));
      }
    } catch (error) {
      this.again = true; // refused (or lost): whatever the game is now, read it
      throw error;
    } finally {
      this.posting -= 1;
      if (!this.posting && (this.again || this.seen > this.version)) this.soon(0);
    }
  }

  /** Draw a move's answer: the game as it was, with the answer's state, status, seats to act and legal moves. */
  took(answer) {
    if (this.gone || !this.game || answer.version < this.version) return;
    const game = { ...this.game, version: answer.version, state: answer.state, status: answer.status, to_act: answer.to_act };
    const legal = listingOf(answer.legal_moves);
    const current = legal && legal.version === answer.version;
    const seat = game.viewer_seat ?? null;
    // What the answer cannot say: a clock's times, a result, the legal moves of a newer version.
    this.again ||= Boolean(game.clock) || game.status !== "active" || (toAct(game, seat) && !current);
    this.accept(game, current && toAct(game, seat) ? legal : null);
  }

  accept(game, legal) {
    this.game = game;
    this.legal = legal;
    if (!this.gone) this.show();
  }

  /** Read the game again shortly (events come in bursts), unless a read or a move is under way. */
  soon(delay = BURST_MS) {
    if (this.gone) return;
    if (this.timer !== null) {
      // A read due at once stays; else each event of others' play moves it to the next pause,
      // for a second at most (a game of bots alone never pauses).
      if (this.waiting <= BURST_MS || (delay > BURST_MS && Date.now() - this.since > MAX_WAIT_MS)) return;
      clearTimeout(this.timer);
    } else this.since = Date.now();
    this.waiting = delay;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.refresh(false);
    }, delay);
  }

  /**
   * Read the game (and the seat's legal moves, in the same request) until what is drawn is current.
   * `force`: read again after a read under way (the caller changed something: a join, a start);
   * else a read under way is enough unless the stream tells of a newer version meanwhile.
   */
  async refresh(force = true) {
    if (this.reading || this.posting) {
      this.again ||= force;
      return;
    }
    this.reading = true;
    try {
      for (let reads = 0; reads < MAX_READS; reads += 1) {
        this.again = false;
        await this.load();
        if (!(this.again || this.seen > this.version) || this.gone || this.posting) break;
      }
    } catch (error) {
      this.failed(error, () => this.refresh());
    } finally {
      this.reading = false;
    }
  }

  async load() {
    const path = `/v1/games/${this.gameId}${this.token ? "?include=legal_moves" : ""}`;
    const game = await call("GET", path, { token: this.token });
    if (this.posting || (this.game && game.version < this.version)) return; // a newer answer is drawn already
    const seat = this.token ? (game.viewer_seat ?? null) : null;
    let legal = toAct(game, seat) ? listingOf(game.legal_moves) : null;
    if (toAct(game, seat) && !legal) {
      // An older gateway, or the listing was refused: ask for the legal moves on their own.
      legal = listingOf(await call("GET", `/v1/games/${this.gameId}/legal-moves`, { token: this.token }));
    }
    if (legal && legal.version !== game.version) {
      this.again = true; // a move landed between the two: read both again
      return;
    }
    delete game.legal_moves;
    this.readAt = Date.now();
    this.accept(game, legal);
  }

  stop() {
    this.gone = true;
    if (this.timer !== null) clearTimeout(this.timer);
  }
}
