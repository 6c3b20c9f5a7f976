"""Positions: the parsed snapshots and legal moves of recently seen games, per process.

A REST client plays a move as ``GET legal-moves`` then ``POST moves``: without this both
requests parse the same snapshot and compute the same legal moves.  A position is named by
``(game id, version, log head)``: the version alone could repeat across a reset, but the log
head is the chain hash of the entry that produced the snapshot (it covers the snapshot's
digest), so one name is one snapshot, for good.  After a commit the service files the new
position under its new name, so the next request of the game (usually the next move) neither
parses the snapshot nor recomputes legal moves.  Games that wait for players (no log head) are
never filed.  The cache is a bounded LRU: a miss only costs what every request cost before.
"""

from __future__ import annotations

from collections import OrderedDict

from services.common.engine import Engine
from services.common.runner import Canonical, Match, Snapshot
from services.games.records import GameMeta

Name = tuple[str, int, str]
# A parsed state is some tens of KB of Python objects: 512 positions stay within ~25 MB per process.
DEFAULT_CAPACITY = 512


class Positions:
    """A bounded, least-recently-used map from position name to its snapshot and legal moves."""

    def __init__(self, engine: Engine, canonical: Canonical, capacity: int = DEFAULT_CAPACITY) -> None:
        self.engine = engine
        self.canonical = canonical
        self.capacity = capacity
        self._known: OrderedDict[Name, Match] = OrderedDict()

    def match(self, meta: GameMeta, snapshot: bytes) -> Match:
        """A fresh :class:`Match` of the game's current position (parsed only if not known)."""
        name = _name(meta.game_id, meta.version, meta.log_head)
        known = self._known.get(name) if name is not None else None
        if known is not None:
            self._known.move_to_end(name)  # type: ignore[arg-type]
            return self._copy(known)
        match = Match(engine=self.engine, snapshot=Snapshot.from_json(snapshot), canonical=self.canonical, trusted=True)
        if name is not None:
            self._file(name, match)
        return self._copy(match)

    def remember(self, game_id: str, version: int, log_head: str, match: Match) -> None:
        """File a position just committed (``match`` as it stands after the commit)."""
        name = _name(game_id, version, log_head)
        if name is not None:
            self._file(name, match)

    def __len__(self) -> int:
        return len(self._known)

    def _file(self, name: Name, match: Match) -> None:
        self._known[name] = match
        self._known.move_to_end(name)
        while len(self._known) > self.capacity:
            self._known.popitem(last=False)

    def _copy(self, match: Match) -> Match:
        # The snapshot is never changed in place (Match.play makes a new one), so sharing it is
        # safe; the legal-move memo is shared too, so what one request computes the next reuses.
        return Match(
            engine=self.engine, snapshot=match.snapshot, canonical=self.canonical, legal=match.legal, trusted=True
        )


def _name(game_id: str, version: int, log_head: str) -> Name | None:
    return (game_id, version, log_head) if log_head else None
