// The entry point: a client of one Chaiwala API, its lobby calls, guest sessions and game handles.
import { GameHandle } from "./game.js";
import { type CallOptions, type Transport, call } from "./http.js";
import { type PlayerEventOptions, followPlayerEvents } from "./player.js";
import { type QuickPlayOptions, quickPlay } from "./quickplay.js";
import type {
  CreateGameBody,
  CreatedGame,
  CreateTicketBody,
  GameList,
  JoinGameBody,
  JoinedGame,
  ListGamesQuery,
  Me,
  MyGames,
  MyTickets,
  PlayerEvent,
  Session,
  SessionBody,
  Ticket,
} from "./types.js";

/** Options of a client. */
export interface ClientOptions extends Transport {
  /** A player token (e.g. from `guestSession()`): the caller's identity where no seat token is given. */
  token?: string | null;
}

/** A created game with a handle for each seat that got a token. */
export interface Created {
  game: CreatedGame;
  gameId: string;
  /** One handle per seat with a token, by seat number. */
  seats: Map<number, GameHandle>;
}

export class ChaiwalaClient implements Transport {
  readonly baseUrl: string;
  readonly language?: string | (() => string);
  readonly fetch?: typeof fetch;
  /** The player token sent where a call has no seat token of its own. */
  token: string | null;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.language = options.language;
    this.fetch = options.fetch;
    this.token = options.token ?? null;
  }

  /** A raw call, for the routes this client has no method for. */
  call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    return call<T>(this, method, path, { ...options, token: options.token === undefined ? this.token : options.token });
  }

  /** A new game; each seat's token comes once, in the answer (keep it). */
  async createGame(body: CreateGameBody): Promise<Created> {
    const game = await this.call<CreatedGame>("POST", "/v1/games", { body });
    const gameId = game.game_id ?? "";
    const seats = new Map<number, GameHandle>();
    for (const seat of game.seats ?? []) {
      if (seat.token) seats.set(seat.seat ?? 0, new GameHandle(this, gameId, seat.token, seat.seat ?? 0));
    }
    return { game, gameId, seats };
  }

  /** Take an open seat of a waiting game: the answer and a handle for the seat. */
  async joinGame(gameId: string, body: JoinGameBody): Promise<{ joined: JoinedGame; handle: GameHandle }> {
    const path = `/v1/games/${encodeURIComponent(gameId)}/join`;
    const joined = await this.call<JoinedGame>("POST", path, { body });
    return { joined, handle: new GameHandle(this, gameId, joined.token || this.token, joined.seat) };
  }

  /** The lobby: games by type, status, open seats (a page; `next_page_token` for the next). */
  listGames(query: ListGamesQuery = {}): Promise<GameList> {
    return this.call<GameList>("GET", "/v1/games", { query: query as CallOptions["query"] });
  }

  /**
   * A handle of an existing game: as the seat of `token` (a seat token); without one, as this
   * client's player (its player token acts on the seats that carry the player's id); with `null`,
   * as a spectator.
   */
  game(gameId: string, token?: string | null, seat?: number): GameHandle {
    return new GameHandle(this, gameId, token === undefined ? this.token : token, seat);
  }

  /** A spectator's handle of a game, whatever token this client holds. */
  watch(gameId: string): GameHandle {
    return new GameHandle(this, gameId, null);
  }

  /** A new guest player; its token becomes this client's player token. */
  async guestSession(body: SessionBody = {}): Promise<Session> {
    const session = await this.call<Session>("POST", "/v1/sessions", { body, token: null });
    this.token = session.token ?? null;
    return session;
  }

  /** A fresh token for this client's guest player (send before the current one expires). */
  async refreshSession(): Promise<Session> {
    const session = await this.call<Session>("POST", "/v1/sessions/refresh");
    this.token = session.token ?? this.token;
    return session;
  }

  /** Who this client's player token says the caller is. */
  me(): Promise<Me> {
    return this.call<Me>("GET", "/v1/me");
  }

  /** The player's games (their turn first, then active, waiting, ended): a page, `next_page_token` for the next. */
  myGames(pageToken?: string, pageSize?: number): Promise<MyGames> {
    return this.call<MyGames>("GET", "/v1/me/games", { query: { page_token: pageToken || undefined, page_size: pageSize } });
  }

  /**
   * The player stream: every notice for this client's player across their games (`game_started`,
   * `your_turn` with its deadline, `game_finished`, `invited`), each once and in order, through
   * cuts (resumed after the last id, on a fresh ticket when the old one is near its expiry), until
   * `signal` aborts, the loop is left, or the player token expires (the iteration then ends).
   *
   * `your_turn` comes once per turn, when the seat becomes due, not after each move of a turn of
   * several moves: a game being played follows its own events (`your_turn`, `to_act`) instead.
   */
  myEvents(options: PlayerEventOptions = {}): AsyncGenerator<PlayerEvent, void, undefined> {
    return followPlayerEvents(this, this.token, options);
  }

  /**
   * Quick play: ask for a game (`game_type`, the `player_counts` accepted, `time_control`, `rated`,
   * `options`, `bots_after_seconds`, `bot`) and resolve with this player's handle in the game the
   * matchmaker seats them in.  Abort `options.signal` to cancel the search.
   */
  quickPlay(body: CreateTicketBody, options: QuickPlayOptions = {}): Promise<GameHandle> {
    return quickPlay(this, this.token, body, options);
  }

  /** Make a matchmaking ticket without waiting (see `quickPlay()` to wait for the game). */
  createTicket(body: CreateTicketBody): Promise<Ticket> {
    return this.call<Ticket>("POST", "/v1/matchmaking/tickets", { body });
  }

  /** One of the player's tickets: `searching`, then `matched` with `game_id` and `seat`, or ended. */
  ticket(ticketId: string): Promise<Ticket> {
    return this.call<Ticket>("GET", `/v1/matchmaking/tickets/${encodeURIComponent(ticketId)}`);
  }

  /** Stop searching: the ticket, `cancelled`. */
  cancelTicket(ticketId: string): Promise<Ticket> {
    return this.call<Ticket>("DELETE", `/v1/matchmaking/tickets/${encodeURIComponent(ticketId)}`);
  }

  /** The player's tickets, newest first. */
  myTickets(): Promise<MyTickets> {
    return this.call<MyTickets>("GET", "/v1/me/tickets");
  }
}
