// What the SDK's tests share: the gateway under test (CHAIWALA_URL, set by tests/sdk) and a proxy
// in front of it whose connections can be cut.
import net from "node:net";
import { ChaiwalaClient } from "../dist/index.js";

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

/** A TCP proxy to the gateway: `cut()` closes every connection through it, mid-stream or not. */
export async function cuttingProxy() {
  const target = new URL(URL_UNDER_TEST);
  const sockets = new Set();
  const heads = [];
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port), target.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    inbound.on("data", (chunk) => heads.push(chunk.toString("latin1")));
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    heads,
    /** The stream ticket of each events request through the proxy, in order. */
    streamTickets() {
      return heads
        .map((head) => /^GET \S*\/events\?\S*ticket=([^&\s]+)/.exec(head))
        .filter(Boolean)
        .map((found) => found[1]);
    },
    cut() {
      const open = sockets.size;
      for (const socket of sockets) socket.destroy();
      return open;
    },
    close() {
      this.cut();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
