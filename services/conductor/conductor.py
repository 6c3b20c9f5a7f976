"""The conductor loop: claim due games from every queue shard, attend to them, repeat.

Any number of conductors may run over one Redis: a claim is a lease in the queue
(see :mod:`services.common.attention`), so no game is attended by two conductors
at once, and a conductor that dies (even by SIGKILL) mid-move only delays its
games until the lease runs out, when another conductor reclaims them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket

from services.clock import clock as clocks
from services.common.attention import IDLE_WAIT_MS, LEASE_MS, SHARD_COUNT, WAKE_CHANNEL, AttentionQueue, Claim
from services.common.logs import get_logger
from services.common.outage import StoreWatch
from services.common.registry import available_game_types, engine_for
from services.conductor import metrics
from services.conductor.search_pool import SearchPool
from services.conductor.work import attend
from services.filing.keys import game_type_of
from services.games.store import GameStore
from services.rules.gameplay import GamePlay

log = get_logger("conductor")
CLAIMS_PER_SHARD = 4
# An idle conductor sleeps until the earliest game in the queue is due, at most IDLE_WAIT_MS;
# a commit making a game due sooner wakes it through WAKE_CHANNEL (services.common.attention).
IDLE_WAIT_SECONDS = IDLE_WAIT_MS / 1000
FAILURE_PAUSE_SECONDS = 1.0
METRICS_EVERY_SECONDS = 2.0


def owner_name() -> str:
    """A name for this conductor's claims: host, pid and a random suffix."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


class Conductor:
    """Plays bots and clock timeouts for every game type whose engine is present."""

    def __init__(
        self,
        store: GameStore,
        game_types: list[str] | None = None,
        lease_ms: int = LEASE_MS,
        watch: StoreWatch | None = None,
        search_workers: int = 2,
    ) -> None:
        self.store = store
        # Redis away fails every pass the same way: said once, not with a traceback per sweep.
        self.watch = watch or StoreWatch(log)
        # Search bots' moves are computed here, off the loop (see services.conductor.search_pool).
        self.searches = SearchPool(search_workers)
        self.queue = AttentionQueue(store.redis, owner_name(), lease_ms)
        types = game_types if game_types is not None else available_game_types()
        self.plays = {game: GamePlay(engine_for(game), store) for game in types}
        self._next_shard = 0
        self.wake = asyncio.Event()

    async def sweep(self) -> int:
        """One pass over every shard; return how many log entries were committed."""
        committed = 0
        now = clocks.now_ms()
        for offset in range(SHARD_COUNT):
            shard = (self._next_shard + offset) % SHARD_COUNT
            for claim in await self.queue.claim(shard, now, CLAIMS_PER_SHARD):
                committed += await self._attend(claim)
        self._next_shard = (self._next_shard + 1) % SHARD_COUNT
        return committed

    async def _attend(self, claim: Claim) -> int:
        play = self.plays.get(game_type_of(claim.game_id))
        if play is None:
            await self.queue.release(claim, None)
            log.warning("unknown_game_type", game_id=claim.game_id)
            return 0
        metrics.CLAIMS.labels(play.game_type).inc()
        if claim.reclaimed:
            metrics.CLAIMS_RECLAIMED.inc()
        try:
            return await attend(play, claim, self.queue, self.searches)
        except Exception as error:
            # One game that cannot be attended (e.g. Redis hiccup) must not hold up the others;
            # its claim stays leased, so it is tried again once the lease runs out.
            if not self.watch.failed(error, "attend"):
                log.exception("attend_failed", game_id=claim.game_id)
            return 0

    async def run(self, stop: asyncio.Event) -> None:
        """Sweep until ``stop`` is set; a failing sweep is logged and retried."""
        while not stop.is_set():
            self.wake.clear()  # before the sweep: a nudge that comes during it is not lost
            try:
                busy = await self.sweep()
            except Exception as error:
                if not self.watch.failed(error, "sweep"):  # e.g. Redis away: pause, then try again
                    log.exception("sweep_failed")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), FAILURE_PAUSE_SECONDS)
                continue
            self.watch.answered()
            if not busy:
                await self._idle(stop)
        await self.searches.drain()
        self.searches.close()

    async def _idle(self, stop: asyncio.Event) -> None:
        """Wait for a wake-up, the stop, or the earliest due game (at most :data:`IDLE_WAIT_SECONDS`)."""
        due_ms = None
        with contextlib.suppress(Exception):  # Redis away: the next sweep says so
            due_ms = await self.queue.next_due()
        wait = IDLE_WAIT_SECONDS if due_ms is None else (due_ms - clocks.now_ms()) / 1000
        wait = min(IDLE_WAIT_SECONDS, max(0.0, wait))
        waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self.wake.wait())]
        await asyncio.wait(waits, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
        for waiting in waits:
            waiting.cancel()

    async def listen(self, stop: asyncio.Event) -> None:
        """Set :attr:`wake` whenever a rules service says a game is due now (best effort)."""
        while not stop.is_set():
            try:
                pubsub = self.store.redis.pubsub()
                await pubsub.subscribe(WAKE_CHANNEL)
                self.watch.answered()
                while not stop.is_set():
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if message is not None:
                        self.wake.set()
            except Exception as error:
                if not self.watch.failed(error, "wake_channel"):
                    log.warning("wake_channel_unavailable")  # polling alone still does all the work
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), FAILURE_PAUSE_SECONDS * 5)

    async def report(self, stop: asyncio.Event) -> None:
        """Keep the queue depth and lag gauges current."""
        while not stop.is_set():
            with contextlib.suppress(Exception):
                depth, lag_ms = await self.queue.depth(clocks.now_ms())
                metrics.QUEUE_DEPTH.set(depth)
                metrics.QUEUE_LAG.set(lag_ms / 1000)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), METRICS_EVERY_SECONDS)
