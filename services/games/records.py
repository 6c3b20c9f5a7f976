"""What the store knows about a game: its metadata, log entries, commits and keys."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import orjson

from services.common.rng import Seed
from services.common.store import hash_token
from services.filing.keys import game_type_of


@dataclass(frozen=True)
class Fairness:
    """A game's seed provenance (see :mod:`services.fairness`); the secret stays server-side until the end."""

    server_secret: str
    seed_commitment: str
    seed_source: str
    client_seed: str


@dataclass(frozen=True)
class GameMeta:
    """What the store knows about a game besides its snapshot."""

    game_id: str
    game_type: str
    # The full seed (up to 256 bits) and the generator it started (services.common.rng).
    seed: Seed
    options: dict[str, Any]
    players: list[dict[str, str]]
    token_hashes: list[str]
    status: str
    version: int
    result: dict[str, Any] | None
    fairness: Fairness = field(default_factory=lambda: Fairness("", "", "", ""))
    log_head: str = ""
    lifecycle: dict[str, Any] = field(default_factory=dict)
    host_hash: str = ""
    visibility: str = "public"
    created_ms: int = 0
    lobby_rev: int = 0
    # Ratings (services/rating/): whether the game is rated, and its tournament table if any.
    rated: bool = False
    tournament: str = ""
    # Compacted by the retention policy (services.retention.archive): a compressed snapshot, no stream.
    archived: bool = False
    # Digest of the raw players and token hashes read (services.legalmoves.fingerprint.identity).
    identity: str = ""

    def names(self) -> list[str]:
        """The players' names, by seat."""
        return [str(player["name"]) for player in self.players]

    def is_host(self, token: str) -> bool:
        """Whether ``token`` is this game's host token."""
        return bool(self.host_hash) and secrets.compare_digest(self.host_hash, hash_token(token))

    def seat_of_player(self, player_id: str) -> int | None:
        """The first human seat whose external id is this player's (a verified identity)."""
        for seat, player in enumerate(self.players):
            if player.get("external_id") == player_id and not player.get("bot"):
                return seat
        return None

    def seat_of_token(self, token: str) -> int | None:
        """The seat a bearer token belongs to, if any."""
        digest = hash_token(token)
        for seat, stored in enumerate(self.token_hashes):
            if stored and secrets.compare_digest(stored, digest):
                return seat
        return None


@dataclass(frozen=True)
class LogEntry:
    """One accepted move in the game's stream (version 0 is the creation)."""

    version: int
    seat: int | None
    bot: str
    move: dict[str, Any] | None
    events: list[dict[str, Any]]
    hash: str = ""
    state_digest: str = ""
    kind: str = ""
    # The game after the entry: its status and the seats to act ("" and None for entries stored
    # before entries carried them).
    status: str = ""
    to_act: list[int] | None = None


@dataclass(frozen=True)
class Commit:
    """One entry to append: who, which bot (or ""), the move and its unredacted events.

    ``kind`` is "" for a move; lifecycle entries ("timeout", "resign") have no move.
    ``state_digest`` is the digest of the snapshot the entry produced and ``hash`` the entry's
    chain hash (both set by :func:`services.fairness.chain.seal` before committing).
    """

    seat: int
    bot: str
    move: dict[str, Any] | None
    events: list[dict[str, Any]]
    kind: str = ""
    state_digest: str = ""
    hash: str = ""
    # The game after this entry (status, seats to act); filled by the commit where left empty.
    status: str = ""
    to_act: list[int] | None = None


@dataclass(frozen=True)
class NewGame:
    """Everything :meth:`GameStore.create` stores for a new game.

    ``genesis`` (the chain's first hash and the set-up snapshot's digest) is set for a game
    that starts at once; a game that waits for players gets it when it starts.
    """

    game_id: str
    seed: Seed
    options: dict[str, Any]
    players: list[dict[str, Any]]
    token_hashes: list[str]
    host_hash: str
    status: str
    snapshot: bytes
    lifecycle: dict[str, Any]
    visibility: str
    created_ms: int
    attention_ms: int | None
    fairness: Fairness
    genesis: tuple[str, str] | None
    rated: bool = False
    tournament: str = ""

    @property
    def game_type(self) -> str:
        """The game type named by the id."""
        return game_type_of(self.game_id)


def bot_memory_key(game_id: str) -> str:
    """The game's bots' memory by seat (JSON; :class:`services.common.engine.RememberingBot`),
    beside its snapshot and written by the same commits; gone when the game ends."""
    return f"game:{{{game_id}}}:bots"


def encode_bot_memory(memory: dict[int, Any]) -> bytes:
    """A match's bot memory as stored (seats as JSON keys; empty: nothing remembered)."""
    return orjson.dumps({str(seat): notes for seat, notes in sorted(memory.items())}) if memory else b""


def decode_bot_memory(raw: bytes | str | None) -> dict[int, Any]:
    """:func:`encode_bot_memory`'s inverse (``None`` or empty: nothing remembered)."""
    return {int(seat): notes for seat, notes in orjson.loads(raw).items()} if raw else {}
