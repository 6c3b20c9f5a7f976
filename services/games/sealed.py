"""A game's sealed places: its seed, its server secret and its snapshot (whose RNG state predicts
every draw), sealed with the master key ring (:mod:`services.common.sealing`), each bound to its
game and place, so a sealed value copied into another game does not open.

:func:`reseal_games` seals every game's places with the ring's current key (``chaiwala secrets
reseal``, after a key rotation, or to seal games stored before sealing).  A compacted game's
snapshot stays unsealed: the game is over and its seed revealed.
"""

from __future__ import annotations

from typing import Any

from services.common.sealing import keyring, replace_if_unchanged
from services.filing.keys import game_keys

META_PLACES = (("seed", "seed"), ("server_secret", "secret"))  # meta field, sealed place


def _context(game_id: str, what: str) -> str:
    return f"game-{what}:{game_id}"


def seal_for(game_id: str, what: str, value: bytes) -> bytes:
    """``value`` sealed for one of ``game_id``'s sealed places (``snapshot``, ``seed``, ``secret``)."""
    return keyring().seal(value, _context(game_id, what))


def open_for(game_id: str, what: str, value: bytes) -> bytes:
    """The plaintext of a value :func:`seal_for` sealed (an unsealed one as it is)."""
    return keyring().open(value, _context(game_id, what))


def seal_text_for(game_id: str, what: str, value: str) -> str:
    """A text field of ``game_id`` sealed (the empty string stays empty: nothing to hide)."""
    return keyring().seal_text(value, _context(game_id, what)) if value else ""


def open_text_for(game_id: str, what: str, value: str) -> str:
    """The plaintext of a sealed text field of ``game_id`` (``seed``, ``secret``; unsealed: as it is),
    kept opened by the ring (:meth:`~services.common.sealing.KeyRing.open_text_kept`)."""
    return keyring().open_text_kept(value, _context(game_id, what))


async def reseal_games(redis: Any) -> int:
    """Seal every game's seed, secret and (unless compacted) snapshot with the current key; the
    number of values rewritten.  Each write is a compare-and-set, so a commit racing it wins."""
    rewritten = 0
    async for raw_key in redis.scan_iter(match="game:{*}:meta", count=500):
        meta_key = raw_key.decode() if isinstance(raw_key, bytes) else str(raw_key)
        game_id = meta_key[len("game:{") : -len("}:meta")]
        seed, secret, archived = await redis.hmget(meta_key, ["seed", "server_secret", "archived"])
        for (field, what), value in zip(META_PLACES, (seed, secret), strict=True):
            if value:
                fresh = seal_text_for(game_id, what, open_text_for(game_id, what, value.decode()))
                rewritten += await replace_if_unchanged(redis, meta_key, field, value, fresh.encode())
        state_key = game_keys(game_id)[1]
        snapshot = None if archived == b"1" else await redis.get(state_key)
        if snapshot:
            fresh_state = seal_for(game_id, "snapshot", open_for(game_id, "snapshot", snapshot))
            rewritten += await replace_if_unchanged(redis, state_key, "", snapshot, fresh_state)
    return rewritten
