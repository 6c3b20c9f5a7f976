"""The stored log entry format (services.eventlog.codec) through the real store and commit script.

Whole random games committed as the services commit them read back exactly as they were sealed;
streams written in the earlier text format (and streams mixing both) are still read; a compacted
archive that re-derives its chain hashes gives the same entries and a replay that verifies.
"""

from __future__ import annotations

import asyncio
import zlib
from typing import Any

import orjson
import pytest

from services.common.engine import RandomBot
from services.common.registry import engine_for
from services.common.rng import KIND_PCG32, Seed
from services.common.runner import Match
from services.eventlog import codec
from services.eventlog.dictionaries import latest
from services.fairness import chain
from services.filing.keys import game_keys
from services.games.records import Commit, Fairness, LogEntry, NewGame, Step
from services.games.store import GameStore, last_logged_version, read_log
from services.retention import archive

GAMES = ("darjeeling", "alubari", "tea_rum", "india_rails")
MOVES = 60


async def _play(store: GameStore, game_type: str, seed: int, moves: int) -> list[Commit]:
    """Create a game and commit ``moves`` sealed random moves one by one; return what was committed."""
    engine = engine_for(game_type)
    match = Match.start(engine, 2, seed)
    game_id = f"{game_type}-{seed:024x}"
    genesis = chain.digest(b"genesis"), chain.state_digest(match)
    await store.create(NewGame(
        game_id=game_id, seed=Seed(seed, KIND_PCG32), options={},
        players=[{"name": "A"}, {"name": "B", "bot": "random"}],
        token_hashes=["", ""], host_hash="", status="active", snapshot=match.snapshot.to_json(), lifecycle={},
        visibility="public", created_ms=0, attention_ms=None, fairness=Fairness("", "", "", ""), genesis=genesis,
    ))  # fmt: skip
    head, committed, bot = genesis[0], list[Commit](), RandomBot()
    while len(committed) < moves and not engine.is_over(match.state):
        seat = match.to_act()[0]
        move = match.bot_move(bot, seat, len(committed))
        events = match.play(seat, move)
        item = Commit(seat, "random" if seat else "", move, events, state_digest=chain.state_digest(match))
        sealed = chain.seal(game_type, head, len(committed) + 1, [item])
        await store.commit(Step(game_id, len(committed), match.snapshot.to_json(), "active", None, sealed,
                                previous_head=head))  # fmt: skip
        committed += sealed
        head = sealed[-1].hash
    return committed


def _same(entry: LogEntry, item: Commit, version: int) -> bool:
    expected = LogEntry(item.seat, item.bot, item.move, item.events, item.kind, item.state_digest, item.hash,
                        version=version)  # fmt: skip
    return orjson.dumps(entry) == orjson.dumps(expected)


@pytest.mark.parametrize("game_type", GAMES)
def test_committed_entries_read_back_exactly_in_the_compact_format(redis_url: str, game_type: str) -> None:
    async def scenario() -> None:
        store = GameStore.from_url(redis_url)
        try:
            committed = await _play(store, game_type, 41, MOVES)
            game_id = f"{game_type}-{41:024x}"
            raw: Any = await store.redis.xrange(game_keys(game_id)[2])
            assert all(set(fields) == {b"h", b"d", b"z"} for _, fields in raw)  # binary hashes, one body
            assert all(fields[b"z"][0] == latest(game_type) > 0 for _, fields in raw)  # the game's dictionary
            entries = await store.entries(game_id)
            assert entries[0].version == 0 and entries[0].seat is None and entries[0].move is None
            assert all(_same(e, c, v) for v, (e, c) in enumerate(zip(entries[1:], committed, strict=True), 1))
            # The live reader (services.streaming) decodes the same way.
            live = await read_log(store.redis, game_id, 10, block_ms=10)
            assert live and live == entries[11 : 11 + len(live)]
            assert await last_logged_version(store.redis, game_id) == len(committed)
        finally:
            await store.close()

    asyncio.run(scenario())


def test_entries_of_the_earlier_text_format_are_still_read_beside_new_ones(redis_url: str) -> None:
    async def scenario() -> None:
        store = GameStore.from_url(redis_url)
        try:
            committed = await _play(store, "alubari", 42, 4)
            game_id = f"alubari-{42:024x}"
            key = game_keys(game_id)[2]
            old = committed[1]
            move = orjson.dumps(old.move)
            # A version-5 entry as stores before this format wrote it (text fields, hex hashes).
            await store.redis.xadd(key, {"seat": str(old.seat), "bot": old.bot, "move": move, "kind": "",
                                         "events": orjson.dumps(old.events), "hash": old.hash,
                                         "digest": old.state_digest}, id="5-1")  # fmt: skip
            entries = await store.entries(game_id, after=0)
            assert [e.version for e in entries] == [1, 2, 3, 4, 5]
            assert _same(entries[4], old, 5) and _same(entries[1], committed[1], 2)
        finally:
            await store.close()

    asyncio.run(scenario())


def test_every_codec_round_trips_and_unknown_ones_are_refused() -> None:
    events = [{"tile_taken": {"seat": 1, "row": 3, "tile": {"id": 49, "variety": "GREEN"}}}]
    digest = chain.digest(b"x")
    for game_type in ("darjeeling", "no_such_game"):  # a dictionary, and none (codec 0)
        fields = {k.encode(): v for k, v in codec.encode(game_type, 1, "bot", "", {"m": 1}, events, digest, "").items()}
        body = codec.decode(game_type, fields)
        assert (body.seat, body.bot, body.move, body.events, body.hash, body.state_digest) == (
            1, "bot", {"m": 1}, events, digest, "")  # fmt: skip
    with pytest.raises(ValueError):
        codec.encode("darjeeling", 0, "", "", None, [], "not-a-digest", "")
    unknown = {b"h": b"", b"d": b"", b"z": bytes((99,)) + b"\x03\x00"}
    with pytest.raises(ValueError):
        codec.decode("darjeeling", unknown)


def test_a_compacted_archive_re_derives_the_same_chain(redis_url: str) -> None:
    async def scenario() -> None:
        store = GameStore.from_url(redis_url)
        try:
            await _play(store, "tea_rum", 43, 30)
            game_id = f"tea_rum-{43:024x}"
            entries = await store.entries(game_id)
            packed = archive.pack_entries(entries)
            rows = orjson.loads(zlib.decompress(packed))
            assert rows[0][5] == entries[0].hash and all(row[5] is None for row in rows[1:])
            unpacked = archive.unpack_entries("tea_rum", packed)
            assert [(e.version, e.hash, e.state_digest, e.move) for e in unpacked] == [
                (e.version, e.hash, e.state_digest, e.move) for e in entries]  # fmt: skip
        finally:
            await store.close()

    asyncio.run(scenario())
