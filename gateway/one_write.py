"""A complete response's head and body in one ``write``: one syscall and one TCP segment, not two.

uvicorn writes a response's status line and headers when it gets ``http.response.start`` and the
body when it gets ``http.response.body``: two ``transport.write`` calls, and on uvloop each is a
``send`` syscall at once (the buffer is empty), so every answer of the move path left the gateway
as two segments, and the client (httpx, on the same two cores in ``bench rest``) woke up for each.
:class:`OneWrite` sits right above uvicorn's own ``send`` (installed by
:class:`gateway.sse_socket.UvicornSend`): a start that declares its ``content-length`` (a whole body
follows: every JSON answer and problem) is held until the body's single message comes, then both go
through uvicorn's ``send`` as before, their writes collected and handed to the transport as one.
uvicorn's bookkeeping (keep-alive, lengths, completion, ``connection: close``) is its own, unchanged;
only the bytes are joined.  Streams (SSE: chunked, no length) and bodies in several messages pass
through as they come, and anything that is not uvicorn's cycle is left alone.
"""

from __future__ import annotations

from typing import Any

from starlette.types import Message, Send


class _Collected:
    """Stands in for the connection's transport while a response is written: keeps the writes."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.parts: list[bytes] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.parts.append(data)

    def close(self) -> None:
        self.closing = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class OneWrite:
    """uvicorn's ``send`` for one request, joining a held response start with its whole body."""

    def __init__(self, cycle: Any, send: Send) -> None:
        self.cycle = cycle
        self.send = send
        self.start: Message | None = None

    @classmethod
    def wrap(cls, send: Send) -> Send:
        """``send`` wrapped when it is uvicorn's cycle (it has the transport it writes to), else as is."""
        cycle = getattr(send, "__self__", None)
        if cycle is None or not hasattr(cycle, "transport"):
            return send
        return cls(cycle, send)

    async def __call__(self, message: Message) -> None:
        """Hold a start with a length; write it with its single body message; pass the rest on."""
        kind = message["type"]
        if kind == "http.response.start" and self.start is None and _has_length(message):
            self.start = message
            return
        if self.start is None:
            await self.send(message)
            return
        start, self.start = self.start, None
        if kind != "http.response.body" or message.get("more_body", False):
            await self.send(start)  # not one whole body: as it would have gone
            await self.send(message)
            return
        await self._together(start, message)

    async def _together(self, start: Message, body: Message) -> None:
        transport = self.cycle.transport
        collected = _Collected(transport)
        self.cycle.transport = collected
        try:
            await self.send(start)
            await self.send(body)
        finally:
            self.cycle.transport = transport
            if collected.parts:
                transport.write(b"".join(collected.parts))
            if collected.closing:
                transport.close()


def _has_length(message: Message) -> bool:
    return any(name.lower() == b"content-length" for name, _ in message.get("headers", ()))
