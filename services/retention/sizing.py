"""Redis bytes per game before and after compaction: ``python -m services.retention.sizing [games]``.

Plays whole games in-process (random bots, fixed seeds) through the real store and commit
script against an embedded Redis, reads ``MEMORY USAGE`` of every key of each game with its full
log, compacts it (:mod:`services.retention.archive`) and reads it again.  Prints one Markdown
table row per game type; the README's sizing table is derived from these rows.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.common.embedded_redis import start_redis
from services.common.engine import RandomBot
from services.common.registry import engine_for
from services.common.rng import Seed
from services.common.runner import Match
from services.fairness import chain
from services.filing.keys import game_keys
from services.games.records import Commit, Fairness, NewGame, Step
from services.games.store import GameStore
from services.retention import archive

# (game type, players): the cases of the README's table.
CASES = (("darjeeling", 4), ("alubari", 3), ("india_rails", 3))


@dataclass(frozen=True)
class Size:
    """One game's footprint."""

    game_type: str
    moves: int
    full_bytes: int
    compacted_bytes: int


async def _bytes(store: GameStore, game_id: str) -> int:
    keys = [*game_keys(game_id), archive.archive_key(game_id)]
    total = 0
    for key in keys:
        used: Any = await store.redis.memory_usage(key, samples=0)
        total += int(used or 0)
    return total


async def _play(store: GameStore, game_type: str, players: int, seed: int) -> tuple[str, int]:
    """One whole random game committed move by move as the service commits them; its id and moves."""
    engine = engine_for(game_type)
    drawn = Seed(seed)  # the keyed generator, as the service's games
    match = Match.start(engine, players, drawn)
    game_id = f"{game_type}-{seed:024x}"
    fairness = Fairness("0" * 64, "0" * 64, "server", "")
    await store.create(NewGame(
        game_id=game_id, seed=drawn, options={}, players=[{"name": f"P{s}", "bot": "random"} for s in range(players)],
        token_hashes=[""] * players, host_hash="", status="active", snapshot=match.snapshot.to_json(), lifecycle={},
        visibility="public", created_ms=0, attention_ms=None, fairness=fairness, genesis=("", ""),
    ))
    bot, version, head, moves = RandomBot(), 0, "", 0
    while not engine.is_over(match.state) and moves < 20_000:
        seat = match.to_act()[0]
        move = match.bot_move(bot, seat, moves)
        events = match.play(seat, move)
        sealed = chain.seal(game_type, head, version + 1, [Commit(seat, "random", move, events,
                                                                  state_digest=chain.state_digest(match))])
        over = engine.is_over(match.state)
        await store.commit(Step(game_id, version, match.snapshot.to_json(), "finished" if over else "active", None,
                                sealed, previous_head=head))
        version, head, moves = version + 1, sealed[-1].hash, moves + 1
    return game_id, moves


async def measure(games: int, redis_url: str) -> list[Size]:
    """``games`` games of each case: bytes with the full log and after compaction."""
    store = GameStore.from_url(redis_url)
    sizes = []
    try:
        for game_type, players in CASES:
            for seed in range(1, games + 1):
                game_id, moves = await _play(store, game_type, players, seed)
                full = await _bytes(store, game_id)
                outcome = await archive.compact(store, game_id)
                assert outcome.action == "compacted", outcome
                sizes.append(Size(f"{game_type} {players}p", moves, full, await _bytes(store, game_id)))
    finally:
        await store.close()
    return sizes


def table(sizes: list[Size]) -> str:
    """The Markdown rows of the README's sizing table (medians per game type)."""
    rows = ["| game | moves | full log | compacted | ratio | per move (full) |", "|---|---|---|---|---|---|"]
    for name in dict.fromkeys(s.game_type for s in sizes):
        mine = [s for s in sizes if s.game_type == name]
        moves = statistics.median(s.moves for s in mine)
        full = statistics.median(s.full_bytes for s in mine)
        small = statistics.median(s.compacted_bytes for s in mine)
        rows.append(f"| {name} | {moves:.0f} | {full / 1024:.1f} KiB | {small / 1024:.1f} KiB | "
                    f"{small / full:.2f} | {full / moves:.0f} B |")
    return "\n".join(rows)


def main(argv: list[str]) -> None:
    """Measure with an embedded Redis and print the table."""
    games = int(argv[0]) if argv else 3
    with tempfile.TemporaryDirectory() as tmp:
        server = start_redis(Path(tmp) / "redis", appendonly=False)
        try:
            print(table(asyncio.run(measure(games, server.url))))
        finally:
            server.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
