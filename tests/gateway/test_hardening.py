"""Hostile clients against the real stack: bodies that used to crash or hang, logs that leaked,
retries that applied twice (issue #13, items 2, 3, 7 and 9)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import threading
from typing import Any

import httpx
import pytest
import structlog

from services.common.logs import configure_logging, flush_logs
from tests.support.client import assert_problem, auth, turn, two_humans

GAME = "darjeeling"


def _two_humans(client: httpx.Client, seed: int = 7) -> tuple[str, dict[int, str]]:
    return two_humans(client, GAME, seed)


def _half_send(url: str, path: str, token: str) -> None:
    """Headers and one byte of a promised 100-byte body, then hang up."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        sock.sendall(head.encode())


def test_clients_that_hang_up_mid_body_neither_freeze_the_gateway_nor_reach_the_log(
    client: httpx.Client, stack: dict[str, Any], suite_log: Any
) -> None:
    game_id, tokens = _two_humans(client)
    logged_before = len(suite_log.text())
    for _ in range(30):
        _half_send(str(stack["url"]), f"/v1/games/{game_id}/moves", tokens[0])
    with httpx.Client(base_url=str(stack["url"]), timeout=5) as quick:
        assert quick.get("/healthz").status_code == 200
        assert quick.get(f"/v1/games/{game_id}").json()["version"] == 0
    logged = suite_log.text()[logged_before:]
    assert "request_failed" not in logged and "Traceback" not in logged
    assert tokens[0] not in suite_log.text()


def test_logs_redact_credentials_and_json_keeps_the_traceback_text(suite_log: Any) -> None:
    stream = io.StringIO()
    secret = "s3cr3t-T0ken_abcdefghijklmnopqrstuvwxyz012345"
    try:
        configure_logging("json", "info", stream=stream)
        log = structlog.get_logger(component="test")
        log.info("headers", headers={"authorization": f"Bearer {secret}", "accept": "*/*"})
        log.info("url", url=f"/v1/games/x/events?ticket={secret}&after=3")
        log.info("raw", line=f"(b'authorization', b'Bearer {secret}')", api_key=secret)
        try:
            raise ValueError(f"token was Bearer {secret}")
        except ValueError:
            log.exception("failed")
        flush_logs()
    finally:
        suite_log.restore()
    text = stream.getvalue()
    assert secret not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["headers"] == {"authorization": "[redacted]", "accept": "*/*"}
    assert lines[1]["url"] == "/v1/games/x/events?ticket=[redacted]&after=3"
    assert lines[2]["api_key"] == "[redacted]"
    assert "Traceback (most recent call last)" in lines[3]["exception"]
    assert "ValueError: token was Bearer [redacted]" in lines[3]["exception"]


NESTED = b'{"moves":' + b"[" * 1000 + b"]" * 1000 + b"}"


@pytest.mark.parametrize(
    "body,code",
    [
        (NESTED, "too_deeply_nested"),
        (b'{"move":' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}", "too_deeply_nested"),
        (b'{"move": {"end_turn": {}}, "move": {"end_turn": {}}, "expected_version": 0}', "duplicate_key"),
        (b'{"move": {"end_turn": {}, "end_turn": {}}, "expected_version": 0}', "duplicate_key"),
        (b'{"move": {"end_turn": {}}, "expected_version": NaN}', "malformed_json"),
        (b'{"move": {"end_turn": {}}, "expected_version": 0, "x": "\\ud800"}', "malformed_json"),
        (b'{"move": {}, "expected_version": 1' + b"0" * 5000 + b"}", "malformed_json"),
    ],
    ids=["lists-1000-deep", "objects-5000-deep", "duplicate-top", "duplicate-inner", "nan", "surrogate", "huge"],
)
def test_bodies_the_parser_cannot_take_are_400s_that_change_nothing(
    client: httpx.Client, body: bytes, code: str
) -> None:
    game_id, tokens = _two_humans(client)
    before = client.get(f"/v1/games/{game_id}").json()
    headers = {"Content-Type": "application/json", **auth(tokens[0])}
    assert_problem(client.post(f"/v1/games/{game_id}/moves", content=body, headers=headers), 400, code)
    assert client.get(f"/v1/games/{game_id}").json() == before


def test_creation_with_duplicate_keys_or_deep_nesting_is_refused(client: httpx.Client) -> None:
    duplicate = b'{"game_type": "darjeeling", "game_type": "alubari", "players": [{"name": "a"}, {"name": "b"}]}'
    headers = {"Content-Type": "application/json"}
    assert_problem(client.post("/v1/games", content=duplicate, headers=headers), 400, "duplicate_key")
    deep = b'{"game_type": "darjeeling", "players": [{"name": "a"}], "options": ' + b"[" * 900 + b"]" * 900 + b"}"
    assert_problem(client.post("/v1/games", content=deep, headers=headers), 400, "too_deeply_nested")


# A no-break space inside a name is allowed since issue #36 (tests/lobby/test_names.py).
@pytest.mark.parametrize("name", ["Asha\u0085", "\u0085", "As\u2028ha", "Asha\t", "Bi\u2029lal", "\u200bX"])
def test_names_with_non_printable_characters_are_refused(client: httpx.Client, name: str) -> None:
    body = {"game_type": GAME, "players": [{"name": name}, {"name": "Bilal"}]}
    assert_problem(client.post("/v1/games", json=body), 400, "bad_player")


def test_405_names_the_allowed_methods(client: httpx.Client) -> None:
    # Every method of the path, whichever of its routes Starlette matched first (issue #41).
    for method in ("DELETE", "PUT", "PATCH"):
        response = client.request(method, "/v1/games")
        assert_problem(response, 405, "method_not_allowed")
        assert response.headers["allow"] == "GET, POST"
    moves = client.get("/v1/games/darjeeling-000000000000000000000000/moves")
    assert_problem(moves, 405)
    assert moves.headers["allow"] == "POST"


def test_an_unpinned_unkeyed_submission_is_428_and_changes_nothing(client: httpx.Client) -> None:
    game_id, tokens = _two_humans(client)
    seat, legal = turn(client, game_id, tokens)
    response = client.post(f"/v1/games/{game_id}/moves", json={"move": legal["moves"][0]}, headers=auth(tokens[seat]))
    assert_problem(response, 428, "precondition_required")
    assert client.get(f"/v1/games/{game_id}").json()["version"] == legal["version"]


def _race(client: httpx.Client, path: str, body: dict[str, Any], headers: dict[str, str], copies: int) -> list[int]:
    """Send ``copies`` identical requests at once (a client retrying while the first is in flight)."""
    start = threading.Barrier(copies)
    statuses: list[int] = []

    def send() -> None:
        start.wait(timeout=10)
        statuses.append(client.post(path, json=body, headers=headers).status_code)

    threads = [threading.Thread(target=send) for _ in range(copies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return statuses


@pytest.mark.parametrize("pin", ["expected_version", "idempotency_key"])
def test_retries_of_one_submission_are_applied_exactly_once(client: httpx.Client, pin: str) -> None:
    for seed in range(12):
        game_id, tokens = _two_humans(client, seed=100 + seed)
        seat, legal = turn(client, game_id, tokens)
        body: dict[str, Any] = {"move": legal["moves"][0]}
        headers = auth(tokens[seat])
        if pin == "expected_version":
            body["expected_version"] = legal["version"]
        else:
            headers = {**headers, "Idempotency-Key": f"intent-{seed}"}
        statuses = _race(client, f"/v1/games/{game_id}/moves", body, headers, copies=3)
        assert client.get(f"/v1/games/{game_id}").json()["version"] == legal["version"] + 1, statuses
        expected = {200} if pin == "idempotency_key" else {200, 409}
        assert set(statuses) <= expected and statuses.count(200) >= 1, statuses


def test_an_idempotency_key_reused_with_another_body_is_422_and_changes_nothing(client: httpx.Client) -> None:
    game_id, tokens = _two_humans(client, seed=150)
    seat, legal = turn(client, game_id, tokens)
    headers = {**auth(tokens[seat]), "Idempotency-Key": "intent-reused"}
    body = {"move": legal["moves"][0], "expected_version": legal["version"]}
    first = client.post(f"/v1/games/{game_id}/moves", json=body, headers=headers)
    assert first.status_code == 200, first.text
    again = client.post(f"/v1/games/{game_id}/moves", json=body, headers=headers)
    assert again.status_code == 200 and again.json() == first.json()  # the same request: its first answer
    others = [{**body, "expected_version": legal["version"] + 1}, {"move": legal["moves"][0]}]
    if len(legal["moves"]) > 1:
        others.append({**body, "move": legal["moves"][1]})
    for other in others:
        refused = client.post(f"/v1/games/{game_id}/moves", json=other, headers=headers)
        assert_problem(refused, 422, "idempotency_key_reused")
    assert client.get(f"/v1/games/{game_id}").json()["version"] == legal["version"] + 1


def test_logging_to_a_stalled_reader_never_blocks_the_caller(suite_log: Any) -> None:
    """Nobody reads the pipe: the writer thread stalls, callers drop lines instead of waiting."""
    from services.common import logs

    read_fd, write_fd = os.pipe()
    stalled = os.fdopen(write_fd, "w", encoding="utf-8")
    dropped_before = logs.DROPPED[0]
    done = threading.Event()

    def flood() -> None:
        log = structlog.get_logger(component="test")
        for n in range(logs.QUEUE_LINES + 20_000):  # far more than the pipe and the queue hold
            log.info("flood", n=n, padding="x" * 100)
        done.set()

    try:
        configure_logging("json", "info", stream=stalled)
        caller = threading.Thread(target=flood, daemon=True)
        caller.start()
        caller.join(timeout=120)
        assert done.is_set(), "a caller blocked on a stalled log reader"
        assert logs.DROPPED[0] > dropped_before
    finally:
        suite_log.restore()
        os.close(read_fd)  # the stalled writer's next write fails, and it moves on
        with contextlib.suppress(OSError):
            stalled.close()
