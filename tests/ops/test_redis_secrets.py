"""Secrets a Redis reader cannot use (issue #44, item 3), through the real stack.

* Redis asks every client for its password; a client without it (or with a wrong one) is refused,
  and a process given a ``REDIS_URL`` without a password, or no master key ring, refuses to start.
* A dump of every key (SCAN, then each value by its type and its DUMP serialisation) holds no guest
  signing key, no game's server secret, seed or generator key, no tournament's seed or secret and
  no webhook secret in clear; forging a guest token from it the way an attacker did (read the
  issuer's key from Redis, sign, call ``/v1/me``) fails, while the same forgery with the key
  opened through the key ring succeeds (so the check can fail).
* Key rotation: records sealed with the old key are still read after a new key becomes current,
  and ``chaiwala secrets reseal`` seals them with the new one, after which the old key can go.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import jwt
import orjson
import pytest
import redis
from cryptography.hazmat.primitives import serialization

from services.common.attention import new_game_id
from services.common.embedded_redis import start_redis
from services.common.rng import KIND_KEYED, Seed
from services.common.sealing import (
    KEYS_FILE_ENV,
    KeyRing,
    SealingError,
    ensure_key_file,
    is_sealed,
    key_file_unless_set,
    keyring,
    load_keyring,
    new_key_line,
)
from services.common.settings import ServiceSettings
from services.games.records import Fairness, NewGame
from services.games.sealed import open_for, open_text_for
from services.games.store import GameStore
from services.identity.guest import KEYS_PREFIX, GuestKeys
from services.tournament.model import Tournament
from services.tournament.store import state_key
from services.webhook.store import SUBS, Subscription, WebhookStore
from tests.support import secrets
from tests.support.client import auth, create_game
from tests.support.stack import WEBHOOK_OPERATOR_KEY, free_port

GAME = "darjeeling"
ROOT = Path(__file__).resolve().parents[2]


def _without_password(url: str) -> str:
    return url.replace(url[url.index("://") + 3 : url.index("@") + 1], "")


def test_a_client_without_the_password_is_refused(redis_url: str) -> None:
    with redis.Redis.from_url(_without_password(redis_url)) as anonymous, pytest.raises(redis.AuthenticationError):
        anonymous.get("anything")
    wrong = redis_url.replace("://:", "://:wrong")
    with redis.Redis.from_url(wrong, socket_timeout=5) as guessing, pytest.raises(redis.AuthenticationError):
        guessing.ping()
    with redis.Redis.from_url(redis_url) as client:
        assert client.ping()


def _start(module: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "CHAIWALA_METRICS_PORT": str(free_port()), "CHAIWALA_HTTP_PORT": str(free_port()),
                   "CHAIWALA_GRPC_PORT": str(free_port()), **env}  # fmt: skip
    return subprocess.run([sys.executable, "-m", module], cwd=ROOT, env=environment, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip


@pytest.mark.parametrize("module", ["services.conductor", "gateway"])
def test_a_process_refuses_a_redis_url_without_a_password(module: str) -> None:
    started = _start(module, REDIS_URL="redis://127.0.0.1:9/0")
    assert started.returncode != 0
    assert "REDIS_URL carries no password" in started.stderr


def test_a_process_refuses_to_start_without_the_master_key_ring(redis_url: str) -> None:
    started = _start("services.conductor", REDIS_URL=redis_url, **{KEYS_FILE_ENV: ""})
    assert started.returncode != 0
    assert f"{KEYS_FILE_ENV} is not set" in started.stderr
    assert redis_url.split("@")[0].split(":")[-1] not in started.stderr + started.stdout  # the password


# --------------------------------------------------------------------------------------------------
# The dump.


def _dump(url: str) -> tuple[bytes, dict[bytes, Any]]:
    """Every key's value (by type) and DUMP serialisation, concatenated; and the values by key."""
    chunks: list[bytes] = []
    values: dict[bytes, Any] = {}
    with redis.Redis.from_url(url) as client:
        for key in client.scan_iter(count=1000):
            values[key] = value = _value(client, key)
            chunks += [key, repr(value).encode(), client.dump(key) or b""]
    return b"\n".join(chunks), values


def _value(client: redis.Redis, key: bytes) -> Any:
    """One key's value, read by its type."""
    kind = client.type(key)
    if kind == b"string":
        return client.get(key)
    if kind == b"hash":
        return client.hgetall(key)
    if kind == b"list":
        return client.lrange(key, 0, -1)
    if kind == b"set":
        return client.smembers(key)
    if kind == b"zset":
        return client.zrange(key, 0, -1, withscores=True)
    return client.xrange(key) if kind == b"stream" else None


def _guest(client: httpx.Client) -> tuple[str, dict[str, Any]]:
    session = client.post("/v1/sessions", json={"name": "Asha"})
    assert session.status_code in (200, 201), session.text
    token = str(session.json()["token"])
    secrets.remember(token)
    return token, jwt.decode(token, options={"verify_signature": False})


def _forge(private: Any, kid: str, claims: dict[str, Any]) -> str:
    forged = {**claims, "name": "Forged", "iat": int(time.time()), "nbf": int(time.time())}
    return jwt.encode(forged, private, algorithm="ES256", headers={"kid": kid})


def _attacker_keys(values: dict[bytes, Any]) -> tuple[int, list[tuple[str, Any]]]:
    """What an attacker reading the dump finds of the guest issuer: its stored records, and the
    private keys among them that load (none, when sealed)."""
    records, usable = 0, []
    for key, value in values.items():
        if not key.startswith(KEYS_PREFIX.encode()):
            continue
        for raw in value.values():
            records += 1
            data = json.loads(raw)
            try:
                usable.append((data["kid"], serialization.load_pem_private_key(data["pem"].encode(), password=None)))
            except ValueError:
                continue  # sealed: not a PEM
    return records, usable


def test_a_dump_of_redis_reveals_no_secret_and_forges_no_token(
    client: httpx.Client, redis_url: str, stack: dict[str, Any]
) -> None:
    game_id = create_game(client, GAME, [{"name": "a"}, {"name": "b"}])["game_id"]
    token, claims = _guest(client)
    assert client.get("/v1/me", headers=auth(token)).status_code == 200
    target = f"http://127.0.0.1:{free_port()}/hook"  # never called: deleted below
    hook = client.post("/v1/webhooks", json={"url": target, "events": ["game.finished"]},
                       headers=auth(WEBHOOK_OPERATOR_KEY))  # fmt: skip
    assert hook.status_code == 201, hook.text
    secrets.remember(hook.json()["secret"])
    # Ids of its own: the shared stack rates bot entrants by id (tests/tournament uses "bot:s<n>").
    entrants = [{"external_id": f"bot:sealed{i}", "name": f"Bot sealed{i}", "bot": "random"} for i in range(2)]
    body = {"game_type": GAME, "format": "swiss", "table_size": 2, "entrants": entrants}
    tournament = client.post("/v1/tournaments", json=body)
    assert tournament.status_code == 201, tournament.text
    dump, values = _dump(redis_url)
    webhook_id = hook.json()["webhook_id"]
    client.delete(f"/v1/webhooks/{webhook_id}", headers=auth(WEBHOOK_OPERATOR_KEY))

    meta = values[f"game:{{{game_id}}}:meta".encode()]
    secret = open_text_for(game_id, "secret", meta[b"server_secret"].decode())
    seed = int(open_text_for(game_id, "seed", meta[b"seed"].decode()))
    snapshot = orjson.loads(open_for(game_id, "snapshot", values[f"game:{{{game_id}}}:state".encode()]))
    stored_tournament = values[f"tournament:{{{tournament.json()['tournament_id']}}}:state".encode()]
    opened_tournament = Tournament.from_json(stored_tournament)
    clear = {
        "game secret": secret,
        "game seed": str(seed),
        "game seed (hex)": format(seed, "064x"),
        "generator key": snapshot["rng"]["key"],
        "webhook secret": hook.json()["secret"],
        "webhook secret (base64 part)": hook.json()["secret"].removeprefix("whsec_"),
        "tournament secret": opened_tournament.secret,
        "tournament seed (hex)": format(opened_tournament.seed, "x"),
    }
    found = [name for name, text in clear.items() if text.encode() in dump or text.lower().encode() in dump.lower()]
    assert not found, f"in clear in a dump of Redis: {found}"
    stored_hook = orjson.loads(values[SUBS.encode()][webhook_id.encode()])
    assert is_sealed(meta[b"seed"]) and is_sealed(meta[b"server_secret"]) and is_sealed(stored_hook["secret"])
    assert b"BEGIN PRIVATE KEY" not in dump

    # The attack: load the issuer's key from the dump, sign as the guest, call /v1/me.
    records, usable = _attacker_keys(values)
    assert records >= 1 and usable == []
    # The same forgery with the key opened through the ring is accepted: the check above can fail.
    kid = jwt.get_unverified_header(token)["kid"]
    # The ring that holds this token's key (a shared Redis may hold other rings, e.g. of another period).
    ring_hash = next(key for key in values if key.startswith(KEYS_PREFIX.encode())
                     and kid.partition(".")[0].encode() in values[key])  # fmt: skip
    stored = json.loads(values[ring_hash][kid.partition(".")[0].encode()])
    pem = keyring().open_text(stored["pem"], f"guest-key:{ring_hash.decode()}:{kid.partition('.')[0]}")
    private = serialization.load_pem_private_key(pem.encode(), password=None)
    assert client.get("/v1/me", headers=auth(_forge(private, kid, claims))).status_code == 200


# --------------------------------------------------------------------------------------------------
# Rotation.


async def _store_one_of_each(url: str) -> dict[str, tuple[str, str, str]]:
    """A game, a guest key, a tournament and a webhook stored through their own stores (sealed with
    the suite's ring); each sealed value as (key, hash field or "", its sealing context)."""
    store = GameStore.from_url(url)
    redis_client = store.redis
    game_id = new_game_id(GAME)
    snapshot = orjson.dumps({"state": {}, "rng": {"kind": "blake2b", "key": "ab" * 32, "at": 0}})
    await store.create(NewGame(game_id, Seed(2**200 + 7, KIND_KEYED), {}, [], [], "", "waiting", snapshot, {},
                               "public", 0, None, Fairness("cd" * 32, "ef" * 32, "server", ""), None))  # fmt: skip
    keys = GuestKeys(redis_client, 3600.0, 600, 5)
    slot = (await keys.signing_key(time.time())).slot
    tournament = Tournament("t-rotate", GAME, "swiss", 2, [], 2**100 + 3, "server", secret="12" * 32)
    await redis_client.set(state_key(tournament.tournament_id), tournament.to_json())
    hook = Subscription("wh_rotate", "https://example.com/", [], "whsec_x", 0)
    await WebhookStore(redis_client).add_subscription(hook)
    await store.close()
    meta = f"game:{{{game_id}}}:meta"
    return {
        "seed": (meta, "seed", f"game-seed:{game_id}"),
        "secret": (meta, "server_secret", f"game-secret:{game_id}"),
        "snapshot": (f"game:{{{game_id}}}:state", "", f"game-snapshot:{game_id}"),
        "guest key": (keys.hash, str(slot), f"guest-key:{keys.hash}:{slot}"),
        "tournament": (state_key("t-rotate"), "", ""),
        "webhook": (SUBS, "wh_rotate", "webhook-secret:wh_rotate"),
    }


def _stored(client: redis.Redis, key: str, field: str) -> bytes:
    value = client.hget(key, field) if field else client.get(key)
    assert value is not None
    return value


def _opens(ring: KeyRing, name: str, value: bytes, context: str) -> bool:
    """Whether every sealed part of a stored value opens with ``ring``."""
    try:
        if name == "snapshot":
            ring.open(value, context)
        elif name == "tournament":
            data = orjson.loads(value)
            ring.open_text(data["seed"], "tournament-seed:t-rotate")
            ring.open_text(data["secret"], "tournament-secret:t-rotate")
        elif name in ("guest key", "webhook"):
            data = orjson.loads(value)
            ring.open_text(data["pem" if name == "guest key" else "secret"], context)
        else:
            ring.open_text(value.decode(), context)
    except SealingError:
        return False
    return True


def test_records_sealed_with_an_old_key_are_read_after_rotation_and_resealed(tmp_path: Path) -> None:
    server = start_redis(tmp_path / "redis", appendonly=False)
    try:
        places = asyncio.run(_store_one_of_each(server.url))
        old_file = Path(os.environ[KEYS_FILE_ENV])
        rotated, new_only = tmp_path / "rotated.keys", tmp_path / "new-only.keys"
        new_line = new_key_line("k-new")
        rotated.write_text(new_line + "\n" + old_file.read_text(encoding="ascii"), encoding="ascii")
        new_only.write_text(new_line + "\n", encoding="ascii")
        with redis.Redis.from_url(server.url) as client:
            before = {name: _stored(client, key, field) for name, (key, field, _) in places.items()}
        # After rotation (the new key current, the old one kept), every old record still reads.
        assert all(_opens(load_keyring(rotated), name, before[name], places[name][2]) for name in places)
        assert not any(_opens(load_keyring(new_only), name, before[name], places[name][2]) for name in places)
        env = {**os.environ, "REDIS_URL": server.url, KEYS_FILE_ENV: str(rotated)}
        done = subprocess.run([sys.executable, "-m", "services.cli.main", "secrets", "reseal"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "sealed with key k-new" in done.stdout and server.password not in done.stdout + done.stderr
        with redis.Redis.from_url(server.url) as client:
            after = {name: _stored(client, key, field) for name, (key, field, _) in places.items()}
        # Resealed: the new key alone opens everything, so the old key's line can go.
        assert all(_opens(load_keyring(new_only), name, after[name], places[name][2]) for name in places)
    finally:
        server.stop()


def test_a_sealed_value_does_not_open_in_another_place() -> None:
    ring = keyring()
    sealed = ring.seal_text("0123", "game-seed:g-one")
    assert ring.open_text(sealed, "game-seed:g-one") == "0123"
    with pytest.raises(SealingError):
        ring.open_text(sealed, "game-seed:g-two")
    # Kept opened (every load of a game opens its seed): still only in its own place, and a ring
    # read anew without the key opens nothing it kept before.
    assert ring.open_text_kept(sealed, "game-seed:g-one") == ring.open_text_kept(sealed, "game-seed:g-one") == "0123"
    with pytest.raises(SealingError):
        ring.open_text_kept(sealed, "game-seed:g-two")
    other = KeyRing.parse(f"other {base64.b64encode(bytes(32)).decode()}")
    with pytest.raises(SealingError):
        other.open_text_kept(sealed, "game-seed:g-one")


def test_make_runs_key_ring_is_generated_once_and_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the supervisor does when no ring is named: var/keys/secret.keys, 0600 in a 0700 folder,
    kept across runs; a ring the environment names wins."""
    monkeypatch.delenv(KEYS_FILE_ENV)
    path = tmp_path / "var" / "keys" / "secret.keys"
    try:
        key_file_unless_set(path)
        assert os.environ[KEYS_FILE_ENV] == str(path)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        first = keyring()
        assert ensure_key_file(path).read_text(encoding="ascii") == path.read_text(encoding="ascii")  # kept
        key_file_unless_set(tmp_path / "other.keys")  # the environment names one now: left alone
        assert os.environ[KEYS_FILE_ENV] == str(path) and not (tmp_path / "other.keys").exists()
        assert load_keyring(path) == first and len(first.keys[first.current]) == 32
    finally:
        keyring.cache_clear()


def test_the_password_file_fills_the_urls_password(tmp_path: Path) -> None:
    secret = tmp_path / "redis_password"
    secret.write_text("p@ss/w:rd\n", encoding="utf-8")  # characters a URL must escape
    settings = ServiceSettings(redis_url="redis://redis:6379/0", redis_password_file=str(secret))
    assert settings.redis_url == "redis://:p%40ss%2Fw%3Ard@redis:6379/0"
    assert urlsplit(settings.redis_url).hostname == "redis" and settings.redis_auth_refusal() is None
    assert unquote(urlsplit(settings.redis_url).password or "") == "p@ss/w:rd"
    assert ServiceSettings(redis_url="redis://redis:6379/0").redis_auth_refusal() is not None
    assert ServiceSettings(redis_url="redis://redis:6379/0", redis_allow_no_password=True).redis_auth_refusal() is None
    with pytest.raises(ValueError, match="cannot read"):
        ServiceSettings(redis_url="redis://redis:6379/0", redis_password_file=str(tmp_path / "missing"))
