"""Large request bodies over a real socket to the real gateway (issue #44, item 5).

The head's size bound counts the head alone: a body that arrives in the same read as the headers
is the body's, bounded by ``CHAIWALA_MAX_BODY_BYTES`` (413 ``body_too_large`` with the limit in the
detail).  Each body goes out in one ``sendall`` of head and body together (what a client's single
write looks like, the case that used to get 431) and in many small writes.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.stack import Gateway

GAME = "darjeeling"
LIMIT = 1024 * 1024  # the gateway's default CHAIWALA_MAX_BODY_BYTES
PIECE = 1500  # one Ethernet frame's worth per write in the "many writes" case


@pytest.fixture(scope="module")
def gateway(stack: dict[str, Any]) -> Iterator[Gateway]:
    """A gateway with the default head and body bounds, in front of the session's rules services."""
    addresses = {game: svc.address for game, svc in stack["services"].items()}
    served = Gateway(addresses, create_limit="1000/second")
    try:
        yield served
    finally:
        served.stop()


def _create_body(size: int) -> bytes:
    """A valid create body of exactly ``size`` bytes (JSON allows the whitespace that pads it)."""
    core = json.dumps({"game_type": GAME, "players": [{"name": "Asha"}, {"name": "Bot", "bot": "random"}]}).encode()
    assert size >= len(core)
    return core[:-1] + b" " * (size - len(core)) + b"}"


def _request(body: bytes, chunked: bool = False) -> tuple[bytes, bytes]:
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(body)}"
    head = f"POST /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{framing}\r\n\r\n"
    if chunked:
        body = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in _pieces(body, 64 * 1024)) + b"0\r\n\r\n"
    return head.encode(), body


def _pieces(data: bytes, size: int) -> list[bytes]:
    return [data[start : start + size] for start in range(0, len(data), size)]


def _exchange(url: str, writes: list[bytes]) -> tuple[int, dict[str, Any]]:
    """Send ``writes`` one ``sendall`` each (from a thread, however large) on a kept-alive
    connection, and read one answer (its head, then ``Content-Length`` bytes): its status and JSON."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:

        def send() -> None:
            try:
                for write in writes:
                    sock.sendall(write)
            except OSError:
                pass  # the server may answer (413) and close before the last byte: that is allowed

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(64 * 1024)
        head, _, payload = answer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = int(next(line.split(b":")[1] for line in lines if line.lower().startswith(b"content-length")))
        while len(payload) < length:
            payload += sock.recv(64 * 1024)
        sender.join(timeout=60)  # the server read (and dropped) the rest of a refused body meanwhile
    return int(head.split(b" ")[1]), json.loads(payload)


@pytest.mark.parametrize("size", [40_000, 70_000, 1_000_000, LIMIT], ids=["40KB", "70KB", "1MB", "at-limit"])
@pytest.mark.parametrize("writes", ["one", "many"])
def test_a_body_within_its_limit_is_served_however_it_is_written(gateway: Gateway, size: int, writes: str) -> None:
    head, body = _request(_create_body(size))
    sent = [head + body] if writes == "one" else _pieces(head + body, PIECE)
    status, answer = _exchange(gateway.url, sent)
    assert status == 201, answer
    assert answer["game_type"] == GAME and len(answer["seats"]) == 2


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("writes", ["one", "many"])
def test_a_body_over_its_limit_gets_413_with_the_limit(gateway: Gateway, chunked: bool, writes: str) -> None:
    head, body = _request(_create_body(LIMIT + 1), chunked=chunked)
    sent = [head + body] if writes == "one" else [head, *_pieces(body, 64 * 1024)]
    status, answer = _exchange(gateway.url, sent)
    assert status == 413, answer
    assert answer["code"] == "body_too_large" and str(LIMIT) in answer["detail"]


def test_a_head_too_large_is_still_431_whatever_follows_it(gateway: Gateway) -> None:
    head, body = _request(_create_body(40_000))
    pads = b"".join(b"X-Pad-%d: %s\r\n" % (number, b"p" * 8000) for number in range(5))  # 40 KB of head
    padded = head.replace(b"\r\n\r\n", b"\r\n" + pads + b"\r\n")
    status, answer = _exchange(gateway.url, [padded + body])
    assert status == 431 and answer["code"] == "headers_too_large"
