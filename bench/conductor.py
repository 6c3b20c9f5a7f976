"""Bots off the request path: ``GET /v1/games/{id}`` of one India Rails game while four
all-bot India Rails games play, beside the same GET with nothing else running.

The baseline (quiet GET) is timed first; the first call of the busy case creates four
games of four heuristic bots (``time_limit_rounds`` keeps them finite), which a real
conductor subprocess plays while the GETs are timed.  The goal is a busy/quiet latency
ratio under 2x; teardown prints it (median and 90th percentile per-call latency) and how
many bot games were still playing when the busy timing ended, so a reader can tell the load
was real.  Read the summary line: the harness's own ``per_second`` of the busy case includes
its first call, which also creates the four games.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from bench.harness import Case
from services.common.embedded_redis import start_redis
from services.common.logs import configure_logging
from tests.support.seeds import seed_hex
from tests.support.stack import ConductorProcess, Gateway, Services

GAME = "india_rails"
BOT_GAMES = 4
BOT_OPTIONS = {"fast_game": True, "time_limit_rounds": 60}
_running: dict[str, Any] = {}


def _timed(samples: list[float], call: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        started = time.perf_counter()
        answer = call()
        samples.append(time.perf_counter() - started)
        return answer

    return run


def _start_bot_games(http: httpx.Client) -> list[str]:
    players = [{"name": f"bot{i}", "bot": "heuristic"} for i in range(4)]
    body = {"game_type": GAME, "players": players, "options": BOT_OPTIONS}
    return [
        http.post("/v1/games", json={**body, "seed_hex": seed_hex(seed)}).json()["game_id"] for seed in range(BOT_GAMES)
    ]


def cases() -> list[Case]:
    """Start Redis, the India Rails service, a gateway and a conductor; return the case."""
    configure_logging("json", "warning")
    work = Path(tempfile.mkdtemp(prefix="chaiwala-bench-conductor-"))
    server = start_redis(work / "redis", appendonly=False)
    services = Services(server.url)
    service = services.start(GAME)
    gateway = Gateway({GAME: service.address})
    conductor = ConductorProcess(server.url, work / "conductor.log")
    http = httpx.Client(base_url=gateway.url, timeout=60)
    humans = {
        "game_type": GAME,
        "players": [{"name": "a"}, {"name": "b"}],
        "seed_hex": seed_hex(7),
        "options": BOT_OPTIONS,
    }
    game_id = http.post("/v1/games", json=humans).json()["game_id"]
    quiet: list[float] = []
    busy: list[float] = []
    bot_games: list[str] = []
    _running.update(
        server=server, services=services, service=service, gateway=gateway, conductor=conductor, http=http,
        quiet=quiet, busy=busy, bot_games=bot_games,
    )  # fmt: skip

    def get() -> object:
        return http.get(f"/v1/games/{game_id}")

    def busy_get() -> object:
        if not bot_games:
            bot_games.extend(_start_bot_games(http))
        return get()

    return [
        Case(
            "rest_get_game_while_4_bot_games_play",
            _timed(busy, busy_get),
            "request",
            ("rest_get_game_quiet", _timed(quiet, get)),
        )
    ]


def _p90(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=10)[-1]


def _still_playing(http: httpx.Client, game_ids: list[str]) -> int:
    return sum(1 for g in game_ids if http.get(f"/v1/games/{g}").json()["status"] == "active")


def teardown() -> None:
    """Print the latency ratio, then stop everything :func:`cases` started."""
    http: httpx.Client = _running["http"]
    busy = _running["busy"][1:]  # the first busy call also created the bot games
    quiet = _running["quiet"]
    summary: dict[str, object] = {"bench": "conductor", "case": "latency_ratio_busy_to_quiet", "goal": "< 2"}
    if len(busy) >= 2 and len(quiet) >= 2:
        quiet_median, busy_median = statistics.median(quiet), statistics.median(busy)
        quiet_p90, busy_p90 = _p90(quiet), _p90(busy)
        summary.update(
            quiet_median_ms=round(quiet_median * 1000, 3),
            busy_median_ms=round(busy_median * 1000, 3),
            ratio=round(busy_median / quiet_median, 3),
            quiet_p90_ms=round(quiet_p90 * 1000, 3),
            busy_p90_ms=round(busy_p90 * 1000, 3),
            ratio_p90=round(busy_p90 / quiet_p90, 3),
        )
    summary["bot_games_still_playing"] = _still_playing(http, _running["bot_games"])
    print(json.dumps(summary), flush=True)
    http.close()
    _running["conductor"].stop()
    _running["gateway"].stop()
    _running["services"].stop(_running["service"])
    _running["services"].close()
    _running["server"].stop()
