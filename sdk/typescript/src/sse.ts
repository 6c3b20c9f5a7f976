// A text/event-stream parser over a fetch body: fetch can send headers (Last-Event-ID,
// Accept-Language) and be cut and resumed under our control, which an EventSource cannot.

/** One server-sent message. */
export interface SseMessage {
  event: string;
  data: string;
  id: string;
}

/** The messages of a text/event-stream body, in order, until it ends. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let message: SseMessage = { event: "", data: "", id: "" };
  let hasData = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
        if (line === "") {
          if (hasData || message.event) yield { ...message, event: message.event || "message" };
          message = { event: "", data: "", id: message.id };
          hasData = false;
          continue;
        }
        if (line.startsWith(":")) continue; // a comment: the server's keep-alive
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") message.event = value;
        else if (field === "id") message.id = value;
        else if (field === "data") {
          message.data = hasData ? `${message.data}\n${value}` : value;
          hasData = true;
        }
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
