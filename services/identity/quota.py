"""The guest-session quota: one count per client address, however a session is asked for.

``POST /v1/sessions`` is counted by the gateway (:mod:`gateway.limits`) and a gRPC
``CreateSession`` by the identity service, both through :class:`SessionQuota` on the same keys under
the same setting (``CHAIWALA_SESSION_LIMIT``), so sessions asked over REST and over gRPC from one
address draw on one count (issue #44).  The gateway says it counted by passing the client's address
in the call's ``x-chaiwala-client-address`` metadata; only peers in ``CHAIWALA_TRUSTED_GATEWAYS``
may say so, a peer outside it is counted against its own address whatever its metadata says.

Each window is a sliding-window counter (the previous fixed window's count, weighted by how much
of it still overlaps the last ``seconds``, plus the current one's), as the gateway's other limits
are: a burst just before a window's end does not buy a second one just after.  Counts live in
``identity:sessions:{<address>}:<amount>/<seconds>:<window>`` (one hash tag per address, so one
script covers every window on Redis Cluster too); check and count are one script, so concurrent
calls cannot both slip past, and a refused call counts nothing.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Sequence
from dataclasses import dataclass

import grpc
import limits
from redis.asyncio import Redis, RedisCluster

from services.common import errors

CLIENT_ADDRESS = "x-chaiwala-client-address"


def peer_address(peer: str) -> str:
    """The IP of a gRPC peer string (``ipv4:127.0.0.1:5000``, ``ipv6:[::1]:5000``); "" if none."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return ""


def parse_networks(text: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Comma-separated addresses or CIDRs; a bad entry is a configuration error (ValueError)."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def within(address: str, networks: Sequence[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    """Whether ``address`` is in one of ``networks``."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


# KEYS: the previous and current window of each limit.  ARGV: now (seconds), then each limit's
# seconds and amount.  Answers the index of the first limit this session would exceed (nothing is
# counted then), or -1 once it is counted in every window.
TAKE = """
local now = tonumber(ARGV[1])
local count = #KEYS / 2
for i = 0, count - 1 do
  local seconds, amount = tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[3 + 2 * i])
  local previous = tonumber(redis.call('GET', KEYS[2 * i + 1]) or '0')
  local current = tonumber(redis.call('GET', KEYS[2 * i + 2]) or '0')
  local overlap = 1 - (now % seconds) / seconds
  if previous * overlap + current + 1 > amount then return i end
end
for i = 0, count - 1 do
  redis.call('INCR', KEYS[2 * i + 2])
  redis.call('EXPIRE', KEYS[2 * i + 2], 2 * tonumber(ARGV[2 + 2 * i]))
end
return -1
"""


@dataclass(frozen=True)
class Exceeded:
    """The window a session would exceed, and when its current window ends (epoch seconds)."""

    item: limits.RateLimitItem
    reset_at: float


class SessionQuota:
    """Guest sessions per client address (see the module docstring)."""

    def __init__(self, redis: Redis | RedisCluster, limit: str, gateways: str = "") -> None:
        self.redis = redis
        self.items = limits.parse_many(limit)
        self.gateways = parse_networks(gateways)
        self.script = redis.register_script(TAKE)

    def counted_by_gateway(self, peer: str, metadata: Sequence[tuple[str, str | bytes]]) -> bool:
        """Whether a trusted gateway relayed this call (and counted it against its client)."""
        return within(peer_address(peer), self.gateways) and any(key == CLIENT_ADDRESS for key, _ in metadata)

    async def take(self, address: str, now: float | None = None) -> Exceeded | None:
        """Count one session for ``address``; the window it would exceed instead (nothing counted)."""
        now = time.time() if now is None else now
        keys: list[str] = []
        args: list[float] = [now]
        for item in self.items:
            seconds = item.get_expiry()
            window = int(now // seconds)
            # The amount is in the key (as the gateway's limits name theirs): a changed setting
            # starts afresh rather than inheriting a count made under another.
            base = f"identity:sessions:{{{address}}}:{item.amount}/{seconds}"
            keys += [f"{base}:{window - 1}", f"{base}:{window}"]
            args += [seconds, item.amount]
        refused = int(await self.script(keys=keys, args=args))
        if refused < 0:
            return None
        item = self.items[refused]
        return Exceeded(item, (int(now // item.get_expiry()) + 1) * item.get_expiry())

    async def charge(self, address: str, now: float | None = None) -> None:
        """Count one session for ``address``; RESOURCE_EXHAUSTED ``rate_limited`` past any window."""
        exceeded = await self.take(address, now)
        if exceeded is not None:
            message = f"session_quota limit of {exceeded.item} reached for this address; retry later"
            raise errors.ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited", message)
