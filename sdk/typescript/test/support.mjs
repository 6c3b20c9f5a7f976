// What the SDK's tests share: the gateway under test (CHAIWALA_URL, set by tests/sdk) and a proxy
// in front of it whose connections can be cut.
import { ChaiwalaClient } from "../dist/index.js";

export { cuttingProxy } from "./proxy.mjs";

export const URL_UNDER_TEST = process.env.CHAIWALA_URL;
if (!URL_UNDER_TEST) throw new Error("set CHAIWALA_URL to a running gateway (tests/sdk starts one)");

export function client(options = {}) {
  return new ChaiwalaClient({ baseUrl: URL_UNDER_TEST, language: "en", ...options });
}

/** A legal move to play: random, and not a take-back while anything else is possible (it undoes). */
export function pick(legal) {
  const moves = legal.moves.filter((move) => !("take_back" in move));
  const choices = moves.length ? moves : legal.moves;
  const { text, ...move } = choices[Math.floor(Math.random() * choices.length)];
  return move;
}

/**
 * A Darjeeling game of Asha (seat 0) against a random bot, dealt from `seed`: a small number, sent
 * as the 32 hex digits of `seed_hex` (an integer seed is refused as weak_seed).
 */
export function gameAgainstABot(api, seed) {
  return api.createGame({
    game_type: "darjeeling",
    players: [{ name: "Asha" }, { name: "Bot", bot: "random" }],
    seed_hex: seed.toString(16).padStart(32, "0"),
  });
}
