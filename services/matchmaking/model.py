"""The matchmaking domain's plain data: a ticket, the pool it searches in, a group formed from a pool.

A ticket's *pool* is what must be equal for two tickets to share a table: the game type, the time
control, rated or casual, and the options required.  Its id is a digest of that description, so
two tickets asking for the same thing land in the same pool whatever their JSON spelling.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import asdict, dataclass
from typing import Any

import orjson

SEARCHING = "searching"
MATCHED = "matched"
CANCELLED = "cancelled"
EXPIRED = "expired"
STATUSES = (SEARCHING, MATCHED, CANCELLED, EXPIRED)


def new_ticket_id() -> str:
    """A fresh ticket id."""
    return "tkt_" + secrets.token_hex(12)


def new_group_id() -> str:
    """A fresh group id (the tag the group's game carries as its ``client_seed``)."""
    return "grp_" + secrets.token_hex(12)


@dataclass(frozen=True)
class PoolSpec:
    """What every ticket of one pool asks for alike."""

    game_type: str
    clock: dict[str, int] | None
    rated: bool
    options: dict[str, Any]

    def pool_id(self) -> str:
        """The pool's id: ``<game_type>-<16 hex>`` of the canonical description."""
        canonical = orjson.dumps(asdict(self), option=orjson.OPT_SORT_KEYS)
        return f"{self.game_type}-{hashlib.sha256(canonical).hexdigest()[:16]}"

    def to_json(self) -> bytes:
        """The stored description."""
        return orjson.dumps(asdict(self), option=orjson.OPT_SORT_KEYS)

    @classmethod
    def from_json(cls, raw: bytes | str) -> PoolSpec:
        """The description as stored."""
        data = orjson.loads(raw)
        return cls(data["game_type"], data["clock"], bool(data["rated"]), data["options"])


@dataclass
class Ticket:
    """One player's request for a game, and how it stands."""

    ticket_id: str
    player_id: str
    player_name: str
    pool: PoolSpec
    player_counts: list[int]
    bots_after_s: int | None
    bot: str
    rating: float
    created_ms: int
    expires_ms: int
    status: str = SEARCHING
    game_id: str = ""
    seat: int | None = None
    ended_ms: int = 0

    @property
    def pool_id(self) -> str:
        """The id of the pool the ticket searches in."""
        return self.pool.pool_id()

    def record(self) -> bytes:
        """What never changes once the ticket exists, as stored (``record`` field of its hash)."""
        return orjson.dumps({
            "ticket_id": self.ticket_id, "player_id": self.player_id, "player_name": self.player_name,
            "pool": asdict(self.pool), "player_counts": self.player_counts, "bots_after_s": self.bots_after_s,
            "bot": self.bot, "rating": self.rating, "created_ms": self.created_ms, "expires_ms": self.expires_ms,
        })  # fmt: skip

    @classmethod
    def from_fields(cls, fields: dict[str, str]) -> Ticket:
        """A ticket from its stored hash (the record plus the changing fields)."""
        data = orjson.loads(fields["record"])
        pool = data["pool"]
        seat = fields.get("seat", "")
        return cls(
            ticket_id=data["ticket_id"], player_id=data["player_id"], player_name=data["player_name"],
            pool=PoolSpec(pool["game_type"], pool["clock"], bool(pool["rated"]), pool["options"]),
            player_counts=[int(n) for n in data["player_counts"]], bots_after_s=data["bots_after_s"],
            bot=data["bot"], rating=float(data["rating"]), created_ms=int(data["created_ms"]),
            expires_ms=int(data["expires_ms"]), status=fields.get("status", SEARCHING),
            game_id=fields.get("game_id", ""), seat=int(seat) if seat else None,
            ended_ms=int(fields.get("ended_ms") or 0),
        )  # fmt: skip

    def waited_ms(self, now_ms: int) -> int:
        """How long it searched: until it ended, or until ``now_ms``."""
        end = self.ended_ms if self.ended_ms else now_ms
        return max(0, end - self.created_ms)


@dataclass(frozen=True)
class Group:
    """Tickets that will share one table: the humans (in ticket order) and the bot seats to add."""

    tickets: tuple[Ticket, ...]
    size: int
    bot: str = ""

    @property
    def bots(self) -> int:
        """How many seats bots fill."""
        return self.size - len(self.tickets)


@dataclass
class Forming:
    """A group taken from its pool whose game is being created (the record that survives a crash)."""

    group_id: str
    pool_id: str
    game_type: str
    ticket_ids: list[str]
    seats: list[str]  # per seat in order: a ticket id, or "bot:<level>"
    seed_hex: str
    formed_ms: int

    def to_json(self) -> bytes:
        """As stored."""
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, raw: bytes | str) -> Forming:
        """As stored."""
        return cls(**orjson.loads(raw))
