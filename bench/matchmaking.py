"""Quick play: what the matchmaker costs, and how long players wait (``python -m bench matchmaking``).

* **CPU per ticket matched** with 10,000 tickets searching in one pool: the real :class:`Matchmaker`
  (its store, Lua scripts and game creation) in this process against the embedded Redis and a real
  Darjeeling rules service (a child process, so its CPU is not counted here), passes until no group
  forms.  Baseline: the CPU one trivial request costs its server (:mod:`bench.trivial`, FastAPI + one
  Redis GET and SET), measured in the same run.
* **Time to match** at steady arrival rates (1, 10 and 100 tickets a second; mixed table sizes, ratings
  around 25 ± 8, a quarter allowing bots after 60 s): a simulation on a virtual clock that drives the
  real matching code (:func:`services.matchmaking.matching.form_groups`) every poll with the default
  policy.  Reported: the median wait, beside the policy's smaller-table wait (30 s).
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from typing import Any

import httpx
from redis.asyncio import Redis

from bench import procs
from bench.config import Config
from bench.results import Row
from services.common.logs import configure_logging
from services.matchmaking.games import RulesClients
from services.matchmaking.matcher import Matchmaker, policy_of
from services.matchmaking.matching import form_groups
from services.matchmaking.model import PoolSpec, Ticket
from services.matchmaking.settings import MatchmakingSettings
from services.matchmaking.store import TicketStore, pool_key

GAME = "darjeeling"
COUNTS = ([2], [2, 3], [3, 4], [2, 3, 4], [4], [3])
POOL = PoolSpec(GAME, None, False, {})
TTL_MS = 600_000


def _ticket(rng: random.Random, n: int, created_ms: int) -> Ticket:
    bots = 60 if rng.random() < 0.25 else None
    return Ticket(f"tkt_bench{n:08d}", f"bench:{n}", f"B{n}", POOL, list(rng.choice(COUNTS)), bots, "random",
                  rng.gauss(25, 8), created_ms, created_ms + TTL_MS)  # fmt: skip


async def _matcher_cpu(redis_url: str, rules_port: int, searching: int) -> dict[str, Any]:
    """Fill one pool with ``searching`` tickets, then let the real matchmaker pass until no group forms."""
    redis = Redis.from_url(redis_url)
    store = TicketStore(redis)
    rng = random.Random(45)
    now = int(time.time() * 1000)
    for n in range(searching):
        await store.create(_ticket(rng, n, now - rng.randint(0, 120_000)), cap=1)
    settings = MatchmakingSettings(redis_url=redis_url, matchmaking_pool_window=searching)
    rules = RulesClients({GAME: f"127.0.0.1:{rules_port}"}, "")
    matchmaker = Matchmaker(store, rules, settings)
    cpu, wall, passes, groups = time.process_time(), time.perf_counter(), 0, 0
    while True:
        formed = await matchmaker.one_pass()
        passes, groups = passes + 1, groups + formed
        if not formed:
            break
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    idle = await _idle_pass(store, matchmaker, searching, now)
    left = int(await redis.zcard(pool_key(POOL.pool_id())))
    await rules.close()
    await redis.aclose()
    return {"cpu_s": cpu, "wall_s": wall, "passes": passes, "games": groups, "matched": searching - left,
            "left": left, "searching": searching, "idle_pass_cpu_s": round(idle, 4)}  # fmt: skip


async def _idle_pass(store: TicketStore, matchmaker: Matchmaker, searching: int, now: int) -> float:
    """CPU of one pass over ``searching`` tickets none of which can match (tables of four, ratings 100
    apart): what a matchmaker spends every poll on a pool that waits.  The first pass reads the records;
    the second, measured, is the steady cost."""
    pool = PoolSpec(GAME, {"per_turn_s": 60, "bank_s": 0, "increment_s": 0}, False, {})
    for n in range(searching):
        rating = n * 100.0
        await store.create(Ticket(f"tkt_idle{n:08d}", f"idle:{n}", f"I{n}", pool, [4], None, "random", rating, now,
                                  now + TTL_MS), cap=1)  # fmt: skip
    await matchmaker.one_pass()
    cpu = time.process_time()
    await matchmaker.one_pass()
    return time.process_time() - cpu


def _trivial_cpu(stack: procs.Stack, requests: int) -> float:
    """CPU seconds one trivial request costs its server."""
    trivial = stack.trivial()
    with httpx.Client(base_url=f"http://127.0.0.1:{trivial.port}", timeout=30) as http:
        for _ in range(50):
            http.get("/trivial")
        before = trivial.cpu()
        for _ in range(requests):
            http.get("/trivial")
        return (trivial.cpu() - before) / requests


def cpu_row(config: Config) -> Row:
    """CPU per ticket matched, 10,000 searching (500 in the quick slice), vs a trivial request."""
    configure_logging("json", "warning")  # not a line per game formed
    searching, requests = (500, 200) if config.quick else (10_000, 3000)
    with procs.stack(config.workers) as stack:
        rules = stack.rules(GAME)
        trivial = _trivial_cpu(stack, requests)
        found = asyncio.run(_matcher_cpu(stack.redis_url, rules.port, searching))
    per_ticket = found["cpu_s"] / max(1, found["matched"])
    return Row("matchmaking", f"matcher_cpu_per_ticket_matched_{searching}_searching", "ms CPU", per_ticket * 1000,
               "trivial_request_cpu", trivial * 1000, better="lower", details=found)  # fmt: skip


def simulate(rate: float, seconds: float, seed: int = 7) -> dict[str, Any]:
    """Arrivals at ``rate`` a second for ``seconds`` (virtual), the matching code every poll."""
    policy = policy_of(MatchmakingSettings())
    rng = random.Random(seed)
    step_ms = int(MatchmakingSettings().matchmaking_poll_s * 1000)
    searching: list[Ticket] = []
    waits: list[float] = []
    sizes: dict[int, int] = {}
    bots = expired = made = 0
    next_arrival = rng.expovariate(rate) * 1000
    for now in range(0, int(seconds * 1000), step_ms):
        while next_arrival <= now:
            searching.append(_ticket(rng, made, int(next_arrival)))
            made += 1
            next_arrival += rng.expovariate(rate) * 1000
        for group in form_groups(searching, now, policy):
            taken = {t.ticket_id for t in group.tickets}
            searching = [t for t in searching if t.ticket_id not in taken]
            waits += [(now - t.created_ms) / 1000 for t in group.tickets]
            sizes[group.size] = sizes.get(group.size, 0) + 1
            bots += group.bots
        alive = [t for t in searching if t.expires_ms > now]
        expired += len(searching) - len(alive)
        searching = alive
    quantiles = statistics.quantiles(waits, n=10) if len(waits) > 1 else [0.0] * 9
    return {"tickets": made, "matched": len(waits), "expired": expired, "still_searching": len(searching),
            "p50_s": round(statistics.median(waits), 2) if waits else None, "p90_s": round(quantiles[-1], 2),
            "groups_by_size": sizes, "bot_seats": bots}  # fmt: skip


def run(config: Config) -> list[Row]:
    """The suite's rows."""
    rows = [cpu_row(config)]
    smaller = MatchmakingSettings().matchmaking_smaller_after_s
    for rate, seconds in ((1, 1800), (10, 600), (100, 120)):
        if config.quick:
            seconds = 60
        found = simulate(rate, seconds)
        rows.append(Row("matchmaking", f"time_to_match_p50_at_{rate}_per_second", "s", found["p50_s"] or 0.0,
                        "policy_smaller_after_s", smaller, better="lower", details=found))  # fmt: skip
    return rows
