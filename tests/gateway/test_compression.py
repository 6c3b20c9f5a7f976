"""Compressed answers, tags and caching through the real stack (gateway.compression, gateway.conditional).

Each test reads the bytes as they crossed the wire (``Response.num_bytes_downloaded``) and the
decoded body (httpx decodes gzip, brotli and zstd), so a coding that garbled a body would fail here.
"""

from __future__ import annotations

import gzip
from typing import Any

import brotli
import httpx
import zstandard

from gateway.compression import ZSTD_LEVEL
from gateway.conditional import digest_tag
from tests.support.client import auth, create_game, sse_events, turn

GAME = "india_rails"  # its views and legal moves are the largest (well above the 1 KiB threshold)


def _game(client: httpx.Client) -> tuple[str, dict[int, str]]:
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=41)
    return created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}


def _raw(client: httpx.Client, url: str, headers: dict[str, str]) -> tuple[httpx.Response, bytes]:
    """The answer and its body exactly as sent (not decoded)."""
    with client.stream("GET", url, headers=headers) as response:
        return response, b"".join(response.iter_raw())


def test_views_compressed_with_gzip_brotli_and_zstd_tag_naming_the_coding(client: httpx.Client) -> None:
    game_id, _ = _game(client)
    plain, plain_bytes = _raw(client, f"/v1/games/{game_id}", {"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert len(plain_bytes) > 1024
    assert plain.headers["etag"] == digest_tag(plain_bytes)
    assert plain.headers["cache-control"] == "private, no-cache"
    assert "Accept-Encoding" in plain.headers["vary"] and "Accept-Language" in plain.headers["vary"]
    decoders: dict[str, Any] = {"gzip": gzip.decompress, "br": brotli.decompress}
    for coding, decode in decoders.items():
        packed, packed_bytes = _raw(client, f"/v1/games/{game_id}", {"Accept-Encoding": f"{coding}, identity"})
        assert packed.headers["content-encoding"] == coding
        assert decode(packed_bytes) == plain_bytes
        assert len(packed_bytes) < len(plain_bytes) / 2
        assert packed.headers["etag"] == plain.headers["etag"][:-1] + f'-{coding}"'
        assert "Accept-Encoding" in packed.headers["vary"]
    # Every coding offered: the server's order picks zstd.
    best = client.get(f"/v1/games/{game_id}", headers={"Accept-Encoding": "gzip, br, zstd"})
    assert best.headers["content-encoding"] == "zstd" and best.content == plain_bytes


def test_small_answers_and_problems_are_not_compressed(client: httpx.Client) -> None:
    game_id, _ = _game(client)
    version = client.get(f"/v1/games/{game_id}").json()["version"]
    small, small_bytes = _raw(client, f"/v1/games/{game_id}/events?after={version}", {"Accept-Encoding": "gzip, br"})
    assert small.status_code == 200 and len(small_bytes) < 1024
    assert "content-encoding" not in small.headers
    assert small.headers["etag"] == digest_tag(small_bytes)
    refused = client.get("/v1/games/nope", headers={"Accept-Encoding": "gzip, br"})
    assert refused.status_code == 404 and "content-encoding" not in refused.headers
    assert refused.headers["cache-control"] == "no-store" and "etag" not in refused.headers


def test_if_none_match_gets_304_for_each_coding_until_a_move(client: httpx.Client) -> None:
    game_id, tokens = _game(client)
    for coding in ("identity", "gzip", "br"):
        first = client.get(f"/v1/games/{game_id}", headers={"Accept-Encoding": coding})
        again = client.get(
            f"/v1/games/{game_id}", headers={"Accept-Encoding": coding, "If-None-Match": first.headers["etag"]}
        )
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == first.headers["etag"]
        assert again.headers["cache-control"] == "private, no-cache"
        # A copy kept in another coding is the same answer: weak comparison (RFC 9110 13.1.2).
        other = client.get(f"/v1/games/{game_id}", headers={"If-None-Match": f"W/{first.headers['etag']}"})
        assert other.status_code == 304
    replay_url = f"/v1/games/{game_id}/replay"  # this stack is open: anyone reads it as an operator
    replay = client.get(replay_url, headers={"Accept-Encoding": "zstd"})
    assert replay.status_code == 200 and replay.headers["cache-control"] == "private, no-cache"
    assert client.get(replay_url, headers={"If-None-Match": replay.headers["etag"]}).status_code == 304
    seat, legal = turn(client, game_id, tokens)
    moves_url = f"/v1/games/{game_id}/legal-moves"
    tagged = client.get(moves_url, headers={**auth(tokens[seat]), "Accept-Encoding": "br"})
    assert tagged.headers["content-encoding"] == "br" and tagged.json() == legal
    unchanged = client.get(moves_url, headers={**auth(tokens[seat]), "If-None-Match": tagged.headers["etag"]})
    assert unchanged.status_code == 304
    view_tag = client.get(f"/v1/games/{game_id}").headers["etag"]
    body = {"move": legal["moves"][0], "expected_version": legal["version"]}
    moved = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
    assert moved.status_code == 200 and moved.headers["cache-control"] == "no-store"
    changed = client.get(f"/v1/games/{game_id}", headers={"If-None-Match": view_tag})
    assert changed.status_code == 200 and changed.headers["etag"] != view_tag


def test_cache_control_of_public_and_cached_routes(client: httpx.Client) -> None:
    types = client.get("/v1/game-types")
    assert types.headers["cache-control"] == "public, max-age=300" and types.headers["etag"]
    assert client.get("/v1/game-types", headers={"If-None-Match": types.headers["etag"]}).status_code == 304
    rules = client.get(f"/v1/game-types/{GAME}/rules", headers={"Accept-Language": "es"})
    assert rules.headers["content-language"] == "es" and rules.headers["vary"].count("Accept-Language") == 1
    assert client.get(
        f"/v1/game-types/{GAME}/rules", headers={"Accept-Language": "es", "If-None-Match": rules.headers["etag"]}
    ).status_code == 304
    board = client.get(f"/v1/game-types/{GAME}/board", headers={"Accept-Encoding": "br"})
    assert board.headers["content-encoding"] == "br" and board.headers["etag"].endswith('-br"')
    kept = client.get(f"/v1/game-types/{GAME}/board", headers={"If-None-Match": board.headers["etag"]})
    assert kept.status_code == 304 and kept.headers["etag"] == board.headers["etag"]


def test_a_live_stream_is_neither_compressed_nor_held_back(client: httpx.Client) -> None:
    """The stream answers at once, uncompressed, and a move's event arrives while it stays open."""
    game_id, tokens = _game(client)
    seat, legal = turn(client, game_id, tokens)
    headers = {"Accept": "text/event-stream", "Accept-Encoding": "gzip, br, zstd"}
    url = f"/v1/games/{game_id}/events?after={legal['version']}"
    with client.stream("GET", url, headers=headers) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in stream.headers and "etag" not in stream.headers
        body = {"move": legal["moves"][0], "expected_version": legal["version"]}
        assert client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat])).status_code == 200
        event = next(sse_events(stream))
        assert int(event["id"].split(":")[0]) > legal["version"]  # ids are "<version>:<index>"


def test_kept_zstd_compressor_sends_the_bytes_of_a_new_one(client: httpx.Client) -> None:
    """The gateway's one kept zstd compressor (gateway.compression) sends, answer after answer, the
    very bytes a compressor made for each answer would: the same answer twice is the same frame, and
    two different answers in turn (a spectator's view, a seat's) each are their own."""
    game_id, tokens = _game(client)
    asked = [{}, auth(tokens[0]), {}]
    frames = []
    for headers in asked:
        response, raw = _raw(client, f"/v1/games/{game_id}", {"Accept-Encoding": "zstd", **headers})
        assert response.headers["content-encoding"] == "zstd"
        plain = client.get(f"/v1/games/{game_id}", headers=headers).content
        assert raw == zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(plain)
        frames.append(raw)
    assert frames[0] == frames[2] and frames[0] != frames[1]
