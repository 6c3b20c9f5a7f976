"""Arena statistics: win rates with Wilson 95 % intervals, mean ranks, seat-position win rates.

A seat *wins* a table when it is among the table's winners, so a shared victory (Tea &
Rum's two winners, a tie for first) is a win for every seat that shares it.  Tables
that ran out of their move budget are counted apart (``unfinished``) and left out of
every rate.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.arena.content import content_stats, seat_outcomes, turn_positions
from services.arena.intervals import mean_ci, wilson
from services.arena.tables import TableResult

__all__ = ["mean_ci", "summarize", "unfair_seats", "wilson"]


@dataclass
class _Tally:
    wins: int = 0
    ranks: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)

    def add(self, won: bool, rank: int, score: float) -> None:
        self.wins += won
        self.ranks.append(rank)
        self.scores.append(score)

    def summary(self) -> dict[str, Any]:
        seats = len(self.ranks)
        low, high = wilson(self.wins, seats)
        rank_low, rank_high = mean_ci([float(r) for r in self.ranks])
        return {
            "win_rate": self.wins / seats if seats else 0.0,
            "win_rate_ci95": [low, high],
            "mean_rank": statistics.fmean(self.ranks) if seats else 0.0,
            "mean_rank_ci95": [rank_low, rank_high],
            "seats": seats,
            "wins": self.wins,
            "score": _distribution(self.scores),
        }


def _distribution(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
    }


def summarize(game: str, players: int, results: Sequence[TableResult]) -> dict[str, Any]:
    """The run's statistics (the ``chaiwala arena --json`` object)."""
    finished = [r for r in results if r.finished]
    by_bot: dict[str, _Tally] = {}
    seat_wins = [0] * players
    for result in finished:
        for seat, bot in enumerate(result.spec.bots):
            won = seat in result.winners
            by_bot.setdefault(bot, _Tally()).add(won, result.ranking[seat], result.scores[seat])
            seat_wins[seat] += won
    tables = len(finished)
    outcomes = seat_outcomes(finished)
    content = content_stats(outcomes)
    positions = turn_positions(outcomes)
    return {
        "game": game,
        "players": players,
        "games": tables,
        "unfinished": len(results) - tables,
        "bots": {bot: tally.summary() for bot, tally in sorted(by_bot.items())},
        "seat_win_rate": [wins / tables if tables else 0.0 for wins in seat_wins],
        "seat_win_rate_ci95": [list(wilson(wins, tables)) for wins in seat_wins],
        "fair_seat_share": 1 / players,
        "mean_moves": statistics.fmean(r.moves for r in finished) if finished else 0.0,
        "moves": _distribution([float(r.moves) for r in finished]),
        "seconds_per_game": statistics.fmean(r.seconds for r in finished) if finished else 0.0,
        "cpu_seconds_per_game": statistics.fmean(r.cpu_seconds for r in finished) if finished else 0.0,
        "turn_position_win_rate": [row["win_rate"] for row in positions],
        "turn_position_win_rate_ci95": [row["win_rate_ci95"] for row in positions],
        "content": content,
    }


def unfair_seats(summary: dict[str, Any], key: str = "seat_win_rate") -> list[int]:
    """Seat positions whose 95 % interval of win rate leaves out their fair share.

    The fair share is what a seat would win if position did not matter: ``1/players``
    when every table has exactly one winner.  Shared wins and tables without a winner
    move the expected rate, so the share is taken from the run itself: the mean of
    every seat's win rate.  ``key`` names the rates: ``seat_win_rate`` (by seat number)
    or ``turn_position_win_rate`` (by place in the first round's turn order).
    """
    if not summary.get(key):
        return []
    share = fair_share(summary, key)
    return [seat for seat, (low, high) in enumerate(summary[f"{key}_ci95"]) if not low <= share <= high]


def fair_share(summary: dict[str, Any], key: str = "seat_win_rate") -> float:
    """What a seat wins if position does not matter: the mean of the positions' rates (0 with none).

    Shared victories and tables without a winner move it off ``1/players``; see :func:`unfair_seats`.
    """
    rates = summary.get(key) or []
    return statistics.fmean(rates) if rates else 0.0
