"""Build the next dictionary version of game types: ``python -m services.eventlog.dictionaries GAME ...``."""

from __future__ import annotations

import sys

import orjson

from services.common.engine import RandomBot
from services.common.registry import engine_for
from services.common.runner import Match
from services.eventlog.dictionaries import HERE, SIZE, latest

# Games sampled to build a dictionary: (seats, seed) pairs, a few of each table size.
SAMPLES = ((2, 1), (3, 2), (4, 3), (2, 4))


def sample(game_type: str) -> bytes:
    """A new dictionary for ``game_type``: entries spread evenly over seeded random games."""
    engine, entries = engine_for(game_type), list[bytes]()
    for seats, seed in SAMPLES:
        if not engine.min_players <= seats <= engine.max_players:
            continue
        match, bot = Match.start(engine, seats, seed), RandomBot()
        while not engine.is_over(match.state) and len(entries) < 20_000:
            seat = match.to_act()[0]
            move = match.bot_move(bot, seat, len(entries))
            entries.append(orjson.dumps([seat, "", "", move, match.play(seat, move)]))
    step = max(1, len(entries) // 60)
    return b"".join(entries[::step])[-SIZE:]


def main(games: list[str]) -> None:
    """Write the next version of each game's dictionary."""
    for game_type in games:
        path = HERE / f"{game_type}-{latest(game_type) + 1}.dict"
        path.write_bytes(sample(game_type))
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
