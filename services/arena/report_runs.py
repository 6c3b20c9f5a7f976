"""One run of the committed bots report, and how a ``summary.json`` entry names the run it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
