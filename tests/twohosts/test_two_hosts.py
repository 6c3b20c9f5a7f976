"""Two hosts, one failure (``make two-hosts``; not part of ``make test``).

The whole system on two namespace hosts (tests/support/netns.py, tests/support/two_hosts.py):
Redis Cluster spread over both, each host's supervisor (rules service, conductor, gateway, ...),
HAProxy in front.  Players play through HAProxy while host b is killed (``kill -9`` of every process
in its namespace) and cut off (its link down), then restored.  Then: every acknowledged move is in
its game's log, none is applied twice, every game finishes, and no client saw a connection error or
any failure but a problem+json 503 with Retry-After, which it retried (answers counted by status).
The figures go to stdout and to ``var/two-hosts.json``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import redis
from redis.crc import key_slot

from tests.support import netns
from tests.support.two_hosts import (
    ROOT,
    Deployment,
    cluster_healthy,
    deployed,
    layout,
    start_redis_nodes,
    start_services,
    wait_gateway,
)
from tests.twohosts.players import Ack, Tally, finish, play

PLAYERS = 4
WARM_SECONDS = 10.0  # play before the cut
WARM_MORE_SECONDS = 60.0  # at most this much longer, until a game in play is on host b's master
DOWN_SECONDS = 20.0  # host b away
AFTER_SECONDS = 15.0  # play after host b is back
FINISH_SECONDS = 120.0


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    """Both hosts, the cluster and HAProxy (everything removed afterwards, also on failure)."""
    try:
        netns.require_namespaces()
    except netns.CannotRun as exc:
        pytest.fail(f"make two-hosts cannot run here: {exc}")
    with netns.topology() as hosts, deployed(hosts) as running:
        yield running


def slots_of(host: netns.Host, port: int, probe: netns.Host) -> set[int]:
    """The hash slots the master at ``host:port`` serves, as ``probe``'s first node sees them."""
    with redis.Redis(probe.address, 7001, decode_responses=True) as client:
        ranges = client.execute_command("CLUSTER SLOTS")
    owned: set[int] = set()
    for entry in ranges:
        first, last, master = entry[0], entry[1], entry[2]
        if master[0] == host.address and int(master[1]) == port:
            owned.update(range(int(first), int(last) + 1))
    return owned


def game_slot(game_id: str) -> int:
    """The slot of every key of a game (they share the ``{game_id}`` hash tag)."""
    return int(key_slot(f"game:{{{game_id}}}:meta".encode()))


def games_in_play_on(tally: Tally, slots: set[int]) -> set[str]:
    """The games in ``slots`` that are not over yet (as far as the players know)."""
    with tally.lock:
        return {game_id for game_id, _ in tally.games if game_slot(game_id) in slots and game_id not in tally.over}


def fail_host(deployment: Deployment, host: netns.Host) -> float:
    """Kill every process of ``host`` (kill -9) and cut its link; the time of the cut."""
    netns.kill_all(host)
    netns.cut(host)
    return time.monotonic()


def restore_host(deployment: Deployment, host: netns.Host) -> None:
    """Link up, its Redis nodes back (they rejoin as replicas), its services back."""
    netns.restore(host)
    start_redis_nodes(deployment, host)
    start_services(deployment, host)
    wait_gateway(host)


def without_type(move: Any) -> Any:
    """A move as JSON without its ``@type`` and what the legal moves put beside it (``text``, ``costs``: not logged)."""
    return {k: v for k, v in move.items() if k not in {"@type", "text", "costs"}} if isinstance(move, dict) else move


def check_logs(base_url: str, tally: Tally) -> dict[str, Any]:
    """Each acknowledged move at its place in its game's log; seat 0's human entries counted."""
    lost: list[Ack] = []
    duplicated: dict[str, int] = {}
    by_game: dict[str, list[Ack]] = {}
    for ack in tally.acks:
        by_game.setdefault(ack.game_id, []).append(ack)
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for game_id, _token in tally.games:
            replay = client.get(f"/v1/games/{game_id}/replay")
            assert replay.status_code == 200, replay.text
            entries = {int(e["version"]): e for e in replay.json()["moves"]}
            acks = by_game.get(game_id, [])
            for ack in acks:
                entry = entries.get(ack.expected_version + 1) or {}
                same = bool(entry) and int(entry.get("seat", 0)) == 0 and not entry.get("bot")
                if not (same and without_type(entry.get("move")) == without_type(ack.move)):
                    lost.append(ack)
            human = [e for e in entries.values() if int(e.get("seat", 0)) == 0 and not e.get("bot") and e.get("move")]
            extra = len(human) - len(acks) - tally.unknown[game_id]
            if extra > 0 or len({a.expected_version for a in acks}) != len(acks):
                duplicated[game_id] = extra
    return {"lost": lost, "duplicated": duplicated}


def limit_store_failures(deployment: Deployment) -> int:
    """Rate-limit checks the gateways skipped because their limit store failed (their logs' warnings)."""
    logs = deployment.workdir.glob("services-*.log")
    return sum(path.read_text(encoding="utf-8", errors="replace").count("limit_store_failed") for path in logs)


def test_two_hosts_one_failure(deployment: Deployment) -> None:
    """Host b dies and drops off the network under play, then comes back: nothing acknowledged is lost."""
    a, b = deployment.hosts
    b_slots = slots_of(b, 7001, a)
    assert b_slots, f"host b's node 7001 is no master: {layout(deployment.hosts)}"
    tally = Tally()
    started = time.monotonic()
    tally.stop_at = started + WARM_SECONDS + WARM_MORE_SECONDS + DOWN_SECONDS + AFTER_SECONDS + 30
    threads = [threading.Thread(target=play, args=(deployment.url, tally, p)) for p in range(PLAYERS)]
    for thread in threads:
        thread.start()
    time.sleep(WARM_SECONDS)
    affected = games_in_play_on(tally, b_slots)
    warmed_until = time.monotonic() + WARM_MORE_SECONDS
    while not affected and time.monotonic() < warmed_until:  # new games keep coming as others end
        time.sleep(0.5)
        affected = games_in_play_on(tally, b_slots)
    cut_at = fail_host(deployment, b)
    tally.stop_at = cut_at + DOWN_SECONDS + AFTER_SECONDS + 30  # the restore's own time, bounded
    cut_at_utc = datetime.now(UTC).strftime("%H:%M:%S.%f")[:-3]
    time.sleep(DOWN_SECONDS)
    roles_while_down = layout(deployment.hosts)
    back_at = time.monotonic()  # host b's link comes up now; its processes follow
    restore_host(deployment, b)
    restored_at = time.monotonic()
    for thread in threads:
        thread.join(timeout=tally.stop_at - time.monotonic() + 120)
    unfinished = finish(deployment.url, tally, FINISH_SECONDS)
    checked = check_logs(deployment.url, tally)
    after_cut = [ack for ack in tally.acks if ack.at > cut_at]
    # Moves first sent after the cut: committed after it, so on the cluster as the failover left it
    # (a move sent before could be answered after the cut from a commit made before it).
    sent_after = [ack for ack in after_cut if ack.sent > cut_at]
    affected_after = [ack.at - cut_at for ack in sent_after if ack.game_id in affected]
    figures = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "make two-hosts",
        "players": PLAYERS,
        "games": len(tally.games),
        "games_on_failed_master": len(affected),
        "acknowledged_moves": len(tally.acks),
        "acknowledged_while_b_away": sum(1 for ack in after_cut if ack.at < restored_at),
        "lost": len(checked["lost"]),
        "duplicated": sum(checked["duplicated"].values()),
        "failover_seconds": round(min(affected_after), 2) if affected_after else None,
        "first_move_after_cut_seconds": round(min(ack.at for ack in sent_after) - cut_at, 2) if sent_after else None,
        "cut_at_utc": cut_at_utc,
        "cut_off_seconds": round(back_at - cut_at, 2),
        "restore_seconds": round(restored_at - back_at, 2),
        "client_answers_by_status": dict(sorted(tally.statuses.items())),
        "503_without_retry_after": sum(tally.no_retry_after.values()),
        "problems_by_status_and_code": dict(sorted(tally.problems.items())),
        "moves_without_final_answer": sum(tally.unknown.values()),
        "unfinished_games": unfinished,
        "roles_while_b_away": roles_while_down,
        "cluster_healthy_after": cluster_healthy(deployment.hosts),
        "gateway_limit_store_failures": limit_store_failures(deployment),
    }
    out = ROOT / "var" / "two-hosts.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    print("\n[two-hosts] " + json.dumps(figures, indent=2), flush=True)
    assert affected, "no game was on host b's master when it was cut (the failover was not exercised)"
    assert not checked["lost"], f"acknowledged moves missing from the log: {checked['lost'][:5]}"
    assert not checked["duplicated"], f"moves applied more often than acknowledged: {checked['duplicated']}"
    assert not unfinished, f"games not finished: {unfinished}"
    assert affected_after, "no game of host b's master moved again after the cut"
    assert min(affected_after) < back_at - cut_at, (
        "no game of host b's master moved while b was cut off: the promoted replica was not used"
    )
    assert not tally.statuses["conn"], "a connection error reached a client (no HTTP answer to a request)"
    bad = {k: v for k, v in tally.statuses.items() if not k.startswith("2") and k != "503"}
    assert not bad, f"clients saw failures other than 503: {bad}"
    assert not tally.no_retry_after, f"503s without Retry-After: {dict(tally.no_retry_after)}"
    codeless = {k: v for k, v in tally.problems.items() if k.endswith(" -")}
    assert not codeless, f"503s that are not problem+json with a code: {codeless}"
