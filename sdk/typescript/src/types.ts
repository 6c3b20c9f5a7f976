// Names for the generated types (src/generated/api.ts, written by openapi-typescript from the
// served OpenAPI document at build time, and src/generated/player.ts from the player stream's
// AsyncAPI payloads by tools/gen_sdk_player.py: never edited by hand).
import type { components, paths } from "./generated/api.js";
import type { components as playerComponents } from "./generated/player.js";

export type { components, paths };
type Schemas = components["schemas"];

export type Game = Schemas["chaiwala.v1.Game"];
export type GameEvent = Schemas["chaiwala.v1.GameEvent"];
export type LegalMoves = Schemas["chaiwala.v1.LegalMoves"];
/** A move of any game, with its `@type` (an element of `legalMoves().moves` is one). */
export type Move = NonNullable<Schemas["chaiwala.v1.SubmitMovesBody"]["move"]>;
export type AlubariMove = Schemas["chaiwala.alubari.v1.Move.Legal"];
export type DarjeelingMove = Schemas["chaiwala.darjeeling.v1.Move.Legal"];
export type IndiaRailsMove = Schemas["chaiwala.india_rails.v1.Move.Legal"];
export type TeaRumMove = Schemas["chaiwala.tea_rum.v1.Move.Legal"];
export type SubmitMovesBody = Schemas["chaiwala.v1.SubmitMovesBody"];
export type SubmitMovesResponse = Schemas["chaiwala.v1.SubmitMovesResponse"];
export type CreateGameBody = Schemas["chaiwala.v1.CreateGameBody"];
export type CreatedGame = Schemas["chaiwala.v1.CreateGameResponse"];
export type JoinGameBody = Schemas["chaiwala.v1.JoinGameBody"];
export type JoinedGame = Schemas["chaiwala.v1.JoinGameResponse"];
export type GameList = Schemas["chaiwala.v1.ListGamesResponse"];
export type ListGamesQuery = NonNullable<paths["/v1/games"]["get"]["parameters"]["query"]>;
export type StreamTicket = Schemas["chaiwala.v1.StreamTicket"];
export type Session = Schemas["chaiwala.identity.v1.Session"];
export type SessionBody = Schemas["chaiwala.identity.v1.CreateSessionRequest"];
export type Me = Schemas["chaiwala.identity.v1.Me"];
export type GameStatus = NonNullable<Game["status"]>;
export type MyGame = Schemas["chaiwala.identity.v1.MyGame"];
export type MyGames = Schemas["chaiwala.identity.v1.MyGames"];
export type CreateTicketBody = Schemas["chaiwala.v1.CreateTicketRequest"];
export type Ticket = Schemas["chaiwala.v1.Ticket"];
export type TicketStatus = NonNullable<Ticket["status"]>;
export type MyTickets = Schemas["chaiwala.v1.ListMyTicketsResponse"];

type PlayerSchemas = playerComponents["schemas"];
export type PlayerGameStarted = PlayerSchemas["chaiwala.v1.PlayerGameStarted"];
export type PlayerYourTurn = PlayerSchemas["chaiwala.v1.PlayerYourTurn"];
export type PlayerGameFinished = PlayerSchemas["chaiwala.v1.PlayerGameFinished"];
export type PlayerInvited = PlayerSchemas["chaiwala.v1.PlayerInvited"];
export type PlayerMatchFound = PlayerSchemas["chaiwala.v1.PlayerMatchFound"];
/** One notice of the player stream: its `id` (resume after it), its `kind` and that kind's `data`. */
export type PlayerEvent =
  | { id: string; kind: "game_started"; data: PlayerGameStarted }
  | { id: string; kind: "your_turn"; data: PlayerYourTurn }
  | { id: string; kind: "game_finished"; data: PlayerGameFinished }
  | { id: string; kind: "invited"; data: PlayerInvited }
  | { id: string; kind: "match_found"; data: PlayerMatchFound };
export type PlayerEventKind = PlayerEvent["kind"];
