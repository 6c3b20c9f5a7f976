"""All cores: a gateway of 2 uvicorn workers and a rules service of 2 processes, each group on one port.

Real processes (``python -m gateway``, ``python -m services.rules.server``) over a private
Redis: games play correctly through them, and each group's single scrape sums every process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil
import pytest

from services.common.embedded_redis import free_port, start_redis
from services.common.processes import stop_process
from tests.support.client import auth, two_humans
from tests.support.metrics import samples_sum, scrape

ROOT = Path(__file__).resolve().parents[2]
GAME = "darjeeling"


def _wait(url: str, process: subprocess.Popen[bytes], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "the process group exited early"
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")


@pytest.fixture(scope="module")
def groups(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    tmp = tmp_path_factory.mktemp("workers")
    server = start_redis(tmp / "redis", appendonly=False)
    grpc_port, metrics_port, http_port = free_port(), free_port(), free_port()
    base = {**os.environ, "REDIS_URL": server.url, "CHAIWALA_LOG_FORMAT": "console", "CHAIWALA_LOG_LEVEL": "warning"}
    log = (tmp / "groups.log").open("ab")
    service = subprocess.Popen(
        [sys.executable, "-m", "services.rules.server", GAME], cwd=ROOT, stdout=log, stderr=log,
        env={**base, "CHAIWALA_GRPC_PROCESSES": "2", "CHAIWALA_GRPC_PORT": str(grpc_port),
             "CHAIWALA_METRICS_PORT": str(metrics_port)},
    )
    gateway = subprocess.Popen(
        [sys.executable, "-m", "gateway"], cwd=ROOT, stdout=log, stderr=log,
        env={**base, "CHAIWALA_HTTP_WORKERS": "2", "CHAIWALA_HTTP_PORT": str(http_port), "CHAIWALA_GAMES": GAME,
             f"CHAIWALA_SERVICE_{GAME.upper()}": f"127.0.0.1:{grpc_port}"},
    )
    try:
        _wait(f"http://127.0.0.1:{metrics_port}/metrics", service)
        _wait(f"http://127.0.0.1:{http_port}/readyz", gateway)
        yield {"url": f"http://127.0.0.1:{http_port}", "metrics": f"http://127.0.0.1:{metrics_port}/metrics",
               "service": service, "gateway": gateway}
    finally:
        stop_process(gateway)
        stop_process(service)
        log.close()
        server.stop()


def _workers(process: subprocess.Popen[bytes]) -> list[psutil.Process]:
    return [child for child in psutil.Process(process.pid).children() if child.is_running()]


def test_each_group_runs_two_processes_on_one_port(groups: dict[str, object]) -> None:
    for name in ("service", "gateway"):
        process = groups[name]
        assert isinstance(process, subprocess.Popen)
        assert len(_workers(process)) == 2, name


def test_games_play_through_the_groups_and_one_scrape_sums_every_process(groups: dict[str, object]) -> None:
    url, metrics = str(groups["url"]), str(groups["metrics"])
    moves = 0
    requests = 0
    for seed in (1, 2, 3):
        # A fresh client (so a fresh connection) per game: the kernel spreads them over the workers.
        with httpx.Client(base_url=url, timeout=30) as client:
            game_id, tokens = two_humans(client, GAME, seed=seed)
            requests += 1
            for _ in range(6):
                game = client.get(f"/v1/games/{game_id}").json()
                seat = game["to_act"][0]
                legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
                answer = client.post(f"/v1/games/{game_id}/moves", headers=auth(tokens[seat]),
                                     json={"move": legal["moves"][0], "expected_version": legal["version"]})
                assert answer.status_code == 200, answer.text
                assert answer.json()["version"] == legal["version"] + 1
                moves += 1
                requests += 3
            events = client.get(f"/v1/games/{game_id}/events").json()
            requests += 1
            assert [e["version"] for e in events][-1] == 6
    # Counters are summed over both rules processes and both gateway workers.
    assert samples_sum(scrape(metrics), "chaiwala_moves_accepted_total") == moves
    assert samples_sum(scrape(metrics), "chaiwala_games_created_total") == 3
    assert samples_sum(scrape(f"{url}/metrics"), "chaiwala_http_requests_total") >= requests


def _play_closed_loop(url: str, seed: int, moves: int) -> int:
    """One client's game, every request on a new connection (so on any gateway worker, and its
    POST on any rules process): each move's GET legal-moves must be of the game as it is, or the
    pinned POST that follows would be refused.  Answers how many GETs the workers served stored."""
    close = {"Connection": "close"}
    with httpx.Client(base_url=url, timeout=60) as client:
        game_id, tokens = two_humans(client, GAME, seed=seed)
        seat, version = client.get(f"/v1/games/{game_id}").json()["to_act"][0], 0
        for _ in range(moves):
            listing = client.get(f"/v1/games/{game_id}/legal-moves", headers={**auth(tokens[seat]), **close}).json()
            waiting = client.get(f"/v1/games/{game_id}/legal-moves", headers={**auth(tokens[1 - seat]), **close})
            assert listing["version"] == waiting.json()["version"] == version
            assert waiting.json()["moves"] == [] and listing["moves"]
            move = {k: v for k, v in listing["moves"][seed % len(listing["moves"])].items() if k != "text"}
            answer = client.post(f"/v1/games/{game_id}/moves", headers={**auth(tokens[seat]), **close},
                                 json={"move": move, "expected_version": version})  # fmt: skip
            assert answer.status_code == 200, answer.text
            version, seat = answer.json()["version"], answer.json()["to_act"][0]
    return moves


def test_concurrent_movers_through_both_workers_get_current_legal_moves(groups: dict[str, object]) -> None:
    """Stored legal-moves answers (services.legalmoves) across processes: six games moved at once,
    each request on any gateway worker and any rules process; never a stale answer."""
    url = str(groups["url"])
    stored = "chaiwala_gateway_legal_moves_answers_total"
    before = _stored(url, stored)
    with ThreadPoolExecutor(6) as pool:
        played = sum(pool.map(lambda seed: _play_closed_loop(url, seed, 8), range(10, 16)))
    assert played == 48
    # After each game's first move, both seats' GETs were stored answers (summed over both workers).
    assert _stored(url, stored) - before >= 2 * 6 * 7


def _stored(url: str, name: str) -> float:
    return samples_sum(scrape(f"{url}/metrics"), name, source="stored")
