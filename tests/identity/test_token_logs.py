"""No credential reaches a log: a rules service (``python -m services.rules.server``) and the gateway
(``python -m gateway``) run as real processes at debug level, their stdout and stderr in files;
every kind of credential goes through them, good and bad; then no piece of one (16 characters of
a JWT's signature or of any other credential) is in either file, while the rules service's
per-call lines name the calling player.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from tests.support import secrets
from tests.support.client import auth, sse_events
from tests.support.fleet import Component
from tests.support.issuer import Issuer, SigningKey
from tests.support.stack import free_port, wait_for_grpc

GAME = "darjeeling"
OPERATOR = "logs-operator-key-0123456789abcdef"


@dataclass
class Processes:
    """The two processes, where they log, and every credential the test used."""

    rules: Component
    gateway: Component
    rules_address: str
    url: str
    used: list[str] = field(default_factory=list)

    def use(self, *credentials: str) -> None:
        """Note credentials that must not reach a log (this file's and the suite's)."""
        for credential in credentials:
            if credential:
                secrets.remember(credential)
                self.used.append(credential)


def _http_ready(url: str) -> Any:
    def ready(process: object) -> bool:
        try:
            return httpx.get(url, timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    return ready


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    with Issuer([SigningKey.rsa("l1")]) as platform:
        yield platform


@pytest.fixture(scope="module")
def processes(redis_url: str, issuer: Issuer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Processes]:
    secrets.remember(OPERATOR)
    logs = tmp_path_factory.mktemp("token-logs")
    grpc_port, http_port = free_port(), free_port()
    base = {
        **os.environ,
        "REDIS_URL": redis_url,
        "CHAIWALA_LOG_FORMAT": "json",
        "CHAIWALA_LOG_LEVEL": "debug",  # the most a log ever holds: every call's line
        "CHAIWALA_API_KEYS": OPERATOR,
        "CHAIWALA_TRUSTED_ISSUERS": json.dumps([issuer.config()]),
    }
    rules_env = {
        **base,
        "CHAIWALA_GRPC_HOST": "127.0.0.1",
        "CHAIWALA_GRPC_PORT": str(grpc_port),
        "CHAIWALA_GRPC_PROCESSES": "1",
        "CHAIWALA_METRICS_PORT": str(free_port()),
    }
    gateway_env = {
        **base,
        "CHAIWALA_HTTP_PORT": str(http_port),
        "CHAIWALA_HTTP_WORKERS": "1",
        "CHAIWALA_GAMES": GAME,
        f"CHAIWALA_SERVICE_{GAME.upper()}": f"127.0.0.1:{grpc_port}",
        "CHAIWALA_AUTH_FAILURE_LIMIT": "100000/minute",  # this test refuses bad tokens on purpose
        "CHAIWALA_SESSION_LIMIT": "1000/minute",
    }
    url = f"http://127.0.0.1:{http_port}"
    rules_args = [sys.executable, "-m", "services.rules.server", GAME]
    rules = Component("rules", rules_args, rules_env, logs / "rules.log", lambda process: True)
    gateway_args = [sys.executable, "-m", "gateway"]
    gateway = Component("gateway", gateway_args, gateway_env, logs / "gateway.log", _http_ready(f"{url}/healthz"))
    rules.spawn()
    try:
        gateway.spawn()  # both start at once: the gateway dials the rules service when called
        assert rules.process is not None
        wait_for_grpc(f"127.0.0.1:{grpc_port}", rules.process)
        gateway.wait_ready()
        yield Processes(rules, gateway, f"127.0.0.1:{grpc_port}", url)
    finally:
        gateway.stop()
        rules.stop()


def _guest_and_refresh(http: httpx.Client, p: Processes) -> tuple[str, str]:
    session = http.post("/v1/sessions", json={"name": "Logged"}).json()
    p.use(session["token"])
    refreshed = http.post("/v1/sessions/refresh", headers=auth(session["token"]))
    assert refreshed.status_code == 200, refreshed.text
    p.use(refreshed.json()["token"])
    return str(session["player_id"]), str(refreshed.json()["token"])


def _play(http: httpx.Client, p: Processes, guest: str, platform: str) -> tuple[str, str]:
    """A game made by the guest, joined by the platform's player, moved with player and seat tokens."""
    body = {"game_type": GAME, "players": [{"me": True}, {"open": True}], "options": {"start_player": 0}}
    created = http.post("/v1/games", json=body, headers=auth(guest)).json()
    p.use(created["host_token"], *(seat["token"] for seat in created["seats"]))
    game_id = str(created["game_id"])
    joined = http.post(f"/v1/games/{game_id}/join", json={}, headers=auth(platform)).json()
    p.use(joined["token"])
    # Each seat's first move with its player token, its next with its seat token (whoever's turn it is).
    tokens = {0: [guest, created["seats"][0]["token"]], 1: [platform, joined["token"]]}
    moves = {0: 0, 1: 0}
    for _ in range(40):
        if min(moves.values()) >= 2:
            break
        seat = http.get(f"/v1/games/{game_id}").json()["to_act"][0]
        token = tokens[seat][min(moves[seat], 1)]
        legal = http.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).json()
        move = {k: v for k, v in legal["moves"][0].items() if k not in ("text", "costs")}
        sent = {"move": move, "expected_version": legal["version"]}
        moved = http.post(f"/v1/games/{game_id}/moves", json=sent, headers=auth(token))
        assert moved.status_code == 200, moved.text
        moves[seat] += 1
    assert min(moves.values()) >= 2, moves
    for spectator in (OPERATOR, created["host_token"]):
        assert http.get(f"/v1/games/{game_id}", headers=auth(spectator)).status_code == 200
    return game_id, str(created["seats"][0]["token"])


def _tickets(http: httpx.Client, p: Processes, guest: str, seat_token: str, game_id: str) -> None:
    mine = http.post("/v1/me/stream-tickets", headers=auth(guest)).json()["ticket"]
    game = http.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(seat_token)).json()["ticket"]
    p.use(mine, game)
    assert http.get("/v1/me/events", params={"ticket": mine}).status_code == 200
    events = {"Accept": "text/event-stream"}
    with http.stream("GET", f"/v1/games/{game_id}/events", params={"ticket": game}, headers=events) as sse:
        assert sse.status_code == 200
        next(sse_events(sse))
    with http.stream("GET", "/v1/me/events", params={"ticket": mine}, headers=events) as sse:
        assert sse.status_code == 200
        next(sse_events(sse))


def _refused(http: httpx.Client, p: Processes, issuer: Issuer, game_id: str) -> str:
    """Bad credentials of every kind, each refused with 401; the expired token (for gRPC)."""
    now = int(time.time())
    expired = issuer.token(issuer.keys[0], sub="late", exp=now - 3600, iat=now - 7200)
    forged = issuer.token(SigningKey("l1", "ES256", SigningKey.ec("x").private), sub="forged")
    seat_like = "an-unknown-seat-token-0123456789abcdefXYZ"
    bad_ticket = "an-unknown-stream-ticket-0123456789abcdef"
    p.use(expired, forged, seat_like, bad_ticket)
    for token in (expired, forged):
        assert http.get("/v1/me", headers=auth(token)).status_code == 401
        assert http.post("/v1/sessions/refresh", headers=auth(token)).status_code == 401
        assert http.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).status_code == 401
    assert http.get("/v1/me", headers=auth(seat_like)).status_code == 401
    assert http.post(f"/v1/games/{game_id}/resign", headers=auth(seat_like)).status_code == 401
    assert http.get("/v1/me/events", params={"ticket": bad_ticket}).status_code == 401
    assert http.get(f"/v1/games/{game_id}/events", params={"ticket": bad_ticket}).status_code == 401
    return expired


def _over_grpc(p: Processes, guest: str, platform: str, expired: str) -> None:
    with grpc.insecure_channel(p.rules_address) as channel:
        stub = identity_pb2_grpc.IdentityServiceStub(channel)
        for token in (guest, platform):
            stub.GetMe(identity_pb2.GetMeRequest(), metadata=[("authorization", f"Bearer {token}")], timeout=30)
        with pytest.raises(grpc.RpcError):
            stub.GetMe(identity_pb2.GetMeRequest(), metadata=[("authorization", f"Bearer {expired}")], timeout=30)


FRAGMENT = 16  # characters: any run this long of a credential's secret part counts as a leak


def _fragments(credentials: list[str]) -> set[str]:
    """Every run of FRAGMENT characters of each credential's secret: the signature of a JWT (its
    header and claims are no secret), the whole of any other credential."""
    secrets_ = {c.rsplit(".", 1)[1] if c.count(".") == 2 else c for c in credentials}
    return {s[i : i + FRAGMENT] for s in secrets_ for i in range(len(s) - FRAGMENT + 1)}


def _lines(path: Path) -> list[dict[str, Any]]:
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("{"):
            found.append(json.loads(line))
    return found


def test_no_credential_reaches_a_log_and_calls_name_their_player(processes: Processes, issuer: Issuer) -> None:
    p = processes
    platform = issuer.token(issuer.keys[0], sub="logged-42", name="Platform Player")
    p.use(platform)
    with httpx.Client(base_url=p.url, timeout=60) as http:
        guest_id, guest = _guest_and_refresh(http, p)
        game_id, seat_token = _play(http, p, guest, platform)
        _tickets(http, p, guest, seat_token, game_id)
        expired = _refused(http, p, issuer, game_id)
        assert http.get("/v1/me/games", headers=auth(platform)).status_code == 200
    _over_grpc(p, guest, platform, expired)
    p.gateway.stop()  # both flush their logs as they stop
    p.rules.stop()
    paths = (p.rules.log_path, p.gateway.log_path)
    texts = {path.name: path.read_text(encoding="utf-8", errors="replace") for path in paths}
    assert texts["rules.log"] and all(texts.values())
    for name, text in texts.items():
        leaked = [f"{part[:6]}…" for part in _fragments(p.used) if part in text]
        assert not leaked, f"credentials in {name}: {leaked}"
    calls = [line for line in _lines(p.rules.log_path) if line.get("event") == "rpc"]
    by_player = {(line["method"], line["player_id"]) for line in calls}
    platform_id = "acme:logged-42"
    named = {("CreateGame", guest_id), ("SubmitMoves", guest_id), ("CreateMyStreamTicket", guest_id),
             ("JoinGame", platform_id), ("SubmitMoves", platform_id), ("GetMe", platform_id),
             ("ListMyGames", platform_id)}  # fmt: skip
    assert named <= by_player
    refused = [line for line in calls if line["code"] == "UNAUTHENTICATED"]
    assert refused and all(line["player_id"] == "" for line in refused)
