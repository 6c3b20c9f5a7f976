"""OpenSkill (Plackett–Luce) ratings of one finished game: pure, no I/O.

Each seat is a one-player team; its rank is the game's settled ranking (resigned seats
already below every seat still playing, see :func:`services.games.lifecycle.settled_result`),
and equal ranks are ties (a shared Tea & Rum victory).  A player new to a game type starts
at the model's defaults (mu 25, sigma 25/3).  The leaderboard sorts by the ordinal
``mu - 3 sigma``, a conservative estimate that rises as a player's rating becomes certain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    """One player's rating for one game type."""

    external_id: str
    name: str
    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate the leaderboard sorts by."""
        return self.mu - 3.0 * self.sigma


def initial(external_id: str, name: str) -> Rating:
    """The rating of a player who has not played this game type yet."""
    return Rating(external_id=external_id, name=name, mu=_MODEL.mu, sigma=_MODEL.sigma)


def placements(ids: Sequence[str], ranking: Sequence[int]) -> dict[str, int]:
    """Each rated player's place: a player on several seats (two ``bot:heuristic`` seats) counts
    once, at its best place; seats without an id (``""``) are not rated."""
    best: dict[str, int] = {}
    for external_id, rank in zip(ids, ranking, strict=True):
        if external_id and (external_id not in best or rank < best[external_id]):
            best[external_id] = rank
    return best


def rate(players: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """Every seat's rating after one game; ``ranks[i]`` is seat i's place (1 = first, ties equal).

    A game with fewer than two distinct players changes nothing but the games count.
    """
    if len(players) != len(ranks):
        raise ValueError("one rank per player")
    if len({p.external_id for p in players}) != len(players):
        raise ValueError("each player once (see placements)")
    if len(players) < 2:
        return [replace(p, games=p.games + 1) for p in players]
    teams = [[_MODEL.rating(mu=p.mu, sigma=p.sigma, name=p.external_id)] for p in players]
    rated = _MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return [
        replace(player, mu=float(team[0].mu), sigma=float(team[0].sigma), games=player.games + 1)
        for player, team in zip(players, rated, strict=True)
    ]
