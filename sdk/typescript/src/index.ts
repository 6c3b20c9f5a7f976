// @chaiwala/client: a typed client of the Chaiwala game server.
export { ChaiwalaClient, type ClientOptions, type Created } from "./client.js";
export { type EventOptions, eventId, followEvents, isAfter } from "./events.js";
export { GameHandle, type PlayOptions, type TurnOptions } from "./game.js";
export { ApiError, type CallOptions, type Transport, call, isNetworkError, newKey } from "./http.js";
export { type SseMessage, readSse } from "./sse.js";
export type * from "./types.js";
