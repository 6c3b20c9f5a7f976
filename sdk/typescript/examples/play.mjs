// play.mjs: one seat of Darjeeling against a random bot, played to its result.
import { ChaiwalaClient } from "@chaiwala/client";

const api = new ChaiwalaClient({ baseUrl: process.env.CHAIWALA_URL ?? "http://127.0.0.1:8000" });
const { gameId, seats } = await api.createGame({
  game_type: "darjeeling",
  players: [{ name: "Asha" }, { name: "Bot", bot: "random" }],
});
const me = seats.get(0); // a handle on seat 0, holding its token
console.log(`playing ${gameId}`);

// turns() follows the live events and hands over the legal moves each time it is our turn.
const log = (event) => console.log(`${event.version}:${event.index} ${event.text ?? event.kind}`);
for await (const { moves } of me.turns({ onEvent: log })) {
  const choices = moves.filter((m) => !m.take_back); // a take-back undoes the turn so far
  const { text, ...move } = choices[Math.floor(Math.random() * choices.length)];
  await me.play(move); // pinned to the version seen, with an Idempotency-Key
}
// The loop ends with the game's stream: the game is over.
const game = await me.view();
console.log(game.status, JSON.stringify(game.result));
