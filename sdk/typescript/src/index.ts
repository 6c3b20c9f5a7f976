// @chaiwala/client: a typed client of the Chaiwala game server.
export { ChaiwalaClient, type ClientOptions, type Created } from "./client.js";
export { type EventOptions, eventId, followEvents, isAfter } from "./events.js";
export { type StreamOptions, type StreamSpec, type StreamState, follow } from "./follow.js";
export { GameHandle, type PlayOptions, type TurnOptions } from "./game.js";
export { PLAYER_EVENT_KINDS, type PlayerEventOptions, followPlayerEvents, isAfterCursor } from "./player.js";
export { type QuickPlayOptions, quickPlay } from "./quickplay.js";
export { ApiError, type CallOptions, type Transport, call, isNetworkError, newKey } from "./http.js";
export { type SseMessage, readSse } from "./sse.js";
export type * from "./types.js";
