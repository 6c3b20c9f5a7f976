"""Provable fairness through the real stack: commitments, the hash chain, and offline verification.

Every game type plays a whole game with bots through the gateway; its replay then
verifies offline with ``chaiwala verify``, and each kind of tampering is caught at the
entry it touches.  While a game is active nothing public carries its secret or seed.
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import redis
from typer.testing import CliRunner

from services.cli.main import app
from services.common.registry import game_types
from services.fairness.verify import verify_replay
from services.games.sealed import open_text_for
from tests.support.client import auth, create_game, play_first_move, wait_over

# Bots and options that end each game quickly (India Rails: the tournament time limit).
PLANS: dict[str, dict[str, Any]] = {
    "alubari": {"players": 2, "bot": "random"},
    "darjeeling": {"players": 3, "bot": "random"},
    "tea_rum": {"players": 2, "bot": "random"},
    "india_rails": {"players": 2, "bot": "heuristic", "options": {"fast_game": True, "time_limit_rounds": 3}},
}



def _bot_game(client: httpx.Client, game: str) -> tuple[dict[str, Any], dict[str, Any]]:
    plan = PLANS[game]
    players = [{"name": f"bot{i}", "bot": plan["bot"]} for i in range(plan["players"])]
    created = create_game(client, game, players, options=plan.get("options"))
    at_creation = client.get(f"/v1/games/{created['game_id']}").json()
    return at_creation, wait_over(client, created["game_id"], seconds=300)


def _verify_file(tmp_path: Path, replay: dict[str, Any], name: str = "replay.json") -> Any:
    path = tmp_path / name
    path.write_bytes(orjson.dumps(replay))
    return CliRunner().invoke(app, ["verify", str(path)])


@pytest.mark.parametrize("game", game_types())
def test_a_finished_game_reveals_its_secret_and_verifies_offline(
    client: httpx.Client, tmp_path: Path, game: str
) -> None:
    at_creation, final = _bot_game(client, game)
    assert final["status"] == "finished"
    assert len(at_creation["seed_commitment"]) == 64 and at_creation["seed_source"] == "server"
    replay = client.get(f"/v1/games/{final['game_id']}/replay").json()
    secret = bytes.fromhex(replay["server_secret"])
    assert hashlib.sha256(b"chaiwala/seed-commitment/v1\x00" + secret).hexdigest() == at_creation["seed_commitment"]
    assert replay["log_head"] == final["log_head"] == replay["moves"][-1]["hash"]
    assert verify_replay(replay).ok, verify_replay(replay).divergence
    answer = _verify_file(tmp_path, replay)
    assert answer.exit_code == 0, answer.output
    assert f"{len(replay['moves'])} entries verified" in answer.output


def _tamper_move(replay: dict[str, Any]) -> int:
    """Replace the move of the middle entry by another entry's different move; return its version."""
    moves = replay["moves"]
    middle = len(moves) // 2
    other = next(m for m in moves if m["move"] != moves[middle]["move"])
    moves[middle]["move"] = copy.deepcopy(other["move"])
    return int(moves[middle]["version"])


def _tamper_seat(replay: dict[str, Any]) -> int:
    entry = replay["moves"][1]
    entry["seat"] = (int(entry.get("seat", 0)) + 1) % len(replay["players"])
    return int(entry["version"])


def _tamper_result(replay: dict[str, Any]) -> int:
    replay["result"]["winners"] = [w for w in range(len(replay["players"])) if w not in replay["result"]["winners"]]
    return len(replay["moves"])


def _tamper_secret(replay: dict[str, Any]) -> int:
    replay["server_secret"] = "00" * 32
    return 0


def _tamper_hash(replay: dict[str, Any]) -> int:
    replay["moves"][2]["hash"] = "ab" * 32
    return int(replay["moves"][2]["version"])


@pytest.mark.parametrize("tamper", [_tamper_move, _tamper_seat, _tamper_result, _tamper_secret, _tamper_hash])
def test_every_kind_of_tampering_is_named_at_its_first_bad_entry(
    client: httpx.Client, tmp_path: Path, tamper: Any
) -> None:
    _, final = _bot_game(client, "darjeeling")
    replay = client.get(f"/v1/games/{final['game_id']}/replay").json()
    bad = tamper(replay)
    verdict = verify_replay(replay)
    assert not verdict.ok and verdict.divergence is not None
    assert verdict.divergence.version == bad, verdict.divergence
    answer = _verify_file(tmp_path, replay)
    assert answer.exit_code == 1
    assert ("header" if bad == 0 else f"entry {bad}") in answer.output


def _leak_probes(client: httpx.Client, game_id: str, tokens: dict[int, str]) -> list[str]:
    """Everything public about an active game: views, legal moves, events, refusals, metrics."""
    texts = [client.get(f"/v1/games/{game_id}").text, client.get(f"/v1/games/{game_id}/events?after=0").text]
    for token in tokens.values():
        texts.append(client.get(f"/v1/games/{game_id}", headers=auth(token)).text)
        texts.append(client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).text)
        texts.append(client.get(f"/v1/games/{game_id}/events?after=0", headers=auth(token)).text)
        refused = client.post(f"/v1/games/{game_id}/moves", json={"move": {}}, headers=auth(token))
        texts.append(refused.text)
    texts.append(client.get(f"/v1/games/{game_id}/replay").text)  # the open stack treats everyone as operator
    texts.append(client.get("/metrics").text)
    return texts


@pytest.mark.parametrize("game", game_types())
def test_nothing_public_carries_the_secret_or_the_seed_of_an_active_game(
    client: httpx.Client, redis_url: str, game: str
) -> None:
    players = [{"name": f"human{i}"} for i in range(PLANS[game]["players"])]
    created = create_game(client, game, players, options=PLANS[game].get("options"))
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    with redis.Redis.from_url(redis_url) as raw:
        meta = {k.decode(): v.decode() for k, v in raw.hgetall(f"game:{{{game_id}}}:meta").items()}
    secret = open_text_for(game_id, "secret", meta["server_secret"])  # sealed in Redis (services.games.store)
    seed = int(open_text_for(game_id, "seed", meta["seed"]))
    assert meta["seed_source"] == "server" and len(secret) == 64
    replay = client.get(f"/v1/games/{game_id}/replay").json()
    assert not replay.get("server_secret") and int(replay.get("seed", 0)) == 0
    assert meta["generator"] == "blake2b" and seed >= 2**64  # the whole 256-bit seed is kept
    forms = [secret, str(seed), format(seed, "x"), format(seed, "064x"), format(seed >> 192, "016x")]
    for text in _leak_probes(client, game_id, tokens):
        for form in forms:
            assert form not in text


def test_each_move_advances_the_log_head_that_events_carry(client: httpx.Client) -> None:
    created = create_game(client, "darjeeling", [{"name": "Asha"}, {"name": "Bilal"}])
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    before = client.get(f"/v1/games/{game_id}").json()
    answer = play_first_move(client, game_id, tokens).json()
    after = client.get(f"/v1/games/{game_id}").json()
    assert after["log_head"] != before["log_head"]
    assert {event["hash"] for event in answer["events"]} == {after["log_head"]}
    listed = client.get(f"/v1/games/{game_id}/events?after=0").json()
    assert listed and all(event["hash"] == after["log_head"] for event in listed if event["version"] == 1)


def test_an_operator_seed_is_marked_and_client_seeds_do_not_fix_the_seed(client: httpx.Client) -> None:
    chosen = create_game(client, "darjeeling", [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}], seed=7)
    assert client.get(f"/v1/games/{chosen['game_id']}").json()["seed_source"] == "operator"
    replays = []
    for _ in range(2):
        body = {"game_type": "darjeeling", "players": [{"name": "a", "bot": "random"}] * 2, "client_seed": "lucky"}
        created = client.post("/v1/games", json=body).json()
        finished = wait_over(client, created["game_id"], seconds=300)
        replays.append(client.get(f"/v1/games/{finished['game_id']}/replay").json())
    assert all(r["client_seed"] == "lucky" and verify_replay(r).ok for r in replays)
    assert replays[0]["seed_hex"] != replays[1]["seed_hex"]
    too_long = client.post(
        "/v1/games",
        json={"game_type": "darjeeling", "players": [{"name": "a"}, {"name": "b"}], "client_seed": "x" * 65},
    )
    assert too_long.status_code == 400 and too_long.json()["code"] == "bad_client_seed"


def test_the_cli_verifies_by_game_id_and_exports_replays_with_transcripts(
    client: httpx.Client, stack: dict[str, Any], tmp_path: Path
) -> None:
    _, final = _bot_game(client, "darjeeling")
    game_id, server = final["game_id"], str(stack["url"])
    runner = CliRunner()
    checked = runner.invoke(app, ["verify", "--game-id", game_id, "--server", server])
    assert checked.exit_code == 0 and "entries verified" in checked.output, checked.output
    exported = runner.invoke(
        app, ["replay", "export", game_id, "--out", str(tmp_path), "--transcript", "--server", server]
    )
    assert exported.exit_code == 0, exported.output
    assert verify_replay(orjson.loads((tmp_path / f"{game_id}.json").read_bytes())).ok
    transcript = (tmp_path / f"{game_id}.txt").read_text().splitlines()
    assert len(transcript) >= len(final["state"]) and all("{" not in line for line in transcript[:50])
    assert any("scored" in line for line in transcript)
    missing = runner.invoke(app, ["verify", "--game-id", "darjeeling-" + "0" * 24, "--server", server])
    assert missing.exit_code == 2 and "game_not_found" in missing.output


def test_a_waiting_game_keeps_its_secret_until_it_is_over(client: httpx.Client) -> None:
    created = create_game(client, "darjeeling", [{"name": "Asha"}, {"open": True}])
    game_id = created["game_id"]
    assert client.get(f"/v1/games/{game_id}").json()["status"] == "waiting"
    replay = client.get(f"/v1/games/{game_id}/replay").json()  # the open stack treats everyone as operator
    assert not replay.get("server_secret") and int(replay.get("seed", 0)) == 0
    assert len(replay["seed_commitment"]) == 64
    joined = client.post(f"/v1/games/{game_id}/join", json={"name": "Bilal"}).json()
    assert joined["status"] == "active"
    replay = client.get(f"/v1/games/{game_id}/replay").json()
    assert not replay.get("server_secret") and replay["genesis_hash"] == replay["log_head"]
