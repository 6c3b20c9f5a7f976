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
:attr:`services.common.settings.ServiceSettings.kept_positions`): a miss only costs what every
request cost before.  Entries are per game, so what one game's request finds here never depends
on another game's hidden state (only on how many other games were played lately, as any LRU).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from services.common.engine import Engine
from services.common.runner import Canonical, Match, Snapshot
from services.games.records import GameMeta

# A kept position is its parsed state, its legal moves once computed and the game's metadata:
# 28 KiB (Darjeeling) to 205 KiB (India Rails, its many legal moves) of Python objects
# (docs/lab/move-path.md, "No load for a kept position"), so 512 games take 14-103 MiB per process.
# The rules service's default (ServiceSettings.kept_positions, CHAIWALA_KEPT_POSITIONS).
DEFAULT_CAPACITY = 512


@dataclass
class Kept:
    """One game's last known position: its match and the game's metadata there (which name it).

    ``owned``: whether a move tries this position first (nobody else seen moving the game since
    this process last found its own position current)."""

    match: Match
    meta: GameMeta
    owned: bool = True

    def named_by(self, meta: GameMeta) -> bool:
        """Whether ``meta`` (just loaded) names this very position: same version, same chain head."""
        return self.meta.version == meta.version and self.meta.log_head == meta.log_head


class Positions:
    """A bounded, least-recently-used map from game id to its last known position."""

    def __init__(self, engine: Engine, canonical: Canonical, capacity: int = DEFAULT_CAPACITY) -> None:
        self.engine = engine
        self.canonical = canonical
        self.capacity = capacity
        self._kept: OrderedDict[str, Kept] = OrderedDict()

    def match(self, meta: GameMeta, snapshot: bytes) -> Match:
        """A fresh :class:`Match` of the game's current position (parsed only if not known).

        ``meta`` was just loaded: finding the position kept means nobody moved the game since this
        process last saw it, so its moves may try the kept position again."""
        kept = self._kept.get(meta.game_id) if meta.log_head else None
        if kept is not None and kept.named_by(meta):
            self._kept.move_to_end(meta.game_id)
            kept.owned = True
            return self._copy(kept.match)
        match = Match(engine=self.engine, snapshot=Snapshot.from_json(snapshot), canonical=self.canonical, trusted=True)
        # A load that raced a commit of this process may be older than the position kept: not filed.
        if kept is None or kept.meta.version <= meta.version:
            self._file(meta, match)
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
        self._file(meta, match)

    def refused(self, game_id: str) -> None:
        """A try on the kept position fell back to a load (the commit's guard refused it: someone
        else moves this game; or a check refused it, which only a load may answer).  The game's
        next moves load first until a load finds this process's position current again."""
        kept = self._kept.get(game_id)
        if kept is not None:
            kept.owned = False

    def __len__(self) -> int:
        return len(self._kept)

    def _file(self, meta: GameMeta, match: Match) -> None:
        """File ``match`` as the game's position at ``meta`` (a started game's: one with a chain
        head); whether the game is owned carries over from the entry it replaces."""
        if self.capacity <= 0 or not meta.log_head:
            return
        earlier = self._kept.get(meta.game_id)
        self._kept[meta.game_id] = Kept(match, meta, earlier.owned if earlier is not None else True)
        self._kept.move_to_end(meta.game_id)
        while len(self._kept) > self.capacity:
            self._kept.popitem(last=False)

    def _copy(self, match: Match) -> Match:
        # The snapshot is never changed in place (Match.play makes a new one), so sharing it is
        # safe; the legal-move memo is shared too, so what one request computes the next reuses.
        return Match(
            engine=self.engine, snapshot=match.snapshot, canonical=self.canonical, legal=match.legal, trusted=True
        )
