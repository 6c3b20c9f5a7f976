"""The tournament director as a real process beside the session's stack, and a gateway to it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.stack import DirectorProcess, Gateway


@pytest.fixture(scope="session")
def director_stack(stack: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The session's rules services and conductor, a director process, and a gateway routing to all."""
    services = {game: svc.address for game, svc in stack["services"].items()}
    director = DirectorProcess(_redis_url(stack), services, tmp_path_factory.mktemp("director") / "director.log")
    gateway = Gateway(services, redis_url=_redis_url(stack), create_limit="500/second;1000000/hour",
                      service_tournament=director.address)  # fmt: skip
    try:
        yield {"url": gateway.url, "director": director, "services": stack["services"], "redis_url": _redis_url(stack)}
    finally:
        gateway.stop()
        director.stop()


def _redis_url(stack: dict[str, Any]) -> str:
    gateway: Gateway = stack["gateway"]
    return gateway.settings.redis_url


@pytest.fixture()
def client(director_stack: dict[str, Any]) -> Iterator[httpx.Client]:
    """An HTTP client of the director's gateway."""
    with httpx.Client(base_url=str(director_stack["url"]), timeout=120) as http:
        yield http
