"""How one log entry is stored in a game's Redis stream: binary hashes and a compressed body.

**Format 2** (written since the ``sse-latency`` change; issue #12's budget of 300 B per logged move):

* ``h`` – the entry's chain hash, 32 raw bytes (was 64 hex characters in ``hash``);
* ``d`` – the digest of the snapshot it produced, 32 raw bytes (was 64 hex in ``digest``);
* ``z`` – one codec byte, then raw DEFLATE of the JSON array ``[seat, bot, kind, move, events]``,
  followed, for entries written since live events carry the turn, by ``status, to_act`` (the
  game after the entry); older five-element bodies read with neither.
  Codec ``n`` > 0 primes DEFLATE with version ``n`` of the game type's frozen dictionary
  (:mod:`services.eventlog.dictionaries`: sample entries of that game, so the keys and values
  every entry repeats cost a few bits); codec ``0`` uses none (a game type without one).

A random Darjeeling entry of ~270 bytes of JSON becomes ~40; with the two hashes and the stream's
own bookkeeping an entry costs about 150 B instead of 480 B (``python -m bench memory``).

**Format 1** (``seat``, ``bot``, ``move``, ``events``, ``kind``, ``hash``, ``digest`` as text) is still
read: games stored before stay as they are (no migration), and each entry says which format it
is in, so a stream may hold both (a lobby-started game's ``0-1`` entry is still written in format 1).
Hashes are SHA-256 hex or "" (round-trip exactly); anything else is refused.

Dictionaries are part of the stored format: a dictionary, once shipped, is never edited — a
better one is added under the next codec number and the old one kept for reading.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import orjson

from services.eventlog.dictionaries import dictionary, latest

CODEC_PLAIN = 0  # no dictionary; codec n > 0 = version n of the game type's dictionary
_LEVEL = 6
_RAW = -15  # raw DEFLATE: no zlib header or checksum (the stream is the store of truth, Redis keeps it whole)
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class Body:
    """An entry's decoded content (the store turns it into a :class:`~services.games.records.LogEntry`)."""

    seat: int | None
    bot: str
    kind: str
    move: dict[str, Any] | None
    events: list[dict[str, Any]]
    hash: str
    state_digest: str
    status: str = ""
    to_act: list[int] | None = None


def _binary(value: str) -> bytes:
    """A SHA-256 hex digest as its 32 bytes ("" stays empty: an entry made before the chain had none)."""
    if value and (len(value) != 64 or not set(value) <= _HEX):
        raise ValueError(f"not a SHA-256 hex digest: {value[:80]!r}")
    return bytes.fromhex(value)


def encode(
    game_type: str,
    seat: int | None,
    bot: str,
    kind: str,
    move: dict[str, Any] | None,
    events: list[dict[str, Any]],
    chain_hash: str,
    state_digest: str,
    status: str = "",
    to_act: list[int] | None = None,
) -> dict[str, bytes]:
    """The stream fields of one entry in format 2 (``status`` and ``to_act``: the game after it)."""
    content: list[Any] = [seat, bot, kind, move, events]
    if status:
        content += [status, to_act or []]
    body = orjson.dumps(content)
    codec = latest(game_type)
    primer = dictionary(game_type, codec) if codec else b""
    if primer:
        compressor = zlib.compressobj(_LEVEL, zlib.DEFLATED, _RAW, zdict=primer)
    else:
        compressor = zlib.compressobj(_LEVEL, zlib.DEFLATED, _RAW)
    packed = bytes((codec,)) + compressor.compress(body) + compressor.flush()
    return {"h": _binary(chain_hash), "d": _binary(state_digest), "z": packed}


def is_compact(fields: dict[bytes, bytes]) -> bool:
    """Whether stream fields are in format 2."""
    return b"z" in fields


def decode(game_type: str, fields: dict[bytes, bytes]) -> Body:
    """The content of one format-2 entry (``fields`` as Redis returns them: bytes to bytes)."""
    packed = fields[b"z"]
    codec = packed[0]
    primer = dictionary(game_type, codec) if codec else b""
    inflater = zlib.decompressobj(_RAW, zdict=primer) if primer else zlib.decompressobj(_RAW)
    seat, bot, kind, move, events, *after = orjson.loads(inflater.decompress(packed[1:]) + inflater.flush())
    return Body(
        seat=seat,
        bot=bot,
        kind=kind,
        move=move,
        events=events,
        hash=fields.get(b"h", b"").hex(),
        state_digest=fields.get(b"d", b"").hex(),
        status=after[0] if after else "",
        to_act=after[1] if after else None,
    )
