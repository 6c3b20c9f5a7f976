// A TCP proxy in front of the gateway under test (CHAIWALA_URL, set by tests/sdk) whose connections
// can be cut. No SDK import: the plain-EventSource test, which uses no SDK, shares it.
import net from "node:net";

/**
 * A TCP proxy to the gateway: `cut()` closes every connection through it, mid-stream or not; while
 * `away` is true, new connections are dropped at once. `heads` holds every chunk a client sent.
 */
export async function cuttingProxy(base = process.env.CHAIWALA_URL) {
  const target = new URL(base);
  const sockets = new Set();
  const heads = [];
  let away = false;
  const server = net.createServer((inbound) => {
    if (away) return inbound.destroy();
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
    set away(value) {
      away = value;
    },
    close() {
      this.cut();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
