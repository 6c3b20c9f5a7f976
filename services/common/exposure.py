"""Safe defaults for what a process exposes: loopback, unless operator calls are guarded.

Without operator API keys, creating games, aborting them and replaying active ones (which
reveals every hidden card) are open to any caller.  That is fine for local development on
loopback, never by accident on a wider interface: a process told to listen beyond loopback
with no keys refuses to start, unless ``CHAIWALA_INSECURE_OPEN=1`` says it is meant (and then
it says so in its log, at warning level).
"""

from __future__ import annotations

import ipaddress
from typing import Any

INSECURE_SETTING = "CHAIWALA_INSECURE_OPEN"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind or service address without port) is loopback only."""
    host = host.strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name or a wildcard ("", "0.0.0.0", "::") may reach beyond this machine


def host_of(address: str) -> str:
    """The host part of ``host:port`` (``[v6]:port`` too), without a ``dns:///`` prefix."""
    address = address.split("///", 1)[-1]
    if address.startswith("["):
        return address[1 : address.find("]")]
    return address.rsplit(":", 1)[0] if address.count(":") == 1 else address


def check_exposure(what: str, host: str, guarded: bool, insecure_open: bool, log: Any) -> None:
    """Refuse to serve ``what`` on a non-loopback ``host`` unless ``guarded`` or opened on purpose."""
    if is_loopback(host) or guarded:
        return
    if insecure_open:
        log.warning("insecure_open", what=what, host=host, note=f"{INSECURE_SETTING}=1: operator calls are open")
        return
    raise SystemExit(
        f"refusing to serve {what} on {host} with no operator API keys: anyone could create, abort and replay "
        f"games. Set CHAIWALA_API_KEYS, bind 127.0.0.1, or set {INSECURE_SETTING}=1 to run open on purpose."
    )
