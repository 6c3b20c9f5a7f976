"""256-bit seeds and the keyed generator through the real stack (Redis, rules services, conductor, gateway).

A drawn seed is revealed whole (64 hex digits) once the game is over and never before; an
operator's 256-bit ``seed_hex`` round-trips through the replay and reproduces the game; bad
seeds are refused and create nothing; and a game stored before the keyed generator (its
metadata names no generator) keeps PCG32 to the end and still verifies with ``chaiwala verify``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import redis
from typer.testing import CliRunner

from services.cli.main import app
from services.common.registry import engine_for
from services.common.rng import KIND_KEYED, KIND_PCG32, Seed
from services.common.runner import Match
from services.common.sealing import is_sealed
from services.fairness import seeding
from services.fairness.verify import verify_replay
from services.games.sealed import open_for, open_text_for
from tests.support.client import assert_problem, auth, create_game, wait_over

GAME = "darjeeling"
BOTS = [{"name": "bot0", "bot": "random"}, {"name": "bot1", "bot": "random"}]
OPERATOR_SEED = "C0FFEE" + "0123456789abcdef" * 3 + "fedcba9876"  # 64 digits, 256 bits, mixed case



def _replay(client: httpx.Client, game_id: str) -> dict[str, Any]:
    replay: dict[str, Any] = client.get(f"/v1/games/{game_id}/replay").json()
    return replay


def _verify_cli(tmp_path: Path, replay: dict[str, Any]) -> str:
    path = tmp_path / f"{replay['game_id']}.json"
    path.write_bytes(orjson.dumps(replay))
    answer = CliRunner().invoke(app, ["verify", str(path)])
    assert answer.exit_code == 0, answer.output
    return str(answer.output)


def _meta(redis_url: str, game_id: str) -> dict[str, str]:
    """The stored metadata, its sealed seed and server secret opened (services.games.store)."""
    with redis.Redis.from_url(redis_url) as raw:
        meta = {k.decode(): v.decode() for k, v in raw.hgetall(f"game:{{{game_id}}}:meta").items()}
    assert is_sealed(meta["seed"]) and is_sealed(meta["server_secret"])  # never in clear in Redis
    return {**meta, "seed": open_text_for(game_id, "seed", meta["seed"]),
            "server_secret": open_text_for(game_id, "secret", meta["server_secret"])}  # fmt: skip


def test_a_drawn_seed_has_256_bits_and_is_revealed_whole_only_at_the_end(
    client: httpx.Client, redis_url: str, tmp_path: Path
) -> None:
    game_id = create_game(client, GAME, BOTS)["game_id"]
    meta = _meta(redis_url, game_id)
    assert meta["generator"] == KIND_KEYED and int(meta["seed"]) >= 2**64  # kept whole (2**-192 to fail by chance)
    final = wait_over(client, game_id, seconds=300)
    assert final["status"] == "finished"
    replay = _replay(client, game_id)
    assert replay["generator"] == KIND_KEYED and len(replay["seed_hex"]) == 64
    assert int(replay["seed_hex"], 16) == int(meta["seed"])
    assert int(replay.get("seed", 0)) == 0  # too wide for the uint64 field: seed_hex alone carries it
    secret = bytes.fromhex(replay["server_secret"])
    assert seeding.derive_seed(secret, game_id, []) == Seed(int(meta["seed"]))
    assert f"{len(replay['moves'])} entries verified" in _verify_cli(tmp_path, replay)


def test_an_active_game_reveals_neither_seed_nor_secret(client: httpx.Client, redis_url: str) -> None:
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}])
    game_id = created["game_id"]
    replay = _replay(client, game_id)  # the open stack treats everyone as operator
    assert replay["generator"] == KIND_KEYED and not replay.get("seed_hex") and int(replay.get("seed", 0)) == 0
    seed = int(_meta(redis_url, game_id)["seed"])
    token = created["seats"][0]["token"]
    texts = [client.get(f"/v1/games/{game_id}", headers=auth(token)).text, orjson.dumps(replay).decode(),
             client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).text]  # fmt: skip
    for text in texts:
        assert format(seed, "064x") not in text and str(seed) not in text


def test_an_operator_seed_of_256_bits_round_trips_and_reproduces_the_game(client: httpx.Client, tmp_path: Path) -> None:
    games = []
    for _ in range(2):
        body = {"game_type": GAME, "players": BOTS, "seed_hex": OPERATOR_SEED}
        created = client.post("/v1/games", json=body)
        assert created.status_code == 201, created.text
        games.append(created.json()["game_id"])
    replays = []
    for game_id in games:
        assert wait_over(client, game_id, seconds=300)["status"] == "finished"
        replays.append(_replay(client, game_id))
    first, second = replays
    assert first["seed_hex"] == OPERATOR_SEED.lower() and first["seed_source"] == "operator"
    assert first["generator"] == KIND_KEYED
    # The same seed and bots: the same game, move for move and state for state.
    assert [(m["seat"], m["move"], m["state_digest"]) for m in first["moves"]] == [
        (m["seat"], m["move"], m["state_digest"]) for m in second["moves"]
    ]
    # ... and anyone can replay it from the revealed seed and the log.
    match = Match.start(engine_for(GAME), len(BOTS), Seed(int(OPERATOR_SEED, 16)))
    for entry in first["moves"]:
        match.play(int(entry.get("seat", 0)), {k: v for k, v in entry["move"].items() if k != "@type"})
    assert engine_for(GAME).result(match.state) is not None
    _verify_cli(tmp_path, first)


def test_a_small_operator_seed_keys_the_keyed_generator_too(client: httpx.Client) -> None:
    game_id = create_game(client, GAME, BOTS, seed=4_000_000_000)["game_id"]
    wait_over(client, game_id, seconds=300)
    replay = _replay(client, game_id)
    assert replay["seed"] == "4000000000" and replay["seed_hex"] == format(4_000_000_000, "064x")
    assert replay["generator"] == KIND_KEYED and verify_replay(replay).ok


def _created_nothing(client: httpx.Client, redis_url: str, extra: dict[str, Any]) -> httpx.Response:
    """Ask for a game of bots with ``extra``; the answer, once no game was stored by it."""
    with redis.Redis.from_url(redis_url) as raw:
        before = len(list(raw.scan_iter("game:*:meta", count=1000)))
        answer = client.post("/v1/games", json={"game_type": GAME, "players": BOTS, **extra})
        assert len(list(raw.scan_iter("game:*:meta", count=1000))) == before
    return answer


@pytest.mark.parametrize(
    "extra",
    [{"seed_hex": "f" * 65}, {"seed_hex": "0xff"}, {"seed_hex": "12 34"}, {"seed_hex": "ab", "seed": 3}],
)
def test_a_bad_operator_seed_is_refused_and_creates_nothing(
    client: httpx.Client, redis_url: str, extra: dict[str, Any]
) -> None:
    assert_problem(_created_nothing(client, redis_url, extra), 400, "bad_seed")


@pytest.mark.parametrize(
    "extra",
    [
        {"seed": 4242},
        {"seed": 0},
        {"seed": 2**32 - 1},
        {"seed_hex": "ab"},
        {"seed_hex": "f" * 31},
        {"seed_hex": "0" * 16},
    ],
)
def test_a_guessable_operator_seed_is_refused_and_creates_nothing(
    client: httpx.Client, redis_url: str, extra: dict[str, Any]
) -> None:
    refused = _created_nothing(client, redis_url, extra)
    assert_problem(refused, 400, "weak_seed")
    assert "seed_hex" in refused.json()["detail"] and "32" in refused.json()["detail"]


def test_a_seed_of_32_hex_digits_is_honoured_and_reproducible(client: httpx.Client, tmp_path: Path) -> None:
    chosen = "9f3c" * 8  # 32 digits, 128 bits: the shortest seed taken
    games = [client.post("/v1/games", json={"game_type": GAME, "players": BOTS, "seed_hex": chosen}) for _ in range(2)]
    assert all(created.status_code == 201 for created in games), games[0].text
    replays = []
    for created in games:
        assert wait_over(client, created.json()["game_id"], seconds=300)["status"] == "finished"
        replays.append(_replay(client, created.json()["game_id"]))
    assert all(int(r["seed_hex"], 16) == int(chosen, 16) and r["seed_source"] == "operator" for r in replays)
    first, second = ([(m["seat"], m["move"], m["state_digest"]) for m in r["moves"]] for r in replays)
    assert first == second
    _verify_cli(tmp_path, replays[0])


def test_a_game_stored_before_the_keyed_generator_keeps_pcg32_and_verifies(
    client: httpx.Client, redis_url: str, tmp_path: Path
) -> None:
    # A waiting game as the service stored it before: a 64-bit seed, no generator field.
    created = create_game(client, GAME, [{"name": "bot", "bot": "random"}, {"open": True}])
    game_id = created["game_id"]
    secret = bytes.fromhex(_meta(redis_url, game_id)["server_secret"])
    legacy = seeding.derive_seed(secret, game_id, [], KIND_PCG32)
    with redis.Redis.from_url(redis_url) as raw:
        raw.hdel(f"game:{{{game_id}}}:meta", "generator")
        raw.hset(f"game:{{{game_id}}}:meta", "seed", str(legacy.value))
    joined = client.post(f"/v1/games/{game_id}/join", json={"name": "Bilal"})
    assert joined.status_code == 200, joined.text
    with redis.Redis.from_url(redis_url) as raw:
        stored = orjson.loads(open_for(game_id, "snapshot", raw.get(f"game:{{{game_id}}}:state") or b"{}"))
    assert isinstance(stored["rng"], str) and len(stored["rng"]) == 16  # PCG32's state, as before
    token = joined.json()["token"]
    resigned = client.post(f"/v1/games/{game_id}/resign", headers=auth(token))
    assert resigned.status_code == 200, resigned.text
    assert wait_over(client, game_id, seconds=300)["status"] == "finished"
    replay = _replay(client, game_id)
    assert replay["generator"] == KIND_PCG32 and int(replay["seed"]) == legacy.value
    assert replay["seed_hex"] == legacy.hex
    old_form = {k: v for k, v in replay.items() if k not in ("seed_hex", "generator")}  # as old servers served it
    assert verify_replay(old_form).ok, verify_replay(old_form).divergence
    _verify_cli(tmp_path, replay)
    tampered = {**replay, "generator": KIND_KEYED}
    verdict = verify_replay(tampered)
    assert not verdict.ok and verdict.divergence is not None and verdict.divergence.version == 0
