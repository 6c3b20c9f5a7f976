"""A tournament's state as one JSON document, and the pure steps that move it on.

The director (:mod:`services.tournament.director`) keeps each tournament as one Redis
value and changes it only under WATCH/MULTI; everything here is a pure function of that
state, so two directors, a restart or an event delivered twice all reach the same state.

A round goes ``seating`` (its tables are planned; the director is creating their games) →
``playing`` (every table has its game) → ``finished`` (every game ended).  The next round is
planned from the standings when the last game of a round ends; a tournament whose schedule
is complete is ``finished``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

from services.common.rng import SEED_BITS
from services.common.sealing import keyring
from services.tournament import pairing
from services.tournament.seeds import LEGACY_SEED_BITS
from services.tournament.standings import RoundResult, Standing, TableResult, meetings, standings

FORMATS = ("swiss", "round_robin", "knockout")


@dataclass
class Entrant:
    """One player of a tournament, known by the platform's external id."""

    external_id: str
    name: str
    bot: str = ""
    token_hash: str = ""
    rating: float | None = None
    withdrawn: bool = False


@dataclass
class Table:
    """One table of a round: entrants in seat order, its game, and the places once it ended."""

    players: list[str]
    game_id: str = ""
    ranking: list[int] | None = None
    status: str = "pending"


@dataclass
class Round:
    """One round: its tables, the byes, and how far it got."""

    number: int
    tables: list[Table]
    byes: list[str] = field(default_factory=list)
    status: str = "seating"


def _context(tournament_id: str, what: str) -> str:
    """What a tournament's sealed seed or secret is bound to."""
    return f"tournament-{what}:{tournament_id}"


@dataclass
class Tournament:
    """Everything the director knows about one tournament."""

    tournament_id: str
    game_type: str
    format: str
    table_size: int
    entrants: list[Entrant]
    # Up to 256 bits; stored as hex (JSON numbers stop at 64 bits).
    seed: int
    seed_source: str
    # Key of the entrant tokens (services.tournament.seeds); never leaves the director.
    secret: str = ""
    rounds_planned: int = 0
    advance: int = 1
    group_size: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    clock: dict[str, int] | None = None
    on_timeout: str = ""
    timeouts_to_resign: int = 0
    status: str = "running"
    created_ms: int = 0
    finished_ms: int = 0
    rounds: list[Round] = field(default_factory=list)
    # How the games' seeds follow from ``seed`` (services.tournament.seeds): 256, or 32 for a
    # tournament created before 256-bit seeds (its stored record has no seed_bits).
    seed_bits: int = SEED_BITS

    # ---- (de)serialisation ----

    def to_json(self) -> bytes:
        """The stored form: the seed as hex, the seed and the secret sealed (services.common.sealing)."""
        ring = keyring()
        seed = ring.seal_text(format(self.seed, "x"), _context(self.tournament_id, "seed"))
        secret = ring.seal_text(self.secret, _context(self.tournament_id, "secret")) if self.secret else ""
        return orjson.dumps({**asdict(self), "seed": seed, "secret": secret})

    @staticmethod
    def from_json(raw: bytes | str) -> Tournament:
        """Read the stored form."""
        data = orjson.loads(raw)
        ring, tournament_id = keyring(), str(data["tournament_id"])
        if isinstance(data["seed"], str):  # sealed, or hex from before sealing
            data["seed"] = ring.open_text(data["seed"], _context(tournament_id, "seed"))
        data["secret"] = ring.open_text(str(data.get("secret", "")), _context(tournament_id, "secret"))
        # Records from before 256-bit seeds hold a 32-bit seed as a JSON number and no seed_bits.
        data["seed"] = int(data["seed"], 16) if isinstance(data["seed"], str) else int(data["seed"])
        data.setdefault("seed_bits", LEGACY_SEED_BITS)
        data["entrants"] = [Entrant(**e) for e in data["entrants"]]
        data["rounds"] = [
            Round(number=r["number"], tables=[Table(**t) for t in r["tables"]], byes=r["byes"], status=r["status"])
            for r in data["rounds"]
        ]
        return Tournament(**data)

    # ---- derived views ----

    @property
    def ids(self) -> list[str]:
        """Entrant ids in the operator's order (the seeding)."""
        return [e.external_id for e in self.entrants]

    def entrant(self, external_id: str) -> Entrant | None:
        """The entrant with that id."""
        return next((e for e in self.entrants if e.external_id == external_id), None)

    def finished_rounds(self) -> list[RoundResult]:
        """Every finished round as results."""
        return [
            RoundResult(
                tables=tuple(TableResult(tuple(t.players), tuple(t.ranking or ())) for t in r.tables),
                byes=tuple(r.byes),
            )
            for r in self.rounds
            if r.status == "finished"
        ]

    def standings(self, with_ratings: bool = True) -> list[Standing]:
        """Standings after the finished rounds (see :mod:`services.tournament.standings`)."""
        ratings = {e.external_id: e.rating for e in self.entrants if e.rating is not None} if with_ratings else None
        withdrawn = [e.external_id for e in self.entrants if e.withdrawn]
        return standings(self.ids, self.finished_rounds(), self.table_size, ratings, withdrawn,
                         knockout=self.format == "knockout")  # fmt: skip

    def current(self) -> Round | None:
        """The round being seated or played, if any."""
        return self.rounds[-1] if self.rounds and self.rounds[-1].status != "finished" else None

    def _seat_counts(self) -> dict[str, list[int]]:
        counts: dict[str, list[int]] = defaultdict(lambda: [0] * self.table_size)
        for played in self.rounds:
            for table in played.tables:
                for seat, player in enumerate(table.players):
                    if seat < self.table_size:
                        counts[player][seat] += 1
        return dict(counts)

    def _byes_had(self) -> dict[str, int]:
        had: dict[str, int] = defaultdict(int)
        for played in self.rounds:
            for player in played.byes:
                had[player] += 1
        return dict(had)

    def active_ids(self, order: list[str]) -> list[str]:
        """``order`` without withdrawn entrants."""
        gone = {e.external_id for e in self.entrants if e.withdrawn}
        return [p for p in order if p not in gone]

    def groups(self) -> list[list[str]]:
        """Round-robin groups (the whole field when no group size is set)."""
        return pairing.groups_of(self.ids, self.group_size or len(self.entrants))

    # ---- steps ----

    def next_plan(self) -> pairing.Plan | None:
        """The next round's seating, or ``None`` when the schedule is complete."""
        number = len(self.rounds) + 1
        if self.format == "knockout":
            return self._knockout_plan()
        if number > self.rounds_planned:
            return None
        met = meetings(self.finished_rounds())
        if self.format == "round_robin":
            groups = [self.active_ids(g) for g in self.groups()]
            if pairing.round_robin_done(groups, met):
                return None
            return pairing.round_robin_round(groups, met, self._byes_had(), self._seat_counts(), self.table_size)
        order = self.active_ids([s.external_id for s in self.standings(with_ratings=False)])
        points = {s.external_id: s.points for s in self.standings(with_ratings=False)}
        return pairing.swiss_round(order, points, met, self._byes_had(), self._seat_counts(), self.table_size)

    def _knockout_alive(self) -> list[str]:
        if not self.rounds:
            return self.active_ids(self.ids)
        last = self.rounds[-1]
        alive = list(last.byes)
        for table in last.tables:
            alive.extend(pairing.advancing(table.players, table.ranking or [], self.advance))
        order = [s.external_id for s in self.standings(with_ratings=False)]
        return self.active_ids([p for p in order if p in set(alive)])

    def _knockout_plan(self) -> pairing.Plan | None:
        if self.rounds and len(self.rounds[-1].tables) == 1 and not self.rounds[-1].byes:
            return None  # the final was played
        alive = self._knockout_alive()
        if len(alive) < 2:
            return None
        return pairing.knockout_round(alive, self.table_size, self._seat_counts())

    def start_round(self, plan: pairing.Plan) -> Round:
        """Add the planned round (status ``seating``)."""
        played = Round(
            number=len(self.rounds) + 1,
            tables=[Table(players=list(t)) for t in plan.tables],
            byes=list(plan.byes),
        )
        self.rounds.append(played)
        return played

    def record(self, game_id: str, ranking: list[int]) -> bool:
        """Note a finished game of the current round; ``False`` if it is not one (or was noted)."""
        played = self.current()
        if played is None:
            return False
        for table in played.tables:
            if table.game_id == game_id and table.ranking is None:
                table.ranking = list(ranking)
                table.status = "finished"
                # A round still being seated ends when its last game is noted (see director).
                if played.status == "playing" and all(t.ranking is not None for t in played.tables):
                    played.status = "finished"
                return True
        return False

    def table_of(self, external_id: str) -> tuple[int, Table, int] | None:
        """The current round's table of an entrant: round number, table, seat."""
        played = self.current()
        if played is None:
            return None
        for table in played.tables:
            if external_id in table.players:
                return played.number, table, table.players.index(external_id)
        return None
