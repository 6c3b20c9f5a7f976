// Names for the generated types (src/generated/api.ts, written by openapi-typescript from the
// served OpenAPI document at build time: never edited by hand).
import type { components, paths } from "./generated/api.js";

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
