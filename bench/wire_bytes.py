"""Bytes on the wire per move for the reference web client, without and with compression.

``python -m bench.wire_bytes [--moves N] [--out FILE]`` starts the real stack (embedded Redis, one
rules service per game, the gateway: :mod:`bench.procs`), and for every game plays the same
two-seat game once per ``Accept-Encoding`` (none, gzip, br, zstd, and what a browser sends), making
for each move the requests the web client's table makes (``web/js/table.js``): it reads the game
as the seat to act (``GET /v1/games/{id}``), its legal moves (``GET .../legal-moves``) and posts
one (``POST .../moves``); one table's live stream (``GET .../events``, SSE, never compressed)
follows the game meanwhile. Bytes counted are the answer's status line and headers plus its body
as received (compressed where it was), summed per request kind, divided by the moves. The same
seed and the same choice of move (by index, from a seeded generator) make every run of a game
the same game: the script checks that the last version and state seen are the same whatever the
coding.

Last, the CPU the gateway spends per answer on it: tagging (:func:`gateway.conditional.digest_tag`)
and each coding at the gateway's levels, on each game's last view (process time, in this process).
The lab page ``docs/lab/wire-bytes.md`` keeps a run's tables.
"""

from __future__ import annotations

import argparse
import atexit
import gzip
import json
import random
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import brotli
import httpx
import zstandard

from bench.procs import stack
from gateway.conditional import digest_tag
from services.common.sealing import key_file_unless_set
from tests.support.seeds import seed_hex

GAMES = ("alubari", "darjeeling", "tea_rum", "india_rails")
# Accept-Encoding sent, by column; "browser" is what Chromium and Firefox send today.
CODINGS = {"none": "identity", "gzip": "gzip", "br": "br", "zstd": "zstd", "browser": "gzip, deflate, br, zstd"}
KINDS = ("view", "legal", "move", "stream")
ONE_REQUEST_CODINGS = ("none", "browser")  # the codings the one-request client is also measured with
SEED = 41


@dataclass
class Tally:
    """Bytes received per request kind over one game."""

    moves: int = 0
    bytes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))

    def add(self, kind: str, response: httpx.Response) -> None:
        """Count one answer: status line, headers and the body as it crossed the wire."""
        head = len(f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n") + 2
        head += sum(len(name) + len(value) + 4 for name, value in response.headers.raw)
        self.bytes[kind] += head + response.num_bytes_downloaded

    def per_move(self) -> dict[str, float]:
        """Bytes per move by kind, and their total."""
        out = {kind: self.bytes[kind] / max(1, self.moves) for kind in KINDS}
        out["total"] = sum(out.values())
        return out


def _get(client: httpx.Client, url: str, headers: dict[str, str], tally: Tally, kind: str) -> Any:
    with client.stream("GET", url, headers=headers) as response:
        response.read()
        tally.add(kind, response)
    assert response.status_code == 200, response.text
    return response.json()


class Listener(threading.Thread):
    """One table's live stream of the game: counts every byte received (the thread ends with the stack)."""

    def __init__(self, client: httpx.Client, url: str, headers: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.client, self.url, self.headers = client, url, headers
        self.received = 0
        self.version = 0
        self.arrived = threading.Condition()

    def run(self) -> None:
        """Read the stream until the server goes away, noting the newest version seen."""
        try:
            with self.client.stream("GET", self.url, headers={**self.headers, "Accept": "text/event-stream"}) as stream:
                assert "content-encoding" not in stream.headers, "a live stream must not be compressed"
                head = sum(len(k) + len(v) + 4 for k, v in stream.headers.raw) + len("HTTP/1.1 200 OK\r\n\r\n")
                self._count(head, 0)
                for chunk in stream.iter_raw():
                    ids = [line for line in chunk.split(b"\n") if line.startswith(b"id:")]
                    newest = max((int(line[3:].strip().split(b":")[0]) for line in ids), default=0)
                    self._count(len(chunk), newest)
        except httpx.HTTPError:
            return  # the stack stopped

    def _count(self, size: int, version: int) -> None:
        with self.arrived:
            self.received += size
            self.version = max(self.version, version)
            self.arrived.notify_all()

    def bytes_until(self, version: int, seconds: float = 60.0) -> int:
        """The bytes received once the stream has told of ``version``."""
        with self.arrived:
            self.arrived.wait_for(lambda: self.version >= version, timeout=seconds)
            assert self.version >= version, f"the stream stopped at version {self.version} of {version}"
            return self.received


def play(client: httpx.Client, game: str, accept: str, moves: int, requests: str = "three") -> tuple[Tally, str, bytes]:
    """One game of ``moves`` moves as the web client plays it; its tally and its last version and state.

    ``requests``: ``three``, the table before issue #43 (read the view, read the legal moves, post);
    ``one``, the table since (``POST …/moves?include=legal_moves``, its answer drawn; a seat whose
    turn comes after another seat's move reads the game once, ``GET …?include=legal_moves``, as
    its table does when the stream says it is to act)."""
    body = {"game_type": game, "players": [{"name": "Asha"}, {"name": "Bilal"}], "seed_hex": seed_hex(SEED)}
    created = client.post("/v1/games", json=body)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    tokens = {s["seat"]: s["token"] for s in created.json()["seats"]}
    coding = {"Accept-Encoding": accept}
    tally, choose = Tally(), random.Random(SEED)
    listener = Listener(client, f"/v1/games/{game_id}/events?after=0", {**coding, **_auth(tokens[0])})
    listener.start()
    view: dict[str, Any] = {}
    carried: tuple[int, dict[str, Any]] | None = None  # (seat, legal moves) the last answer carried
    for _ in range(moves):
        to_act = client.get(f"/v1/games/{game_id}").json()["to_act"]
        if not to_act:
            break
        seat, headers = to_act[0], {**coding, **_auth(tokens[to_act[0]])}
        if requests == "three":
            view = _get(client, f"/v1/games/{game_id}", headers, tally, "view")
            legal = _get(client, f"/v1/games/{game_id}/legal-moves", headers, tally, "legal")
        elif carried is not None and carried[0] == seat:
            legal = carried[1]  # the seat's own turn goes on: its last answer carried what it may do
        else:
            view = _get(client, f"/v1/games/{game_id}?include=legal_moves", headers, tally, "view")
            legal = view["legal_moves"]
        move = legal["moves"][choose.randrange(len(legal["moves"]))]
        sent = {"move": move, "expected_version": legal["version"]}
        path = f"/v1/games/{game_id}/moves" + ("?include=legal_moves" if requests == "one" else "")
        with client.stream("POST", path, json=sent, headers=headers) as answer:
            answer.read()
            tally.add("move", answer)
        assert answer.status_code == 200, answer.text
        tally.moves += 1
        done = answer.json()
        carried = (seat, done["legal_moves"]) if "legal_moves" in done else None
        if done["status"] != "active":
            break
    final = client.get(f"/v1/games/{game_id}", headers={"Accept-Encoding": "identity", **_auth(tokens[0])})
    # The newest version that has an event (a move may have none, and then no message on the stream).
    told = client.get(f"/v1/games/{game_id}/events", params={"after": 0}, headers=_auth(tokens[0])).json()
    tally.bytes["stream"] = listener.bytes_until(max((event["version"] for event in told), default=0))
    fingerprint = json.dumps([final.json()["version"], final.json().get("state")], sort_keys=True) if view else ""
    return tally, fingerprint, final.content


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def coding_cost(body: bytes, repeats: int = 200) -> dict[str, float]:
    """CPU microseconds to tag and to compress one answer, at the levels the gateway uses
    (starlette-compress's defaults: 4 for each), beside its size."""
    coders: dict[str, Callable[[bytes], object]] = {
        "tag": lambda data: digest_tag(data),
        "gzip": lambda data: gzip.compress(data, compresslevel=4),
        "br": lambda data: brotli.compress(data, quality=4),
        "zstd": lambda data: zstandard.ZstdCompressor(level=4).compress(data),
    }
    out = {"bytes": float(len(body))}
    for name, code in coders.items():
        started = time.process_time()
        for _ in range(repeats):
            code(body)
        out[name] = (time.process_time() - started) / repeats * 1e6
    return out


def measure(moves: int) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, dict[str, float]]]:
    """Per game, per coding: bytes per move by request kind; and per game, the CPU of coding its last view."""
    keys = Path(tempfile.mkdtemp(prefix="chaiwala-wire-keys-"))
    atexit.register(shutil.rmtree, keys, ignore_errors=True)
    key_file_unless_set(keys / "secret.keys")
    table: dict[str, dict[str, dict[str, float]]] = {}
    costs: dict[str, dict[str, float]] = {}
    with stack() as running:
        services = {game: running.rules(game) for game in GAMES}
        gateway = running.gateway(services)
        with httpx.Client(base_url=f"http://127.0.0.1:{gateway.port}", timeout=60) as client:
            for game in GAMES:
                tags = set()
                table[game] = {}
                for name, accept in CODINGS.items():
                    tally, tag, body = play(client, game, accept, moves)
                    tags.add(tag)
                    table[game][name] = tally.per_move()
                for name in ONE_REQUEST_CODINGS:  # the table since issue #43: one request per move
                    tally, tag, _ = play(client, game, CODINGS[name], moves, requests="one")
                    tags.add(tag)
                    table[game][f"{name}, one request"] = tally.per_move()
                assert len(tags) == 1, f"{game}: the runs were not the same game ({tags})"
                costs[game] = coding_cost(body)
    return table, costs


def markdown(table: dict[str, dict[str, dict[str, float]]], moves: int) -> str:
    """The lab page's table: bytes per move, by game and coding, with the share saved."""
    lines = [
        f"Bytes received per move (first {moves} moves of a two-seat game; view + legal moves + move answer + "
        'one live stream), by `Accept-Encoding`; rows marked "one request" play as the table does since '
        "issue #43 (the move's answer carries the legal moves; a seat reads the game once when its turn comes):",
        "",
        "| game | coding | view | legal moves | move answer | stream | total | vs none |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for game, rows in table.items():
        base = rows["none"]["total"]
        for name, row in rows.items():
            cells = " | ".join(f"{row[kind]:,.0f}" for kind in (*KINDS, "total"))
            lines.append(f"| {game} | {name} | {cells} | {row['total'] / base:.2f} |")
    return "\n".join(lines) + "\n"


def cost_markdown(costs: dict[str, dict[str, float]]) -> str:
    """CPU per answer of tagging and of each coding, for each game's last view."""
    lines = [
        "CPU microseconds per answer (the last view of each game above, in this process), to tag it and to "
        "compress it at the gateway's levels:",
        "",
        "| game | view bytes | tag (BLAKE2b) | gzip | br | zstd |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for game, row in costs.items():
        cells = " | ".join(f"{row[name]:,.0f}" for name in ("bytes", "tag", "gzip", "br", "zstd"))
        lines.append(f"| {game} | {cells} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Measure and print (or write) the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=40, help="moves per game (fewer when a game ends first)")
    parser.add_argument("--out", type=Path, help="write the Markdown table here as well")
    args = parser.parse_args()
    table, costs = measure(args.moves)
    text = markdown(table, args.moves) + "\n" + cost_markdown(costs)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
