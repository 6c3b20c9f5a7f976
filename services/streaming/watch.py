"""``WatchEvents`` and ``WatchEventBatches`` on top of the hub: the log's history, then live entries.

Order matters (see :mod:`services.streaming.hub`): subscribe first, then read the history, then
pass on live entries newer than the last one delivered.  Once subscribed, the call sends its
initial metadata with :data:`OPEN_MARKER`, so a client (the gateway) knows the watch is open
before any event exists and can still answer an HTTP error when it is refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
from grpc import aio

from chaiwala.v1 import rules_pb2
from services.common.errors import ServiceError
from services.games.records import LogEntry
from services.games.store import GameStore
from services.streaming.hub import EventHub, TooManyWatchedGames
from services.streaming.mailbox import SlowConsumer
from services.streaming.mux import ShuttingDown

# Initial metadata of a watch that is subscribed (sent before its first event).
OPEN_MARKER = ("chaiwala-watch", "open")

# Async: a renderer may read again what changed since the watch opened (a joined player's name).
Render = Callable[[LogEntry], Awaitable[list[rules_pb2.GameEvent]]]


async def watch_entries(
    hub: EventHub, store: GameStore, game_id: str, after: int, render: Render, context: aio.ServicerContext
) -> AsyncIterator[list[rules_pb2.GameEvent]]:
    """Every entry after version ``after`` rendered for the watcher, until the game is over and all sent:
    one list per entry (the events of one version), none empty.

    Refusals become gRPC statuses the client can act on: RESOURCE_EXHAUSTED
    ``too_many_watched_games`` (retry later) or ``slow_consumer`` (resume from the last event),
    UNAVAILABLE ``shutting_down`` (reconnect).
    """
    try:
        async with hub.subscribe(game_id) as mailbox:
            await context.send_initial_metadata((OPEN_MARKER,))
            delivered = after
            for entry in await store.entries(game_id, after):
                delivered = entry.version
                if messages := await render(entry):
                    yield messages
            async for entry in mailbox:
                if entry.version <= delivered:
                    continue  # already in the history read after subscribing
                delivered = entry.version
                if messages := await render(entry):
                    yield messages
    except TooManyWatchedGames as refusal:
        raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_watched_games", str(refusal)) from None
    except SlowConsumer as dropped:
        raise ServiceError(
            grpc.StatusCode.RESOURCE_EXHAUSTED, "slow_consumer", f"dropped: {dropped}; resume from the last event"
        ) from None
    except ShuttingDown as stopping:
        raise ServiceError(grpc.StatusCode.UNAVAILABLE, "shutting_down", str(stopping)) from None
