"""Quick play through the session's stack: its rules services, conductor, matchmaker and gateway."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

_POOLS = itertools.count(1)


@pytest.fixture(scope="session")
def mm_stack(stack: dict[str, Any]) -> dict[str, Any]:
    """The session's stack as quick-play tests use it: the gateway, the matchmaker, the rules services."""
    services = {game: svc.address for game, svc in stack["services"].items()}
    redis_url = stack["gateway"].settings.redis_url
    return {"url": stack["url"], "matchmaker": stack["matchmaker"], "services": services, "redis_url": redis_url}


@pytest.fixture()
def client(mm_stack: dict[str, Any]) -> Iterator[httpx.Client]:
    """An HTTP client of the session's gateway."""
    with httpx.Client(base_url=str(mm_stack["url"]), timeout=120) as http:
        yield http


@pytest.fixture()
def clock() -> dict[str, int]:
    """A time control no other test uses: its tickets are alone in their pools."""
    return {"per_turn_s": 100 + next(_POOLS)}
