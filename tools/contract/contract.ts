// What the generated types (openapi-typescript over the served /openapi.json, in generated/api.d.ts)
// must allow and refuse.  `make contract` compiles this with `tsc --strict --noEmit`; every
// `@ts-expect-error` line fails the compile if the thing it forbids ever becomes allowed.
import type { components, paths } from "./generated/api";

type Schemas = components["schemas"];
type Created = paths["/v1/games"]["post"]["responses"][201]["content"]["application/json"];
type Game = paths["/v1/games/{game_id}"]["get"]["responses"][200]["content"]["application/json"];
type Move = Schemas["chaiwala.darjeeling.v1.Move.Legal"];
type Body = Schemas["chaiwala.v1.SubmitMovesBody"];

// Required fields of answers are plain properties: reading them needs no check for undefined.
export function gameId(created: Created): string {
  return created.game_id;
}
export function nextVersion(game: Game): number {
  return game.version + 1;
}

// The event list is a list: the live stream is in /asyncapi.json, not a `string` alternative here.
type Events = paths["/v1/games/{game_id}/events"]["get"]["responses"][200]["content"];
type EventsAnswer = Events[keyof Events];
export const noEvents: EventsAnswer = [];
// @ts-expect-error -- an event-stream text is not an answer of the JSON operation
export const streamText: EventsAnswer = "event: end";

// A status is one of its enum.
export const active: Game["status"] = "active";
// @ts-expect-error -- "paused" is not a game status
export const paused: Game["status"] = "paused";
// @ts-expect-error -- nor is a bot name free text
export const bot: Schemas["chaiwala.v1.Seat"]["bot"] = "grandmaster";

const TYPE = "type.googleapis.com/chaiwala.darjeeling.v1.Move" as const;

// A move with exactly one kind compiles, and can be sent as a body.
export const endTurn: Move = { "@type": TYPE, end_turn: {} };
export const load: Move = { "@type": TYPE, load: { crates: 2 } };
export const body: Body = { move: endTurn, expected_version: 3 };

// @ts-expect-error -- a move with no kind
export const none: Move = { "@type": TYPE };
// @ts-expect-error -- a move with two kinds
export const two: Move = { "@type": TYPE, end_turn: {}, take_back: {} };
// @ts-expect-error -- a move without its @type
export const untyped: Move = { end_turn: {} };
