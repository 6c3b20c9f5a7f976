"""The matchmaker's loop: every pass, take over groups whose matchmaker died, expire old tickets, then
for each pool it can lease: form groups (:mod:`services.matchmaking.matching`), take each atomically,
create its game (:mod:`services.matchmaking.games`), seat the tickets and tell the players.

Any number of matchmakers may run.  A pool is worked by one at a time (a lease that expires by
itself); a group's tickets leave the pool in one script or not at all, so no player is seated twice;
a group taken but not yet seated is recorded, and another matchmaker finishes it when the first dies
(finding the game if it was already created), so no ticket is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket

import grpc

from services.clock import clock as clocks
from services.common.logs import get_logger
from services.common.outage import StoreWatch
from services.lobby.feed import Feed
from services.matchmaking import games, metrics
from services.matchmaking.matching import NO_ONE, Policy, form_groups
from services.matchmaking.model import CANCELLED, EXPIRED, SEARCHING, Forming, PoolSpec, Ticket
from services.matchmaking.settings import MatchmakingSettings
from services.matchmaking.store import TicketStore

log = get_logger("matchmaking")
# Refusals of CreateGame that will not change by retrying: the group's tickets are cancelled.
_PERMANENT = (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.FAILED_PRECONDITION)


def policy_of(settings: MatchmakingSettings) -> Policy:
    """The matching policy the settings describe."""
    return Policy(
        band_base=settings.matchmaking_band_base,
        band_per_second=settings.matchmaking_band_per_second,
        band_max=settings.matchmaking_band_max,
        smaller_after_ms=int(settings.matchmaking_smaller_after_s * 1000),
        rematch_after_ms=int(settings.matchmaking_rematch_after_s * 1000),
    )


class Known:
    """The searching tickets this matchmaker has read.  A ticket's record never changes while it searches
    and a pool's sorted set holds searching tickets only, so each record (with its player's recent
    opponents as they were then) is read once, when first seen, not on every pass."""

    def __init__(self) -> None:
        self.tickets: dict[str, Ticket] = {}
        self.opponents: dict[str, frozenset[str]] = {}
        self.seen: set[str] = set()

    async def searching(self, store: TicketStore, pool_id: str, window: int) -> list[Ticket]:
        """The pool's oldest ``window`` searching tickets, oldest first."""
        ids = await store.pool_ids(pool_id, window)
        new = [ticket_id for ticket_id in ids if ticket_id not in self.tickets]
        if new:
            fresh = [t for t in await store.many(new) if t.status == SEARCHING]
            recent = await store.recent(sorted({t.player_id for t in fresh}))
            for ticket in fresh:
                self.tickets[ticket.ticket_id] = ticket
                self.opponents[ticket.ticket_id] = recent.get(ticket.player_id, NO_ONE)
        self.seen.update(ids)
        return [self.tickets[ticket_id] for ticket_id in ids if ticket_id in self.tickets]

    def recent(self, tickets: list[Ticket]) -> dict[str, frozenset[str]]:
        """Whom each ticket's player had just played with when the ticket was first seen."""
        return {t.player_id: self.opponents[t.ticket_id] for t in tickets if self.opponents[t.ticket_id]}

    def forget_unseen(self) -> None:
        """After a pass: drop what left every pool (matched, cancelled, expired)."""
        for ticket_id in set(self.tickets) - self.seen:
            del self.tickets[ticket_id]
            del self.opponents[ticket_id]
        self.seen = set()


class Matchmaker:
    """One matchmaker: its store, its rules-service clients and its name in leases."""

    def __init__(self, store: TicketStore, rules: games.RulesClients, settings: MatchmakingSettings) -> None:
        self.store = store
        self.rules = rules
        self.settings = settings
        self.policy = policy_of(settings)
        self.feed = Feed(store.redis)
        self.owner = f"{socket.gethostname()}:{os.getpid()}"
        self.seen_pools: set[str] = set()
        self.known = Known()
        self.watch = StoreWatch(log)

    async def run(self, stop: asyncio.Event) -> None:
        """Pass after pass until ``stop``; a failing pass is logged and the next one tried."""
        while not stop.is_set():
            try:
                await self.one_pass()
                self.watch.answered()
            except Exception as error:  # Redis away: said once (StoreWatch), not a traceback per pass
                if not self.watch.failed(error, "matching"):
                    log.exception("matchmaking_pass_failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.settings.matchmaking_poll_s)

    async def one_pass(self) -> int:
        """Take over, expire, match every pool this matchmaker can lease; how many groups it seated."""
        now = clocks.now_ms()
        while await self._take_over(now):
            pass
        await self._expire(now)
        seated = 0
        pools = await self.store.pools()
        await self._report(pools)
        for pool_id, spec in pools.items():
            if await self.store.lease(pool_id, self.owner, self.settings.matchmaking_lease_ms):
                try:
                    seated += await self._match_pool(pool_id, spec)
                finally:
                    await self.store.release(pool_id, self.owner)
        self.known.forget_unseen()
        metrics.FORMING.set(await self.store.forming_count())
        return seated

    async def _match_pool(self, pool_id: str, spec: PoolSpec) -> int:
        tickets = await self.known.searching(self.store, pool_id, self.settings.matchmaking_pool_window)
        if not tickets:
            return 0
        now = clocks.now_ms()
        seated = 0
        for group in form_groups(tickets, now, self.policy, self.known.recent(tickets)):
            forming = games.plan(group, pool_id, now)
            if await self.store.take(forming, now + self.settings.matchmaking_forming_lease_ms):
                seated += await self._finish(forming, spec, {t.ticket_id: t for t in group.tickets})
        return seated

    async def _finish(
        self, forming: Forming, spec: PoolSpec, tickets: dict[str, Ticket], taken_over: bool = False
    ) -> int:
        """Create the group's game (unless the dead matchmaker it is ``taken_over`` from did), seat its
        tickets, tell the players."""
        game_id = await games.find_created(self.store.redis, forming, tickets) if taken_over else ""
        if not game_id:
            try:
                game_id = await self.rules.create(forming.game_type, games.create_request(forming, spec, tickets))
            except grpc.aio.AioRpcError as error:
                if error.code() in _PERMANENT:
                    log.warning("matchmaking_game_refused", group_id=forming.group_id, code=error.code().name)
                    await self.store.drop(forming, list(tickets.values()), clocks.now_ms())
                return 0  # else the group stays forming: it is taken over once its lease passes
        now = clocks.now_ms()
        await games.write_found(self.store.redis, forming, game_id, now)  # before the seating: see games.py
        if not await self.store.seat(forming, list(tickets.values()), game_id, now):
            return 0
        await self._announce(forming, tickets, game_id, now)
        return 1

    async def _announce(self, forming: Forming, tickets: dict[str, Ticket], game_id: str, now: int) -> None:
        """``match_found`` on every player's stream, and the metrics of a formed group."""
        game_type = forming.game_type
        for ticket in tickets.values():
            seat = forming.seats.index(ticket.ticket_id)
            data = {"ticket_id": ticket.ticket_id, "game_id": game_id, "game_type": game_type, "seat": seat}
            await self.feed.notify(ticket.player_id, "match_found", data)
            metrics.TIME_TO_MATCH.labels(forming.pool_id, game_type).observe(max(0, now - ticket.created_ms) / 1000)
        bots = len(forming.seats) - len(tickets)
        metrics.GROUPS.labels(forming.pool_id, game_type, str(len(forming.seats))).inc()
        if bots:
            metrics.BOT_SEATS.labels(game_type).inc(bots)
        log.info("match_found", game_id=game_id, group_id=forming.group_id, pool=forming.pool_id,
                 players=len(tickets), bots=bots)  # fmt: skip

    async def _take_over(self, now: int) -> bool:
        """Finish one group whose matchmaker died (``False`` when there is none)."""
        forming = await self.store.reclaim(now, now + self.settings.matchmaking_forming_lease_ms)
        if forming is None:
            return False
        tickets = {t.ticket_id: t for t in await self.store.many(forming.ticket_ids)}
        metrics.TAKEOVERS.inc()
        log.info("matchmaking_takeover", group_id=forming.group_id, pool=forming.pool_id)
        if len(tickets) == len(forming.ticket_ids):
            await self._finish(forming, tickets[forming.ticket_ids[0]].pool, tickets, taken_over=True)
        else:  # a ticket's record is gone (removed by hand): the rest of the group cannot be seated as planned
            await self.store.drop(forming, list(tickets.values()), now)
        return True

    async def _expire(self, now: int) -> None:
        for ticket in await self.store.many(await self.store.due_expiries(now)):
            if await self.store.end(ticket, EXPIRED, now) == EXPIRED:
                metrics.ENDED.labels(EXPIRED).inc()

    async def _report(self, pools: dict[str, PoolSpec]) -> None:
        """The searching gauge by pool, refreshed every pass (a pool that emptied drops to 0)."""
        for pool_id in self.seen_pools - set(pools):
            metrics.SEARCHING.labels(pool_id, pool_id.rsplit("-", 1)[0]).set(0)
        for pool_id, spec in pools.items():
            metrics.SEARCHING.labels(pool_id, spec.game_type).set(await self.store.searching_count(pool_id))
        self.seen_pools = set(pools)


def cancelled_metric() -> None:
    """Count one cancelled ticket (the RPC's side of :data:`metrics.ENDED`)."""
    metrics.ENDED.labels(CANCELLED).inc()
