// A move is exactly one kind: two kinds in one move must not compile (types.test.mjs).
// The served document makes each game's move a oneOf of its kinds.
import type { DarjeelingMove, GameHandle } from "../../dist/index.js";

const TYPE = "type.googleapis.com/chaiwala.darjeeling.v1.Move" as const;

// @ts-expect-error -- a move with two kinds
export const two: DarjeelingMove = { "@type": TYPE, end_turn: {}, take_back: {} };

export function playTwo(handle: GameHandle): Promise<unknown> {
  // @ts-expect-error -- nor can play() be given one
  return handle.play({ "@type": TYPE, end_turn: {}, load: { crates: 1 } });
}
