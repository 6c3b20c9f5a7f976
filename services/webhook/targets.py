"""Which webhook URLs the dispatcher may call: the SSRF guard.

A webhook makes the server send requests wherever an operator points it, so a URL that
resolves to a private (RFC 1918, unique-local), loopback, link-local (cloud metadata lives
there), multicast, reserved or unspecified address is refused, and so is an IPv6 address that
wraps such an IPv4 address (IPv4-mapped or -compatible, 6to4, Teredo, NAT64), and an IPv6 address
outside global unicast (``2000::/3``: the deprecated site-local ``fec0::/10``, SRv6 ``5f00::/16`` and
every other range IANA keeps back) or in a documentation range (``2001:db8::/32``, ``3fff::/20``),
which Python's ``is_global`` does not all catch, unless the deployment allows
private targets (``CHAIWALA_WEBHOOK_ALLOW_PRIVATE``) or loopback ones
(``CHAIWALA_WEBHOOK_ALLOW_LOOPBACK``, which ``make run`` sets for local receivers).

The check runs when a subscription is created and again before every attempt (a name may
resolve elsewhere later).  Redirects are never followed, so a public target cannot bounce a
delivery inward.  Every address a name resolves to must pass.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2048
# A resolver that does not answer is a refusal, not a hung API call.
RESOLVE_TIMEOUT_S = 5.0


class TargetRefused(Exception):
    """The URL is malformed or points somewhere deliveries may not go; ``code`` says which."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class TargetPolicy:
    """What the deployment allows beyond public addresses."""

    allow_private: bool = False
    allow_loopback: bool = False

    def refuses(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
        """Why ``address`` is not allowed ("" when it is).

        An IPv6 address that carries an IPv4 one (:func:`embedded_ipv4`) is judged by each
        IPv4 address it carries as well: ``2002:a9fe:a9fe::`` reaches 169.254.169.254.
        """
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            return self._refuses_one(address.ipv4_mapped)  # the IPv4 address itself, in IPv6 notation
        for inner in embedded_ipv4(address):
            reason = self._refuses_one(inner)
            if reason:
                return reason
        return self._refuses_one(address)

    def _refuses_one(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
        if address.is_loopback:
            return "" if self.allow_loopback or self.allow_private else "loopback"
        if address.is_link_local:
            return "" if self.allow_private else "link-local"
        if address.is_multicast or address.is_unspecified or address.is_reserved:
            return "reserved"
        if address.is_private or not address.is_global:
            return "" if self.allow_private else "private"
        if isinstance(address, ipaddress.IPv6Address) and not _global_unicast(address):
            return "reserved"
        return ""


# The only IPv6 space IANA hands out for global unicast, and the documentation prefix inside it
# that Python (3.11) still calls global (RFC 9637).
_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
_DOCUMENTATION = (ipaddress.IPv6Network("2001:db8::/32"), ipaddress.IPv6Network("3fff::/20"))


def _global_unicast(address: ipaddress.IPv6Address) -> bool:
    """Whether ``address`` is global unicast space a public receiver can have (not site-local,
    not reserved, not documentation)."""
    if address.is_site_local or address not in _GLOBAL_UNICAST:
        return False
    return not any(address in network for network in _DOCUMENTATION)


# NAT64 prefixes: the well-known one (RFC 6052) and the local-use one (RFC 8215); the IPv4
# address is in the last 32 bits (the /96 form, the one resolvers synthesise).
_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))
# IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291 but still routed by some stacks).
_COMPATIBLE = ipaddress.IPv6Network("::/96")


def embedded_ipv4(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address wraps: IPv4-mapped, IPv4-compatible, 6to4 (``2002::/16``),
    Teredo (``2001::/32``: its server and its client) and NAT64 (``64:ff9b::/96``, ``64:ff9b:1::/48``).

    Each form makes a packet to the IPv6 address land on the IPv4 one somewhere, so the deny
    list must see the IPv4 address too.
    """
    if not isinstance(address, ipaddress.IPv6Address):
        return []
    found: list[ipaddress.IPv4Address] = []
    if address.ipv4_mapped is not None:
        found.append(address.ipv4_mapped)
    if address.sixtofour is not None:
        found.append(address.sixtofour)
    if address.teredo is not None:
        found.extend(address.teredo)
    low32 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if any(address in network for network in _NAT64):
        found.append(low32)
    if address in _COMPATIBLE and int(address) > 1:  # :: and ::1 are themselves, not IPv4
        found.append(low32)
    return found


def parse_url(url: str) -> tuple[str, int]:
    """The host and port of a webhook URL, or :class:`TargetRefused` (``bad_url``)."""
    if not url or len(url) > MAX_URL_LENGTH or not url.isascii() or not url.isprintable():
        raise TargetRefused("bad_url", f"url is an http(s) URL of at most {MAX_URL_LENGTH} ASCII characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise TargetRefused("bad_url", "url is not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetRefused("bad_url", "url must be an absolute http:// or https:// URL")
    if parts.username or parts.password:
        raise TargetRefused("bad_url", "url must not carry credentials")
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


async def _addresses(host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    try:
        infos = await asyncio.wait_for(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), RESOLVE_TIMEOUT_S)
    except (socket.gaierror, UnicodeError, TimeoutError):
        raise TargetRefused("unresolvable_url", f"the host {host!r} does not resolve") from None
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


async def check_target(url: str, policy: TargetPolicy) -> None:
    """Refuse (:class:`TargetRefused`, ``target_not_allowed``) a URL any of whose addresses is not allowed."""
    host, port = parse_url(url)
    for address in await _addresses(host, port):
        reason = policy.refuses(address)
        if reason:
            raise TargetRefused(
                "target_not_allowed", f"{host} resolves to a {reason} address, which webhooks may not target"
            )
