// play.ts: your own seat of Darjeeling against a random bot, played to its result.
import { ChaiwalaClient, type LegalMoves, type Move } from "@chaiwala/client";

const api = new ChaiwalaClient({ baseUrl: process.env.CHAIWALA_URL ?? "http://127.0.0.1:8000" });
await api.guestSession({ name: "Asha" }); // who you are: a guest here, or your platform's player token
const { gameId, seats } = await api.createGame({
  game_type: "darjeeling",
  players: [{ me: true }, { name: "Bot", bot: "random" }], // { me: true }: the seat is yours
});
const me = seats.get(0) ?? api.game(gameId); // its seat token, or your player token (either acts)
console.log(`playing ${gameId}`);

// A move as listed (its sentence and price beside it) is posted back without them.
function pick(legal: LegalMoves): Move | undefined {
  const choices = (legal.moves ?? []).filter((m) => !("take_back" in m)); // a take-back undoes the turn
  if (choices.length === 0) return undefined; // the game moved on since the turn was seen
  const { text: _text, costs: _costs, ...move } = choices[Math.floor(Math.random() * choices.length)];
  return move as Move;
}

// turns() follows the live events and hands over the legal moves each time it is your turn.
for await (const legal of me.turns({ onEvent: (e) => console.log(`${e.version}:${e.index} ${e.text ?? e.kind}`) })) {
  const move = pick(legal);
  if (move) await me.play(move); // pinned to the version seen, with an Idempotency-Key
}
// The loop ends with the game's stream: the game is over.
const game = await me.view();
console.log(game.status, JSON.stringify(game.result));
