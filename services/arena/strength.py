"""Heuristic strength: one heuristic bot against random bots, at every player count of every game.

The heuristic sits at a seat rotated by the table number (so no seat position favours it), and
every other seat plays random legal moves.  It *wins* a table when it is among the winners.  A
solo game has no opponent, so there the heuristic and the random bot each play the same seed and
the heuristic wins the seed when its score is strictly higher.

``python -m services.arena.strength --games 60`` prints the Markdown table kept in the README
(``## Bots`` / ``### Heuristic strength``); ``tests/bots/test_strength.py`` asserts on the same
figures.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.arena.schedule import run_tables, table_seed
from services.arena.stats import wilson
from services.arena.tables import TableResult, TableSpec, play_table
from services.common.registry import engine_for, game_types

GAMES = tuple(game_types())  # every registered game, in port order
TARGET = 0.9
HEURISTIC = "heuristic"
RANDOM = "random"


@dataclass(frozen=True)
class Strength:
    """How often the heuristic won at one game and player count."""

    game: str
    players: int
    wins: int
    games: int  # finished tables
    unfinished: int  # tables that ran out of their move budget

    @property
    def tables(self) -> int:
        """Every table played, finished or not."""
        return self.games + self.unfinished

    @property
    def rate(self) -> float:
        """The heuristic's win rate over every table: one that never ends is not a win."""
        return self.wins / self.tables if self.tables else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        """The Wilson 95 % interval of the win rate (over every table)."""
        return wilson(self.wins, self.tables)

    @property
    def random_share(self) -> float:
        """What a random seat would win if the heuristic were no better: one seat's share (a coin flip solo)."""
        return 0.5 if self.players == 1 else 1 / self.players


def lineup(players: int, table: int) -> tuple[str, ...]:
    """The bot of each seat: the heuristic at seat ``table % players``, random bots elsewhere."""
    return tuple(HEURISTIC if seat == table % players else RANDOM for seat in range(players))


def player_counts(game: str) -> range:
    """Every player count ``game`` supports."""
    engine = engine_for(game)
    return range(engine.min_players, engine.max_players + 1)


def measure(game: str, players: int, games: int, seed: int = 1, jobs: int = 1) -> Strength:
    """Play ``games`` tables of ``game`` at ``players`` seats and count the heuristic's wins."""
    if players == 1:
        return _measure_solo(game, games, seed, jobs)
    specs = [TableSpec(game=game, bots=lineup(players, t), seed=table_seed(seed, t)) for t in range(games)]
    results = run_tables(specs, jobs=jobs)
    finished = [r for r in results if r.finished]
    wins = sum(1 for r in finished if r.spec.bots.index(HEURISTIC) in r.winners)
    return Strength(game, players, wins, len(finished), len(results) - len(finished))


def _measure_solo(game: str, games: int, seed: int, jobs: int) -> Strength:
    """Solo: the heuristic and the random bot play the same seeds; a seed is won on a higher score."""
    seeds = [table_seed(seed, t) for t in range(games)]
    specs = [TableSpec(game=game, bots=(bot,), seed=s) for s in seeds for bot in (HEURISTIC, RANDOM)]
    results = run_tables(specs, jobs=jobs)
    pairs = [(results[2 * i], results[2 * i + 1]) for i in range(games)]
    finished = [(h, r) for h, r in pairs if h.finished and r.finished]
    wins = sum(1 for h, r in finished if h.scores[0] > r.scores[0])
    return Strength(game, 1, wins, len(finished), games - len(finished))


def play_one(game: str, players: int, table: int, seed: int = 1) -> TableResult:
    """One table of :func:`measure` (multi-player), for tests that look at single games."""
    return play_table(TableSpec(game=game, bots=lineup(players, table), seed=table_seed(seed, table)))


def markdown(rows: Iterable[Strength]) -> list[str]:
    """The README table: win rate, its interval, and whether it meets the 90 % target."""
    lines = [
        "| game | players | heuristic wins | win rate | 95 % interval | random share | ≥ 90 %? |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        low, high = row.ci95
        verdict = "yes" if row.rate >= TARGET else "**no**"
        unfinished = f" ({row.unfinished} unfinished)" if row.unfinished else ""
        lines.append(
            f"| {row.game} | {row.players} | {row.wins}/{row.tables}{unfinished} | {100 * row.rate:.0f} % "
            f"| {100 * low:.0f}–{100 * high:.0f} % | {100 * row.random_share:.0f} % | {verdict} |"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every (or the named) game at every player count and print the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=60, help="tables per game and player count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--game", action="append", choices=GAMES, help="only this game (repeatable)")
    parser.add_argument("--players", type=int, action="append", help="only this player count (repeatable)")
    args = parser.parse_args(argv)
    rows = []
    for game in args.game or GAMES:
        for players in player_counts(game):
            if args.players and players not in args.players:
                continue
            row = measure(game, players, args.games, args.seed, args.jobs)
            rows.append(row)
            print(markdown([row])[-1], file=sys.stderr, flush=True)
    print("\n".join(markdown(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
