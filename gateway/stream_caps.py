"""SSE stream caps: per process in memory, per credential and address across every gateway process
(one lease in Redis per open stream).

A cap counted in each process's memory gave a token N times its streams behind N workers (issue
#44: 16 streams on one token where 8 were allowed).  Each open stream now holds a **lease** in a
sorted set per capped key, ``chaiwala:streams:{cred:<hash>}`` (its credential) and
``chaiwala:streams:{addr:<ip>}`` (its client address), scored by when the lease runs out
(Redis's own clock, so gateways on hosts with skewed clocks agree):

* **Opening** is one script per key (on a cluster, concurrent calls): drop the set's run-out
  leases, refuse when what is left reaches the cap, else add this stream's lease.  A refusal gives
  back the leases the same stream took on its other keys.  Check and take are one script, so two
  workers racing for the last slot cannot both get it.
* **Closing** removes the stream's leases (``ZREM``); a lease that could not be removed runs out.
* **One pipeline at a time.**  Every call of a process (openings, closings, renewals) waits for the
  pipeline on its way, then goes with all the others that came meanwhile in the next one: a burst
  of thousands of streams opening or closing uses one connection of the gateway's Redis pool, not
  one each (the pool ran dry and leases were left to run out), and in a quiet time a call is sent
  at once.
* **Renewal** is one task per process, not per stream: every ``lease_seconds / 3`` it pushes the
  expiry of all this process's leases forward to one deadline (``ZADD XX``: a lease already closed,
  or dropped after running out, is not brought back).  One script call renews up to
  :data:`RENEW_BATCH` leases over as many keys as they are in, so 10,000 open streams (a credential
  each, one address) cost 10 script calls in one pipeline every 15 s, not one call per credential
  (10,020 calls built and read in the worker's loop: 140-160 ms of its CPU at once; per connected
  player 20 Redis commands a minute, now 8, all inside the scripts; docs/lab/many-listeners.md).
  On a cluster a script's keys share a slot: one call per slot in use.
* **A killed process** (SIGKILL, a lost host) renews nothing more: its leases run out within
  ``sse_stream_lease_seconds`` (``CHAIWALA_SSE_STREAM_LEASE_SECONDS``) and their slots come back.

When Redis does not answer, a stream is capped in this process's memory as before (logged and
counted as ``limit_store_failed``): a slow store must not end live streams, and the per-process
bound still holds.  Without a Redis URL the caps are this process's alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import secrets
from collections import Counter as Tally
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from redis import asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import NoScriptError, RedisError

from gateway.problems import Problem
from gateway.settings import GatewaySettings
from services.common.logs import get_logger
from services.common.scriptcall import reload_and_repeat

if TYPE_CHECKING:
    from gateway.limit_parts import LimitMetrics

StoreFailed = Callable[[Exception, list[str]], object]  # gateway.limits.Limiter._store_failed

log = get_logger("gateway")
STREAM_RETRY_AFTER = 5  # seconds a client over a stream cap should wait
KEY_PREFIX = "chaiwala:streams:"
# Leases renewed by one script call: a bound on how long one call holds Redis (a few milliseconds)
# and on its arguments; the calls of one renewal go in one pipeline.
RENEW_BATCH = 2000

# KEYS[1]: the key's lease set.  ARGV: cap, lease (ms), member.  1: taken, 0: the cap is reached.
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""
# KEYS: lease sets.  ARGV: lease (ms), then for each key in turn its member count and those members,
# whose leases are pushed forward to one deadline (ZADD XX adds no lease; PEXPIRE of a key gone is
# a no-op).  A ZADD takes 500 members at most (Lua's unpack has a bound).
RENEW = """
local t = redis.call('TIME')
local lease = tonumber(ARGV[1])
local expiry = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + lease
local at = 2
for k = 1, #KEYS do
  local last = at + tonumber(ARGV[at])
  at = at + 1
  while at <= last do
    local stop = math.min(last, at + 499)
    local pairs = {}
    for i = at, stop do
      pairs[#pairs + 1] = expiry
      pairs[#pairs + 1] = ARGV[i]
    end
    redis.call('ZADD', KEYS[k], 'XX', unpack(pairs))
    at = stop + 1
  end
  redis.call('PEXPIRE', KEYS[k], lease)
end
return 0
"""

# KEYS[1]: the key's lease set.  ARGV: the members whose leases end.
RELEASE = "return redis.call('ZREM', KEYS[1], unpack(ARGV))"

SHAS = {source: hashlib.sha1(source.encode()).hexdigest() for source in (TAKE, RENEW, RELEASE)}  # scripts' names
Redis = aioredis.Redis | RedisCluster
Call = tuple[str, list[str], list[Any]]  # a script's source, its keys, its arguments


@dataclass(frozen=True)
class Waiting:
    """Calls of one caller waiting to be sent, and where their answers go."""

    calls: list[Call]
    answers: asyncio.Future[list[Any]]


class StreamLeases:
    """The leases of this process's open streams, on one Redis (see the module docstring)."""

    def __init__(self, redis: Redis, lease_seconds: float) -> None:
        self.redis = redis
        self.lease_ms = max(1, int(lease_seconds * 1000))
        self.process = secrets.token_hex(8)  # this process's leases, apart from every other's
        self.numbers = itertools.count()
        self.held: dict[str, set[str]] = defaultdict(set)  # key -> members of this process's leases
        self.renewer: asyncio.Task[None] | None = None
        self.waiting: list[Waiting] = []  # calls not sent yet (see _send_waiting)
        self.sender: asyncio.Task[None] | None = None

    async def take(self, keys: dict[str, str], caps: dict[str, int]) -> tuple[str, list[str]] | str:
        """A lease on every key (``name -> key``) for one stream: its member and the keys taken, or the
        name of the first cap that is full (nothing is kept then).  Raises on a store failure."""
        self._renew_soon()
        member = f"{self.process}:{next(self.numbers)}"
        sets = {name: KEY_PREFIX + "{" + key + "}" for name, key in keys.items()}
        answers = await self._run([(TAKE, [key], [caps[name], self.lease_ms, member]) for name, key in sets.items()])
        taken = [key for key, answer in zip(sets.values(), answers, strict=True) if int(answer) == 1]
        full = [name for name, answer in zip(sets, answers, strict=True) if int(answer) != 1]
        for key in taken:
            self.held[key].add(member)
        if full:
            await self.give_back(member, taken)
            return full[0]
        return member, taken

    async def give_back(self, member: str, keys: list[str]) -> None:
        """Remove one stream's leases (a lease that cannot be removed now runs out by itself)."""
        for key in keys:
            members = self.held.get(key)
            if members is not None:
                members.discard(member)
                if not members:
                    del self.held[key]
        if not keys:
            return
        try:
            await self._run([(RELEASE, [key], [member]) for key in keys])
        except (RedisError, OSError) as error:
            log.warning("stream_lease_release_failed", error=type(error).__name__)

    async def renew(self) -> None:
        """Push every lease of this process forward by the lease time: :data:`RENEW_BATCH` leases a
        script call, all the calls in one pipeline (on a cluster, concurrent calls per slot)."""
        if self.held:
            await self._run(renewals(self.held, self.lease_ms, isinstance(self.redis, RedisCluster)))

    def _renew_soon(self) -> None:
        if self.renewer is None or self.renewer.done():
            self.renewer = asyncio.create_task(self._renew_forever(), name="sse:stream-leases")

    async def _renew_forever(self) -> None:
        """Renew every ``lease / 3``; a failed renewal is logged and tried again at the next turn."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            try:
                await self.renew()
            except (RedisError, OSError) as error:
                log.warning("stream_lease_renewal_failed", error=type(error).__name__)

    async def _run(self, calls: list[Call]) -> list[Any]:
        """The answers of ``calls``, sent with every other call of this process waiting meanwhile
        (:meth:`_send_waiting`); raises the first call's error."""
        waiting = Waiting(calls, asyncio.get_running_loop().create_future())
        self.waiting.append(waiting)
        if self.sender is None or self.sender.done():
            self.sender = asyncio.create_task(self._send_waiting(), name="sse:stream-lease-calls")
        answers = await waiting.answers
        for answer in answers:
            if isinstance(answer, Exception):
                raise answer
        return answers

    async def _send_waiting(self) -> None:
        """Send the calls waiting, all of them in one pipeline, until none waits: one connection of the
        gateway's Redis pool, however many streams open or close at once (a burst of 2,000 streams
        closing, a pipeline each, ran the pool of 20 dry: 939 leases left to run out)."""
        while self.waiting:
            batch, self.waiting = self.waiting, []
            try:
                answers = await self._answers([call for waiting in batch for call in waiting.calls])
            except Exception as error:  # the store failed: every caller learns it
                for waiting in batch:
                    if not waiting.answers.done():
                        waiting.answers.set_exception(error)
                continue
            except asyncio.CancelledError:  # the process stops: nobody waits for ever
                for waiting in batch + self.waiting:
                    waiting.answers.cancel()
                raise
            start = 0
            for waiting in batch:
                if not waiting.answers.done():  # its caller may have gone (cancelled)
                    waiting.answers.set_result(answers[start : start + len(waiting.calls)])
                start += len(waiting.calls)

    async def _answers(self, calls: list[Call]) -> list[Any]:
        """Each call's answer (or error), in one pipeline; when Redis lost a script (restarted,
        flushed), load it and run the calls refused for it again."""
        answers = await self._pipeline(calls)
        lost = [n for n, answer in enumerate(answers) if isinstance(answer, NoScriptError)]
        if lost:
            again = await reload_and_repeat(
                self.redis, (calls[n][0] for n in lost), lambda: self._pipeline([calls[n] for n in lost])
            )
            for n, answer in zip(lost, again, strict=True):
                answers[n] = answer
        return answers

    async def _pipeline(self, calls: list[Call]) -> list[Any]:
        """The calls' answers (or errors): one pipeline on one Redis; on a cluster, whose pipelines take
        no scripts, each call at once to its keys' master."""
        if isinstance(self.redis, RedisCluster):
            calls_made = (self.redis.evalsha(SHAS[source], len(keys), *keys, *args) for source, keys, args in calls)
            return list(await asyncio.gather(*calls_made, return_exceptions=True))
        async with self.redis.pipeline(transaction=False) as pipe:
            for source, keys, args in calls:
                pipe.evalsha(SHAS[source], len(keys), *keys, *args)
            return list(await pipe.execute(raise_on_error=False))

    async def close(self) -> None:
        """Stop renewing and sending (the process is stopping: its leases run out)."""
        for task in (self.renewer, self.sender):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task


def renewals(held: dict[str, set[str]], lease_ms: int, by_slot: bool = False) -> list[Call]:
    """The script calls that renew the leases ``held`` (key -> members): :data:`RENEW_BATCH` leases
    a call (a key's members are split over calls when they are more); ``by_slot`` (a cluster): the
    keys of a call all in one hash slot."""
    groups: dict[int, list[str]] = defaultdict(list)
    for key in held:
        groups[key_slot(key.encode()) if by_slot else 0].append(key)
    calls: list[Call] = []
    for keys in groups.values():
        call: Call = (RENEW, [], [lease_ms])
        room = RENEW_BATCH  # leases the call can still take
        for key in keys:
            members = sorted(held[key])
            while members:
                if room == 0:
                    calls.append(call)
                    call, room = (RENEW, [], [lease_ms]), RENEW_BATCH
                part, members = members[:room], members[room:]
                call[1].append(key)
                call[2].extend([len(part), *part])
                room -= len(part)
        if call[1]:
            calls.append(call)
    return calls


@dataclass(frozen=True)
class OpenStream:
    """The slots one SSE stream holds: counted in this process, and leased in Redis (when shared)."""

    counted: list[str]
    member: str = ""
    leased: list[str] = field(default_factory=list)


class StreamCaps:
    """The SSE caps of one gateway process: ``sse_streams_per_process`` in its memory; the address's
    and the credential's caps on shared leases when the gateway has a Redis (else in memory too)."""

    def __init__(
        self, settings: GatewaySettings, metrics: LimitMetrics, store_failed: StoreFailed, redis: Redis | None
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.store_failed = store_failed
        self.counts: Tally[str] = Tally()  # this process's open streams by capped key
        self.leases = StreamLeases(redis, settings.sse_stream_lease_seconds) if redis is not None else None

    async def open(self, keys: dict[str, str]) -> OpenStream:
        """Take one slot per cap for a stream capped by ``keys`` (cap name -> key) and by this
        process; 503 ``too_many_streams`` past any of them."""
        caps = {name: int(value) for name, value in self.settings.fixed_limits().items()}
        if self.counts["process"] >= caps["sse_streams_per_process"]:
            self._refuse("sse_streams_per_process")
        lease: tuple[str, list[str]] | None = None
        if self.leases is not None:
            try:
                answer = await self.leases.take(keys, caps)
            except Exception as error:  # the store failed: this process's own count caps the stream
                self.store_failed(error, [])
            else:
                if isinstance(answer, str):
                    self._refuse(answer)
                lease = answer
        if lease is None:
            for name, key in keys.items():
                if self.counts[key] >= caps[name]:
                    self._refuse(name)
        taken = OpenStream(["process", *keys.values()], *(lease or ("", [])))
        self.counts.update(taken.counted)
        self.metrics.streams.set(self.counts["process"])
        return taken

    def _refuse(self, name: str) -> NoReturn:
        self.metrics.refused.labels(name).inc()
        cap = self.settings.fixed_limits()[name]
        detail = f"too many open event streams ({name.replace('_', ' ')}: {cap:g})"
        raise Problem(503, "too_many_streams", detail, headers={"Retry-After": str(STREAM_RETRY_AFTER)})

    async def close(self, taken: OpenStream) -> None:
        """Give back the slots of a stream that ended."""
        self.counts.subtract(taken.counted)
        self.counts += Tally()  # drop keys that reached zero, so the tally does not grow forever
        self.metrics.streams.set(self.counts["process"])
        if self.leases is not None and taken.leased:
            await self.leases.give_back(taken.member, taken.leased)

    async def stop(self) -> None:
        """Stop renewing this process's leases (the gateway is stopping; they run out)."""
        if self.leases is not None:
            await self.leases.close()
