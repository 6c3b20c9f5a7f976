// What the SDK's types allow and refuse today; compiled by types.test.mjs with `tsc --noEmit`.
// Every `@ts-expect-error` fails the compile if the thing it forbids ever becomes allowed.
import type { CreateGameBody, DarjeelingMove, GameHandle, Move } from "../../dist/index.js";

const TYPE = "type.googleapis.com/chaiwala.darjeeling.v1.Move" as const;

export const endTurn: DarjeelingMove = { "@type": TYPE, end_turn: {} };
export const load: Move = { "@type": TYPE, load: { crates: 2 } };
export const game: CreateGameBody = { game_type: "darjeeling", players: [{ name: "Asha" }] };

// @ts-expect-error -- a move without its @type
export const untyped: DarjeelingMove = { end_turn: {} };
// @ts-expect-error -- not a game type
export const chess: CreateGameBody = { game_type: "chess", players: [{ name: "Asha" }] };

export function playable(handle: GameHandle): Promise<unknown> {
  return handle.play(endTurn);
}
