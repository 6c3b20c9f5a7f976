"""The hash chain over a game's log.

Every entry's hash covers the previous entry's hash, the entry's version, seat and
kind, a digest of its move, and a digest of the snapshot it produced:

``hash_v = SHA-256(canonical JSON {prev, version, seat, kind, move, state})``

The chain starts from a genesis hash over the game's public header (id, type, seed
commitment, options, players) and the digest of the set-up snapshot, so a client that
kept any head hash can later prove exactly which setup and moves led to it.  Move
digests are taken over the move's deterministic protobuf encoding, so a move spelled
differently in JSON (defaults printed, enum numbers) has the same digest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import orjson

from services.common import protojson
from services.common.runner import Match
from services.games.records import Commit

_GENESIS_TAG = "chaiwala/log/v1"


def digest(data: bytes) -> str:
    """SHA-256 of ``data`` in hex."""
    return hashlib.sha256(data).hexdigest()


def state_digest(match: Match) -> str:
    """The digest of a match's snapshot, as an entry's chain hash covers it."""
    return digest(match.snapshot.to_json())


def _hash(payload: dict[str, Any]) -> str:
    return digest(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS))


def genesis(
    game_id: str,
    game_type: str,
    commitment: str,
    options_digest: str,
    players: Sequence[dict[str, Any]],
    setup_digest: str,
) -> str:
    """The hash every chain starts from: the public header and the set-up snapshot."""
    names = [{"name": p.get("name", ""), "bot": p.get("bot", "")} for p in players]
    return _hash(
        {
            "tag": _GENESIS_TAG,
            "game_id": game_id,
            "game_type": game_type,
            "seed_commitment": commitment,
            "options": options_digest,
            "players": names,
            "state": setup_digest,
        }
    )


def link(previous: str, version: int, seat: int | None, kind: str, move_digest: str, state_digest: str) -> str:
    """The hash of one log entry, chained to ``previous``."""
    return _hash(
        {
            "prev": previous,
            "version": version,
            "seat": seat,
            "kind": kind,
            "move": move_digest,
            "state": state_digest,
        }
    )


def message_digest(game_type: str, name: str, data: dict[str, Any]) -> str:
    """Digest of one of the game's messages (``Move``, ``Options``) over its deterministic encoding.

    An ``@type`` key (as in the proto3 JSON of an ``Any``) is ignored.
    """
    fields = {key: value for key, value in data.items() if key != "@type"}
    return digest(protojson.identity(game_type, name, fields))


def seal(game_type: str, previous: str, first_version: int, commits: Sequence[Commit]) -> list[Commit]:
    """``commits`` with their chain hashes set, the first one chained to ``previous``.

    Each commit already carries the digest of the snapshot it produced; a move's kind is
    "" (lifecycle entries without a move name their kind).
    """
    sealed = []
    for offset, item in enumerate(commits):
        move_digest = message_digest(game_type, "Move", item.move) if item.move is not None else ""
        entry_hash = link(previous, first_version + offset, item.seat, item.kind, move_digest, item.state_digest)
        sealed.append(replace(item, hash=entry_hash))
        previous = entry_hash
    return sealed
