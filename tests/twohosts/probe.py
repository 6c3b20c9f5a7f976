"""Time one Redis Cluster client's calls while host b dies and drops off (root; a measurement, not a test).

``python -m tests.twohosts.probe [--client product|redis-default]`` builds the two namespace hosts
and the cluster of ``make two-hosts`` (no services), then runs a probe inside host a: a few tasks
calling ``INCR`` in a loop on keys served by host b's master, through the store's own Redis Cluster
client (``product``: :func:`services.common.store.redis_client`) or one made as the store made it
before (``redis-default``: redis-py's defaults with a 2 s connect timeout).  Host b is killed and
cut off 3 s in, its link comes back 20 s later.  The probe logs every call (start, duration,
outcome) and, inside the client, every slot-map refresh and every node command that took longer
than 0.2 s, with the seconds from the cut; the summary says when the first call on the lost
master's keys succeeded again.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from redis.crc import key_slot

from tests.twohosts.trace.sitecustomize import timed_call

TASKS = 4
CUT_AFTER = 3.0
DOWN_FOR = 20.0
RUN_FOR = CUT_AFTER + DOWN_FOR + 5.0
SLOW = 0.2  # node commands slower than this are logged


def _client(kind: str, url: str) -> Any:
    from redis.asyncio.cluster import RedisCluster

    from services.common.store import redis_client

    if kind == "product":
        return redis_client(url, True, 100, 2.0)
    return RedisCluster.from_url(url, socket_connect_timeout=2.0, max_connections=100)


def _instrument(events: list[dict[str, Any]], clock: Callable[[], float]) -> None:
    """Log slot-map refreshes and slow node commands (wrapping redis-py's own methods)."""
    from redis.asyncio import cluster

    def timed(name: str, original: Callable[..., Awaitable[Any]], always: bool) -> Callable[..., Awaitable[Any]]:
        def report(node: Any, args: tuple[Any, ...], began: float, took: float, outcome: str) -> None:
            if always or took > SLOW or outcome != "ok":
                command = str(args[0]) if args and name == "node" else ""
                events.append({"what": name, "node": getattr(node, "name", ""), "command": command,
                               "at": round(began, 3), "took": round(took, 3), "outcome": outcome})  # fmt: skip

        return timed_call(original, report, clock)

    cluster.NodesManager.initialize = timed("refresh", cluster.NodesManager.initialize, True)  # type: ignore[method-assign]
    cluster.ClusterNode.execute_command = timed("node", cluster.ClusterNode.execute_command, False)  # type: ignore[method-assign]


async def _inside(kind: str, url: str, keys: list[str], cut_at_wall: float) -> None:
    """The probe itself (runs in host a's namespace); prints its events as JSON."""
    events: list[dict[str, Any]] = []

    def clock() -> float:
        return time.time() - cut_at_wall  # seconds from the (planned) cut

    _instrument(events, clock)
    client = _client(kind, url)
    calls: list[dict[str, Any]] = []

    async def loop(key: str) -> None:
        while clock() < RUN_FOR - CUT_AFTER:
            began = clock()
            try:
                await client.incr(key)
                outcome = "ok"
            except Exception as error:
                outcome = type(error).__name__
                await asyncio.sleep(0.2)
            calls.append({"key": key, "at": round(began, 3), "took": round(clock() - began, 3), "outcome": outcome})
            await asyncio.sleep(0.05)

    await asyncio.gather(*(loop(key) for key in keys))
    await client.aclose()
    print(json.dumps({"calls": calls, "client": events}))


def _keys_on(slots: set[int], count: int) -> list[str]:
    keys = []
    index = 0
    while len(keys) < count:
        key = f"probe:{{{index}}}"
        if key_slot(key.encode()) in slots:
            keys.append(key)
        index += 1
    return keys


def _summary(calls: list[dict[str, Any]]) -> dict[str, Any]:
    after = [call for call in calls if call["at"] + call["took"] > 0]
    failed = [call for call in after if call["outcome"] != "ok"]
    ok_after = [
        call["at"] + call["took"] for call in after if call["outcome"] == "ok" and call["at"] + call["took"] > 0.5
    ]
    return {
        "calls": len(calls),
        "failed_by_error": {o: sum(1 for c in failed if c["outcome"] == o) for o in {c["outcome"] for c in failed}},
        "longest_call": max((call["took"] for call in calls), default=0),
        "first_success_after_cut": min(ok_after, default=None),
    }


def main() -> None:
    """Build the hosts and the cluster, run the probe in host a, fail host b under it, print the log."""
    from tests.support import netns
    from tests.support.two_hosts import Deployment, form_cluster, start_redis_nodes
    from tests.twohosts.test_two_hosts import slots_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--client", choices=["product", "redis-default"], default="product")
    parser.add_argument("--inside", nargs=3, metavar=("URL", "KEYS", "CUT_AT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        url, keys, cut_at = args.inside
        asyncio.run(_inside(args.client, url, keys.split(","), float(cut_at)))
        return
    netns.require_namespaces()
    with netns.topology() as hosts:
        a, b = hosts
        deployment = Deployment(hosts, Path(f"/tmp/chaiwala-probe-{int(time.time())}"))
        deployment.workdir.mkdir()
        try:
            for host in hosts:
                start_redis_nodes(deployment, host)
            form_cluster(hosts)
            keys = _keys_on(slots_of(b, 7001, a), TASKS)
            cut_at = time.time() + CUT_AFTER
            argv = [sys.executable, "-m", "tests.twohosts.probe", "--client", args.client,
                    "--inside", f"redis://{a.address}:7001/0", ",".join(keys), str(cut_at)]  # fmt: skip
            probe = subprocess.Popen(a.command(argv), stdout=subprocess.PIPE, text=True)
            time.sleep(max(0.0, cut_at - time.time()))
            netns.kill_all(b)
            netns.cut(b)
            time.sleep(DOWN_FOR)
            netns.restore(b)
            out, _ = probe.communicate(timeout=120)
        finally:
            deployment.stop_all()
    log = json.loads(out)
    for event in sorted(log["client"], key=lambda e: e["at"]):
        where = f"{event['what']:8} {event['node']:20} {event['command']:14}"
        print(f"{event['at']:8.3f} +{event['took']:6.3f}s {where} {event['outcome']}")
    print(json.dumps({"client": args.client, **_summary(log["calls"])}, indent=2))


if __name__ == "__main__":
    main()
