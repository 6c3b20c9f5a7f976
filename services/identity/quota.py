"""The guest-session quota of calls that reach the identity service directly (gRPC).

``POST /v1/sessions`` is counted by the gateway against its client's address
(``CHAIWALA_SESSION_LIMIT``); the gateway says so by passing that address in the call's
``x-chaiwala-client-address`` metadata.  A ``CreateSession`` from anyone else (a platform or a
script on gRPC) is counted here against its peer address, under the same setting, so asking over
gRPC is no way around the quota.  Only peers in ``CHAIWALA_TRUSTED_GATEWAYS`` may say they are a
gateway that counted already; a peer outside it is counted whatever its metadata says.

Counts are fixed windows in Redis (``identity:sessions:{<address>}:<amount>/<seconds>:<window>``, one
hash tag per address, so one MULTI covers every window on Redis Cluster too), written
atomically: the check and the count are one INCR, so concurrent calls cannot both slip past.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Sequence

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


class SessionQuota:
    """Guest sessions per peer address, for calls no trusted gateway counted."""

    def __init__(self, redis: Redis | RedisCluster, limit: str, gateways: str) -> None:
        self.redis = redis
        self.items = limits.parse_many(limit)
        self.gateways = parse_networks(gateways)

    def counted_by_gateway(self, peer: str, metadata: Sequence[tuple[str, str | bytes]]) -> bool:
        """Whether a trusted gateway relayed this call (and counted it against its client)."""
        return within(peer_address(peer), self.gateways) and any(key == CLIENT_ADDRESS for key, _ in metadata)

    async def charge(self, address: str, now: float | None = None) -> None:
        """Count one session for ``address``; RESOURCE_EXHAUSTED ``rate_limited`` past any window."""
        now = time.time() if now is None else now
        keys = []
        async with self.redis.pipeline(transaction=True) as pipe:
            for item in self.items:
                seconds = item.get_expiry()
                # The amount is in the key (as the gateway's limits name theirs): a changed setting
                # starts afresh rather than inheriting a count made under another.
                key = f"identity:sessions:{{{address}}}:{item.amount}/{seconds}:{int(now // seconds)}"
                keys.append((key, item))
                pipe.incr(key)
                pipe.expire(key, seconds)
            answers = await pipe.execute()
        for (_, item), count in zip(keys, answers[::2], strict=True):
            if int(count) > item.amount:
                message = f"session_quota limit of {item} reached for this address; retry later"
                raise errors.ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "rate_limited", message)
