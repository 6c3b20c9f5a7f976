"""A real matchmaker process beside the session's stack (rules services, conductor), and a gateway to it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.stack import Gateway, MatchmakerProcess

_POOLS = itertools.count(1)


@pytest.fixture(scope="session")
def mm_stack(stack: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The session's rules services and conductor, one matchmaker process, and a gateway routing to all."""
    services = {game: svc.address for game, svc in stack["services"].items()}
    redis_url = stack["gateway"].settings.redis_url
    matchmaker = MatchmakerProcess(redis_url, services, tmp_path_factory.mktemp("matchmaker") / "matchmaker.log")
    gateway = Gateway(services, redis_url=redis_url, create_limit="500/second;1000000/hour",
                      session_limit="500/second;1000000/hour", service_matchmaking=matchmaker.address)  # fmt: skip
    try:
        yield {"url": gateway.url, "matchmaker": matchmaker, "services": services, "redis_url": redis_url}
    finally:
        gateway.stop()
        matchmaker.stop()


@pytest.fixture()
def client(mm_stack: dict[str, Any]) -> Iterator[httpx.Client]:
    """An HTTP client of the matchmaker's gateway."""
    with httpx.Client(base_url=str(mm_stack["url"]), timeout=120) as http:
        yield http


@pytest.fixture()
def clock() -> dict[str, int]:
    """A time control no other test uses: its tickets are alone in their pools."""
    return {"per_turn_s": 100 + next(_POOLS)}
