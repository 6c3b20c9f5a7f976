"""What the store knows about a game: its metadata, log entries, commits and keys."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from services.common.rng import Seed
from services.common.store import hash_token
from services.filing.keys import game_type_of
from services.legalmoves.fingerprint import LegalEntries
from services.outbox.stream import OutboxEvent


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
class Commit:
    """One entry of a game's log: who, which bot (or ""), the move and its unredacted events.

    ``kind`` is "" for a move; lifecycle entries ("timeout", "resign", "idle") have no move, and the
    creation entry (version 0) no seat either.  ``state_digest`` is the digest of the snapshot the
    entry produced and ``hash`` the entry's chain hash (both set by
    :func:`services.fairness.chain.seal` before committing).  ``status`` and ``to_act`` are the game
    after the entry, filled by the commit where left empty ("" and ``None`` in entries stored
    before entries carried them).  Appended as is; read back as a :class:`LogEntry`.
    """

    seat: int | None
    bot: str
    move: dict[str, Any] | None
    events: list[dict[str, Any]]
    kind: str = ""
    state_digest: str = ""
    hash: str = ""
    status: str = ""
    to_act: list[int] | None = None


@dataclass(frozen=True)
class LogEntry(Commit):
    """An entry as the game's stream holds it: a :class:`Commit` with its version (0 is the creation)."""

    version: int = field(kw_only=True)

    @classmethod
    def of(cls, entry: Commit, version: int) -> LogEntry:
        """``entry`` as logged at ``version``."""
        return cls(entry.seat, entry.bot, entry.move, entry.events, entry.kind, entry.state_digest, entry.hash,
                   entry.status, entry.to_act, version=version)  # fmt: skip


@dataclass(frozen=True)
class Step:
    """One atomic step of a game, everything :meth:`GameStore.commit` writes at once.

    ``entries`` are sealed (chain hash and state digest set) on top of ``previous_head``, the head
    stored with ``expected_version``; ``status`` is the game's after the step (an end files it:
    :mod:`services.filing`), ``result`` its result once finished, ``lifecycle`` the lifecycle state
    beside the engine's and ``attention_ms`` when a conductor must look at it next (``None``:
    never).  With an ``idempotency_key`` the ``answer`` is kept for a retry of the same key.
    ``outbox`` events are written with the step (only if it is written); so are the ``legal``
    answers (:mod:`services.legalmoves`).  ``visibility`` names the game's listing, and
    ``bot_memory`` (empty: unchanged) replaces the bots' memory of the game.  ``seats_identity``
    (empty: not checked) is the identity of the seats the step was authorised by, checked by the
    commit (a step played on a kept position, :mod:`services.rules.positions`).
    """

    game_id: str
    expected_version: int
    snapshot: bytes
    status: str
    result: dict[str, Any] | None
    entries: Sequence[Commit]
    previous_head: str = ""
    lifecycle: dict[str, Any] | None = None
    attention_ms: int | None = None
    idempotency_key: str = ""
    answer: bytes = b""
    outbox: Sequence[OutboxEvent] = ()
    legal: LegalEntries | None = None
    visibility: str = "public"
    bot_memory: bytes = b""
    seats_identity: str = ""


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
    # Further facts of the creation (a waiting game's invitations), written in its transaction.
    outbox: Sequence[OutboxEvent] = ()

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
