"""All cores: a gateway of 2 uvicorn workers and a rules service of 2 processes, each group on one port.

Real processes (``python -m gateway``, ``python -m services.rules.server``) over a private
Redis (tests/support/worker_groups.py, the session's): games play correctly through them, each
group's single scrape sums every process, and, last, killed parents take their workers with them.
"""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor

import httpx
import psutil

from services.common import gcpolicy
from services.common.processes import stop_process
from services.common.workers import remove_stale_metrics_dirs
from tests.support.client import auth, two_humans
from tests.support.metrics import exported, samples_sum, scrape
from tests.support.supervised import alive, listeners, wait_until
from tests.support.worker_groups import GAME, WorkerGroups, metrics_dirs

# Behaviour bounds, far above what each takes on a quiet machine.
WORKERS_GONE_SECONDS = 10
BACK_SECONDS = 60
COUNTED = ("chaiwala_moves_accepted_total", "chaiwala_games_created_total")


def _workers(process: subprocess.Popen[bytes]) -> list[psutil.Process]:
    return [child for child in psutil.Process(process.pid).children() if child.is_running()]


def test_each_group_runs_two_processes_on_one_port(groups: WorkerGroups) -> None:
    for name, process in (("service", groups.service), ("gateway", groups.gateway)):
        assert len(_workers(process)) == 2, name


def test_every_worker_of_both_groups_serves_with_the_tuned_collector(groups: WorkerGroups) -> None:
    """services.common.gcpolicy is in force in the running servers: each group's one scrape shows the
    lowest thresholds over its live workers, so one untuned worker would show CPython's (700, 10, 10)."""
    wanted = {"0": gcpolicy.YOUNG, "1": gcpolicy.MIDDLE_AFTER, "2": gcpolicy.FULL_AFTER}
    for name, url in (("rules service", groups.metrics), ("gateway", f"{groups.url}/metrics")):
        text = scrape(url)
        assert {g: exported(text, "chaiwala_gc_threshold", generation=g) for g in wanted} == wanted, name


def test_games_play_through_the_groups_and_one_scrape_sums_every_process(groups: WorkerGroups) -> None:
    url, metrics = groups.url, groups.metrics
    # The groups are the session's: what other tests played there is counted before.
    accepted, created = (samples_sum(scrape(metrics), name) for name in COUNTED)
    served = samples_sum(scrape(f"{url}/metrics"), "chaiwala_http_requests_total")
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
    assert samples_sum(scrape(metrics), "chaiwala_moves_accepted_total") - accepted == moves
    assert samples_sum(scrape(metrics), "chaiwala_games_created_total") - created == 3
    assert samples_sum(scrape(f"{url}/metrics"), "chaiwala_http_requests_total") - served >= requests


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


def test_concurrent_movers_through_both_workers_get_current_legal_moves(groups: WorkerGroups) -> None:
    """Stored legal-moves answers (services.legalmoves) across processes: six games moved at once,
    each request on any gateway worker and any rules process; never a stale answer."""
    url = groups.url
    stored = "chaiwala_gateway_legal_moves_answers_total"
    before = _stored(url, stored)
    with ThreadPoolExecutor(6) as pool:
        played = sum(pool.map(lambda seed: _play_closed_loop(url, seed, 8), range(10, 16)))
    assert played == 48
    # After each game's first move, both seats' GETs were stored answers (summed over both workers).
    assert _stored(url, stored) - before >= 2 * 6 * 7


def _stored(url: str, name: str) -> float:
    return samples_sum(scrape(f"{url}/metrics"), name, source="stored")


def test_workers_end_with_their_killed_parent_without_a_supervisor(groups: WorkerGroups) -> None:
    """No supervisor to clean up: a rules service's and the gateway's workers end by themselves
    (parent-death signal) when their parent is killed, and leave the port free.  The groups are
    the session's (tests/support/worker_groups.py), killed after this module's other tests used
    them (it is the module's last): the next test to want them gets new ones."""
    grpc_port, http_port = groups.grpc_port, groups.http_port
    rules, gateway = groups.service, groups.gateway
    workers: list[psutil.Process] = []
    try:
        parents = [psutil.Process(rules.pid), psutil.Process(gateway.pid)]

        def grouped() -> bool:
            return all(len([w for w in p.children() if alive(w)]) == 2 for p in parents) and all(
                len(listeners(port)) == 2 for port in (grpc_port, http_port)
            )

        wait_until(grouped, BACK_SECONDS, "both groups listen with two workers each")
        workers = [w for p in parents for w in p.children()]
        folders = [folder for p in parents for folder in metrics_dirs(p.pid)]
        assert len(folders) == 2
        for process in (rules, gateway):
            process.kill()
            process.wait(timeout=10)
        wait_until(lambda: not any(alive(w) for w in workers), WORKERS_GONE_SECONDS, "the orphaned workers end")
        assert not listeners(grpc_port) and not listeners(http_port)
        # What the next parent to start (or the supervisor) does first: the dead parents' folders go.
        # Any process started meanwhile by another xdist worker runs the same sweep first and may
        # have taken them already (tests/common/test_metrics_dirs.py checks the sweep alone).
        remove_stale_metrics_dirs()
        assert not any(folder.exists() for folder in folders)
    finally:
        for process in (rules, gateway):
            stop_process(process)
        for worker in workers:
            if alive(worker):
                worker.kill()
