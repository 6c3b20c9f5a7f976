"""Positions: the last position of each recently seen game, per process, with its metadata.

A REST client plays a move as ``GET legal-moves`` then ``POST moves``: without this both
requests parse the same snapshot and compute the same legal moves.  A position is named by
``(game id, version, log head)``: the version alone could repeat across a reset, but the log
head is the chain hash of the entry that produced the snapshot (it covers the snapshot's
digest), so one name is one snapshot, for good.  After a commit the service files the new
position under its new name, so the next request of the game (usually the next move) neither
parses the snapshot nor recomputes legal moves.  Games that wait for players (no log head) are
never filed.

**No load for a kept position.**  Each game keeps one entry, its last position this process
committed or loaded, with the game's metadata at that position.  A move on a kept position is
played and committed at once (:meth:`GamePlay.submit <services.rules.gameplay.GamePlay.submit>`):
the commit script's guard (version, log head, status and the seats' identity) refuses it if
anyone else moved the game meanwhile, and only then is the game loaded.  Whether a kept
position is tried first is remembered per game (:attr:`Kept.owned`): a refusal means another
process or the conductor moves this game too, so its next moves load first (today's path) until
a load finds the position this process kept still current.  A game played against bots or from
two rules processes thus pays one refused try, not one per move.

The map is a bounded LRU over games (``CHAIWALA_KEPT_POSITIONS`` per game type and process,
:data:`DEFAULT_CAPACITY`): a miss only costs what every request cost before.  Entries are per
game, so what one game's request finds here never depends on another game's hidden state (only
on how many other games were played lately, as any LRU).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass

from services.common.engine import Engine
from services.common.runner import Canonical, Match, Snapshot
from services.games.records import GameMeta

Name = tuple[str, int, str]
# A kept position is its parsed state, its legal moves once computed and the game's metadata:
# 28 KiB (Darjeeling) to 205 KiB (India Rails, its many legal moves) of Python objects
# (docs/lab/move-path.md, "No load for a kept position"), so 512 games take 14-103 MiB per process.
DEFAULT_CAPACITY = 512
CAPACITY_ENV = "CHAIWALA_KEPT_POSITIONS"


def capacity_from_env() -> int:
    """The number of games whose last position a process keeps (``CHAIWALA_KEPT_POSITIONS``)."""
    raw = os.environ.get(CAPACITY_ENV, "").strip()
    return max(0, int(raw)) if raw else DEFAULT_CAPACITY


@dataclass
class Kept:
    """One game's last known position: its name, its match and the game's metadata there.

    ``owned``: whether a move tries this position first (nobody else seen moving the game since
    this process last found its own position current)."""

    name: Name
    match: Match
    meta: GameMeta
    owned: bool = True


class Positions:
    """A bounded, least-recently-used map from game id to its last known position."""

    def __init__(self, engine: Engine, canonical: Canonical, capacity: int | None = None) -> None:
        self.engine = engine
        self.canonical = canonical
        self.capacity = capacity_from_env() if capacity is None else capacity
        self._kept: OrderedDict[str, Kept] = OrderedDict()

    def match(self, meta: GameMeta, snapshot: bytes) -> Match:
        """A fresh :class:`Match` of the game's current position (parsed only if not known).

        ``meta`` was just loaded: finding the position kept means nobody moved the game since this
        process last saw it, so its moves may try the kept position again."""
        name = _name(meta.game_id, meta.version, meta.log_head)
        kept = self._kept.get(meta.game_id) if name is not None else None
        if kept is not None and kept.name == name:
            self._kept.move_to_end(meta.game_id)
            kept.owned = True
            return self._copy(kept.match)
        match = Match(engine=self.engine, snapshot=Snapshot.from_json(snapshot), canonical=self.canonical, trusted=True)
        # A load that raced a commit of this process may be older than the position kept: not filed.
        if name is not None and (kept is None or kept.name[1] <= meta.version):
            self._file(name, meta, match, kept.owned if kept is not None else True)
        return self._copy(match)

    def kept(self, game_id: str) -> tuple[GameMeta, Match] | None:
        """The game's kept position to try a move on: an active game's, when this process owns it."""
        kept = self._kept.get(game_id)
        if kept is None or not kept.owned or kept.meta.status != "active":
            return None
        self._kept.move_to_end(game_id)
        return kept.meta, self._copy(kept.match)

    def remember(self, meta: GameMeta, match: Match) -> None:
        """File a position just committed: ``meta`` and ``match`` as the game stands after the commit."""
        name = _name(meta.game_id, meta.version, meta.log_head)
        if name is not None:
            kept = self._kept.get(meta.game_id)
            self._file(name, meta, match, kept.owned if kept is not None else True)

    def refused(self, game_id: str) -> None:
        """A try on the kept position fell back to a load (the commit's guard refused it: someone
        else moves this game; or a check refused it, which only a load may answer).  The game's
        next moves load first until a load finds this process's position current again."""
        kept = self._kept.get(game_id)
        if kept is not None:
            kept.owned = False

    def __len__(self) -> int:
        return len(self._kept)

    def _file(self, name: Name, meta: GameMeta, match: Match, owned: bool) -> None:
        if self.capacity <= 0:
            return
        self._kept[meta.game_id] = Kept(name, match, meta, owned)
        self._kept.move_to_end(meta.game_id)
        while len(self._kept) > self.capacity:
            self._kept.popitem(last=False)

    def _copy(self, match: Match) -> Match:
        # The snapshot is never changed in place (Match.play makes a new one), so sharing it is
        # safe; the legal-move memo is shared too, so what one request computes the next reuses.
        return Match(
            engine=self.engine, snapshot=match.snapshot, canonical=self.canonical, legal=match.legal, trusted=True
        )


def _name(game_id: str, version: int, log_head: str) -> Name | None:
    return (game_id, version, log_head) if log_head else None
