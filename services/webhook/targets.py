"""Which webhook URLs the dispatcher may call: the SSRF guard.

A webhook makes the server send requests wherever an operator points it, so a URL that
resolves to a private (RFC 1918, unique-local), loopback, link-local (cloud metadata lives
there), multicast, reserved or unspecified address is refused, unless the deployment allows
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
        """Why ``address`` is not allowed ("" when it is)."""
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if address.is_loopback:
            return "" if self.allow_loopback or self.allow_private else "loopback"
        if address.is_link_local:
            return "" if self.allow_private else "link-local"
        if address.is_multicast or address.is_unspecified or address.is_reserved:
            return "reserved"
        if address.is_private or not address.is_global:
            return "" if self.allow_private else "private"
        return ""


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
