"""What an operator scrapes, from the real processes of a private stack (own Redis; see
tests/support/ops_stack.py): each game fact counted once by one process, end reasons and
durations, no game series where no games are played, 429s by route, /metrics behind a token."""

from __future__ import annotations

import functools
import time
from typing import Any

import httpx

from tests.support.client import assert_problem, auth, turn, wait_over
from tests.support.ops_stack import (
    GAME,
    METRICS_TOKEN,
    OpsStack,
    client_fixture,
    families,
    module_fixture,
    ops_stack,
    scrape,
    value,
)
from tests.support.seeds import seed_hex
from tests.support.stack import Gateway
from tests.support.waiting import eventually

WAIT_SECONDS = 90.0
REASONS = ("normal", "resign", "timeout", "abort")
# Families about games and their moves: only a rules service or the conductor may export them.
GAME_PREFIXES = (
    "chaiwala_game", "chaiwala_moves_", "chaiwala_bot_moves", "chaiwala_wins", "chaiwala_final_score",
    "chaiwala_engine_", "chaiwala_lobby_", "chaiwala_stream_",
)  # fmt: skip
# Each process's runtime (CPU, GC, its Redis watch): every process has its own, by design.
RUNTIME_PREFIXES = ("process_", "python_", "chaiwala_store_", "chaiwala_gc_")


ops = module_fixture(ops_stack, "ops-metrics")
http = client_fixture("ops")


_eventually = functools.partial(eventually, seconds=WAIT_SECONDS)


def _create(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = http.post("/v1/games", json={"game_type": GAME, **body})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _endpoints(ops: OpsStack) -> dict[str, int]:
    return {
        "rules": ops.rules.metrics_port,
        "conductor": ops.conductor.metrics_port,
        "webhook": ops.webhook.metrics_port,
        "director": ops.director.metrics_port,
    }


def _scrape_text(port: int) -> str:
    response = scrape(port)
    assert response.status_code == 200, response.text
    return response.text


def _play_one_of_each_ending(http: httpx.Client) -> dict[str, list[str]]:
    """Games ended each way (two ended normally: a bot game and a two-bot tournament's table)."""
    bots = [{"name": f"Bot {i}", "bot": "random"} for i in range(3)]
    normal = _create(http, {"players": bots, "seed_hex": seed_hex(11)})["game_id"]
    tournament = http.post(
        "/v1/tournaments",
        json={"game_type": GAME, "format": "round_robin", "table_size": 2, "seed_hex": seed_hex(3),
              "entrants": [{"external_id": f"bot:t{i}", "name": f"T{i}", "bot": "heuristic"} for i in range(2)]},
    )  # fmt: skip
    assert tournament.status_code == 201, tournament.text

    created = _create(http, {"players": [{"name": "Asha"}, {"name": "Bilal"}], "seed_hex": seed_hex(12)})
    resigned, tokens = created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}
    seat, legal = turn(http, resigned, tokens)
    body = {"move": legal["moves"][0], "expected_version": legal["version"]}
    move = http.post(f"/v1/games/{resigned}/moves", json=body, headers=auth(tokens[seat]))
    assert move.status_code == 200, move.text  # one move a seat submitted: the rules service counts it
    assert http.post(f"/v1/games/{resigned}/resign", headers=auth(tokens[0])).status_code == 200

    clocked = {"players": [{"name": "C"}, {"name": "D"}], "clock": {"per_turn_s": 1}, "on_timeout": "resign",
               "timeouts_to_resign": 1, "seed_hex": seed_hex(13)}  # fmt: skip
    timed_out = _create(http, clocked)["game_id"]

    lobby = _create(http, {"players": [{"name": "E"}, {"open": True}], "seed_hex": seed_hex(14)})
    joined = http.post(f"/v1/games/{lobby['game_id']}/join", json={"name": "F"})
    assert joined.status_code == 200 and joined.json()["status"] == "active", joined.text
    abort = http.post(f"/v1/games/{lobby['game_id']}/abort", headers=auth(lobby["host_token"]))
    assert abort.status_code == 200, abort.text
    never_started = _create(http, {"players": [{"name": "G"}, {"open": True}], "seed_hex": seed_hex(15)})
    gone = http.post(f"/v1/games/{never_started['game_id']}/abort", headers=auth(never_started["host_token"]))
    assert gone.status_code == 200, gone.text  # a lobby that never started: not a game that ended

    for game in (normal, resigned, timed_out):
        wait_over(http, game, seconds=60)
    _eventually(
        lambda: http.get(f"/v1/tournaments/{tournament.json()['tournament_id']}").json()["status"] == "finished",
        "tournament finished",
    )
    return {"normal": [normal], "resign": [resigned], "timeout": [timed_out], "abort": [lobby["game_id"]]}


def test_each_end_reason_is_counted_once_by_the_conductor_and_nowhere_else(
    ops: OpsStack, http: httpx.Client
) -> None:
    before = _scrape_text(ops.conductor.metrics_port)
    assert all(value(before, "chaiwala_games_ended_total", reason=r) == 0 for r in REASONS)
    ended = _play_one_of_each_ending(http)
    for reason, games in ended.items():
        status = http.get(f"/v1/games/{games[0]}").json()["status"]
        assert status == ("aborted" if reason == "abort" else "finished"), (reason, status)

    expected = {"normal": 2.0, "resign": 1.0, "timeout": 1.0, "abort": 1.0}

    def counted() -> dict[str, float]:
        text = _scrape_text(ops.conductor.metrics_port)
        return {r: value(text, "chaiwala_games_ended_total", game_type=GAME, reason=r) for r in REASONS}

    _eventually(lambda: counted() == expected, f"{expected} ended")
    time.sleep(1.0)  # the counter's reader polls twice a second: anything counted twice would show by now
    assert counted() == expected
    conductor = _scrape_text(ops.conductor.metrics_port)
    assert value(conductor, "chaiwala_game_duration_seconds_count", game_type=GAME) == 5
    assert value(conductor, "chaiwala_game_duration_seconds_sum", game_type=GAME) >= 1.0  # the clock's second
    assert value(conductor, "chaiwala_games_started_total", game_type=GAME) == 5
    assert value(conductor, "chaiwala_games_finished_total", game_type=GAME) == 4
    assert value(conductor, "chaiwala_bot_moves_total", game_type=GAME) > 0
    assert "chaiwala_moves_accepted" not in families(conductor)  # the seats' moves are the rules service's

    rules = _scrape_text(ops.rules.metrics_port)
    assert value(rules, "chaiwala_moves_accepted_total", game_type=GAME) == 1
    assert value(rules, "chaiwala_lobby_joins_total", game_type=GAME) == 1
    assert value(rules, "chaiwala_games_created_total", game_type=GAME) == 6  # five of ours and the tournament's table
    for name in ("chaiwala_games_ended", "chaiwala_games_finished", "chaiwala_game_duration_seconds",
                 "chaiwala_games_started", "chaiwala_bot_moves"):  # fmt: skip
        assert name not in families(rules), f"the rules service exports {name}"
    director = _scrape_text(ops.director.metrics_port)
    assert value(director, "chaiwala_tournaments_finished_total", game_type=GAME, format="round_robin") == 1


def test_no_process_exports_another_ones_series_and_only_players_of_games_export_game_series(
    ops: OpsStack, http: httpx.Client
) -> None:
    http.get("/v1/games")  # the gateway's own series exist
    # A game series of its own: this test may run on a worker whose stack ended no game yet (xdist
    # splits the module), and the check must see at least one game series to mean anything.
    _create(http, {"players": [{"name": "M"}, {"name": "N"}], "seed_hex": seed_hex(31)})
    texts = {name: _scrape_text(port) for name, port in _endpoints(ops).items()}
    texts["gateway"] = http.get("/metrics", headers=auth(METRICS_TOKEN)).text
    for process in ("webhook", "director", "gateway"):
        game_families = [f for f in families(texts[process]) if f.startswith(GAME_PREFIXES)]
        assert game_families == [], f"{process} exports game series {game_families}"
    owners: dict[tuple[str, frozenset[tuple[str, str]]], str] = {}
    for process, text in texts.items():
        for family, samples in families(text).items():
            if family.startswith(RUNTIME_PREFIXES):
                continue
            for sample_name, labels, _ in samples:
                series = (sample_name, frozenset(labels.items()))
                assert owners.setdefault(series, process) == process, f"{series} from {owners[series]} and {process}"
    assert owners.get(("chaiwala_games_created_total", frozenset({("game_type", GAME)}))) == "rules"  # it saw one


def test_a_rate_limited_request_is_counted_under_its_route(ops: OpsStack, http: httpx.Client) -> None:
    game_id = _create(http, {"players": [{"name": "H"}, {"name": "I"}], "seed_hex": seed_hex(21)})["game_id"]
    tight = Gateway({GAME: ops.rules.address}, rate_limit_per_address="2/minute", metrics_token=METRICS_TOKEN)
    try:
        with httpx.Client(base_url=tight.url, timeout=30) as client:
            answers = [client.get(f"/v1/games/{game_id}").status_code for _ in range(3)]
            assert answers == [200, 200, 429]
            text = client.get("/metrics", headers=auth(METRICS_TOKEN)).text
    finally:
        tight.stop()
    route = "/v1/games/{game_id}"
    assert value(text, "chaiwala_http_requests_total", route=route, status="429") == 1
    assert value(text, "chaiwala_http_requests_total", route=route, status="200") == 2
    assert value(text, "chaiwala_http_requests_total", route="unmatched") == 0


def test_metrics_need_the_bearer_token_when_one_is_set(ops: OpsStack, http: httpx.Client) -> None:
    for process, port in _endpoints(ops).items():
        for token in ("", "not-the-token"):
            refused = scrape(port, token)
            assert refused.status_code == 401, (process, refused.status_code)
            assert "chaiwala_" not in refused.text and refused.headers["www-authenticate"] == "Bearer"
        assert scrape(port, "", path="/healthz").status_code == 200  # probes need no secret
        assert scrape(port).status_code == 200
    problem = assert_problem(http.get("/metrics"), 401, "unauthenticated")
    assert "chaiwala_" not in str(problem)
    assert_problem(http.get("/metrics", headers=auth("not-the-token")), 401, "unauthenticated")
    assert "chaiwala_http_requests_total" in http.get("/metrics", headers=auth(METRICS_TOKEN)).text
