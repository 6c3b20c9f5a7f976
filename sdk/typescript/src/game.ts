// One game as one caller (a seat's token, or none for a spectator) sees and plays it.
import { type EventOptions, eventId, followEvents } from "./events.js";
import { type Transport, call, newKey } from "./http.js";
import type { Game, GameEvent, GameStatus, LegalMoves, Move, SubmitMovesResponse } from "./types.js";

/** Options of `turns()`: those of `events()`, and a listener of every event. */
export interface TurnOptions extends EventOptions {
  onEvent?: (event: GameEvent) => void;
}

/** Options of `play()`. */
export interface PlayOptions {
  /** The version the move is meant for (default: the last version this handle saw). */
  expectedVersion?: number;
  /** The idempotency key (default: a new one); send the same key to retry the same submission. */
  key?: string;
  /**
   * Ask for the seat's next legal moves inside the answer (`?include=legal_moves`, default true):
   * the answer's `legal_moves`, which `turns()` then yields without another request.
   */
  legalMoves?: boolean;
}

/** Options of `view()`. */
export interface ViewOptions {
  /** Ask for the seat's legal moves inside the answer (`?include=legal_moves`, default false). */
  legalMoves?: boolean;
}

const INCLUDE_LEGAL = { include: "legal_moves" };

/**
 * A game handle: `view()`, `legalMoves()`, `play(move)` and `events()`.  It keeps the game's
 * version, status, seats to act and whether it is the caller's turn, from every answer and every
 * event it sees, so a client following `events()` knows when to play without asking.
 */
export class GameHandle {
  /** The last version seen (-1 before anything was seen). */
  version = -1;
  status: GameStatus | undefined;
  toAct: number[] = [];
  /** Whether the handle's seat is to act (always false for a spectator). */
  yourTurn = false;
  /** The id of the last event seen (`"<version>:<index>"`). */
  lastEventId: string | undefined;
  /** The newest legal moves an answer carried (`include=legal_moves`), kept for `turns()`. */
  private carried: LegalMoves | undefined;

  constructor(
    private readonly transport: Transport,
    readonly gameId: string,
    readonly token: string | null = null,
    /** The handle's seat, when known (from `createGame`/`joinGame`, or a player's first `view()`). */
    public seat?: number,
  ) {}

  private path(suffix = ""): string {
    return `/v1/games/${encodeURIComponent(this.gameId)}${suffix}`;
  }

  /** Take in the game as of `version`; false (and nothing changes) when that is older news. */
  private seen(version: number | undefined, status: string | undefined, toAct: number[] | undefined): boolean {
    if (version === undefined || version < this.version) return false;
    this.version = version;
    if (status) this.status = status as GameStatus;
    this.toAct = toAct ?? [];
    if (this.seat !== undefined) this.yourTurn = this.status === "active" && this.toAct.includes(this.seat);
    return true;
  }

  /** The game as this caller may see it (state, seats, status, version; with `legalMoves`, the seat's legal moves). */
  async view(options: ViewOptions = {}): Promise<Game> {
    const query = options.legalMoves ? INCLUDE_LEGAL : undefined;
    const game = await call<Game>(this.transport, "GET", this.path(), { token: this.token, query });
    // A handle made from a player token learns its seat here (the seat that carries the player's id).
    if (this.seat === undefined && game.viewer_seat !== undefined && this.token) this.seat = game.viewer_seat;
    this.seen(game.version, game.status, game.to_act);
    this.carried = game.legal_moves ?? this.carried;
    return game;
  }

  /** The caller's legal moves now, each with its sentence as `text`. */
  async legalMoves(): Promise<LegalMoves> {
    const legal = await call<LegalMoves>(this.transport, "GET", this.path("/legal-moves"), { token: this.token });
    if (legal.version !== undefined && legal.version > this.version) this.version = legal.version;
    return legal;
  }

  /**
   * Play one move, pinned to `expected_version` (the last version seen unless given), with an
   * `Idempotency-Key`: a retry with the same key is applied once, and a move meant for an older
   * version is refused (409) instead of landing on a position the player never saw.
   */
  async play(move: Move, options: PlayOptions = {}): Promise<SubmitMovesResponse> {
    const expected = options.expectedVersion ?? (this.version >= 0 ? this.version : undefined);
    const body = { move, ...(expected === undefined ? {} : { expected_version: expected }) };
    const key = options.key ?? newKey();
    const answer = await call<SubmitMovesResponse>(this.transport, "POST", this.path("/moves"), {
      token: this.token,
      body,
      key,
      query: options.legalMoves === false ? undefined : INCLUDE_LEGAL,
    });
    this.seen(answer.version, answer.status, answer.to_act);
    this.carried = answer.legal_moves ?? this.carried;
    return answer;
  }

  /** The seat's legal moves at the version seen last: those an answer carried when current, else asked for. */
  private async current(): Promise<LegalMoves> {
    const carried = this.carried;
    return carried && carried.version === this.version ? carried : await this.legalMoves();
  }

  /** Take in one event: the game after it (status, seats to act, the caller's turn). */
  track(event: GameEvent): void {
    this.lastEventId = eventId(event);
    // The event says whether it is the caller's turn (a seat number is not needed for that).
    if (this.seen(event.version, event.status, event.to_act)) this.yourTurn = Boolean(event.your_turn);
  }

  /**
   * Each time it becomes this seat's turn, its legal moves (once per version), until the game's
   * stream ends.  One `view()` first, because a game may start on the seat's turn with no event
   * yet; after that the turn comes from the events alone.  `onEvent` hears every event.
   *
   * A turn may take several moves (Tea & Rum's warehouse tokens, Darjeeling's move, lay out and
   * ship, India Rails' build steps): after each one the seat is still to act, and this yields the
   * next step's legal moves.  The player stream's `your_turn` comes once, when the turn begins.
   *
   * At most two requests per turn: the first view carries the legal moves, and so does each
   * `play()` answer (`include=legal_moves`); they are asked for again only when others moved
   * since (a newer version than the answer's), so a step of a turn costs the `play()` alone.
   */
  async *turns(options: TurnOptions = {}): AsyncGenerator<LegalMoves, void, undefined> {
    let offered = -1;
    const due = () => this.yourTurn && this.status === "active" && this.version > offered;
    await this.view({ legalMoves: true });
    if (due()) {
      offered = this.version;
      yield await this.current();
    }
    for await (const event of this.events(options)) {
      options.onEvent?.(event);
      if (due()) {
        offered = this.version;
        yield await this.current();
      }
    }
  }

  /**
   * The game's events, each once and in order, until its stream ends; the handle tracks the
   * turn from them.  By default from the start, or after `options.after` (an event id).
   */
  async *events(options: EventOptions = {}): AsyncGenerator<GameEvent, void, undefined> {
    for await (const event of followEvents(this.transport, this.gameId, this.token, options)) {
      this.track(event);
      yield event;
    }
  }
}
