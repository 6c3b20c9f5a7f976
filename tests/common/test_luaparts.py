"""Scripts assembled from named parts (services.common.luaparts), run on a real Redis: each part
takes its own arguments in turn, parts share a key by name, an early return stops the rest, and
keys or arguments that do not match the parts' names are refused before anything runs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis import asyncio as aioredis

from services.common.luaparts import Part, Script
from services.games.scripts import COMMIT, SET_STATUS

_COUNTER = Part(
    "counter",
    ("tally",),
    """
local steps = tonumber(take())
if steps < 0 then return {'refused', tostring(steps)} end
for _ = 1, steps do redis.call('INCR', K.tally) end
""",
)
_LABELS = Part(
    "labels",
    ("names", "tally"),
    """
local count = tonumber(take())
for _ = 1, count do redis.call('RPUSH', K.names, take()) end
return {'ok', redis.call('GET', K.tally)}
""",
)
SCRIPT = Script([_COUNTER, _LABELS])


async def _run(url: str, keys: dict[str, str], args: dict[str, list[Any]]) -> tuple[Any, int, list[bytes]]:
    client = aioredis.Redis.from_url(url)
    try:
        answer = await client.eval(SCRIPT.source, len(SCRIPT.key_names), *SCRIPT.keys(keys), *SCRIPT.args(args))
        tally = int(await client.get(keys["tally"]) or 0)
        names = await client.lrange(keys["names"], 0, -1)
        await client.delete(keys["tally"], keys["names"])
        return answer, tally, names
    finally:
        await client.aclose()


def test_each_part_takes_its_own_arguments_and_a_shared_key_is_passed_once(redis_url: str) -> None:
    keys = {"tally": "luaparts:{t}:tally", "names": "luaparts:{t}:names"}
    assert SCRIPT.key_names == ("tally", "names")
    answer, tally, names = asyncio.run(_run(redis_url, keys, {"labels": [2, "chai", "rum"], "counter": [3]}))
    assert answer == [b"ok", b"3"]
    assert (tally, names) == (3, [b"chai", b"rum"])


def test_an_early_return_leaves_the_later_parts_unrun(redis_url: str) -> None:
    keys = {"tally": "luaparts:{u}:tally", "names": "luaparts:{u}:names"}
    answer, tally, names = asyncio.run(_run(redis_url, keys, {"counter": [-1], "labels": [1, "never"]}))
    assert answer == [b"refused", b"-1"]
    assert (tally, names) == (0, [])


def test_keys_and_arguments_must_match_the_parts_names() -> None:
    with pytest.raises(ValueError, match="missing \\['names'\\]"):
        SCRIPT.keys({"tally": "t"})
    with pytest.raises(ValueError, match="unknown \\['other'\\]"):
        SCRIPT.keys({"tally": "t", "names": "n", "other": "o"})
    with pytest.raises(ValueError, match="parts the script does not have"):
        SCRIPT.args({"counters": [1]})
    with pytest.raises(ValueError, match="share a name"):
        Script([_COUNTER, _COUNTER])
    with pytest.raises(ValueError, match="Lua-friendly"):
        Script([Part("bad-name")])


def test_the_games_scripts_name_every_key_they_write() -> None:
    # The commit and the status change file a game with the same part, under the same key names.
    filing = {"meta", "active", "ended", "listing_waiting", "listing_active", "listing_finished", "listing_aborted"}
    assert filing <= set(COMMIT.key_names)
    assert filing <= set(SET_STATUS.key_names)
    assert "KEYS[" not in "".join(line for line in COMMIT.source.splitlines() if not line.startswith("local K ="))
