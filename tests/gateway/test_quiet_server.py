"""The gateway's uvicorn server ticks once a second at rest (gateway.server.QuietServer)."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import httpx
import uvicorn
from sse_starlette.sse import AppStatus

from gateway.server import QuietServer
from services.common.embedded_redis import free_port


async def _hello(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello"})


async def _serve_request_then_stop() -> None:
    port = free_port()
    server = QuietServer(uvicorn.Config(_hello, host="127.0.0.1", port=port, log_config=None))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        assert not serving.done(), "the server did not start"
        await asyncio.sleep(0.05)
    async with httpx.AsyncClient() as client:
        answer = await client.get(f"http://127.0.0.1:{port}/")
    assert answer.status_code == 200 and answer.text == "hello"
    assert answer.headers["date"].endswith(" GMT")  # the header a tick refreshes
    signal.raise_signal(signal.SIGTERM)  # uvicorn's handler while it serves: QuietServer.handle_exit
    await asyncio.wait_for(serving, timeout=30)  # ends; a lost wake-up would still end at the next tick
    assert server.should_exit


def test_it_serves_with_a_date_header_and_a_signal_stops_it() -> None:
    # uvicorn raises the signal it caught again once it has stopped: here it reaches a no-op.  The
    # signal also sets sse_starlette's process-wide exit flag (it wraps uvicorn's handler), which
    # would end every later test's SSE streams in this process: it is put back.
    previous, exiting = signal.signal(signal.SIGTERM, lambda *_: None), AppStatus.should_exit
    try:
        asyncio.run(_serve_request_then_stop())
        assert AppStatus.should_exit  # QuietServer.handle_exit kept uvicorn's (wrapped) handler
    finally:
        signal.signal(signal.SIGTERM, previous)
        AppStatus.should_exit = exiting
