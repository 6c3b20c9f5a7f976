"""One run of the committed bots report, how a ``summary.json`` entry names the run it came from, and
the tables each game declares for the report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from services.common.registry import unit_for, units

Identity = tuple[str, str, int, tuple[str, ...]]


@dataclass(frozen=True)
class Run:
    """One arena run of the report: its section, game, seat count, bot list and table count."""

    section: str
    game: str
    players: int
    bots: tuple[str, ...]
    tables: int

    @classmethod
    def from_entry(cls, data: dict[str, Any]) -> Run:
        """The run an entry of ``summary.json`` was played for (game and count as its summary says)."""
        run, summary = data["run"], data["summary"]
        return cls(run["section"], summary["game"], summary["players"], tuple(run["bots"]), run["tables"])

    @property
    def key(self) -> str:
        """``section:game:players``: what ``--only`` and ``--skip`` match."""
        return f"{self.section}:{self.game}:{self.players}"

    @property
    def identity(self) -> Identity:
        """What a re-played run replaces: the same section, game and count (and bot, for the solo runs)."""
        return self.section, self.game, self.players, self.bots if self.section == "solo" else ()


@dataclass(frozen=True)
class ReportTables:
    """A game's tables in the bots report at scale 1, as its unit declares them (``GameUnit.arena``).

    * ``table_seconds``: about the CPU seconds of a two-seat heuristic table (the report's own
      measure); the report plays the costliest games first.
    * ``versus``: heuristic against random, at every count from 2.
    * ``balance``: the heuristic against itself, at every count from 2; ``balance_at`` overrides it
      for the seat counts it names.
    * ``search`` (the search bot against the heuristic) and ``strongest`` (the search bot against
      itself): by seat count; a count they do not name is not played.
    """

    table_seconds: float
    versus: int
    balance: int
    balance_at: Mapping[int, int] = field(default_factory=dict)
    search: Mapping[int, int] = field(default_factory=dict)
    strongest: Mapping[int, int] = field(default_factory=dict)


def report_tables(game: str) -> ReportTables:
    """The tables ``game``'s unit declares for the report."""
    return ReportTables(**unit_for(game).arena)


def report_games() -> tuple[str, ...]:
    """Every registered game that declares report tables, the costliest tables first."""
    declared = [unit.game_type for unit in units() if unit.arena]
    return tuple(sorted(declared, key=lambda game: -report_tables(game).table_seconds))
