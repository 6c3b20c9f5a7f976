"""``make run``'s supervisor: the whole stack as separate processes, stopped cleanly by Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from services.common.embedded_redis import free_port
from services.processes.supervisor import game_order
from tests.support import secrets

ROOT = Path(__file__).resolve().parents[2]


def _wait_ready(url: str, process: subprocess.Popen[bytes], seconds: float = 60) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "the supervisor exited early"
        try:
            answer = httpx.get(f"{url}/readyz", timeout=2)
            if answer.status_code == 200:
                body: dict[str, object] = answer.json()
                return body
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError("the stack did not become ready")


def _redis_children(process: subprocess.Popen[bytes]) -> list[psutil.Process]:
    return [c for c in psutil.Process(process.pid).children() if "redis-server" in c.name()]


def _kill_redis_and_see_it_come_back(process: subprocess.Popen[bytes], url: str) -> None:
    """SIGKILL the embedded Redis: the supervisor restarts it and the stack serves again."""
    (redis_server,) = _redis_children(process)
    redis_server.kill()
    redis_server.wait(timeout=10)
    body = {"game_type": "darjeeling", "players": [{"name": "a"}, {"name": "b"}]}
    statuses = []
    for _ in range(100):  # the supervisor restarts a child after a 1 s back-off
        answer = httpx.post(f"{url}/v1/games", json=body, timeout=30)
        statuses.append(answer.status_code)
        if answer.status_code == 201:
            break
        assert answer.status_code == 503 and answer.json()["code"] in ("store_unavailable", "service_unavailable")
        time.sleep(0.2)
    assert statuses[-1] == 201, statuses
    (restarted,) = _redis_children(process)
    assert restarted.pid != redis_server.pid
def _wait_finished(url: str, game_id: str, seconds: float = 120) -> None:
    """The supervisor's conductor plays the all-bot game to its end (bounded wait)."""
    deadline = time.monotonic() + seconds
    while httpx.get(f"{url}/v1/games/{game_id}", timeout=10).json()["status"] != "finished":
        assert time.monotonic() < deadline, "the conductor did not finish the bot game"
        time.sleep(0.05)


@pytest.mark.slow
def test_supervisor_starts_everything_and_ctrl_c_stops_it(tmp_path: Path) -> None:
    http_port = free_port()
    # One free port each: a fixed block inside the ephemeral range once collided with
    # another test's socket on CI.
    ports: list[int] = []
    games = len(game_order())
    while len(ports) < 2 * games:
        port = free_port()
        if port not in ports and port != http_port:
            ports.append(port)
    grpc_ports, metrics_ports = ports[:games], ports[games:]
    conductor_metrics = free_port()
    env = {
        **os.environ,
        "CHAIWALA_HTTP_PORT": str(http_port),
        "CHAIWALA_RUN_GRPC_PORTS": ",".join(map(str, grpc_ports)),
        "CHAIWALA_RUN_METRICS_PORTS": ",".join(map(str, metrics_ports)),
        "CHAIWALA_RUN_CONDUCTOR_METRICS_PORT": str(conductor_metrics),
        "CHAIWALA_RUN_TOURNAMENT_PORT": str(free_port()),
        "CHAIWALA_RUN_TOURNAMENT_METRICS_PORT": str(free_port()),
        "CHAIWALA_RUN_WEBHOOK_GRPC_PORT": str(free_port()),
        "CHAIWALA_RUN_WEBHOOK_METRICS_PORT": str(free_port()),
        "CHAIWALA_RUN_MATCHMAKING_PORT": str(free_port()),
        "CHAIWALA_RUN_MATCHMAKING_METRICS_PORT": str(free_port()),
        "CHAIWALA_RUN_NOTIFY_GRPC_PORT": str(free_port()),
        "CHAIWALA_RUN_NOTIFY_METRICS_PORT": str(free_port()),
        "CHAIWALA_REDIS_PORT": str(free_port()),
        "CHAIWALA_VAR_DIR": str(tmp_path),
        "CHAIWALA_LOG_LEVEL": "warning",
        # One process per service keeps this start-up light; groups of processes: test_workers.
        "CHAIWALA_GRPC_PROCESSES": "1",
        "CHAIWALA_HTTP_WORKERS": "1",
    }
    env.pop("REDIS_URL", None)
    process = subprocess.Popen([sys.executable, "-m", "services.processes"], cwd=ROOT, env=env)
    try:
        url = f"http://127.0.0.1:{http_port}"
        ready = _wait_ready(url, process)
        assert "darjeeling" in ready["services"]  # type: ignore[operator]
        children = psutil.Process(process.pid).children(recursive=True)
        assert len(children) >= 4  # redis-server, at least one rules service, the conductor, the gateway
        created = httpx.post(
            f"{url}/v1/games",
            json={
                "game_type": "darjeeling",
                "players": [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}],
            },
            timeout=60,
        )
        assert created.status_code == 201
        _wait_finished(url, created.json()["game_id"])
        # The tournament director is up and the gateway reaches it.
        assert httpx.get(f"{url}/v1/tournaments", timeout=60).status_code == 200
        # And the matchmaker: a guest's (empty) list of tickets.
        session = httpx.post(f"{url}/v1/sessions", json={"name": "Quick"}, timeout=60).json()
        secrets.remember(session["token"])
        mine = httpx.get(f"{url}/v1/me/tickets", headers={"Authorization": f"Bearer {session['token']}"}, timeout=60)
        assert mine.status_code == 200 and mine.json() == {"tickets": []}
        darjeeling_metrics = metrics_ports[game_order().index("darjeeling")]
        scraped = httpx.get(f"http://127.0.0.1:{darjeeling_metrics}/metrics", timeout=5).text
        assert 'chaiwala_games_created_total{game_type="darjeeling"} 1.0' in scraped
        # Counted from the outbox's game.finished by the conductor, a poll (half a second) later.
        deadline = time.monotonic() + 30
        finished = 'chaiwala_games_finished_total{game_type="darjeeling"} 1.0'
        while finished not in httpx.get(f"http://127.0.0.1:{conductor_metrics}/metrics", timeout=5).text:
            assert time.monotonic() < deadline, "the conductor did not count the finished game"
            time.sleep(0.1)
        assert "chaiwala_rpc_duration_seconds_bucket" in scraped
        assert (tmp_path / "redis" / "appendonly.aof").exists() or any((tmp_path / "redis").glob("appendonly*"))
        # The webhook dispatcher runs too, and make run's default allows a loopback receiver.
        hook = {"url": "http://127.0.0.1:9/hook", "events": ["game.finished"]}
        assert httpx.post(f"{url}/v1/webhooks", json=hook, timeout=60).status_code == 201
        _kill_redis_and_see_it_come_back(process, url)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        time.sleep(0.5)
        assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    finally:
        if process.poll() is None:
            process.kill()
