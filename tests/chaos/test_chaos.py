"""Chaos: players keep playing while Redis, a rules service, the gateway and the conductor are killed.

The stack is a :class:`~tests.support.fleet.Fleet` (every component its own process, as
``make run`` starts them).  Players (``players.py``) play random legal moves, every submission
pinned with ``expected_version`` and, for half of them, an ``Idempotency-Key``; some tables have a
bot seat, which the conductor plays.  Meanwhile the suite ``kill -9``-s each component in turn and
starts it again at once on the same port (Redis with its AOF), waiting between faults.

Afterwards:

* every acknowledged move is in its game's log (the replay, read with an operator key) exactly
  once, at the version it was acknowledged with, and every human entry of a log was submitted;
* every game was played to its end;
* players saw only 200/201, 409, 503 and transport errors (no 500, no other 5xx, no 4xx but 409);
* no component died of another's fault;
* the time from each fault to the first acknowledged move (and, for tables with bots, the first
  bot move) is printed and written to ``chaos-results/<plan>.json`` (git-ignored).

``make test`` runs the small ``slice`` plan (one kill of each kind, three players); ``make chaos``
sets ``CHAIWALA_CHAOS=long``: more players, two games, three rounds of faults.
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.chaos.players import EXPECTED, Observations, Player, Table, audit
from tests.support.client import auth
from tests.support.fleet import ROOT, Fleet

RESULTS = ROOT / "chaos-results"
# A killed conductor's claims wait for their lease to run out; the suite's lease is short so
# that a fault costs seconds, as it would with a tuned CHAIWALA_CONDUCTOR_LEASE_MS.
LEASE_MS = 3_000
RECOVERY_SECONDS = 90.0


@dataclass(frozen=True)
class Plan:
    """How hard to shake the stack."""

    name: str
    games: tuple[str, ...]
    players: int
    rounds: int
    calm_seconds: float  # play between two faults
    deadline_seconds: float  # for everything, including playing every table to its end

    def faults(self, round_number: int) -> list[str]:
        """The components to kill in one round, in order (rules services take turns)."""
        rules = self.games[round_number % len(self.games)]
        return ["redis", f"rules:{rules}", "gateway", "conductor"]


PLANS = {
    "slice": Plan("slice", ("darjeeling",), players=3, rounds=1, calm_seconds=1.0, deadline_seconds=240),
    "long": Plan("long", ("darjeeling", "alubari"), players=8, rounds=3, calm_seconds=5.0, deadline_seconds=900),
}


@dataclass
class Fault:
    """One kill and what it cost."""

    component: str
    round: int
    killed: float  # monotonic
    restart_s: float  # from the kill until the component served again
    first_ack_s: float | None = None  # from the kill until the first acknowledged human move
    first_bot_move_s: float | None = None  # from the kill until the first bot move a player saw

    def measure(self, seen: Observations) -> None:
        """Fill in the figures from what the players saw (after the run, so late bot moves count);
        a rules service's fault counts only the moves of its own game type."""
        game_type = self.component.partition("rules:")[2]
        self.first_ack_s = _rounded(seen.first_after(self.killed, game_type=game_type))
        self.first_bot_move_s = _rounded(seen.first_after(self.killed, bots=True, game_type=game_type))


def _seats(index: int) -> tuple[list[dict[str, str]], bool]:
    """Table shapes in turn: two keyed humans, two humans pinned by version only, a human and a bot."""
    shape = index % 3
    if shape == 2:
        return [{"name": "Asha"}, {"name": "Bot", "bot": "random"}], index % 2 == 0
    return [{"name": "Asha"}, {"name": "Bilal"}], shape == 0


def _players(plan: Plan, fleet: Fleet, seen: Observations, over: threading.Event, deadline: float) -> list[Player]:
    players = []
    for index in range(plan.players):
        seats, keyed = _seats(index)
        game = plan.games[index % len(plan.games)]
        players.append(Player(fleet.url, fleet.api_key, game, seats, keyed, 1000 + index, seen, over, deadline))
    return players


def _until(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {seconds}s"
        time.sleep(0.05)


def _shake(plan: Plan, fleet: Fleet, seen: Observations) -> list[Fault]:
    """Kill every component in turn; after each, wait until moves are acknowledged again."""
    faults = []
    for round_number in range(plan.rounds):
        for component in plan.faults(round_number):
            time.sleep(plan.calm_seconds)
            killed, serving = fleet.kill_and_restart(component)
            bots, game_type = component == "conductor", component.partition("rules:")[2]
            _until(lambda k=killed, b=bots, g=game_type: seen.first_after(k, bots=b, game_type=g) is not None,
                   RECOVERY_SECONDS, f"a move acknowledged after killing {component}")
            faults.append(Fault(component, round_number, killed, round(serving - killed, 3)))
    return faults


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)


def _report(plan: Plan, faults: list[Fault], seen: Observations, tables: list[Table], lease_ms: int) -> dict[str, Any]:
    for fault in faults:
        fault.measure(seen)
    by_kind: dict[str, dict[str, float]] = {}
    for kind in sorted({fault.component.split(":")[0] for fault in faults}):
        figures = [f.first_bot_move_s if kind == "conductor" else f.first_ack_s
                   for f in faults if f.component.split(":")[0] == kind]
        known = [figure for figure in figures if figure is not None]
        by_kind[kind] = {"median_s": round(statistics.median(known), 3), "max_s": max(known)} if known else {}
    return {
        "plan": asdict(plan),
        "conductor_lease_ms": lease_ms,
        "faults": [{k: v for k, v in asdict(fault).items() if k != "killed"} for fault in faults],
        "fault_to_first_move": by_kind,
        "statuses": dict(sorted(seen.statuses.items())),
        "acknowledged_moves": len(seen.acks),
        "tables": len(tables),
    }


def _print_summary(report: dict[str, Any], path: Path) -> None:
    print(f"\nchaos plan {report['plan']['name']}: {report['acknowledged_moves']} acknowledged moves "
          f"on {report['tables']} tables; answers {report['statuses']}; phases {report['phases']}")
    for fault in report["faults"]:
        print(f"  kill -9 {fault['component']:<18} restart {fault['restart_s']:>6.2f}s  first ack "
              f"{fault['first_ack_s']}s  first bot move {fault['first_bot_move_s']}s")
    print(f"  report: {path}")


def _audit_logs(fleet: Fleet, tables: list[Table]) -> list[str]:
    problems = []
    with httpx.Client(base_url=fleet.url, timeout=60) as client:
        for table in tables:
            response = client.get(f"/v1/games/{table.game_id}/replay", headers=auth(fleet.api_key))
            assert response.status_code == 200, response.text
            problems += audit(table, response.json())
    return problems


@pytest.mark.chaos
@pytest.mark.timeout(1800)  # the long plan's own deadline (900 s) bounds the players; this bounds the rest
def test_acknowledged_moves_survive_every_kind_of_kill_exactly_once(tmp_path: Path) -> None:
    plan = PLANS[os.environ.get("CHAIWALA_CHAOS", "slice")]
    began = time.monotonic()
    fleet = Fleet(tmp_path / "fleet", list(plan.games), lease_ms=LEASE_MS)
    fleet.start()
    phases = {"start_s": time.monotonic() - began}
    seen, over = Observations(), threading.Event()
    deadline = time.monotonic() + plan.deadline_seconds
    players = _players(plan, fleet, seen, over, deadline)
    try:
        for player in players:
            player.start()
        _until(lambda: len(seen.acks) >= plan.players, 120, "the players got going")
        faults = _shake(plan, fleet, seen)
        phases["shake_s"] = time.monotonic() - began - sum(phases.values())
        over.set()
        for player in players:
            player.join(timeout=max(1.0, deadline - time.monotonic()))
        phases["finish_s"] = time.monotonic() - began - sum(phases.values())
        dead = fleet.dead()
        tables = [table for player in players for table in player.tables]
        problems = _audit_logs(fleet, tables)
    finally:
        over.set()
        fleet.stop()
    report = _report(plan, faults, seen, tables, LEASE_MS)
    report["phases"] = {name: round(seconds, 1) for name, seconds in phases.items()}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{plan.name}.json"
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    _print_summary(report, path)
    assert not [p.name for p in players if p.is_alive()], "players still playing at the deadline"
    assert not [(p.name, p.failure) for p in players if p.failure], "a player failed"
    assert not dead, f"components died of another's fault: {dead}"
    assert set(seen.statuses) <= EXPECTED, seen.unexpected[:20]
    assert not problems, problems[:20]
    assert all(table.status == "finished" for table in tables), [(t.game_id, t.status) for t in tables]
