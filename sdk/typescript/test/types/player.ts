// The player stream's notices are a union told apart by `kind`: each kind's data is its own
// AsyncAPI payload.  Compiled by types.test.mjs with `tsc --noEmit`; every `@ts-expect-error`
// fails the compile if what it forbids becomes allowed.
import type { ChaiwalaClient, MyGames, PlayerEvent } from "../../dist/index.js";

export function deadline(notice: PlayerEvent): string | undefined {
  if (notice.kind === "your_turn") return notice.data.deadline;
  if (notice.kind === "game_finished") return notice.data.status;
  if (notice.kind === "invited") return notice.data.host;
  // @ts-expect-error -- a started game has no version
  return String(notice.data.version);
}

// @ts-expect-error -- not a kind of the player stream
export const unknown: PlayerEvent = { id: "1-0", kind: "game_moved", data: { game_id: "x", game_type: "x", seat: 0 } };

export async function turns(client: ChaiwalaClient): Promise<string[]> {
  const ids: string[] = [];
  for await (const notice of client.myEvents({ signal: AbortSignal.timeout(1000) })) ids.push(notice.data.game_id);
  const page: MyGames = await client.myGames();
  return [...ids, ...page.games.filter((game) => game.your_turn).map((game) => game.game_id)];
}
