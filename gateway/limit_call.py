"""The limits' one ``EVALSHA`` per request, packed from pieces kept per window.

Every ``/v1`` request costs the gateway one script call (:meth:`gateway.limits.Limiter.check`), sent
by the lean script call every process shares (:class:`services.common.scriptcall.LeanScript`, on
connections held for the limits, :class:`~services.common.scriptcall.HeldConnections`): its
connections, timeout, cancel, retry, ``NOSCRIPT`` and error rules are that module's.  What is the
gateway's own is the command's bytes: a window's two keys and three arguments are the same on every
request of one credential or address, so they are packed once and kept (:class:`WindowsCommand`).

Why a hand packer when ``hiredis.pack_command`` exists: over the same kept keys and arguments,
hiredis's packer converts and frames every argument on every request, this one joins bytes packed
once.  A POST's command (four windows): 2.64 against 3.15 µs (docs/lab/move-path.md, "One lean script
call"), again 2.45 against 3.01 µs, lower in 5 of 5 alternations of 20,000 (2026-12-07 19:24 UTC,
load 3.5); with the legal-moves rider the two are even (3.21 against 3.22 µs).  Half a microsecond
of every request's CPU for thirty lines whose bytes tests/gateway/test_limit_call.py holds to
redis-py's packing: kept.  Were it within noise, hiredis's packer would do (as
:meth:`services.common.scriptcall.LeanScript.command` uses it).
"""

from __future__ import annotations

from collections.abc import Callable

from limits import RateLimitItem

MAX_KEPT_WINDOWS = 8192  # packed windows kept (two or three per credential and address seen); then forgotten
Window = tuple[str, str, RateLimitItem]  # limit name, key, one of its rate items (gateway.limits.Window)


def _bulks(*args: str | int | bytes) -> bytes:
    parts = []
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)


class WindowsCommand:
    """The limits' ``EVALSHA`` of a request packed from pieces kept per window.

    A window's two keys (``keys_of``: the library's names for them, with their prefix) and its three
    arguments are the same on every request of one credential or address, so each window is packed
    once and kept (up to :data:`MAX_KEPT_WINDOWS`, then all are forgotten and packed again as they
    come).  The command is the bytes redis-py (or ``hiredis.pack_command``) packs for ``EVALSHA sha numkeys
    keys... count args...`` (gateway.limits.windows_script says what they are).
    """

    def __init__(self, keys_of: Callable[[str, str, RateLimitItem], tuple[str, str]]) -> None:
        self.keys_of = keys_of
        self.kept: dict[Window, tuple[bytes, bytes]] = {}

    def __call__(self, sha: str, windows: list[Window], rider_keys: list[str], rider_args: list[str]) -> bytes:
        """The packed command charging ``windows`` in order, then the rider's read (none: empty lists)."""
        keys, args = [], []
        for window in windows:
            pieces = self.kept.get(window)
            if pieces is None:
                pieces = self._pack(window)
            keys.append(pieces[0])
            args.append(pieces[1])
        count = len(windows)
        head = b"*%d\r\n%b" % (3 + 5 * count + len(rider_keys) + 1 + len(rider_args),
                                _bulks("EVALSHA", sha, 2 * count + len(rider_keys)))  # fmt: skip
        return b"".join((head, *keys, _bulks(*rider_keys), _bulks(count), *args, _bulks(*rider_args)))

    def _pack(self, window: Window) -> tuple[bytes, bytes]:
        if len(self.kept) >= MAX_KEPT_WINDOWS:
            self.kept.clear()
        name, key, item = window
        pieces = _bulks(*self.keys_of(name, key, item)), _bulks(item.amount, item.get_expiry(), 1)
        self.kept[window] = pieces
        return pieces
